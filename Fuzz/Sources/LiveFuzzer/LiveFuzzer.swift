// libFuzzer target over a live channel's numbering under origin faults (docs/reliability.md "Fuzzing",
// scripts/fuzz.sh `live`). The bytes are a script of origin behaviour — segments published, restarts,
// sequence jumps forward and back, stale and reordered answers, two origin replicas in turn,
// discontinuity sequence rewrites, date jumps, and marker soup (CUE-OUT with no, negative, tiny or
// huge durations, CUE-IN anywhere, back-to-back breaks, DATERANGE SCTE35-OUT/IN, dropped markers) —
// and every window the origin answers goes through what the poller does: LiveLimits, the
// LiveOriginSequencer (two renditions), the LiveBreakTracker, and LiveNumbering for two viewers.
// Across each viewer's successive windows: no trap; the media and discontinuity sequence numbers
// never go back; a number is never given to two items (a programme segment by its identity, a fill
// segment by break and position) and a served item's numbers never change; entries are contiguous.
import AdLive
import Foundation
import HLSPlaylist

nonisolated(unsafe) var windowsRun = 0
nonisolated(unsafe) var reported = false

/// The script's bytes, read one decision at a time (0 once they run out).
struct Script {
    let bytes: [UInt8]
    var position = 0
    var isDone: Bool { self.position >= self.bytes.count }
    mutating func next() -> Int {
        defer { self.position += 1 }
        return self.position < self.bytes.count ? Int(self.bytes[self.position]) : 0
    }
}

/// One programme segment as the origin made it: its identity is its index.
struct Made {
    let start: ExactDecimal
    let duration: ExactDecimal
    var markers: [String]
    let discontinuity: Bool
}

/// How one origin numbers the programme.
struct Origin {
    var base = 0  // origin sequence number = index + base
    var epoch = 0  // the first index it still lists (a restart starts a new epoch)
    var discontinuityBase = 0
    var lag = 0
}

/// A viewer's record of what it was served.
struct Viewer {
    let joined: Int
    var lastSequence = Int.min
    var lastDiscontinuity = Int.min
    var byItem: [String: (Int, Int)] = [:]
    var byNumber: [Int: String] = [:]

    mutating func check(_ window: LiveWindow, identity: (LiveWindow.Item) -> String?) {
        precondition(window.mediaSequence >= self.lastSequence, "media sequence went back: \(self.lastSequence) → \(window.mediaSequence)")
        precondition(
            window.discontinuitySequence >= self.lastDiscontinuity,
            "discontinuity sequence went back: \(self.lastDiscontinuity) → \(window.discontinuitySequence)"
        )
        if !window.entries.isEmpty {
            self.lastSequence = window.mediaSequence
            self.lastDiscontinuity = window.discontinuitySequence
        }
        var previous: LiveWindow.Entry?
        for entry in window.entries {
            if let previous {
                precondition(entry.sequence == previous.sequence + 1, "entries not contiguous: \(previous.sequence) then \(entry.sequence)")
                precondition(entry.discontinuitySequence == previous.discontinuitySequence + (entry.isDiscontinuity ? 1 : 0), "discontinuity count")
            }
            previous = entry
            guard let item = identity(entry.item) else { preconditionFailure("an entry of no known segment: \(entry.item)") }
            if let numbers = self.byItem[item] {
                precondition(
                    numbers == (entry.sequence, entry.discontinuitySequence),
                    "\(item) renumbered: \(numbers) → \(entry.sequence), \(entry.discontinuitySequence)"
                )
            }
            if let other = self.byNumber[entry.sequence] {
                precondition(other == item, "sequence number \(entry.sequence) given to \(other) and \(item)")
            }
            self.byItem[item] = (entry.sequence, entry.discontinuitySequence)
            self.byNumber[entry.sequence] = item
        }
    }
}

