import AdPostgres
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// Sessions' viewing-quality reports (docs/quality.md): PostgreSQL when replicas share one
/// (`serve --database`), else this replica's memory — as the other stores. Bounded: at most
/// ``maxEventsPerSession`` events a session, none kept past the campaign's `qoe.retention`, at
/// most ``maxSessionsPerQuery`` sessions (the latest) read for one campaign's KPIs.
public protocol QualityStore: Sendable {
    /// Adds a report's events to a session (made by its first report or view); `replacing`: what
    /// kept events the new ones replace (AVPlayer's whole access log, a replica's grown view).
    /// Entries past a session's bound are dropped. Forgets what is older than `before` (ms) first,
    /// at most once a minute per campaign and replica. Returns how many events were kept.
    func record(_ session: QualitySession, events: [QualityEvent], replacing: QualityReplacement?, forgetBefore before: Int64) async throws -> Int
    /// A session and its events in the order received.
    func session(campaign: String, session: String) async throws -> (QualitySession, [QualityEvent])?
    /// A campaign's sessions first reported at or after `since` (ms), the latest first, at most
    /// ``maxSessionsPerQuery``.
    func sessions(campaign: String, since: Int64) async throws -> [(QualitySession, [QualityEvent])]
    /// What `serve` says at start about where reports are kept.
    var summary: String { get }
}

/// What kept events a record replaces.
public enum QualityReplacement: Sendable, Hashable {
    /// The access log (AVPlayer lists it whole each time).
    case accessLog
    /// The view of one replica (``ServerView``): each replica writes its own, whole.
    case serverView(replica: String)

    func replaces(_ event: QualityEvent) -> Bool {
        switch self {
        case .accessLog: event.kind == .access
        case .serverView(let replica): event.kind == .server && event.view?.replica == replica
        }
    }
}

extension QualityStore {
    /// Events one session keeps: a report every 10 s for an hour and more, or a long session's
    /// level switches and stalls; what comes after is dropped (and answered as not kept).
    public static var maxEventsPerSession: Int { 1_000 }
    /// Sessions read for one campaign's KPIs: the latest, over the window asked.
    public static var maxSessionsPerQuery: Int { 20_000 }
}

/// One replica's reports, in memory: at most ``capacity`` events in all (the sessions reported
/// first longest ago forgotten first).
public final class MemoryQualityStore: QualityStore {
    private struct Kept {
        var session: QualitySession
        var events: [QualityEvent]
    }

    private struct State {
        var sessions: [String: Kept] = [:]
        /// Keys in the order their sessions first reported.
        var order: [String] = []
        var events = 0
    }

    private let state = Mutex(State())
    public let capacity: Int

    public init(capacity: Int = 200_000) {
        self.capacity = capacity
    }

    public func record(
        _ session: QualitySession,
        events: [QualityEvent],
        replacing: QualityReplacement?,
        forgetBefore before: Int64
    ) async throws -> Int {
        let key = session.campaign + "\u{1f}" + session.session
        return self.state.withLock { state in
            while let oldest = state.order.first, let kept = state.sessions[oldest], kept.session.first < before {
                state.order.removeFirst()
                state.events -= kept.events.count
                state.sessions[oldest] = nil
            }
            var kept = state.sessions[key] ?? Kept(session: session, events: [])
            if state.sessions[key] == nil { state.order.append(key) }
            let had = kept.events.count
            if let replacing { kept.events.removeAll(where: replacing.replaces) }
            let room = max(0, Self.maxEventsPerSession - kept.events.count)
            let added = events.prefix(room)
            kept.events += added
            state.events += kept.events.count - had
            state.sessions[key] = kept
            while state.events > self.capacity, let oldest = state.order.first {
                state.order.removeFirst()
                state.events -= state.sessions.removeValue(forKey: oldest)?.events.count ?? 0
            }
            return added.count
        }
    }

    public func session(campaign: String, session: String) async throws -> (QualitySession, [QualityEvent])? {
        self.state.withLock { state in state.sessions[campaign + "\u{1f}" + session].map { ($0.session, $0.events) } }
    }

    public func sessions(campaign: String, since: Int64) async throws -> [(QualitySession, [QualityEvent])] {
        self.state.withLock { state in
            var found: [(QualitySession, [QualityEvent])] = []
            for key in state.order.reversed() {
                guard found.count < Self.maxSessionsPerQuery, let kept = state.sessions[key] else { break }
                guard kept.session.first >= since else { break }
                if kept.session.campaign == campaign { found.append((kept.session, kept.events)) }
            }
            return found
        }
    }

    public var summary: String {
        "viewing-quality reports are kept in this replica's memory (no --database): behind a balancer, each replica sees only the reports it received; share PostgreSQL"
    }
}

/// Reports in PostgreSQL, shared by every replica: a row per session (its dimensions and timeline,
/// as JSON) and a row per event (as JSON), both written with JSONEncoder from the types above.
public final class PostgresQualityStore: QualityStore {
    let table: PostgresTable
    /// When each campaign's old rows were last deleted (ms), per replica.
    private let swept = Mutex([String: Int64]())

