import AdCampaign
import AdDecision
import AdOrigin
import AdStitching
import Foundation
import Testing

/// A campaign whose playlists are on an http origin (the evening-news demo served over loopback):
/// loaded through the origin client, its segments and keys written as absolute URLs on the
/// origin, its revision a function of the fetched bytes, a missing playlist reported at the
/// campaign's line with the URL and status.
@Suite("Remote campaigns")
struct RemoteCampaignTests {
    static let demo = Repository.root.appendingPathComponent("Campaigns/evening-news")

    /// The demo's YAML with every `playlist: media/…` on `base` (ending in `/`), written to a
    /// folder of its own; `replacing` edits the YAML first.
    static func campaign(base: String, replacing: (String) -> String = { $0 }) throws -> URL {
        let yaml = try String(contentsOf: Self.demo.appendingPathComponent("campaign.yaml"), encoding: .utf8)
            .replacingOccurrences(of: "playlist: media/", with: "playlist: \(base)media/")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("remote-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("campaign.yaml")
        try Data(replacing(yaml).utf8).write(to: file)
        return file
    }

    static func load(_ file: URL, _ client: OriginClient) -> Result<Campaign, CampaignError> {
        Result { () throws(CampaignError) in try CampaignLoader.load(file, source: client.playlistSource) }
    }

    @Test("the demo loads from the origin; segments and keys stay on it; the revision follows the bytes; a 404 names line, URL and status")
    func remoteDemo() async throws {
        let origin = try await StaticServer(root: Self.demo)
        let base = origin.base.absoluteString
        let client = OriginClient()
        defer { Task { try? await client.shutdown() } }
        let file = try Self.campaign(base: base)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }

        let campaign = try Self.load(file, client).get()
        #expect(campaign.files.playlists.isEmpty && campaign.files.media.isEmpty, "nothing local is read or watched")
        #expect(try Self.load(file, client).get().revision == campaign.revision)
        // Behind two redirects: relative URIs resolve against the URL the playlists were found at.
        let redirected = try Self.campaign(base: base + "_/redirect/2/")
        defer { try? FileManager.default.removeItem(at: redirected.deletingLastPathComponent()) }
        let viaRedirect = try Self.load(redirected, client).get()
        let redirectedLayout = try StitchLayout(campaign: viaRedirect, uris: .absolute)
        let redirectedPlan = Planner().plan(viaRedirect, for: ViewerContext(session: "r", at: Date(timeIntervalSince1970: 1_795_800_000)))
        let redirectedURIs = try SessionRenderer(layout: redirectedLayout).mediaPlaylist(redirectedPlan, rendition: redirectedLayout.renditions[0])
            .split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(!redirectedURIs.isEmpty && redirectedURIs.allSatisfy { $0.hasPrefix(base + "media/") }, "\(redirectedURIs.prefix(2))")
        // Only the multivariant playlists the campaign names were asked for behind the redirects:
        // their variant playlists were requested where the redirects ended.
        let redirectedHits = try origin.hits().keys.filter { $0.hasPrefix("/_/redirect/2/") }
        #expect(!redirectedHits.isEmpty && redirectedHits.allSatisfy { $0.hasSuffix("/master.m3u8") }, "\(redirectedHits)")

        let layout = try StitchLayout(campaign: campaign, uris: .absolute)
        let plan = Planner().plan(
            campaign,
            for: ViewerContext(session: "remote-1", at: Date(timeIntervalSince1970: 1_795_800_000), attributes: [:])
        )
        let playlist = try SessionRenderer(layout: layout).mediaPlaylist(plan, rendition: layout.renditions[0])
        let uris = playlist.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(uris.count > 10)
        #expect(uris.allSatisfy { $0.hasPrefix(base + "media/") }, "\(uris.prefix(3))")
        let keys = playlist.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-KEY:METHOD=AES-128") }
        #expect(!keys.isEmpty && keys.allSatisfy { $0.contains("URI=\"\(base)media/") })

        // act-2 on a path the origin does not have: line 10 of the campaign, with URL and status.
        let broken = try Self.campaign(base: base) {
            $0.replacingOccurrences(of: "media/program/act-2/master.m3u8", with: "media/program/gone/master.m3u8")
        }
        defer { try? FileManager.default.removeItem(at: broken.deletingLastPathComponent()) }
        guard case .failure(let error) = Self.load(broken, client) else {
            Issue.record("a campaign with a missing remote playlist loaded")
            return
        }
        let issue = try #require(error.issues.first)
        #expect(issue.file == broken.path && issue.line == 10 && issue.field == "program.islands[1].playlist", "\(issue)")
        #expect(issue.message.contains("\(base)media/program/gone/master.m3u8 answered HTTP 404"), "\(issue.message)")
    }

    @Test("the campaign's origin: block sets the timeout: a slow origin is an error at the campaign's line; bad values are refused")
    func originBlock() async throws {
        let origin = try await StaticServer(root: Self.demo)
        let base = origin.base.absoluteString
        let client = OriginClient()
        defer { Task { try? await client.shutdown() } }
        let slow = try Self.campaign(base: base + "_/slow/1500/") {
            $0.replacingOccurrences(of: "title:", with: "origin: { timeout: 0.5, attempts: 1 }\ntitle:")
        }
        defer { try? FileManager.default.removeItem(at: slow.deletingLastPathComponent()) }
        guard case .failure(let error) = Self.load(slow, client) else {
            Issue.record("a campaign on an origin slower than its timeout loaded")
            return
        }
        let issue = try #require(error.issues.first)
        #expect(issue.line > 0 && issue.field.hasSuffix(".playlist"), "\(issue)")
        #expect(issue.message.contains("\(base)_/slow/1500/media/") && issue.message.contains("did not answer in time"), "\(issue.message)")

        let bad = try Self.campaign(base: base) {
            $0.replacingOccurrences(of: "title:", with: "origin: { timeout: 0, attempts: 11, retries: 2 }\ntitle:")
        }
        defer { try? FileManager.default.removeItem(at: bad.deletingLastPathComponent()) }
        guard case .failure(let refused) = Self.load(bad, client) else {
            Issue.record("a campaign with a bad origin: block loaded")
            return
        }
        let fields = Set(refused.issues.map(\.field))
        #expect(fields.isSuperset(of: ["origin.timeout", "origin.attempts"]), "\(refused.issues)")
        #expect(refused.issues.contains { $0.field == "origin.retries" && $0.message.contains("unknown key") }, "\(refused.issues)")
    }
}
