import AdCampaign
import AdDecision
import AdStitching
import Crypto
import Foundation
import Testing

/// Every file of every session the invariant tests stitch (both demos, 50 varied viewers each)
/// and of the fixture campaigns (20 viewers each), named by its SHA-256 in
/// `Golden/session-digests.txt`: the renderer may be rewritten for speed, but what a player
/// receives does not change by a byte unless a reviewed change says so.
///
/// The digests were first written by the renderer that built each playlist as a `String`
/// (commit 69a6b8e), before the byte-block renderer replaced it. To accept a deliberate change:
///
///     ADSTITCH_UPDATE_GOLDEN=1 swift test --filter AdStitchingTests.OutputDigestTests
@Suite("Output digests")
struct OutputDigestTests {
    static let file = Repository.golden.appendingPathComponent("session-digests.txt")

    /// The fixture campaigns and the style their URIs are written in (rebased, so the digests do
    /// not depend on where the tests are built).
    static let fixtures = ["aes-fmp4.yaml", "aes-ts.yaml", "byterange.yaml", "cue.yaml", "ladder.yaml", "renditions.yaml"]

    /// `campaign session file digest` lines, in a fixed order.
    static func digests() throws -> [String] {
        var lines: [String] = []
        func add(_ layout: StitchLayout, _ viewers: [ViewerContext]) throws {
            let renderer = SessionRenderer(layout: layout)
            for context in viewers {
                let plan = Planner().plan(layout.campaign, for: context)
                for (file, text) in try renderer.renderAll(plan) {
                    let digest = SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
                    lines.append("\(layout.campaign.id) \(context.session) \(file.name) \(digest)")
                }
            }
        }
        for demo in Demo.allCases {
            let campaign = try demo.campaign()
            try add(
                StitchLayout(campaign: campaign, uris: Demo.uris(for: campaign), emptySubtitleURI: StitchedSession.emptySubtitleURI),
                variedViewers(50)
            )
        }
        let base = URL(string: "https://cdn.example/fixtures/")!
        for name in Self.fixtures {
            let campaign = try Fixture.load(name)
            try add(StitchLayout(campaign: campaign, uris: .rebased(root: Fixture.directory, onto: base)), variedViewers(20))
        }
        return lines
    }

    @Test("Every file of every session is byte for byte what the reviewed renderer wrote")
    func unchanged() throws {
        let actual = try Self.digests()
        if GoldenTests.isUpdating {
            try Data((actual.joined(separator: "\n") + "\n").utf8).write(to: Self.file)
            return
        }
        let expected = try String(contentsOf: Self.file, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(actual.count == expected.count, "\(actual.count) files rendered, \(expected.count) recorded")
        // A loop over both lists: an empty rendering cannot pass by having nothing to compare.
        #expect(expected.count > 1_000)
        for (line, recorded) in zip(actual, expected) where line != recorded {
            Issue.record("rendered \(line), recorded \(recorded)")
        }
    }
}
