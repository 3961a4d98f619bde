import Foundation
import HLSPlaylist
import Testing

@testable import AdLive

/// A viewer's live numbering under origin faults (docs/reliability.md "Live origin
/// faults"): each origin window goes through what the poller does — LiveLimits, the
/// ``LiveOriginSequencer``, the ``LiveBreakTracker``, ``LiveNumbering`` — and the viewer's
/// successive windows must never go back nor give one number to two items (RFC 8216bis §6.2.1–6.2.2).
@Suite("Live numbering under origin faults")
struct LiveOriginFaultNumberingTests {
    /// The programme as the origin makes it: segment `i` starts at 2026-11-27T20:00:00Z + Σ durations.
    struct Programme {
        var durations: [ExactDecimal] = []
        var markers: [Int: [String]] = [:]
        var discontinuities: Set<Int> = []
        let epoch = ExactDecimal(1_800_000_000)

        init(count: Int, duration: ExactDecimal = 2) { self.durations = Array(repeating: duration, count: count) }

        func start(_ index: Int) -> ExactDecimal { self.epoch + self.durations[..<index].reduce(.zero, +) }

        /// The window of segments `range`, numbered from `mediaSequence`, its discontinuity sequence `discontinuitySequence`.
        func window(_ range: Range<Int>, mediaSequence: Int? = nil, discontinuitySequence: Int = 0, markers: Bool = true) throws -> MediaPlaylist {
            var text = "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-MEDIA-SEQUENCE:\(mediaSequence ?? range.lowerBound)\n"
            text += "#EXT-X-DISCONTINUITY-SEQUENCE:\(discontinuitySequence)\n"
            var start = self.start(range.lowerBound)
            for index in range {
                if markers { for line in self.markers[index] ?? [] { text += line + "\n" } }
                if self.discontinuities.contains(index) { text += "#EXT-X-DISCONTINUITY\n" }
                let milliseconds = Int64(start.scaledValue / 1_000_000_000_000_000)
                text +=
                    "#EXT-X-PROGRAM-DATE-TIME:\(DateTime.iso8601(millisecondsSinceEpoch: milliseconds))\n#EXTINF:\(self.durations[index]),\ns\(index).ts\n"
                start += self.durations[index]
            }
            return try PlaylistParser().parseMediaPlaylist(text)
        }
    }

    /// The poller and two viewers (one joined before everything, one at the first window's edge),
    /// checking every viewer window against what that viewer was served.
    struct Channel {
        var tracker: LiveBreakTracker
        var viewers: [(joined: Int?, sequence: Int, discontinuity: Int, byItem: [String: [Int]], byNumber: [Int: String])] = [
            (0, .min, .min, [:], [:]), (nil, .min, .min, [:], [:]),
        ]
        var failures: [String] = []
        var accepted = 0
        var lastWindow: LiveWindow?

        init(defaultDuration: ExactDecimal? = 8) { self.tracker = LiveBreakTracker(defaultDuration: defaultDuration) }

        /// A viewer's fill: one 2 s ad segment per 4 s planned, then 2 s slate.
        static func fill(_ adBreak: LiveBreak, edge: ExactDecimal) -> [LiveFill] {
            let length = min(adBreak.replacedDuration ?? max(.zero, edge - adBreak.start), LiveLimits.maxBreakDuration)
            var items: [LiveFill] = [LiveFill(duration: 2, piece: 0, index: 0), LiveFill(duration: 2, piece: 0, index: 1)]
            var total = ExactDecimal(4)
            while total < length {
                items.append(LiveFill(duration: 2, piece: items.count - 1, index: 0))
                total += 2
            }
            return items
        }

        mutating func poll(_ playlist: MediaPlaylist) {
            guard LiveLimits.problem(in: playlist) == nil, let numbered = self.tracker.sequencer.sequence(playlist).playlist,
                let segments = LiveSegment.segments(of: numbered), let newest = segments.last
            else { return }
            self.accepted += 1
            self.tracker.observe(numbered)
            var identity: [Int: String] = [:]
            for segment in segments { identity[segment.sequence] = "\(segment.start)" }
            for index in self.viewers.indices {
                if self.viewers[index].joined == nil { self.viewers[index].joined = newest.sequence + 1 }
                let window = LiveNumbering.window(segments, breaks: self.tracker.breaks, joined: self.viewers[index].joined ?? 0) {
                    Self.fill($0, edge: newest.end)
                }
                if index == 0 { self.lastWindow = window }
                self.check(window, viewer: index, identity: identity)
            }
        }

