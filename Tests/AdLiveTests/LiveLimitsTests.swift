import AdCampaign
import Foundation
import HLSPlaylist
import Testing

@testable import AdLive

/// Numbers from a live origin are checked where they enter (docs/reliability.md "Live origin
/// faults"): a window outside the ranges is refused whole, a marker's absurd duration is bounded.
@Suite("Live origin limits")
struct LiveLimitsTests {
    static func window(target: String = "2", sequence: String = "10", discontinuity: String = "0", duration: String = "2.000") throws -> MediaPlaylist
    {
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:\(target)\n#EXT-X-MEDIA-SEQUENCE:\(sequence)\n#EXT-X-DISCONTINUITY-SEQUENCE:\(discontinuity)\n"
        text += "#EXT-X-PROGRAM-DATE-TIME:2026-11-27T20:00:00.000Z\n"
        for n in 0..<3 { text += "#EXTINF:\(n == 1 ? duration : "2.000"),\ns\(n).ts\n" }
        return try PlaylistParser().parseMediaPlaylist(text)
    }

    @Test("an ordinary window passes")
    func ordinary() throws {
        #expect(LiveLimits.problem(in: try Self.window()) == nil)
        #expect(LiveLimits.problem(in: try Self.window(target: "60", duration: "60")) == nil)
    }

    @Test(
        "a window whose target duration, segment duration or sequence numbers are out of range is refused",
        arguments: [
            ("target 2⁶³−1", "9223372036854775807", "10", "0", "2.000", "EXT-X-TARGETDURATION"),
            ("target a day", "86400", "10", "0", "2.000", "EXT-X-TARGETDURATION"),
            ("target 0", "0", "10", "0", "2.000", "EXT-X-TARGETDURATION"),
            ("a segment of an hour", "2", "10", "0", "3600", "lasts"),
            ("media sequence near 2⁶³", "2", "9223372036854775000", "0", "2.000", "EXT-X-MEDIA-SEQUENCE"),
            ("discontinuity sequence near 2⁶³", "2", "10", "9223372036854775000", "2.000", "EXT-X-DISCONTINUITY-SEQUENCE"),
        ]
    )
    func refused(name: String, target: String, sequence: String, discontinuity: String, duration: String, names: String) throws {
        let problem = LiveLimits.problem(in: try Self.window(target: target, sequence: sequence, discontinuity: discontinuity, duration: duration))
        #expect(problem?.contains(names) == true, "\(name): \(problem ?? "accepted")")
    }

    @Test("a marker announcing 10¹⁹ s opens a break of at most an hour, and says so")
    func hugeMarkerDuration() throws {
        var tracker = LiveBreakTracker(defaultDuration: 8)
        tracker.observe(try LiveBreakTrackerTests.window(0..<6, markers: [2: ["#EXT-X-CUE-OUT:DURATION=9999999999999999999"]]))
        #expect(tracker.open?.duration == LiveLimits.maxBreakDuration)
        #expect(tracker.problems.contains { $0.contains("longer than 3600 s") }, "\(tracker.problems)")
    }

    @Test("a marker announcing a negative duration is planned for marker_breaks.duration and ends there")
    func negativeMarkerDuration() throws {
        var tracker = LiveBreakTracker(defaultDuration: 4)
        let markers = [2: ["#EXT-X-CUE-OUT:DURATION=-5"]]
        tracker.observe(try LiveBreakTrackerTests.window(0..<6, markers: markers))
        #expect(tracker.breaks.first?.duration == nil, "no announced duration kept")
        #expect(tracker.problems.contains { $0.contains("not positive") }, "\(tracker.problems)")
        #expect(tracker.breaks.first?.closing?.end == 4, "closed after marker_breaks' 4 s")
    }

    @Test("a break whose closing date jumped 10⁹ s replaces at most an hour")
    func jumpedClosing() {
        let adBreak = LiveBreak(
            id: "b",
            first: 10,
            start: 1_000,
            enteringDiscontinuity: 0,
            closing: LiveBreak.Closing(end: 12, time: 1_000_001_000, discontinuitySequence: 0, isDiscontinuity: false)
        )
        #expect(adBreak.replacedDuration == LiveLimits.maxBreakDuration)
        let backwards = LiveBreak(
            id: "c",
            first: 10,
            start: 1_000,
            enteringDiscontinuity: 0,
            closing: LiveBreak.Closing(end: 12, time: 10, discontinuitySequence: 0, isDiscontinuity: false)
        )
        #expect(backwards.replacedDuration == .zero)
    }
}
