import AdLive
import AdLiveRuntime
import AdOrigin
import Foundation
import HLSPlaylist
import Logging
import Synchronization
import Testing

/// A live channel's poller against the live origin (`scripts/live-origin.py` at 4×), with the
/// break history in a real PostgreSQL: what two replicas — one starting late — know of the
/// channel, and how the poller rides out a stalled and a failing origin.
@Suite("Live channel poller", .serialized)
struct LiveChannelTests {
    static let logger = Logger(label: "live-channel-test")

    static func channel(
        _ origin: LiveOriginTests.Origin,
        history: PostgresBreakHistory?,
        client: OriginClient,
        stallAfter: Duration? = nil,
        historyDeadline: Duration = .seconds(2)
    ) -> LiveChannel {
        let base = "http://127.0.0.1:\(origin.port)"
        return LiveChannel(
            key: base + "/master.m3u8",
            renditions: [URL(string: base + "/240p/index.m3u8")!, URL(string: base + "/360p/index.m3u8")!],
            client: client,
            history: history,
            defaultDuration: nil,
            logger: Self.logger,
            stallAfter: stallAfter,
            historyDeadline: historyDeadline
        )
    }

    @Test("two replicas, one starting after a break has left the window, know the same breaks through the history")
    func replicasShareTheHistory() async throws {
        let origin = try await LiveOriginTests.Origin()
        defer { origin.process.stop() }
        let server = try await PostgresServer()
        let history = try #require(PostgresBreakHistory(url: server.url, logger: Self.logger))
        let client = OriginClient()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await history.run() }
            try await history.migrate()
            let a = Self.channel(origin, history: history, client: client)
            group.addTask { await a.run() }
            // Until a closed break has left the origin's window (some 9 s at 4×; a minute at most).
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                try await Task.sleep(for: .milliseconds(250))
                guard let window = a.window(a.renditions[0]), let end = a.breaks.first(where: { $0.closing != nil })?.closing?.end else { continue }
                if window.mediaSequence > end, a.breaks.filter({ $0.closing != nil }).count >= 2 { break }
            }
            let b = Self.channel(origin, history: history, client: client)
            try await b.loadHistory(since: ExactDecimal(origin.epoch))
            await b.poll()
            let closedA = a.breaks.filter { $0.closing != nil }
            #expect(closedA.count >= 2, "\(a.breaks)")
            // B never saw the first break's opening (it has left the 6-segment window), yet knows it.
            let firstWindow = try #require(b.window(b.renditions[0]))
            #expect(closedA.contains { $0.closing!.end < firstWindow.mediaSequence }, "a break has left the window")
            #expect(
                b.breaks.filter { $0.closing != nil && $0.closing!.end < firstWindow.mediaSequence }
                    == closedA.filter { $0.closing!.end < firstWindow.mediaSequence }
            )
            // Both renditions' windows are there.
            #expect(a.window(a.renditions[1]) != nil && b.window(b.renditions[1]) != nil)
            #expect(!a.isStalled)
            group.cancelAll()
        }
        try await client.shutdown()
    }

    /// A TCP port that takes connections and never says a word: a database that has gone away
    /// behind a load balancer, or hangs (the kernel completes each handshake; nobody answers).
    final class SilentPort {
        let socket: Int32
        let port: Int

        init() throws {
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            self.socket = socket
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0, listen(socket, 64) == 0 else { throw CocoaError(.fileWriteUnknown) }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
            }
            self.port = Int(UInt16(bigEndian: address.sin_port))
        }

        deinit { close(self.socket) }
    }

    @Test("a break history that never answers holds up neither a replica's start nor its polls; breaks stay pending for it")
    func silentHistory() async throws {
        let origin = try await LiveOriginTests.Origin()
        defer { origin.process.stop() }
        let silent = try SilentPort()
        let history = try #require(PostgresBreakHistory(url: "postgres://adstitch@127.0.0.1:\(silent.port)/adstitch", logger: Self.logger))
        let client = OriginClient()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await history.run() }
            try await origin.waitForSegments(2)
            let channel = Self.channel(origin, history: history, client: client, historyDeadline: .milliseconds(500))
            // Reading the history at start gives up at its deadline, not when the database returns.
            let started = ContinuousClock.now
            await #expect(throws: (any Error).self) { try await channel.loadHistory(since: ExactDecimal(origin.epoch)) }
            #expect(ContinuousClock.now - started < .seconds(3), "loadHistory waited \(ContinuousClock.now - started)")
            group.addTask { await channel.run(historySince: ExactDecimal(origin.epoch)) }
            // At 4× a 2 s segment comes every 0.5 s: the window moves on through breaks opening and
            // closing, each of which the poller used to wait to record.
            try await Task.sleep(for: .seconds(1))
            let first = try #require(channel.window(channel.renditions[0])).mediaSequence
            try await Task.sleep(for: .seconds(8))
            let last = try #require(channel.window(channel.renditions[0])).mediaSequence
            #expect(last - first >= 10, "the window moved \(last - first) segments in 8 s (about 16 expected)")
            #expect(channel.breaks.contains { $0.closing != nil }, "breaks opened and closed meanwhile: \(channel.breaks)")
            group.cancelAll()
        }
        try await client.shutdown()
    }

    @Test("a stalled origin keeps the last window and marks the channel stalled until it moves; a 503 keeps the last window")
    func faults() async throws {
        let origin = try await LiveOriginTests.Origin()
        defer { origin.process.stop() }
        let client = OriginClient()
        let channel = Self.channel(origin, history: nil, client: client, stallAfter: .seconds(1))
        try await origin.waitForSegments(2)
        await channel.poll()
        // Faults a busy machine's delays cannot outlast, ended by the test (the origin's own
        // timed ends are LiveOriginTests').
        #expect(try origin.get("/_/stall/60").status == 200)
        try await Task.sleep(for: .milliseconds(300))
        await channel.poll()
        let held = try #require(channel.window(channel.renditions[0]))
        try await Task.sleep(for: .seconds(1.5))
        await channel.poll()
        #expect(channel.isStalled)
        #expect(channel.window(channel.renditions[0])?.mediaSequence == held.mediaSequence)
        #expect(try origin.get("/_/stall/0").status == 200)
        // Polled until the window moves (10 s at most).
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, channel.isStalled {
            try await Task.sleep(for: .milliseconds(300))
            await channel.poll()
        }
        #expect(!channel.isStalled, "it moves again")
        // A failing origin: the window stays what it was.
        #expect(try origin.get("/_/fail/60").status == 200)
        let before = try #require(channel.window(channel.renditions[0]))
        await channel.poll()
        #expect(channel.window(channel.renditions[0])?.mediaSequence == before.mediaSequence)
        #expect(try origin.get("/_/fail/0").status == 200)
        try await client.shutdown()
    }

    @Test("a stopped poller's run ends after its current round, without being cancelled")
    func stop() async throws {
        let origin = try await LiveOriginTests.Origin()
        defer { origin.process.stop() }
        let client = OriginClient()
        let channel = Self.channel(origin, history: nil, client: client)
        try await origin.waitForSegments(2)
        let running = Task { await channel.run() }
        try await Task.sleep(for: .seconds(1))
        #expect(channel.window(channel.renditions[0]) != nil, "it polled")
        channel.stop()
        // A round sleeps half a target duration (1 s here): the run ends within a few seconds.
        let timedOut = Mutex(false)
        let deadline = Task {
            try? await Task.sleep(for: .seconds(10))
            guard !Task.isCancelled else { return }
            timedOut.withLock { $0 = true }
            running.cancel()
        }
        await running.value
        #expect(!timedOut.withLock { $0 }, "run() returned after stop(), not at the deadline's cancellation")
        deadline.cancel()
        try await client.shutdown()
    }
}
