import AdCampaign
import AdDecision
import AdLive
import AdStitching
import Crypto
import Foundation
import HLSPlaylist
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

    /// `campaign session file digest` lines, in a fixed order: every file of every session of
    /// `demoViewers` varied viewers of each demo and `fixtureViewers` of each fixture in
    /// `insertion` mode — for interstitial sessions the asset list of every break that plays,
    /// with a base URL as the server writes them.
    static func digests(_ insertion: Insertion = .stitched, demoViewers: Int = 50, fixtureViewers: Int = 20) throws -> [String] {
        var lines: [String] = []
        func add(_ layout: StitchLayout, _ viewers: [ViewerContext]) throws {
            let kind = SessionRenderer(layout: layout).session(insertion)
            for context in viewers {
                let plan = Planner().plan(layout.campaign, for: context)
                for file in kind.files(playing: plan) {
                    let text = try kind.render(file, plan, links: SessionLinks(base: "https://stitch.example/v1/campaigns/x/")).text
                    lines.append("\(layout.campaign.id) \(context.session) \(file.name) \(Self.digest(text))")
                }
            }
        }
        for demo in Demo.allCases {
            let campaign = try demo.campaign()
            try add(
                StitchLayout(campaign: campaign, uris: Demo.uris(for: campaign), emptySubtitleURI: StitchedSession.emptySubtitleURI),
                variedViewers(demoViewers)
            )
        }
        let base = URL(string: "https://cdn.example/fixtures/")!
        for name in Self.fixtures {
            let campaign = try Fixture.load(name)
            try add(StitchLayout(campaign: campaign, uris: .rebased(root: Fixture.directory, onto: base)), variedViewers(fixtureViewers))
        }
        return lines
    }

    /// The same for live sessions: the simulated channel of ``LiveSessionTests`` (breaks with an
    /// early return, one announced past its end, a discontinuity), polled segment by segment;
    /// at every poll, for viewers joining at different points, every rendition's playlist and
    /// the boundary manifest, cut as the server cuts windows (``LiveChannelTimeline/cut(at:)``).
    static func liveDigests() throws -> [String] {
        let channel = LiveSessionTests.Channel(breaks: [(10, 4, 4), (20, 4, 2), (31, 3, nil)], window: 8)
        var lines: [String] = []
        for (name, yaml) in [
            ("slate", LiveSessionTests.campaign), ("program", LiveSessionTests.campaign + "\njoin_mid_break: program"),
        ] {
            let campaign = try LiveSessionTests.load(yaml, channel: channel)
            let live = try #require(campaign.live)
            let layout = try StitchLayout(campaign: campaign, uris: .absolute)
            let renderer = SessionRenderer(layout: layout)
            var timeline = LiveChannelTimeline(renditions: 2, tracker: LiveBreakTracker(defaultDuration: live.defaultDuration))
            let viewers = [(session: "early", joined: 5), (session: "mid-break", joined: 12), (session: "late", joined: 27)]
            for last in 5...40 {
                // Each poll when its newest segment has just ended: segments first seen at their ends.
                let edge = ExactDecimal(LiveSessionTests.epoch + 2 * last + 2)
                for (index, rendition) in ["v0", "v1"].enumerated() {
                    let playlist = try PlaylistParser().parseMediaPlaylist(
                        channel.playlist(rendition, last: last),
                        url: URL(string: "https://origin.test/channel/\(rendition).m3u8")!
                    )
                    #expect(timeline.accept(playlist, rendition: index, at: edge).refusal == nil)
                }
                let cut = timeline.cut(at: edge)
                let windows = cut.windows.compactMap { $0 }
                for viewer in viewers where viewer.joined <= last {
                    let at = Int64(LiveSessionTests.epoch + 2 * viewer.joined) * 1000
                    let plan = Planner().plan(campaign, for: ViewerContext(session: viewer.session, milliseconds: at, attributes: [:]))
                    let schedule = try LiveSchedule(
                        plan: plan,
                        live: live,
                        layout: layout,
                        breaks: cut.breaks,
                        joined: viewer.joined,
                        liveEdge: edge
                    )
                    for (index, rendition) in layout.renditions.enumerated() {
                        let playlist = try renderer.livePlaylist(schedule, rendition: rendition, window: windows[index])
                        lines.append(
                            "\(name) \(viewer.session) poll-\(last) \(rendition.id).m3u8 \(Self.digest(playlist.text))"
                        )
                    }
                    lines.append(
                        "\(name) \(viewer.session) poll-\(last) boundaries.json \(Self.digest(schedule.manifest(windows[0], trackers: campaign.reporting.handsTrackersToPlayer).text()))"
                    )
                }
            }
        }
        return lines
    }

    static func digest(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    @Test("Every file of every stitched session is byte for byte what the reviewed renderer wrote")
    func unchanged() throws {
        try Self.compare(try Self.digests(), with: Self.file, atLeast: 1_000)
    }

    @Test("Every file of every interstitial session is byte for byte what the reviewed renderer wrote")
    func interstitialsUnchanged() throws {
        try Self.compare(
            try Self.digests(.interstitials, demoViewers: 20, fixtureViewers: 8),
            with: Repository.golden.appendingPathComponent("interstitial-digests.txt"),
            atLeast: 500
        )
    }

    @Test("Every live playlist and manifest of every poll is byte for byte what the reviewed renderer wrote")
    func liveUnchanged() throws {
        try Self.compare(try Self.liveDigests(), with: Repository.golden.appendingPathComponent("live-digests.txt"), atLeast: 400)
    }

    /// `actual` against the lines of `file` (rewritten instead with `ADSTITCH_UPDATE_GOLDEN=1`).
    static func compare(_ actual: [String], with file: URL, atLeast minimum: Int) throws {
        if GoldenTests.isUpdating {
            try Data((actual.joined(separator: "\n") + "\n").utf8).write(to: file)
            return
        }
        let expected = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(actual.count == expected.count, "\(actual.count) files rendered, \(expected.count) recorded")
        // A loop over both lists: an empty rendering cannot pass by having nothing to compare.
        #expect(expected.count > minimum)
        for (line, recorded) in zip(actual, expected) where line != recorded {
            Issue.record("rendered \(line), recorded \(recorded)")
        }
    }
}
