import AdCampaign
import AdCampaignStore
import AdOrigin
import AdPostgres
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// What an ad decision server decided for one session, as every replica reads it back: per
/// break, the creatives that play in order, each by identity, media file URL and tracking
/// (docs/design-decisions.md "Ad decision servers"). A replica that gets a session's file without
/// its plan reads this, has each creative from its ``CreativeCache`` and plans the same session.
struct StoredDecisions: Codable, Sendable, Hashable {
    struct Creative: Codable, Sendable, Hashable {
        var id: String
        var url: URL
        var tracking: [String: [String]]
        /// Nil when it has none (and in rows written before verifications were kept).
        var verifications: [AdVerification]?

        /// `ad`, whose playlists were loaded from `url`.
        init(_ ad: Ad, url: URL) {
            self.id = ad.id
            self.url = url
            self.tracking = ad.tracking
            self.verifications = ad.verifications.isEmpty ? nil : ad.verifications
        }

        /// The creative as an ad again, its playlists `asset`.
        func ad(_ asset: Asset) -> Ad {
            Ad(id: self.id, asset: asset, tracking: self.tracking, verifications: self.verifications ?? [])
        }
    }

    /// By break id.
    var breaks: [String: [Creative]]

    var bytes: Int {
        self.breaks.reduce(64) {
            $0 + $1.key.utf8.count
                + $1.value.reduce(0) {
                    $0 + 96 + $1.id.utf8.count + $1.url.absoluteString.utf8.count
                        + $1.tracking.reduce(0) { $0 + $1.value.reduce(16) { $0 + $1.utf8.count } }
                        + ($1.verifications ?? []).reduce(0) {
                            $0 + 256 + $1.resources.reduce(0) { $0 + $1.uri.utf8.count } + ($1.parameters?.utf8.count ?? 0)
                        }
                }
        }
    }
}

/// Where sessions' decisions live: PostgreSQL when replicas share one (`serve --database`),
/// else this replica's memory, bounded. A session's decisions are written once, at its start; a
/// second write for the same session (two replicas starting the same token) keeps the first.
protocol AdDecisionStore: Sendable {
    /// Records `decisions` for `session` unless some are recorded already; the ones that stand.
    func record(_ decisions: StoredDecisions, session: String, expires: Int64) async throws -> StoredDecisions
    /// The decisions recorded for `session`, or nil.
    func decisions(session: String) async throws -> StoredDecisions?
    /// What `serve` says at start about how sessions' ad decisions are shared.
    var summary: String { get }
}

/// One replica's decisions, in memory, at most ``budget`` bytes (the least recently used go first).
final class MemoryAdDecisionStore: AdDecisionStore {
    private let cache: LRUCache<String, StoredDecisions>

    static let budget = 64 << 20

    init(budget: Int = MemoryAdDecisionStore.budget) {
        self.cache = LRUCache(budget: budget) { key, value in key.utf8.count + value.bytes }
    }

    func record(_ decisions: StoredDecisions, session: String, expires: Int64) async throws -> StoredDecisions {
        if let known = self.cache.get(session) { return known }
        self.cache.put(session, decisions)
        return decisions
    }

    func decisions(session: String) async throws -> StoredDecisions? {
        self.cache.get(session)
    }

    var summary: String {
        "ad decisions are kept in this replica's memory (no --database): run one replica per campaign with an ad_server, or share PostgreSQL"
    }
}

/// Decisions in PostgreSQL, shared by every replica: a row per session, written once.
final class PostgresAdDecisionStore: AdDecisionStore {
    let table: PostgresTable
    /// A database that does not answer within this long fails the call (the caller falls back).
    static let deadline = Duration.seconds(2)

    init(client: PostgresClient, logger: Logger) {
        self.table = PostgresTable(
            client: client,
            logger: logger,
            schema: [
                """
                CREATE TABLE IF NOT EXISTS adstitch_ad_decisions (
                    session text PRIMARY KEY,
                    decisions text NOT NULL,
                    expires_at bigint NOT NULL,
                    recorded_at timestamptz NOT NULL DEFAULT now()
                )
                """
            ]
        )
    }

    func record(_ decisions: StoredDecisions, session: String, expires: Int64) async throws -> StoredDecisions {
        let text = String(decoding: try JSONEncoder().encode(decisions), as: UTF8.self)
        let table = self.table
        try await Deadline.run(within: Self.deadline) { try await table.ready() }
        // The row that stands: a conflicting insert touches nothing and returns the first.
        let stored = try await Deadline.run(within: Self.deadline) { () async throws -> String? in
            let rows = try await table.query(
                """
                INSERT INTO adstitch_ad_decisions (session, decisions, expires_at) VALUES (\(session), \(text), \(expires))
                ON CONFLICT (session) DO UPDATE SET session = EXCLUDED.session RETURNING decisions
                """
            )
            for try await decisions in rows.decode(String.self) { return decisions }
            return nil
        }
        guard let stored else { return decisions }
        return try JSONDecoder().decode(StoredDecisions.self, from: Data(stored.utf8))
    }

    func decisions(session: String) async throws -> StoredDecisions? {
        let table = self.table
        try await Deadline.run(within: Self.deadline) { try await table.ready() }
        let stored = try await Deadline.run(within: Self.deadline) { () async throws -> String? in
            let rows = try await table.query("SELECT decisions FROM adstitch_ad_decisions WHERE session = \(session)")
            for try await decisions in rows.decode(String.self) { return decisions }
            return nil
        }
        return try stored.map { try JSONDecoder().decode(StoredDecisions.self, from: Data($0.utf8)) }
    }

    /// Forgets decisions whose sessions have expired (`now` in Unix seconds).
    func prune(now: Int64) async throws {
        try await self.table.query("DELETE FROM adstitch_ad_decisions WHERE expires_at < \(now)")
    }

    var summary: String { "ad decisions are shared through PostgreSQL (table adstitch_ad_decisions)" }
}
