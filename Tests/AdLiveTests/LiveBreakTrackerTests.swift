import Foundation
import HLSPlaylist
import Testing

@testable import AdLive

/// A live channel's breaks from successive windows of its origin (docs/design-decisions.md "Live").
@Suite("Live break tracking")
struct LiveBreakTrackerTests {
    /// A window of 2 s segments `first..<end`, dated from 2026-11-27T20:00:00Z + 2 s × n, with
    /// `markers` lines before the segments they name.
    static func window(_ range: Range<Int>, markers: [Int: [String]] = [:], discontinuitySequence: Int = 0) throws -> MediaPlaylist {
        var text =
            "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(range.lowerBound)\n#EXT-X-DISCONTINUITY-SEQUENCE:\(discontinuitySequence)\n"
        for n in range {
            let seconds = 2 * n
            text += "#EXT-X-PROGRAM-DATE-TIME:2026-11-27T20:\(String(format: "%02d:%02d", seconds / 60, seconds % 60)).000Z\n"
            for line in markers[n] ?? [] { text += line + "\n" }
            text += "#EXTINF:2.000,\ns\(n).ts\n"
        }
        return try PlaylistParser().parseMediaPlaylist(text)
    }

    @Test("CUE-OUT/CUE-IN: opened and closed once as the window slides, with stable ids and the origin's numbers")
    func cueBreak() throws {
        var tracker = LiveBreakTracker()
        let markers = [5: ["#EXT-X-CUE-OUT:DURATION=6"], 6: ["#EXT-X-CUE-OUT-CONT:ElapsedTime=2,Duration=6"], 8: ["#EXT-X-CUE-IN"]]
        #expect(tracker.observe(try Self.window(0..<6, markers: markers)).map(\.id) == ["seq-5"])
        #expect(tracker.open?.first == 5)
        #expect(tracker.observe(try Self.window(1..<7, markers: markers)).isEmpty, "the same opening again changes nothing")
        let closed = tracker.observe(try Self.window(3..<9, markers: markers))
        #expect(closed.map(\.id) == ["seq-5"] && closed.first?.closing?.end == 8)
        #expect(tracker.observe(try Self.window(4..<10, markers: markers)).isEmpty)
        #expect(tracker.breaks.count == 1 && tracker.problems.isEmpty)
        #expect(tracker.breaks[0].replacedDuration == 6)
    }

    @Test("ended breaks are forgotten once they ended before the retention limit; the open one stays")
    func forget() throws {
        var tracker = LiveBreakTracker()
        let markers = [2: ["#EXT-X-CUE-OUT:DURATION=4"], 4: ["#EXT-X-CUE-IN"], 10: ["#EXT-X-CUE-OUT:DURATION=4"]]
        tracker.observe(try Self.window(0..<6, markers: markers))
        tracker.observe(try Self.window(6..<12, markers: markers))
        #expect(tracker.breaks.map(\.id) == ["seq-2", "seq-10"] && tracker.open?.id == "seq-10")
        let ended = try #require(tracker.breaks.first?.closing?.time)
        tracker.forget(endedBefore: ended)
        #expect(tracker.breaks.count == 2, "a break that ended at the limit is kept")
        tracker.forget(endedBefore: ended + 1)
        #expect(tracker.breaks.map(\.id) == ["seq-10"], "the open break stays")
        tracker.forget(endedBefore: ended + 1_000)
        #expect(tracker.breaks.map(\.id) == ["seq-10"])
    }

    @Test("a CUE-OUT without CUE-IN ends at its duration; without one, at marker_breaks' duration")
    func durationOnly() throws {
        var tracker = LiveBreakTracker(defaultDuration: 4)
        let markers = [3: ["#EXT-X-CUE-OUT:DURATION=6"], 12: ["#EXT-X-CUE-OUT"]]
        tracker.observe(try Self.window(0..<5, markers: markers))
        #expect(tracker.open?.id == "seq-3")
        tracker.observe(try Self.window(4..<10, markers: markers))
        #expect(tracker.breaks.first?.closing?.end == 6, "6 s of 2 s segments from segment 3")
        tracker.observe(try Self.window(9..<15, markers: markers))
        #expect(tracker.breaks.last?.id == "seq-12" && tracker.breaks.last?.closing?.end == 14, "marker_breaks' 4 s")
    }

