import Synchronization

/// A PostgreSQL store's table, created once per process: the first call that needs it runs
/// `CREATE TABLE IF NOT EXISTS`; later calls return at once, and a failed run is tried again by
/// the next call. One home for what the decisions, the conditioning jobs and the beacon ledger
/// each need.
final class PreparedOnce: Sendable {
    private let done = Mutex(false)

    /// Runs `prepare` unless a run already succeeded.
    func run(_ prepare: () async throws -> Void) async throws {
        guard !self.done.withLock({ $0 }) else { return }
        try await prepare()
        self.done.withLock { $0 = true }
    }
}
