import AdCampaign
import AdDecision
import AdPostgres
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// Viewers' impressions for frequency caps (docs/campaign-format.md "Frequency caps"): PostgreSQL
/// when replicas share one (`serve --database`), else this replica's memory.
protocol ImpressionStore: Sendable {
    /// The viewer's impressions in the campaign at or after `since` (ms), oldest first.
    func impressions(campaign: String, viewer: String, since: Int64) async throws -> [Impression]
    /// Records a session's impressions (its plan's pieces by index, or a live break's ads by their
    /// index in its fill; each ad's id) at `at` (ms); the same session, break and piece recorded
    /// again (a player asking the master twice) count once. `breakID`: the live break, empty for
    /// a plan's pieces.
    func record(campaign: String, viewer: String, session: String, breakID: String, ads: [(piece: Int, ad: String)], at: Int64) async throws
    /// What `serve` says at start about where impressions are counted.
    var summary: String { get }
}

/// One replica's impressions, in memory: at most ``capacity`` (the viewers seen longest ago
/// forgotten first), none older than the longest window a cap may have.
final class MemoryImpressionStore: ImpressionStore {
    private struct Entry {
        let session: String
        let breakID: String
        let piece: Int
        let impression: Impression
    }

    private struct State {
        var entries: [String: [Entry]] = [:]
        var order: [String] = []
        var count = 0
    }

    private let state = Mutex(State())
    let capacity: Int

    init(capacity: Int = 1_000_000) {
        self.capacity = capacity
    }

    func impressions(campaign: String, viewer: String, since: Int64) async throws -> [Impression] {
        self.state.withLock { state in
            (state.entries[campaign + "\u{1f}" + viewer] ?? []).map(\.impression).filter { $0.at >= since }.sorted { $0.at < $1.at }
        }
    }

    func record(campaign: String, viewer: String, session: String, breakID: String, ads: [(piece: Int, ad: String)], at: Int64) async throws {
        let key = campaign + "\u{1f}" + viewer
        let oldest = at - Int64(FrequencyCap.maxWindow) * 1000
        self.state.withLock { state in
            var entries = (state.entries[key] ?? []).filter { $0.impression.at >= oldest }
            for (piece, ad) in ads where !entries.contains(where: { $0.session == session && $0.breakID == breakID && $0.piece == piece }) {
                entries.append(Entry(session: session, breakID: breakID, piece: piece, impression: Impression(ad: ad, at: at, session: session)))
            }
            if state.entries[key] == nil { state.order.append(key) }
            state.count += entries.count - (state.entries[key]?.count ?? 0)
            state.entries[key] = entries
            while state.count > self.capacity, !state.order.isEmpty {
                let forgotten = state.order.removeFirst()
                state.count -= state.entries.removeValue(forKey: forgotten)?.count ?? 0
            }
        }
    }

    var summary: String {
        "frequency caps count impressions in this replica's memory (no --database): behind a balancer, each replica counts only the sessions it started; share PostgreSQL"
    }
}

/// Impressions in PostgreSQL, shared by every replica: a row per (campaign, viewer, session,
/// break, piece); rows older than the longest window a cap may have are deleted as the viewer's next
/// impressions are recorded. The caller bounds each call (``FrequencyCapper/deadline``).
final class PostgresImpressionStore: ImpressionStore {
    let table: PostgresTable

    init(client: PostgresClient, logger: Logger) {
        self.table = PostgresTable(
            client: client,
            logger: logger,
            schema: [
                """
                CREATE TABLE IF NOT EXISTS adstitch_impressions (
                    campaign text NOT NULL,
                    viewer text NOT NULL,
                    session text NOT NULL,
                    break_id text NOT NULL DEFAULT '',
                    piece integer NOT NULL,
                    ad text NOT NULL,
                    at_ms bigint NOT NULL,
                    PRIMARY KEY (campaign, viewer, session, break_id, piece)
                )
                """,
                // A table made before live sessions counted: the break added and the key widened
                // to it (else two live breaks' first ads would count once).
                "ALTER TABLE adstitch_impressions ADD COLUMN IF NOT EXISTS break_id text NOT NULL DEFAULT ''",
                PostgresTable.widenPrimaryKey(
                    of: "adstitch_impressions",
                    to: ["campaign", "viewer", "session", "break_id", "piece"],
                    adding: "break_id"
                ),
                "CREATE INDEX IF NOT EXISTS adstitch_impressions_by_time ON adstitch_impressions (campaign, viewer, at_ms)",
            ]
        )
    }

    func impressions(campaign: String, viewer: String, since: Int64) async throws -> [Impression] {
        let rows = try await self.table.query(
            """
            SELECT ad, at_ms, session FROM adstitch_impressions
            WHERE campaign = \(campaign) AND viewer = \(viewer) AND at_ms >= \(since) ORDER BY at_ms, session, break_id, piece
            """
        )
        var found: [Impression] = []
        for try await (ad, at, session) in rows.decode((String, Int64, String).self) {
            found.append(Impression(ad: ad, at: at, session: session))
        }
        return found
    }

    func record(campaign: String, viewer: String, session: String, breakID: String, ads: [(piece: Int, ad: String)], at: Int64) async throws {
        guard !ads.isEmpty else { return }
        let pieces = ads.map { Int32(clamping: $0.piece) }
        let names = ads.map(\.ad)
        let oldest = at - Int64(FrequencyCap.maxWindow) * 1000
        // One statement, one round trip: the viewer's rows past the longest window go as the new ones come.
        try await self.table.query(
            """
            WITH expired AS (
                DELETE FROM adstitch_impressions WHERE campaign = \(campaign) AND viewer = \(viewer) AND at_ms < \(oldest)
            )
            INSERT INTO adstitch_impressions (campaign, viewer, session, break_id, piece, ad, at_ms)
            SELECT \(campaign), \(viewer), \(session), \(breakID), piece, ad, \(at) FROM unnest(\(pieces)::integer[], \(names)::text[]) AS u(piece, ad)
            ON CONFLICT DO NOTHING
            """
        )
    }

    var summary: String { "frequency caps count impressions through PostgreSQL (table adstitch_impressions)" }
}