    @Test("DATERANGE SCTE35-OUT … SCTE35-IN with the same ID: the break is named by it and ends at the IN's END-DATE")
    func scte35DateRanges() throws {
        var tracker = LiveBreakTracker()
        let out = "0xFC302000000000000000FFF00F05000003E97FFFFE00083D60000100000000A0A5AEA3"  // splice_insert 1001 out, 6 s (scripts/live-origin.py)
        let markers = [
            4: [#"#EXT-X-DATERANGE:ID="splice-1001",START-DATE="2026-11-27T20:00:08.000Z",PLANNED-DURATION=6,SCTE35-OUT=\#(out)"#],
            // Only its END-DATE is read.
            7: [#"#EXT-X-DATERANGE:ID="splice-1001",START-DATE="2026-11-27T20:00:08.000Z",END-DATE="2026-11-27T20:00:14.000Z",SCTE35-IN=0xFC"#],
        ]
        tracker.observe(try Self.window(0..<6, markers: markers))
        #expect(tracker.open?.id == "splice-1001" && tracker.open?.first == 4)
        tracker.observe(try Self.window(3..<9, markers: markers))
        #expect(tracker.breaks.first?.closing?.end == 7)
        #expect(tracker.problems.isEmpty, "\(tracker.problems)")
    }

    /// A tracker that starts mid-break (no history) sees the end of a break it never saw open in
    /// window after window — before a break that opens later in the same windows.
    @Test("an end before the open break belongs to an earlier one: reported once, and the open break stays")
    func staleEndBeforeAnOpenBreak() throws {
        var tracker = LiveBreakTracker()
        let out = "0xFC302000000000000000FFF00F05000003E97FFFFE00083D60000100000000A0A5AEA3"
        let markers = [
            6: ["#EXT-X-CUE-IN"],
            11: [#"#EXT-X-DATERANGE:ID="splice-1001",START-DATE="2026-11-27T20:00:22.000Z",PLANNED-DURATION=6,SCTE35-OUT=\#(out)"#],
        ]
        var problems: [String] = []
        for first in 4...6 {
            tracker.observe(try Self.window(first..<(first + 10), markers: markers))
            problems += tracker.problems
        }
        #expect(tracker.breaks.map(\.id) == ["splice-1001"])
        // Opened at 11 (and closed at 14 by its 6 s, once the windows reach it).
        #expect(tracker.breaks.first?.first == 11 && tracker.breaks.first?.closing?.end == 14)
        #expect(problems.count == 1 && problems[0].contains("segment 6"), "\(problems)")
    }

    @Test("a CUE-IN with no break open is reported and ignored; a window without dates cannot be used")
    func faults() throws {
        var tracker = LiveBreakTracker()
        tracker.observe(try Self.window(0..<6, markers: [3: ["#EXT-X-CUE-IN"]]))
        #expect(tracker.breaks.isEmpty && tracker.problems.count == 1)
        let undated = try PlaylistParser().parseMediaPlaylist("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-CUE-OUT:4\n#EXTINF:2,\na.ts\n")
        tracker.observe(undated)
        #expect(tracker.breaks.isEmpty && tracker.problems.first?.contains("PROGRAM-DATE-TIME") == true)
    }

    /// The tracker's breaks feed the numbering: a viewer joining before them gets their fill,
    /// and the programme they replace is not listed.
    @Test("tracked breaks number a viewer's window")
    func feedsTheNumbering() throws {
        var tracker = LiveBreakTracker()
        let markers = [5: ["#EXT-X-CUE-OUT:DURATION=6"], 8: ["#EXT-X-CUE-IN"]]
        tracker.observe(try Self.window(0..<6, markers: markers))
        let playlist = try Self.window(4..<10, markers: markers)
        tracker.observe(playlist)
        let fill = (0..<6).map { LiveFill(duration: 2, piece: $0 / 3, index: $0 % 3) }
        let window = LiveNumbering.window(try #require(LiveSegment.segments(of: playlist)), breaks: tracker.breaks, joined: 0) { _ in fill }
        #expect(window.entries.map(\.item).filter { if case .programme(let n) = $0 { (5..<8).contains(n) } else { false } }.isEmpty)
        #expect(window.entries.count == 1 + 3 + 2)  // segment 4, three fill segments (6 s), segments 8 and 9
        #expect(window.mediaSequence == 4)
    }
}
