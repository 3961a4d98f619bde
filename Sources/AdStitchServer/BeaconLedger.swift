import AdOrigin
import AdPostgres
import AdStitching
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// Who may fire an ad event of a session (docs/campaign-format.md "Measurement"): the first to
/// claim (session, place, event) fires it — the place a plan's piece, or a live break's id and
/// the piece of its fill — and every later claim (a player fetching the segment again, another
/// replica answering it) is told no. The claim is made before firing, so an event fires at most
/// once; one whose URLs fail is retried by the firer, never fired twice.
protocol BeaconLedger: Sendable {
    /// Which of `events` (one segment's, in play order) this call claimed — fire those — in
    /// their order; the rest another claim had first. All or none in practice: concurrent claims
    /// of one segment's events take them in the same order, so the first takes them all and one
    /// fetch fires them in order. Throws when the ledger cannot say (a database that does not
    /// answer): nothing is claimed then, and nothing may fire — the caller asks again later.
    func claim(session: String, place: BeaconPlace, ad: String, events: [String]) async throws -> [String]
    /// The events claimed for `session`, in order (`GET …/sessions/{token}/events`).
    func events(session: String) async throws -> [BeaconLedgerEntry]
    /// What `serve` says at start about how events are kept once per viewer.
    var summary: String { get }
}

/// One event claimed for a session: the ad's place and id, the event and when it was claimed.
struct BeaconLedgerEntry: Sendable, Hashable {
    let place: BeaconPlace
    /// Empty in a row claimed before the ledger kept ads.
    let ad: String
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

    func claim(session: String, place: BeaconPlace, ad: String, events: [String]) async -> [String] {
        let at = Int64(Date().timeIntervalSince1970 * 1000)
        return self.state.withLock { state in
            var entries = state.claimed[session] ?? []
            let claimed = events.filter { event in !entries.contains { $0.place == place && $0.event == event } }
            guard !claimed.isEmpty else { return [] }
            if entries.isEmpty { state.order.append(session) }
            entries += claimed.map { BeaconLedgerEntry(place: place, ad: ad, event: $0, at: at) }
            state.claimed[session] = entries
            state.count += claimed.count
            while state.count > self.capacity, !state.order.isEmpty {
                let oldest = state.order.removeFirst()
                state.count -= state.claimed.removeValue(forKey: oldest)?.count ?? 0
            }
            return claimed
        }
    }

    func events(session: String) async throws -> [BeaconLedgerEntry] {
        self.state.withLock { $0.claimed[session] ?? [] }
    }

    var summary: String {
        "ad events are fired once per viewer by this replica's memory (no --database): behind a balancer, replicas may each fire an event a player asks both for; share PostgreSQL"
    }
}

/// The ledger in PostgreSQL, shared by every replica: a row per (session, break, piece, event) —
/// the break empty outside live sessions — the first insert claiming it. A database that does
/// not answer within ``deadline`` claims nothing: the claim throws, its query is cancelled, and
/// the caller (``BeaconClaims``) asks again later. No replica decides alone — that fired an
/// event once during an outage and again after it.
final class PostgresBeaconLedger: BeaconLedger {
    let table: PostgresTable
    /// Generous: a claim runs after the `302` has gone, so waiting delays no answer, while a
    /// short deadline let a replica's first claim (a new connection, the table created) on a
    /// loaded machine miss it and ask again.
    static let deadline = Duration.seconds(5)

    init(client: PostgresClient, logger: Logger) {
        self.table = PostgresTable(
            client: client,
            logger: logger,
            schema: [
                """
                CREATE TABLE IF NOT EXISTS adstitch_beacon_ledger (
                    session text NOT NULL,
                    break_id text NOT NULL DEFAULT '',
                    piece integer NOT NULL,
                    event text NOT NULL,
                    ad text NOT NULL DEFAULT '',
                    claimed_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (session, break_id, piece, event)
                )
                """,
                // A table made before live sessions fired events: the break and the ad added, and
                // the key widened to the break (else two live breaks' first ads would collide).
                "ALTER TABLE adstitch_beacon_ledger ADD COLUMN IF NOT EXISTS break_id text NOT NULL DEFAULT ''",
                "ALTER TABLE adstitch_beacon_ledger ADD COLUMN IF NOT EXISTS ad text NOT NULL DEFAULT ''",
                PostgresTable.widenPrimaryKey(of: "adstitch_beacon_ledger", to: ["session", "break_id", "piece", "event"], adding: "break_id"),
            ]
        )
    }

    func claim(session: String, place: BeaconPlace, ad: String, events: [String]) async throws -> [String] {
        guard !events.isEmpty else { return [] }
        let table = self.table
        let breakID = place.breakID ?? ""
        let piece = Int32(clamping: place.piece)
        try await Deadline.run(within: Self.deadline) { try await table.ready() }
        return try await Deadline.run(within: Self.deadline) { () async throws -> [String] in
            // One statement, rows in play order: a concurrent claim of the same events waits
            // on the first row, then finds them all taken.
            let rows = try await table.query(
                """
                INSERT INTO adstitch_beacon_ledger (session, break_id, piece, event, ad)
                SELECT \(session), \(breakID), \(piece), claimed.event, \(ad)
                FROM unnest(\(events)::text[]) WITH ORDINALITY AS claimed(event, position) ORDER BY claimed.position
                ON CONFLICT DO NOTHING RETURNING event
                """
            )
            var claimed: Set<String> = []
            for try await event in rows.decode(String.self) { claimed.insert(event) }
            return events.filter(claimed.contains)
        }
    }

    func events(session: String) async throws -> [BeaconLedgerEntry] {
        let table = self.table
        try await Deadline.run(within: Self.deadline) { try await table.ready() }
        return try await Deadline.run(within: Self.deadline) { () async throws -> [BeaconLedgerEntry] in
            let rows = try await table.query(
                """
                SELECT break_id, piece, ad, event, (extract(epoch FROM claimed_at) * 1000)::bigint FROM adstitch_beacon_ledger
                WHERE session = \(session)
                ORDER BY claimed_at, break_id, piece,
                    array_position(ARRAY['impression', 'start', 'firstQuartile', 'midpoint', 'thirdQuartile', 'complete'], event), event
                """
            )
            var entries: [BeaconLedgerEntry] = []
            for try await (breakID, piece, ad, event, at) in rows.decode((String, Int32, String, String, Int64).self) {
                let place = breakID.isEmpty ? BeaconPlace.plan(Int(piece)) : .live(breakID, Int(piece))
                entries.append(BeaconLedgerEntry(place: place, ad: ad, event: event, at: at))
            }
            return entries
        }
    }

    var summary: String { "ad events are fired once per viewer through PostgreSQL (table adstitch_beacon_ledger)" }
}
