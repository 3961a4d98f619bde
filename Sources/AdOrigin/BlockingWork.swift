import Foundation
import Synchronization

/// Blocking work that waits on an origin — a campaign loader fetching a catalogue title's or a
/// creative's playlists — run on threads of its own, at most ``perOrigin`` at once per origin.
///
/// Never on the global dispatch queue or NIO's shared thread pool: on Linux both have about as
/// many threads as cores and grow no more when their threads block, so a few loads waiting on a
/// slow origin held every thread (another catalogue's new title waited 29.75 s behind four
/// titles on a one-byte-a-second origin), and with them anything else queued there. Here a slow
/// origin holds its own few threads; the next load for it waits its turn, and loads from every
/// other origin go on.
public final class BlockingWork: Sendable {
    /// Loads of one origin at once.
    public let perOrigin: Int
    /// Loads of one origin waiting for a place; past them a load is refused (``Busy``) rather
    /// than queued without end.
    public let maxWaiting: Int

    /// A load refused: its origin has ``maxWaiting`` loads waiting already.
    public struct Busy: Error, CustomStringConvertible {
        public let origin: String
        public var description: String { "\(self.origin) has too many loads waiting; try again in a few seconds" }
    }

    private struct Gate {
        var running = 0
        var waiting: [CheckedContinuation<Bool, Never>] = []
    }

    private let gates = Mutex([String: Gate]())

    public init(perOrigin: Int = 4, maxWaiting: Int = 256) {
        self.perOrigin = perOrigin
        self.maxWaiting = maxWaiting
    }

    /// The origin `url` belongs to: scheme, host and port.
    public static func origin(of url: URL) -> String {
        "\(url.scheme?.lowercased() ?? "")://\(url.host?.lowercased() ?? ""):\(url.port.map(String.init) ?? "")"
    }

    /// Runs `body` on a thread of its own once `origin` has a free place.
    public func run<T: Sendable>(origin: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        guard await self.enter(origin) else { throw Busy(origin: origin) }
        defer { self.leave(origin) }
        return try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try body() }) }
            thread.name = "adstitch-load"
            thread.start()
        }
    }

    /// Takes a place for `origin` (waiting for one); false when too many wait already.
    private func enter(_ origin: String) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            enum Admission { case now, later, refused }
            let admission = self.gates.withLock { gates -> Admission in
                var gate = gates[origin] ?? Gate()
                defer { gates[origin] = gate.running == 0 && gate.waiting.isEmpty ? nil : gate }
                if gate.running < self.perOrigin {
                    gate.running += 1
                    return .now
                }
                guard gate.waiting.count < self.maxWaiting else { return .refused }
                gate.waiting.append(continuation)
                return .later
            }
            switch admission {
            case .now: continuation.resume(returning: true)
            case .refused: continuation.resume(returning: false)
            case .later: break
            }
        }
    }

    private func leave(_ origin: String) {
        let next = self.gates.withLock { gates -> CheckedContinuation<Bool, Never>? in
            guard var gate = gates[origin] else { return nil }
            defer { gates[origin] = gate.running == 0 && gate.waiting.isEmpty ? nil : gate }
            // The place passes to the next in line, or is freed.
            guard !gate.waiting.isEmpty else {
                gate.running -= 1
                return nil
            }
            return gate.waiting.removeFirst()
        }
        next?.resume(returning: true)
    }
}
