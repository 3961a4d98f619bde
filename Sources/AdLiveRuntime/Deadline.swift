import Synchronization

/// Runs an operation that may never end — a query waiting on a database that has gone away,
/// its pool holding the request until a connection comes back — and stops waiting for it after
/// a time: the caller gets ``Exceeded`` and the operation is cancelled. The caller is released at
/// the deadline even when the operation ignores cancellation (it then ends on its own, later).
enum Deadline {
    struct Exceeded: Error, CustomStringConvertible {
        let limit: Duration
        var description: String { "no answer within \(self.limit)" }
    }

    /// The caller's continuation, resumed once by whichever comes first, and the operation's task.
    private final class Race<T: Sendable>: Sendable {
        let continuation = Mutex<CheckedContinuation<T, any Error>?>(nil)
        let work = Mutex<Task<Void, Never>?>(nil)

        func finish(_ result: Result<T, any Error>) {
            self.continuation.withLock { $0.take() }?.resume(with: result)
        }
    }

    static func run<T: Sendable>(within limit: Duration, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let race = Race<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                race.continuation.withLock { $0 = continuation }
                let work = Task {
                    do { race.finish(.success(try await operation())) } catch { race.finish(.failure(error)) }
                }
                race.work.withLock { $0 = work }
                Task {
                    try? await Task.sleep(for: limit)
                    race.finish(.failure(Exceeded(limit: limit)))
                    work.cancel()
                }
            }
        } onCancel: {
            race.finish(.failure(CancellationError()))
            race.work.withLock { $0 }?.cancel()
        }
    }
}
