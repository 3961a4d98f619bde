import Foundation
import Testing

extension RealClients {
    /// `adstitch serve` over a campaign whose playlists are on an http origin (the repository's
    /// static server over the evening-news demo): sessions play with every segment and key on the
    /// origin; the server serves playlists, never the remote media.
    @Suite("Remote campaigns, served", .serialized)
    struct RemoteServeTests {
        @Test("a campaign on an origin loads at start, and its sessions' playlists point at the origin")
        func servesARemoteCampaign() throws {
            let origin = try StaticServer(root: Repository.root.appendingPathComponent("Campaigns/evening-news"))
            let base = origin.base.absoluteString
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("remote-serve-\(UUID().uuidString.prefix(8))")
            defer { try? FileManager.default.removeItem(at: folder) }
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("news"), withIntermediateDirectories: true)
            let yaml = try String(contentsOf: Repository.campaign("evening-news"), encoding: .utf8)
                .replacingOccurrences(of: "playlist: media/", with: "playlist: \(base)media/")
            try Data(yaml.utf8).write(to: folder.appendingPathComponent("news/campaign.yaml"))

            let server = try HardeningEndToEndTests.Server(campaigns: folder)
            defer { kill(server.process.pid, SIGKILL) }
            let master = try server.get("/v1/campaigns/evening-news/master.m3u8?session=remote-1&locale=es-ES")
            #expect(master.status == 200, "\(master.body)")
            let variant = try #require(master.body.split(separator: "\n").first { $0.hasPrefix("sessions/") && $0.hasSuffix("/v0.m3u8") })
            let playlist = try server.get("/v1/campaigns/evening-news/" + variant)
            #expect(playlist.status == 200)
            let uris = playlist.body.split(separator: "\n").filter { !$0.hasPrefix("#") }
            #expect(uris.count > 10 && uris.allSatisfy { $0.hasPrefix(base + "media/") }, "\(uris.prefix(3))")
            let keys = playlist.body.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-KEY:METHOD=AES-128") }
            #expect(!keys.isEmpty && keys.allSatisfy { $0.contains("URI=\"\(base)media/") })
        }
    }
}