/// A viewer's fill of a break: ads by the break's id, then 2 s slate up to `length` (prefix-stable).
func fill(_ adBreak: LiveBreak, length: ExactDecimal) -> [LiveFill] {
    var items: [LiveFill] = []
    var hash = 5381
    for byte in adBreak.id.utf8 { hash = (hash &* 33) &+ Int(byte) }
    let ads = abs(hash % 3)
    var total = ExactDecimal.zero
    for piece in 0..<ads {
        for index in 0...(abs(hash >> (piece * 4)) % 3) {
            items.append(LiveFill(duration: 2, piece: piece, index: index))
            total += 2
        }
    }
    var piece = ads
    let needed = min(length, LiveLimits.maxBreakDuration)
    while total < needed {
        items.append(LiveFill(duration: 2, piece: piece, index: 0))
        total += 2
        piece += 1
    }
    return items
}

func iso(_ date: ExactDecimal) -> String {
    DateTime.iso8601(millisecondsSinceEpoch: Int64(clamping: date.scaledValue / 1_000_000_000_000_000))
}

@_cdecl("LLVMFuzzerTestOneInput")
public func liveFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    if !reported {
        reported = true
        atexit { print("LiveFuzzer: \(windowsRun) windows") }
    }
    var script = Script(bytes: Array(UnsafeBufferPointer(start: data, count: size)))
    var made: [Made] = []
    var clock = ExactDecimal(1_800_000_000)
    var origins = [Origin(), Origin()]
    var answering = 0
    var alternate = false
    var length = 6
    var dropMarkers = false
    var pending: [String] = []
    var pendingDiscontinuity = false
    var breakCount = 0
    var openDateRange: (id: String, start: ExactDecimal)?
    var sent: [String] = []
    var sequencer = LiveOriginSequencer()
    var tracker = LiveBreakTracker(defaultDuration: script.next() % 2 == 0 ? 8 : nil)
    var viewers: [Viewer] = []
    var byDate: [ExactDecimal: Int] = [:]
    let durations: [ExactDecimal] = [2, 2, 2, ExactDecimal(significand: 192, exponent: 2), ExactDecimal(significand: 5, exponent: 1), 6]

    func publish(_ count: Int) {
        for _ in 0..<count {
            let duration = durations[script.next() % durations.count]
            byDate[clock] = made.count
            made.append(Made(start: clock, duration: duration, markers: pending, discontinuity: pendingDiscontinuity))
            pending = []
            pendingDiscontinuity = false
            clock += duration
        }
    }

    /// The window origin `index` answers now: its last `length` segments of its epoch.
    func window(_ index: Int) -> String? {
        let origin = origins[index]
        let end = made.count - origin.lag
        let first = max(origin.epoch, end - length, 0)
        guard first < end else { return nil }
        let tags = made[origin.epoch..<first].count { $0.discontinuity }
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:6\n#EXT-X-MEDIA-SEQUENCE:\(first + origin.base)\n"
        text += "#EXT-X-DISCONTINUITY-SEQUENCE:\(origin.discontinuityBase + tags)\n"
        for index in first..<end {
            let segment = made[index]
            if !dropMarkers { for marker in segment.markers { text += marker + "\n" } }
            if segment.discontinuity { text += "#EXT-X-DISCONTINUITY\n" }
            text += "#EXT-X-PROGRAM-DATE-TIME:\(iso(segment.start))\n#EXTINF:\(segment.duration),\ns\(index).ts\n"
        }
        return text
    }

    func poll(_ text: String) {
        windowsRun += 1
        guard let playlist = try? PlaylistParser().parseMediaPlaylist(text), LiveLimits.problem(in: playlist) == nil else { return }
        let lead = sequencer.sequence(playlist, rendition: 0)
        let other = sequencer.sequence(playlist, rendition: 1)
        guard let numbered = lead.playlist, let segments = LiveSegment.segments(of: numbered), let newest = segments.last else { return }
        precondition(LiveLimits.problem(in: numbered) == nil, "a numbered window out of range")
        if let follower = other.playlist.flatMap(LiveSegment.segments(of:)) {
            precondition(follower == segments, "the second rendition is numbered otherwise")
        }
        tracker.observe(numbered)
        if viewers.isEmpty { viewers = [Viewer(joined: 0), Viewer(joined: newest.sequence + 1)] }
        // A programme segment's identity: the segment the origin made at that date.
        var identities: [Int: String] = [:]
        for segment in segments {
            guard let index = byDate[segment.start] else { preconditionFailure("a segment the origin never made") }
            identities[segment.sequence] = "s\(index)"
        }
        let edge = newest.end
        for index in viewers.indices {
            let numberedWindow = LiveNumbering.window(segments, breaks: tracker.breaks, joined: viewers[index].joined) { adBreak in
                fill(adBreak, length: adBreak.replacedDuration ?? max(.zero, edge - adBreak.start))
            }
            viewers[index].check(numberedWindow) { item in
                switch item {
                case .programme(let sequence): identities[sequence]
                case .fill(let id, let position, _): "\(id)#\(position)"
                }
            }
        }
    }

    publish(1 + script.next() % 8)
    while !script.isDone {
        let op = script.next()
        switch op % 24 {
        case 0...5: publish(1)
        case 6: publish(1 + script.next() % 40)
        case 7:  // the origin restarts: numbers from 0, a discontinuity, dates go on
            origins[answering].epoch = made.count
            origins[answering].base = -made.count
            origins[answering].discontinuityBase = 0
            pendingDiscontinuity = script.next() % 2 == 0
            publish(1)
        case 8:  // the media sequence jumps
            let jump = [1, 3, 100, 1000, -1, -3, -100, -1000, 1 << 40][script.next() % 9]
            origins[answering].base += jump
        case 9: origins[answering].discontinuityBase = script.next() - 64  // rewritten discontinuity sequence
        case 10: alternate.toggle()  // two origin replicas in turn
        case 11:
            origins[1] = origins[0]
            origins[1].lag = script.next() % 6
            if script.next() % 2 == 0 { origins[1].base += script.next() - 128 }
        case 12: answering = 1 - answering
        case 13: if !sent.isEmpty { poll(sent[sent.count - 1 - script.next() % sent.count]) }  // a stale answer
        case 14: clock += [1, 60, 3600, 1_000_000, 1_000_000_000][script.next() % 5]  // a date jump
        case 15: length = [1, 2, 6, 10, 40, 200][script.next() % 6]
        case 16: dropMarkers.toggle()
        case 17: pendingDiscontinuity = true
        case 18:
            let duration = [
                "", ":DURATION=-5", ":DURATION=0", ":1.92", ":DURATION=4", ":DURATION=8", ":DURATION=30", ":DURATION=9999999999999999999",
            ]
            pending.append("#EXT-X-CUE-OUT" + duration[script.next() % duration.count])
        case 19: pending.append("#EXT-X-CUE-IN")
        case 20:  // back to back: one break's end and the next's start on one segment
            pending += ["#EXT-X-CUE-IN", "#EXT-X-CUE-OUT:DURATION=\(2 * (1 + script.next() % 4))"]
        case 21:
            breakCount += 1
            let id = script.next() % 4 == 0 ? "dup" : "b\(breakCount)"
            openDateRange = (id, clock)
            pending.append("#EXT-X-DATERANGE:ID=\"\(id)\",START-DATE=\"\(iso(clock))\",PLANNED-DURATION=8,SCTE35-OUT=0xFC302000")
        case 22:
            if let open = openDateRange {
                pending.append("#EXT-X-DATERANGE:ID=\"\(open.id)\",START-DATE=\"\(iso(open.start))\",END-DATE=\"\(iso(clock))\",SCTE35-IN=0xFC3020")
                openDateRange = nil
            }
        default:  // breaks on every other segment
            for _ in 0..<(1 + script.next() % 8) {
                pending.append("#EXT-X-CUE-OUT:1.92")
                publish(1)
                pending.append("#EXT-X-CUE-IN")
                publish(1)
            }
        }
        if alternate { answering = 1 - answering }
        guard let text = window(answering) else { continue }
        sent.append(text)
        if sent.count > 16 { sent.removeFirst() }
        poll(text)
    }
    return 0
}