    public init(client: PostgresClient, logger: Logger) {
        self.table = PostgresTable(
            client: client,
            logger: logger,
            schema: [
                """
                CREATE TABLE IF NOT EXISTS adstitch_qoe_sessions (
                    campaign text NOT NULL,
                    session text NOT NULL,
                    first_ms bigint NOT NULL,
                    info jsonb NOT NULL,
                    PRIMARY KEY (campaign, session)
                )
                """,
                "CREATE INDEX IF NOT EXISTS adstitch_qoe_sessions_by_time ON adstitch_qoe_sessions (campaign, first_ms)",
                """
                CREATE TABLE IF NOT EXISTS adstitch_qoe_events (
                    campaign text NOT NULL,
                    session text NOT NULL,
                    seq bigserial,
                    kind text NOT NULL,
                    received_ms bigint NOT NULL,
                    event jsonb NOT NULL,
                    PRIMARY KEY (campaign, session, seq)
                )
                """,
                "CREATE INDEX IF NOT EXISTS adstitch_qoe_events_by_time ON adstitch_qoe_events (campaign, received_ms)",
            ]
        )
    }

    public func record(
        _ session: QualitySession,
        events: [QualityEvent],
        replacing: QualityReplacement?,
        forgetBefore before: Int64
    ) async throws -> Int {
        try await self.forget(campaign: session.campaign, before: before, now: events.first?.received ?? session.first)
        let encoder = JSONEncoder()
        let info = String(decoding: try encoder.encode(session), as: UTF8.self)
        let kinds = events.map(\.kind.rawValue)
        let texts = try events.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        let received = events.first?.received ?? session.first
        let limit = Self.maxEventsPerSession
        let (replacedKind, replica): (String, String) =
            switch replacing {
            case nil: ("", "")
            case .accessLog: ("access", "")
            case .serverView(let replica): ("server", replica)
            }
        // One statement: the session's row if it is new, the access log (or this replica's view)
        // replaced if the record carries one, and the events while the session has room (a statement's parts see one
        // snapshot: two reports at once may pass the bound by one report's entries, no more).
        let rows = try await self.table.query(
            """
            WITH new_session AS (
                INSERT INTO adstitch_qoe_sessions (campaign, session, first_ms, info)
                VALUES (\(session.campaign), \(session.session), \(session.first), \(info)::jsonb) ON CONFLICT DO NOTHING
            ), replaced AS (
                DELETE FROM adstitch_qoe_events
                WHERE campaign = \(session.campaign) AND session = \(session.session) AND kind = \(replacedKind)
                    AND (kind <> 'server' OR event->'view'->>'replica' = \(replica))
                RETURNING 1
            ), room AS (
                SELECT \(limit) - count(*) + (SELECT count(*) FROM replaced) AS remaining FROM adstitch_qoe_events
                WHERE campaign = \(session.campaign) AND session = \(session.session)
            ), added AS (
                INSERT INTO adstitch_qoe_events (campaign, session, kind, received_ms, event)
                SELECT \(session.campaign), \(session.session), u.kind, \(received), u.event::jsonb
                FROM unnest(\(kinds)::text[], \(texts)::text[]) WITH ORDINALITY AS u(kind, event, n), room
                WHERE u.n <= room.remaining
                ORDER BY u.n
                RETURNING 1
            )
            SELECT count(*) FROM added
            """
        )
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }

    /// Deletes a campaign's rows older than `before`, at most once a minute per replica.
    private func forget(campaign: String, before: Int64, now: Int64) async throws {
        let due = self.swept.withLock { swept in
            guard now - (swept[campaign] ?? 0) >= 60_000 else { return false }
            if swept.count > 10_000 { swept.removeAll() }
            swept[campaign] = now
            return true
        }
        guard due else { return }
        try await self.table.query(
            """
            WITH old_sessions AS (
                DELETE FROM adstitch_qoe_sessions WHERE campaign = \(campaign) AND first_ms < \(before) RETURNING session
            )
            DELETE FROM adstitch_qoe_events WHERE campaign = \(campaign)
                AND (received_ms < \(before) OR session IN (SELECT session FROM old_sessions))
            """
        )
    }

    public func session(campaign: String, session: String) async throws -> (QualitySession, [QualityEvent])? {
        try await self.read(
            """
            SELECT s.info::text, coalesce((SELECT json_agg(e.event ORDER BY e.seq) FROM adstitch_qoe_events e
                WHERE e.campaign = s.campaign AND e.session = s.session), '[]')::text
            FROM adstitch_qoe_sessions s WHERE s.campaign = \(campaign) AND s.session = \(session)
            """
        ).first
    }

    public func sessions(campaign: String, since: Int64) async throws -> [(QualitySession, [QualityEvent])] {
        try await self.read(
            """
            SELECT s.info::text, coalesce((SELECT json_agg(e.event ORDER BY e.seq) FROM adstitch_qoe_events e
                WHERE e.campaign = s.campaign AND e.session = s.session), '[]')::text
            FROM adstitch_qoe_sessions s WHERE s.campaign = \(campaign) AND s.first_ms >= \(since)
            ORDER BY s.first_ms DESC LIMIT \(Self.maxSessionsPerQuery)
            """
        )
    }

    private func read(_ query: PostgresQuery) async throws -> [(QualitySession, [QualityEvent])] {
        let decoder = JSONDecoder()
        var found: [(QualitySession, [QualityEvent])] = []
        for try await (info, events) in try await self.table.query(query).decode((String, String).self) {
            found.append(
                (try decoder.decode(QualitySession.self, from: Data(info.utf8)), try decoder.decode([QualityEvent].self, from: Data(events.utf8)))
            )
        }
        return found
    }

    public var summary: String { "viewing-quality reports are kept in PostgreSQL (tables adstitch_qoe_sessions, adstitch_qoe_events)" }
}