        mutating func check(_ window: LiveWindow, viewer index: Int, identity: [Int: String]) {
            var viewer = self.viewers[index]
            defer { self.viewers[index] = viewer }
            if window.mediaSequence < viewer.sequence { self.failures.append("media sequence \(viewer.sequence) → \(window.mediaSequence)") }
            if window.discontinuitySequence < viewer.discontinuity {
                self.failures.append("discontinuity sequence \(viewer.discontinuity) → \(window.discontinuitySequence)")
            }
            guard !window.entries.isEmpty else { return }
            viewer.sequence = window.mediaSequence
            viewer.discontinuity = window.discontinuitySequence
            for (position, entry) in window.entries.enumerated() {
                if position > 0, entry.sequence != window.entries[position - 1].sequence + 1 { self.failures.append("a gap at \(entry.sequence)") }
                if position > 0, entry.discontinuitySequence != window.entries[position - 1].discontinuitySequence + (entry.isDiscontinuity ? 1 : 0) {
                    self.failures.append("discontinuity numbers not counted from the tags at \(entry.sequence)")
                }
                let item: String
                switch entry.item {
                case .programme(let sequence): item = identity[sequence] ?? "?"
                case .fill(let id, let fill, _): item = "\(id)#\(fill)"
                }
                let numbers = [entry.sequence, entry.discontinuitySequence]
                if let served = viewer.byItem[item], served != numbers { self.failures.append("\(item) renumbered \(served) → \(numbers)") }
                if let other = viewer.byNumber[entry.sequence], other != item {
                    self.failures.append("\(entry.sequence) given to \(other) and \(item)")
                }
                viewer.byItem[item] = numbers
                viewer.byNumber[entry.sequence] = item
            }
        }
    }

    @Test("the origin restarts (media and discontinuity sequence back to 0, dates going on): the viewer's numbers go on")
    func restart() throws {
        let programme = Programme(count: 120)
        var channel = Channel()
        for last in 6...80 { channel.poll(try programme.window(last - 6..<last, discontinuitySequence: 4)) }
        let before = try #require(channel.lastWindow)
        for last in 81...110 { channel.poll(try programme.window(max(80, last - 6)..<last, mediaSequence: 0)) }
        #expect(channel.failures.isEmpty, "\(channel.failures.prefix(5))")
        let after = try #require(channel.lastWindow)
        #expect(after.mediaSequence > before.mediaSequence && after.discontinuitySequence > before.discontinuitySequence)
        #expect(channel.accepted == 105)
    }

    @Test("the origin's discontinuity sequence changes arbitrarily: the viewer's never goes back, served numbers stay")
    func arbitraryDiscontinuitySequence() throws {
        var programme = Programme(count: 100)
        programme.discontinuities = [10, 30, 31, 55]
        var channel = Channel()
        for last in 6...95 { channel.poll(try programme.window(last - 6..<last, discontinuitySequence: [70, 50, 3, 1000, 0][last % 5])) }
        #expect(channel.failures.isEmpty, "\(channel.failures.prefix(5))")
        #expect(channel.accepted == 90)
    }

    @Test("CUE-OUT without a duration (and with DURATION=-5), never a CUE-IN: no number is given twice", arguments: ["", ":DURATION=-5"])
    func unendedBreak(marker: String) throws {
        for defaultDuration: ExactDecimal? in [8, nil] {
            var programme = Programme(count: 60)
            programme.markers = [12: ["#EXT-X-CUE-OUT" + marker]]
            var channel = Channel(defaultDuration: defaultDuration)
            for last in 6...60 { channel.poll(try programme.window(last - 6..<last)) }
            #expect(channel.failures.isEmpty, "default \(String(describing: defaultDuration)): \(channel.failures.prefix(5))")
        }
    }

