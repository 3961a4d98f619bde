import AdCampaign
import AdCampaignStore
import AdDecision
import AdStitching
import Foundation
import HLSPlaylist
import Logging
import Synchronization
import Testing

/// The campaign store alone, without a server: it lays campaigns out with the media URIs its
/// caller gives, and knows no route.
@Suite("Campaign store")
struct CampaignStoreTests {
    static let campaigns = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Campaigns")

    /// Copies the demo campaigns with local media: a campaign in its own folder, and one as a
    /// `*.yaml` at the top of the folder beside them (its media in a sibling folder).
    static func folder() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        for name in ["evening-news", "feature-fmp4"] {
            try FileManager.default.copyItem(at: Self.campaigns.appendingPathComponent(name), to: root.appendingPathComponent(name))
        }
        let yaml = try String(contentsOf: root.appendingPathComponent("evening-news/campaign.yaml"), encoding: .utf8)
        let top = yaml.replacingOccurrences(of: "id: evening-news", with: "id: top-level")
            .replacingOccurrences(of: "playlist: media/", with: "playlist: evening-news/media/")
        try #require(top != yaml, "the copy must differ in its id")
        try top.write(to: root.appendingPathComponent("top-level.yaml"), atomically: true, encoding: .utf8)
        return root
    }

    @Test("every campaign is laid out with the caller's media URIs: each campaign's id and folder, every local segment, key and map line")
    func mediaURIs() throws {
        let root = try Self.folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let asked = Mutex<[String: URL]>([:])
        let store = CampaignStore(
            folder: root,
            logger: Logger(label: "test"),
            mediaURIs: { id, folder in
                asked.withLock { $0[id] = folder.standardizedFileURL }
                return .rebased(root: folder, onto: URL(string: "https://cdn.example/\(id)/")!)
            }
        )
        let statuses = store.statuses
        #expect(statuses.count == 3)
        for status in statuses { #expect(status.error == nil, "\(status.file): \(status.error ?? "")") }
        let ids = Set(statuses.compactMap(\.id))
        #expect(ids == ["evening-news", "feature-fmp4", "top-level"])
        #expect(Set(asked.withLock { $0.keys }) == ids)

        for id in ids.sorted() {
            let served = try #require(store.campaign(id))
            #expect(asked.withLock { $0[id] } == served.folder.standardizedFileURL)
            let plan = Planner().plan(served.campaign, for: ViewerContext(session: "s-\(id)", milliseconds: 0, attributes: [:]))
            let kind = served.renderer.session(.stitched)
            var uriLines = 0
            for file in kind.files where file.name != "master.m3u8" && file.name.hasSuffix(".m3u8") {
                let text = try kind.render(file, plan).text
                let playlist = try PlaylistParser().parseMediaPlaylist(text)
                for segment in playlist.segments {
                    // The session's own files (an ad without subtitles plays the session's empty
                    // WebVTT) stay relative to the session; every medium is the caller's.
                    if kind.file(named: String(segment.uri)) != nil { continue }
                    #expect(segment.uri.hasPrefix("https://cdn.example/\(id)/"), "\(id)/\(file.name): \(segment.uri)")
                    uriLines += 1
                }
                for line in text.split(separator: "\n") where line.contains("URI=\"") {
                    // Keys and init sections of the campaign's own media.
                    #expect(line.contains("URI=\"https://cdn.example/\(id)/") || line.hasPrefix("#EXT-X-DATERANGE"), "\(id)/\(file.name): \(line)")
                }
                #expect(!text.contains("/v1/campaigns/"), "\(id)/\(file.name): the store knows no route")
            }
            #expect(uriLines > 0, "\(id): a campaign without segment lines proves nothing")
        }
    }
}
