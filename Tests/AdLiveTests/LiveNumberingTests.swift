import HLSPlaylist
import Testing

@testable import AdLive

/// A viewer's live numbering (docs/design-decisions.md "Live"), over simulated channels: an origin
/// publishing segments one by one (durations and discontinuities of its own), breaks opening and
/// closing, a viewer's fill per break — the window recomputed after every new segment, as a
/// replica that started at any moment would compute it from the same history.
@Suite("Live numbering")
struct LiveNumberingTests {
    /// A channel: its segments, and its breaks as [first, end).
    struct Channel {
        var segments: [LiveSegment]
        var breaks: [(id: String, first: Int, end: Int)]

        init(seed: UInt64, count: Int = 160) {
            var random = SplitMix(seed)
            var segments: [LiveSegment] = []
            var start = ExactDecimal(1_795_800_000)
            var discontinuities = 0
            for sequence in 0..<count {
                let flag = sequence > 0 && random.next() % 23 == 0
                if flag { discontinuities += 1 }
                let duration = [ExactDecimal("1.92"), ExactDecimal("2"), ExactDecimal("1.5")][Int(random.next() % 3)]!
                segments.append(
                    LiveSegment(sequence: sequence, discontinuitySequence: discontinuities, isDiscontinuity: flag, duration: duration, start: start)
                )
                start += duration
            }
            var breaks: [(String, Int, Int)] = []
            var next = 4 + Int(random.next() % 6)
            while next < count - 12 {
                let length = 2 + Int(random.next() % 7)
                breaks.append(("b\(next)", next, next + length))
                next += length + 3 + Int(random.next() % 12)
            }
            self.segments = segments
            self.breaks = breaks
        }

        /// The history as a replica knows it once `published` segments are out: breaks that have
        /// begun, closed when their end segment (which carries the closing marker) is out.
        func history(published: Int) -> [LiveBreak] {
            self.breaks.filter { $0.first < published }.map { item in
                let entering = self.segments[item.first].discontinuitySequence - (self.segments[item.first].isDiscontinuity ? 1 : 0)
                var adBreak = LiveBreak(id: item.id, first: item.first, start: self.segments[item.first].start, enteringDiscontinuity: entering)
                if item.end < published {
                    let end = self.segments[item.end]
                    adBreak.closing = .init(
                        end: item.end,
                        time: end.start,
                        discontinuitySequence: end.discontinuitySequence,
                        isDiscontinuity: end.isDiscontinuity
                    )
                }
                return adBreak
            }
        }
    }

    /// A viewer's fill of a break: pieces of one to three segments of 1 to 2.5 s, well past any
    /// break's length, chosen from the break's id and the viewer (as the planner seeds by session).
    static func fill(_ adBreak: LiveBreak, viewer: UInt64) -> [LiveFill] {
        var random = SplitMix(viewer &* 31 &+ UInt64(adBreak.first))
        var items: [LiveFill] = []
        var total = ExactDecimal.zero
        var piece = 0
        while total < 40 {
            for index in 0..<(1 + Int(random.next() % 3)) {
                let duration = [ExactDecimal("1"), ExactDecimal("1.5"), ExactDecimal("2"), ExactDecimal("2.5")][Int(random.next() % 4)]!
                items.append(LiveFill(duration: duration, piece: piece, index: index))
                total += duration
            }
            piece += 1
        }
        return items
    }

