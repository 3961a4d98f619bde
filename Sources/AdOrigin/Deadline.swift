import Synchronization

/// Runs an operation that may never end — a query waiting on a database that has gone away,
/// its pool holding the request until a connection comes back — and stops waiting for it after
/// a time: the caller gets ``Exceeded`` and the operation is cancelled. The caller is released at
/// the deadline even when the operation ignores cancellation (it then ends on its own, later).
public enum Deadline {
    public struct Exceeded: Error, CustomStringConvertible {
        public let limit: Duration
        public var description: String { "no answer within \(self.limit)" }
    }

    /// The caller's continuation, resumed once by whichever comes first, and the operation's task.
    private final class Race<T: Sendable>: Sendable {
        let continuation = Mutex<CheckedContinuation<T, any Error>?>(nil)
        let work = Mutex<Task<Void, Never>?>(nil)
        let timer = Mutex<Task<Void, Never>?>(nil)

        func finish(_ result: Result<T, any Error>) {
            self.continuation.withLock { $0.take() }?.resume(with: result)
            // The timer sleeps no longer than needed once the operation is done.
            self.timer.withLock { $0 }?.cancel()
        }
    }

    public static func run<T: Sendable>(within limit: Duration, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        try await Self.run(until: .now + limit, limit: limit, operation)
    }

    /// ``run(within:_:)`` to an instant: the steps of one piece of work share one deadline (an ad
    /// server's wrapper chain and its creatives' playlists: the break's `timeout`).
    public static func run<T: Sendable>(
        until deadline: ContinuousClock.Instant,
        limit: Duration,
        _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let race = Race<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                race.continuation.withLock { $0 = continuation }
                let work = Task {
                    do { race.finish(.success(try await operation())) } catch { race.finish(.failure(error)) }
                }
                race.work.withLock { $0 = work }
                let timer = Task {
                    try? await Task.sleep(until: deadline, clock: .continuous)
                    race.finish(.failure(Exceeded(limit: limit)))
                    work.cancel()
                }
                race.timer.withLock { $0 = timer }
            }
        } onCancel: {
            race.finish(.failure(CancellationError()))
            race.work.withLock { $0 }?.cancel()
        }
    }
}
