import AdOrigin
import AdPostgres
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// Who may fire an ad event of a session (docs/campaign-format.md "Measurement"): the first to
/// claim (session, piece, event) fires it, every later claim — a player fetching the segment
/// again, another replica answering it — is told no. The claim is made before firing, so an event
/// fires at most once; one whose URLs fail is retried by the firer, never fired twice.
protocol BeaconLedger: Sendable {
    /// Whether this call claimed the event (fire it) or another did first (do not).
    func claim(session: String, piece: Int, event: String) async -> Bool
    /// The events claimed for `session`, in order (`GET …/sessions/{token}/events`).
    func events(session: String) async throws -> [BeaconLedgerEntry]
    /// What `serve` says at start about how events are kept once per viewer.
    var summary: String { get }
}

/// One event claimed for a session: the piece of its plan, the event and when it was claimed.
struct BeaconLedgerEntry: Sendable, Hashable {
    let piece: Int
    let event: String
    /// Milliseconds since the epoch.
    let at: Int64
}

/// One replica's ledger, in memory: at most ``capacity`` claims (the oldest forgotten first).
final class MemoryBeaconLedger: BeaconLedger {
    private struct State {
        var claimed: [String: [BeaconLedgerEntry]] = [:]
        var order: [String] = []
        var count = 0
    }

    private let state = Mutex(State())
    let capacity: Int

    init(capacity: Int = 1_000_000) {
        self.capacity = capacity
    }

    func claim(session: String, piece: Int, event: String) async -> Bool {
        let at = Int64(Date().timeIntervalSince1970 * 1000)
        return self.state.withLock { state in
            var entries = state.claimed[session] ?? []
            guard !entries.contains(where: { $0.piece == piece && $0.event == event }) else { return false }
            if entries.isEmpty { state.order.append(session) }
            entries.append(BeaconLedgerEntry(piece: piece, event: event, at: at))
            state.claimed[session] = entries
            state.count += 1
            while state.count > self.capacity, !state.order.isEmpty {
                let oldest = state.order.removeFirst()
                state.count -= state.claimed.removeValue(forKey: oldest)?.count ?? 0
            }
            return true
        }
    }

    func events(session: String) async throws -> [BeaconLedgerEntry] {
        self.state.withLock { $0.claimed[session] ?? [] }
    }

    var summary: String {
        "ad events are fired once per viewer by this replica's memory (no --database): behind a balancer, replicas may each fire an event a player asks both for; share PostgreSQL"
    }
}

/// The ledger in PostgreSQL, shared by every replica: a row per (session, piece, event), the
/// first insert claiming it. A database that does not answer within ``deadline`` leaves the
/// claim to this replica's memory (at most once per replica), said in the log.
final class PostgresBeaconLedger: BeaconLedger {
    let table: PostgresTable
    let fallback = MemoryBeaconLedger()
    /// Generous: a claim runs after the `302` has gone, so waiting delays no answer, while a
    /// short deadline let a replica's first claim (a new connection, the table created) on a
    /// loaded machine miss it, decide alone, and fire an event the other replica fired too.
    static let deadline = Duration.seconds(5)

    init(client: PostgresClient, logger: Logger) {
        self.table = PostgresTable(
            client: client,
            logger: logger,
            schema: [
                """
                CREATE TABLE IF NOT EXISTS adstitch_beacon_ledger (
                    session text NOT NULL,
                    piece integer NOT NULL,
                    event text NOT NULL,
                    claimed_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (session, piece, event)
                )
                """
            ]
        )
    }

    func claim(session: String, piece: Int, event: String) async -> Bool {
        let table = self.table
        do {
            try await Deadline.run(within: Self.deadline) { try await table.ready() }
            return try await Deadline.run(within: Self.deadline) { () async throws -> Bool in
                let rows = try await table.query(
                    """
                    INSERT INTO adstitch_beacon_ledger (session, piece, event) VALUES (\(session), \(Int32(clamping: piece)), \(event))
                    ON CONFLICT DO NOTHING RETURNING piece
                    """
                )
                for try await _ in rows.decode(Int32.self) { return true }
                return false
            }
        } catch {
            table.logger.warning(
                "the beacon ledger did not answer; this replica decides alone whether to fire the event",
                metadata: ["event": "\(event)", "error": "\(error)"]
            )
            return await self.fallback.claim(session: session, piece: piece, event: event)
        }
    }

    func events(session: String) async throws -> [BeaconLedgerEntry] {
        let table = self.table
        try await Deadline.run(within: Self.deadline) { try await table.ready() }
        return try await Deadline.run(within: Self.deadline) { () async throws -> [BeaconLedgerEntry] in
            let rows = try await table.query(
                """
                SELECT piece, event, (extract(epoch FROM claimed_at) * 1000)::bigint FROM adstitch_beacon_ledger
                WHERE session = \(session) ORDER BY claimed_at, piece
                """
            )
            var entries: [BeaconLedgerEntry] = []
            for try await (piece, event, at) in rows.decode((Int32, String, Int64).self) {
                entries.append(BeaconLedgerEntry(piece: Int(piece), event: event, at: at))
            }
            return entries
        }
    }

    var summary: String { "ad events are fired once per viewer through PostgreSQL (table adstitch_beacon_ledger)" }
}
