import AdCampaign
import Foundation
import Testing

/// A campaign folder whose media is a symbolic link to a shared library outside it: refused (files
/// are read and served only from inside the folder), with a message that says it is a link and
/// where it points — the path shown is inside the folder, so "outside" alone misleads.
@Suite("Media behind a symbolic link")
struct LinkedMediaTests {
    @Test("an ads folder linked to a shared library is refused, naming the link's target")
    func linkedAdsFolder() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("linked-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let campaign = scratch.appendingPathComponent("campaign")
        let library = scratch.appendingPathComponent("ad-library")
        try FileManager.default.createDirectory(at: campaign.appendingPathComponent("media"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Fixture.url("media/program"), to: campaign.appendingPathComponent("media/program"))
        try FileManager.default.copyItem(at: Fixture.url("media/ads"), to: library)
        try FileManager.default.createSymbolicLink(at: campaign.appendingPathComponent("media/ads"), withDestinationURL: library)
        let file = campaign.appendingPathComponent("campaign.yaml")

        let found: [CampaignIssue]
        do {
            _ = try CampaignLoader.load(yaml: minimalCampaign, file: file)
            found = []
        } catch {
            found = error.issues
        }
        let issue = try #require(found.first { $0.field == "pools.prime[0].playlist" }, "\(found)")
        let shown = campaign.appendingPathComponent("media/ads/alpha/master.m3u8").standardizedFileURL.path
        #expect(issue.message.contains(shown), "\(issue.message)")
        #expect(issue.message.contains("symbolic link"), "\(issue.message)")
        #expect(issue.message.contains(library.resolvingSymlinksInPath().path + "/alpha/master.m3u8"), "\(issue.message)")
        #expect(issue.message.contains("outside the campaign's folder"), "\(issue.message)")
        #expect(issue.message.contains("--media-root"), "\(issue.message)")

        // Named as a media root, the library serves through the link.
        let campaignLoaded = try CampaignLoader.load(yaml: minimalCampaign, file: file, source: .files.allowingLinks(into: [library]))
        let segment = campaign.appendingPathComponent("media/ads/alpha").standardizedFileURL
        #expect(
            campaignLoaded.files.media.keys.contains { $0.path.hasPrefix(segment.path + "/") },
            "the ad's segments, by their path through the link"
        )
        // A media root is reached through a link only: a path that names a file outside the folder stays refused.
        let escaping = minimalCampaign.replacingOccurrences(of: "media/ads/alpha/master.m3u8", with: "../ad-library/alpha/master.m3u8")
        do {
            _ = try CampaignLoader.load(yaml: escaping, file: file, source: .files.allowingLinks(into: [library]))
            Issue.record("a path outside the folder loaded")
        } catch {
            #expect(error.issues.contains { $0.message.contains("is outside the campaign's folder") }, "\(error.issues)")
        }
    }
}