    @Test("a break on every other segment (CUE-OUT:1.92 / CUE-IN, 1.92 s segments): no number is given twice")
    func breakEveryOtherSegment() throws {
        var programme = Programme(count: 80, duration: ExactDecimal(significand: 192, exponent: 2))
        for index in stride(from: 4, to: 78, by: 2) {
            programme.markers[index] = ["#EXT-X-CUE-OUT:1.92"]
            programme.markers[index + 1] = ["#EXT-X-CUE-IN"]
        }
        var channel = Channel()
        for last in 6...80 { channel.poll(try programme.window(last - 6..<last)) }
        #expect(channel.failures.isEmpty, "\(channel.failures.prefix(5))")
    }

    @Test("back-to-back breaks (one's CUE-IN and the next's CUE-OUT on one segment), and markers dropped while a break is open")
    func backToBackAndDroppedMarkers() throws {
        var programme = Programme(count: 80)
        programme.markers = [10: ["#EXT-X-CUE-OUT:DURATION=6"], 13: ["#EXT-X-CUE-IN", "#EXT-X-CUE-OUT:DURATION=4"], 15: ["#EXT-X-CUE-IN"]]
        programme.markers[30] = ["#EXT-X-CUE-OUT:DURATION=20"]
        programme.markers[40] = ["#EXT-X-CUE-IN"]
        programme.discontinuities = [13, 31]
        var channel = Channel()
        for last in 6...75 { channel.poll(try programme.window(last - 6..<last, markers: !(32...45).contains(last))) }
        #expect(channel.failures.isEmpty, "\(channel.failures.prefix(5))")
    }

    @Test("the origin's media sequence goes back 100 (dates going on, or dates too), and two origin replicas three segments apart answer in turn")
    func sequenceBackAndReplicas() throws {
        let programme = Programme(count: 1100)
        var channel = Channel()
        for last in 1000...1024 { channel.poll(try programme.window(last - 6..<last)) }
        let before = try #require(channel.lastWindow?.mediaSequence)
        for last in 1025...1040 { channel.poll(try programme.window(last - 6..<last, mediaSequence: last - 6 - 100)) }
        #expect(try #require(channel.lastWindow?.mediaSequence) > before)
        channel.poll(try programme.window(919..<925))  // numbers and dates back: a stale answer
        for last in 1041...1070 {
            channel.poll(try programme.window(last - 6..<last, mediaSequence: last - 6 - 100))
            channel.poll(try programme.window(last - 9..<last - 3, mediaSequence: last - 9 - 100))  // the replica behind
        }
        #expect(channel.failures.isEmpty, "\(channel.failures.prefix(5))")
    }

    @Test("a window of 20,000 segments holding 10,000 breaks: no number given twice, and linear work")
    func tenThousandBreaks() async throws {
        // Seconds of work in a debug build (quadratic, it took minutes): on a thread of its own,
        // not one of Swift's cooperative threads (two here), which every other test's waits run on.
        let (breaks, failures) = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<(Int, [String]), any Error>) in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result {
                        var programme = Programme(count: 20_010)
                        for index in stride(from: 2, to: 20_000, by: 2) {
                            programme.markers[index] = ["#EXT-X-CUE-OUT:DURATION=2"]
                            programme.markers[index + 1] = ["#EXT-X-CUE-IN"]
                        }
                        var channel = Channel()
                        for last in [20_000, 20_001, 20_004, 20_010] { channel.poll(try programme.window(max(0, last - 20_000)..<last)) }
                        return (channel.tracker.breaks.count, channel.failures.map { "\($0)" })
                    }
                )
            }
        }
        #expect(breaks >= 9_999)
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }

    @Test("a stale answer older than the window serving is refused; an origin renumbered onto the same dates keeps the numbers")
    func sequencerPlacesWindows() throws {
        let programme = Programme(count: 40)
        var sequencer = LiveOriginSequencer()
        #expect(sequencer.sequence(try programme.window(10..<16)).playlist?.mediaSequence == 10)
        #expect(sequencer.sequence(try programme.window(8..<14)).playlist == nil)
        let renumbered = try #require(sequencer.sequence(try programme.window(12..<18, mediaSequence: 500)).playlist)
        #expect(renumbered.mediaSequence == 12 && sequencer.edge == 17)
        let restarted = try #require(sequencer.sequence(try programme.window(18..<20, mediaSequence: 0)).playlist)
        #expect(restarted.mediaSequence == 1_800_000_036, "numbered from the restart's date in whole seconds")
        #expect(restarted.segments.first?.isDiscontinuity == true)
    }
}
