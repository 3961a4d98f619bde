import AdCampaign
import AdCampaignStore
import AdStitchServer
import AdStitching
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// Breaks that resume the programme inside its final segment, which hls.js before 1.7 stalls
/// after in interstitial sessions (docs/real-clients.md): found per campaign revision, warned of
/// by `adstitch validate`, and served stitched to those players by `insertion=auto`.
@Suite("Breaks resuming in the programme's final segment")
struct FinalSegmentResumeTests {
    /// A copy of the TS demo whose last island, act-2, is one segment (its first): the mid-roll
    /// after act-1 resumes the programme in its final segment; the pre-roll and post-roll do not.
    static func lastIslandOfOneSegment() throws -> (folder: URL, file: URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("final-segment-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let campaign = folder.appendingPathComponent("news")
        try FileManager.default.copyItem(at: RouteTests.campaigns.appendingPathComponent("evening-news"), to: campaign)
        for rung in ["240p", "360p"] {
            let playlist = campaign.appendingPathComponent("media/program/act-2/\(rung)/index.m3u8")
            var lines = try String(contentsOf: playlist, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            // Keep the header and the first segment: drop from the second #EXTINF to the end list.
            let extinfs = lines.indices.filter { lines[$0].hasPrefix("#EXTINF:") }
            let endList = try #require(lines.firstIndex(of: "#EXT-X-ENDLIST"))
            lines.removeSubrange(extinfs[1]..<endList)
            try Data(lines.joined(separator: "\n").utf8).write(to: playlist)
        }
        return (folder, campaign.appendingPathComponent("campaign.yaml"))
    }

    /// A copy of the single-asset demo with its timed break moved to the start of the programme's
    /// last segment (28.8 s of 30.72 s, 1.92 s segments): an insertion point that resumes there.
    static func cutAtTheLastSegment() throws -> (folder: URL, file: URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("final-cut-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let campaign = folder.appendingPathComponent("single")
        try FileManager.default.copyItem(at: RouteTests.campaigns.appendingPathComponent("single-asset"), to: campaign)
        let file = campaign.appendingPathComponent("campaign.yaml")
        let yaml = try String(contentsOf: file, encoding: .utf8)
        #expect(yaml.contains("at: 24.0,"))
        try Data(yaml.replacingOccurrences(of: "at: 24.0,", with: "at: 28.8,").utf8).write(to: file)
        return (folder, file)
    }

    static let chrome = "Mozilla/5.0 (X11; Linux x86_64) Chrome/120"

    /// The session's insertion mode, as its boundary manifest says.
    static func mode(_ client: some TestClientProtocol, _ campaign: String, _ query: String, agent: String = Self.chrome) async throws -> String {
        let uri = try await client.execute(
            uri: "/v1/campaigns/\(campaign)/master.m3u8?session=f-1&\(query)",
            method: .get,
            headers: [.userAgent: agent]
        ) { response in
            #expect(response.status == .ok)
            return try #require(
                String(buffer: response.body).split(separator: "\n").first { $0.hasPrefix("sessions/") && $0.hasSuffix("/v0.m3u8") }
            )
        }
        let manifest = "/v1/campaigns/\(campaign)/" + uri.dropLast("v0.m3u8".count) + "boundaries.json"
        return try await client.execute(uri: manifest, method: .get) { response in
            let json = try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]
            return try #require(json?["insertion"] as? String)
        }
    }

    @Test("the query finds the mid-roll before a last island of one segment, and no break of the demos")
    func findsBreaksResumingInTheFinalSegment() throws {
        let (folder, file) = try Self.lastIslandOfOneSegment()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(InterstitialSchedule.breaksResumingInFinalSegment(of: try CampaignLoader.load(file)) == ["mid-1"])
        let (cutFolder, cutFile) = try Self.cutAtTheLastSegment()
        defer { try? FileManager.default.removeItem(at: cutFolder) }
        #expect(InterstitialSchedule.breaksResumingInFinalSegment(of: try CampaignLoader.load(cutFile)) == ["late"])
        for demo in ["evening-news", "feature-fmp4", "single-asset"] {
            let campaign = try CampaignLoader.load(RouteTests.campaigns.appendingPathComponent("\(demo)/campaign.yaml"))
            #expect(InterstitialSchedule.breaksResumingInFinalSegment(of: campaign).isEmpty, "\(demo)")
        }
    }

    @Test("validate warns of a break resuming in the final segment, at the break's line, with what to do")
    func validateWarns() throws {
        let (folder, file) = try Self.lastIslandOfOneSegment()
        defer { try? FileManager.default.removeItem(at: folder) }
        let warnings = try CampaignLoader.load(file).warnings.filter { $0.message.contains("hls.js before 1.7") }
        #expect(warnings.count == 1, "\(warnings)")
        let warning = try #require(warnings.first)
        #expect(warning.file == file.path)
        #expect(warning.line == 13 && warning.field == "breaks[1]", "\(warning)")
        #expect(warning.message.contains("break \"mid-1\" resumes the programme at 7.68 s, inside its final segment"), "\(warning)")
        #expect(warning.message.contains("hls.js before 1.7 stalls after this break in interstitial sessions"), "\(warning)")
        #expect(warning.message.contains("give the last island at least two segments, or serve stitched"), "\(warning)")

        let (cutFolder, cutFile) = try Self.cutAtTheLastSegment()
        defer { try? FileManager.default.removeItem(at: cutFolder) }
        let cut = try CampaignLoader.load(cutFile).warnings.filter { $0.message.contains("hls.js before 1.7") }
        #expect(cut.count == 1 && cut.first?.message.contains("break \"late\" resumes the programme at 28.8 s") == true, "\(cut)")
        for demo in ["evening-news", "feature-fmp4", "single-asset"] {
            let campaign = try CampaignLoader.load(RouteTests.campaigns.appendingPathComponent("\(demo)/campaign.yaml"))
            #expect(!campaign.warnings.contains { $0.message.contains("hls.js before 1.7") }, "\(demo)")
        }
    }

    @Test("insertion=auto: stitched for hls.js before 1.7 on such a campaign, interstitials for hls.js 1.7 and on ordinary campaigns")
    func autoServesStitchedToHlsJs16() async throws {
        let (folder, _) = try Self.lastIslandOfOneSegment()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = CampaignStore(folder: folder, logger: Logger(label: "test"))
        let app = buildApplication(store: store, policy: SessionPolicy(secret: RouteTests.secret))
        let ordinary = RouteTests().app()
        try await app.test(.live) { client async throws in
            #expect(try await Self.mode(client, "evening-news", "insertion=auto&player=hls.js/1.6.15") == "stitched")
            #expect(try await Self.mode(client, "evening-news", "insertion=auto&player=hlsjs/1.6") == "stitched")
            // Without a version it may be a 1.6.
            #expect(try await Self.mode(client, "evening-news", "insertion=auto&player=hls.js") == "stitched")
            #expect(try await Self.mode(client, "evening-news", "insertion=auto&player=hls.js/1.7.0") == "interstitials")
            #expect(try await Self.mode(client, "evening-news", "insertion=auto&player=hls.js/2.0.1") == "interstitials")
            // AVPlayer does not have hls.js's stall; an explicit mode is served as asked.
            let iPhone = "AppleCoreMedia/1.0.0.21E236 (iPhone; U; CPU OS 17_4 like Mac OS X; de_de)"
            #expect(try await Self.mode(client, "evening-news", "insertion=auto", agent: iPhone) == "interstitials")
            #expect(try await Self.mode(client, "evening-news", "insertion=interstitials&player=hls.js/1.6.15") == "interstitials")
            #expect(try await Self.mode(client, "evening-news", "insertion=auto") == "stitched")
        }
        try await ordinary.test(.live) { client async throws in
            #expect(try await Self.mode(client, "evening-news", "insertion=auto&player=hls.js/1.6.15") == "interstitials")
            #expect(try await Self.mode(client, "single-asset", "insertion=auto&player=hls.js/1.6.15") == "interstitials")
            #expect(try await Self.mode(client, "evening-news", "insertion=auto&player=hls.js/1.7.0") == "interstitials")
        }
    }
}