    @Test("every entry keeps its numbers in every window, windows are contiguous, sequences move by what left", arguments: 0..<24)
    func numbersAreStable(_ seed: Int) throws {
        let channel = Channel(seed: UInt64(seed))
        let viewer = UInt64(seed) &* 7 &+ 1
        let joined = 3 + seed % 9
        let size = 6
        var numbers: [LiveWindow.Item: (Int, Int)] = [:]
        var previous: LiveWindow?
        var listedFill: Set<String> = []
        for published in (joined + 1)...channel.segments.count {
            let window = Array(channel.segments[max(0, published - size)..<published])
            let output = LiveNumbering.window(window, breaks: channel.history(published: published), joined: joined) {
                Self.fill($0, viewer: viewer)
            }
            let context = "seed \(seed), published \(published)"
            try #require(!output.entries.isEmpty, "\(context)")
            #expect(output.mediaSequence == output.entries[0].sequence)
            #expect(output.discontinuitySequence == output.entries[0].discontinuitySequence - (output.entries[0].isDiscontinuity ? 1 : 0))
            for (a, b) in zip(output.entries, output.entries.dropFirst()) {
                // Contiguous numbers; discontinuity numbers as a player counts them from the tags.
                #expect(b.sequence == a.sequence + 1, "\(context): \(a) → \(b)")
                #expect(b.discontinuitySequence == a.discontinuitySequence + (b.isDiscontinuity ? 1 : 0), "\(context): \(a) → \(b)")
            }
            for entry in output.entries {
                if let known = numbers[entry.item] {
                    #expect(known == (entry.sequence, entry.discontinuitySequence), "\(context): \(entry.item) renumbered")
                }
                numbers[entry.item] = (entry.sequence, entry.discontinuitySequence)
                if case .fill(let id, let position, _) = entry.item { listedFill.insert("\(id)/\(position)") }
                // No programme the viewer's breaks replace is listed.
                if case .programme(let sequence) = entry.item {
                    #expect(!channel.breaks.contains { $0.first >= joined && $0.first <= sequence && sequence < $0.end }, "\(context): \(sequence)")
                }
            }
            if let previous {
                // RFC 8216bis §6.2.2: the sequences move by exactly what left the window.
                let kept = Set(output.entries.map(\.item))
                let left = previous.entries.filter { !kept.contains($0.item) }
                #expect(output.mediaSequence - previous.mediaSequence == left.count, "\(context)")
                #expect(left.map(\.item) == previous.entries.prefix(left.count).map(\.item), "\(context): only a prefix leaves")
                #expect(output.discontinuitySequence - previous.discontinuitySequence == left.filter(\.isDiscontinuity).count, "\(context)")
            }
            previous = output
        }
        // Every closed break's fill that fits it was listed at some point, and only that.
        for item in channel.breaks where item.first >= joined && item.end < channel.segments.count {
            let length = channel.segments[item.end].start - channel.segments[item.first].start
            let adBreak = try #require(channel.history(published: channel.segments.count).first { $0.id == item.id })
            let fitting = LiveNumbering.served(Self.fill(adBreak, viewer: viewer), within: length)
            #expect(fitting.map(\.duration).reduce(.zero, +) <= length)
            for position in fitting.indices { #expect(listedFill.contains("\(item.id)/\(position)"), "seed \(seed): \(item.id)/\(position)") }
            #expect(!listedFill.contains("\(item.id)/\(fitting.count)"), "seed \(seed): \(item.id) listed past its end")
        }
    }

    /// A replica that starts late knows only the history (breaks since the viewer joined), not
    /// the windows before: it numbers the window exactly as one that watched all along.
    @Test("a replica that knows only the history agrees with one that saw every window")
    func lateReplicaAgrees() throws {
        let channel = Channel(seed: 99)
        let joined = 5
        let fill = { (adBreak: LiveBreak) in Self.fill(adBreak, viewer: 3) }
        let published = 140
        let window = Array(channel.segments[(published - 6)..<published])
        let early = LiveNumbering.window(window, breaks: channel.history(published: published), joined: joined, fill: fill)
        // The same history, in another order, with breaks from before the viewer joined too.
        let shuffled =
            channel.history(published: published).reversed() + [
                LiveBreak(id: "old", first: 1, start: channel.segments[1].start, enteringDiscontinuity: 0)
            ]
        let late = LiveNumbering.window(window, breaks: Array(shuffled), joined: joined, fill: fill)
        #expect(early == late)
        #expect(early.mediaSequence != window[0].sequence, "breaks since joining shifted the numbers")
    }

    @Test("an open break lists its fill up to the live edge, never past it; closing early cuts what was not yet served")
    func openBreak() throws {
        let start = ExactDecimal(1_795_800_000)
        let segments = (0..<10).map {
            LiveSegment(sequence: $0, discontinuitySequence: 0, isDiscontinuity: false, duration: 2, start: start + ExactDecimal(2 * $0))
        }
        let fill = (0..<10).map { LiveFill(duration: ExactDecimal("1.5")!, piece: $0 / 2, index: $0 % 2) }
        // Open at segment 4: published up to 7 (8 s of break): five fill segments end by then (7.5 s).
        let open = LiveBreak(id: "b", first: 4, start: segments[4].start, enteringDiscontinuity: 0)
        let window = LiveNumbering.window(Array(segments[2..<8]), breaks: [open], joined: 0) { _ in fill }
        #expect(window.entries.map(\.item).count == 2 + 5)
        // Closed at 7 (6 s replaced): four fill segments fit (6 s); segment 7 returns to the programme.
        var closed = open
        closed.closing = .init(end: 7, time: segments[7].start, discontinuitySequence: 0, isDiscontinuity: false)
        let after = LiveNumbering.window(Array(segments[3..<9]), breaks: [closed], joined: 0) { _ in fill }
        #expect(after.entries.compactMap { if case .fill(_, let position, _) = $0.item { position } else { nil } } == [0, 1, 2, 3])
        #expect(after.entries.last?.item == .programme(8))
        let returning = try #require(after.entries.first { $0.item == .programme(7) })
        #expect(returning.isDiscontinuity && returning.sequence == 4 + 4)
    }
}

/// A small deterministic generator (SplitMix64) for the simulated channels.
struct SplitMix {
    var state: UInt64
    init(_ seed: UInt64) { self.state = seed }
    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
