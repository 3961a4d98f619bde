import AdLive
import AdLiveRuntime
import Foundation
import HLSPlaylist
import Logging
import Testing

/// The live break history in a real PostgreSQL (docs/design-decisions.md "Live"): what two
/// replicas record, each as much as it saw, and what a third that starts late reads back.
@Suite("Live break history in PostgreSQL", .serialized)
struct BreakHistoryTests {
    static let logger = Logger(label: "break-history-test")

    /// Runs `body` with a history on a fresh server, its pool running.
    static func withHistory(_ body: @Sendable (PostgresBreakHistory, PostgresServer) async throws -> Void) async throws {
        let server = try await PostgresServer()
        let history = try #require(PostgresBreakHistory(url: server.url, logger: Self.logger))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await history.run() }
            defer { group.cancelAll() }
            try await history.migrate()
            try await body(history, server)
        }
    }

    static let start = ExactDecimal(1_795_800_000)

    static func open(_ id: String, first: Int, at offset: Int) -> LiveBreak {
        LiveBreak(id: id, first: first, start: Self.start + ExactDecimal(2 * offset), enteringDiscontinuity: 3)
    }

    @Test("replicas record what they see: the first opening and the first closing win, a late replica reads them all")
    func replicasAgree() async throws {
        try await Self.withHistory { history, server in
            // Replica A sees two breaks open; B, polling the same origin, sees the first close.
            var first = Self.open("seq-10", first: 10, at: 10)
            try await history.record([first, Self.open("splice-1001", first: 20, at: 20)], channel: "https://origin.test/live.m3u8")
            first.closing = .init(end: 13, time: Self.start + 26, discontinuitySequence: 4, isDiscontinuity: true)
            try await history.record([first], channel: "https://origin.test/live.m3u8")
            // A replica that started mid-break records what it guesses: it changes nothing recorded.
            var late = LiveBreak(id: "seq-10", first: 11, start: Self.start + 22, enteringDiscontinuity: 9)
            late.closing = .init(end: 12, time: Self.start + 24, discontinuitySequence: 9, isDiscontinuity: false)
            try await history.record([late], channel: "https://origin.test/live.m3u8")
            // Another channel's breaks stay apart.
            try await history.record([Self.open("seq-10", first: 10, at: 10)], channel: "https://origin.test/other.m3u8")

            // A third replica, with its own pool, reads the history back.
            let reader = try #require(PostgresBreakHistory(url: server.url, logger: Self.logger))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await reader.run() }
                defer { group.cancelAll() }
                let read = try await reader.breaks(channel: "https://origin.test/live.m3u8", since: Self.start)
                #expect(read.map(\.id) == ["seq-10", "splice-1001"])
                #expect(read.first == first, "exactly as recorded first: \(read)")
                #expect(read.last?.closing == nil)
                // Only breaks since a session's join time.
                #expect(try await reader.breaks(channel: "https://origin.test/live.m3u8", since: Self.start + 21).map(\.id) == ["splice-1001"])
                #expect(try await reader.breaks(channel: "https://origin.test/other.m3u8", since: Self.start).count == 1)
            }
        }
    }

    @Test("a stall's closing: the first recorded comes back to every replica, whose tracker shows viewers that one only")
    func stallClosings() async throws {
        try await Self.withHistory { history, _ in
            // Two replicas' trackers saw the origin stop after segment 9 (dated 0–20 s) and come
            // back with segment 10 dated 60 s; they closed the stall at different clocks.
            func replica(closingAt now: Int) throws -> LiveBreakTracker {
                var tracker = LiveBreakTracker()
                tracker.stallAfter = 3
                tracker.confirmsStallClosings = true
                func window(_ range: ClosedRange<Int>, shift: Int = 0) throws -> MediaPlaylist {
                    var text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(range.lowerBound)\n"
                    for k in range {
                        let date = Int64(1_795_800_000 + 2 * k + (k >= 10 ? shift : 0)) * 1000
                        text += "#EXT-X-PROGRAM-DATE-TIME:\(DateTime.iso8601(millisecondsSinceEpoch: date))\n#EXTINF:2,\ns\(k).ts\n"
                    }
                    return try PlaylistParser().parseMediaPlaylist(text, url: URL(string: "https://origin.test/v.m3u8")!)
                }
                tracker.observe(try window(4...9), now: Self.start + 20)
                #expect(tracker.stall(now: Self.start + 25) == nil, "not before three target durations")
                #expect(tracker.stall(now: Self.start + 26)?.id == "stall-10")
                tracker.observe(try window(5...10, shift: 40), now: Self.start + ExactDecimal(now))
                return tracker
            }
            var a = try replica(closingAt: 63)
            var b = try replica(closingAt: 64)
            // Each its own: until the origin's first segment back, less a target duration of the clock.
            #expect(a.breaks.last?.closing?.time == Self.start + 61 && b.breaks.last?.closing?.time == Self.start + 62)
            let opened = try #require(a.breaks.last)
            #expect(opened.kind == .stall && a.published.last?.closing == nil, "unconfirmed: open for viewers")
            let storedA = try await history.record([opened], channel: "c")
            let storedB = try await history.record([try #require(b.breaks.last)], channel: "c")
            #expect(storedA.first?.closing == opened.closing && storedB.first?.closing == opened.closing, "the first closing wins")
            #expect(storedA.first?.kind == .stall)
            a.confirm(storedA)
            b.confirm(storedB)
            #expect(a.published == b.published && a.published.last?.closing?.time == Self.start + 61, "\(b.published)")
            #expect(a.published.last?.closing?.end == 10, "an origin that jumped past the stall: nothing replaced")
        }
    }

    @Test("the history feeds a late replica's tracker and numbering: the same window as the replica that saw the break open")
    func lateReplicaNumbersAlike() async throws {
        try await Self.withHistory { history, _ in
            // Replica A watched segments 0–9; the break opened at 3 (CUE-OUT, 6 s) and closed at 6.
            func window(_ range: Range<Int>) throws -> MediaPlaylist {
                var text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(range.lowerBound)\n"
                for n in range {
                    text += "#EXT-X-PROGRAM-DATE-TIME:2026-11-27T20:00:\(String(format: "%02d", 2 * n)).000Z\n"
                    if n == 3 { text += "#EXT-X-CUE-OUT:DURATION=6\n" }
                    if n == 6 { text += "#EXT-X-CUE-IN\n" }
                    text += "#EXTINF:2.000,\ns\(n).ts\n"
                }
                return try PlaylistParser().parseMediaPlaylist(text)
            }
            var a = LiveBreakTracker()
            for end in 4...10 { try await history.record(a.observe(try window(max(0, end - 5)..<end)), channel: "c") }
            // Replica B starts when the break has left the origin's window: it reads the history.
            let since = try #require(DateTime("2026-11-27T20:00:00Z")).secondsSinceEpoch
            let b = LiveBreakTracker(history: try await history.breaks(channel: "c", since: since))
            #expect(b.breaks == a.breaks)
            let current = try #require(LiveSegment.segments(of: try window(12..<18)))
            let fill = { (_: LiveBreak) in (0..<4).map { LiveFill(duration: ExactDecimal(significand: 15, exponent: 1), piece: 0, index: $0) } }
            let fromA = LiveNumbering.window(current, breaks: a.breaks, joined: 0, fill: fill)
            let fromB = LiveNumbering.window(current, breaks: b.breaks, joined: 0, fill: fill)
            #expect(fromA == fromB)
            #expect(fromA.mediaSequence == 12 + 4 - 3, "four fill segments stood for three programme ones")
        }
    }

    @Test("old breaks are pruned")
    func prune() async throws {
        try await Self.withHistory { history, _ in
            try await history.record([Self.open("seq-1", first: 1, at: 1)], channel: "c")
            #expect(try await history.prune(olderThan: .seconds(3600)) == 0)
            try await Task.sleep(for: .seconds(1.1))
            #expect(try await history.prune(olderThan: .seconds(1)) == 1)
            #expect(try await history.breaks(channel: "c", since: .zero).isEmpty)
        }
    }
}
