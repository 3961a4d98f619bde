import AdLive
import AdPostgres
import Foundation
import HLSPlaylist
import Logging
import PostgresNIO

/// The break history of live channels in PostgreSQL, shared by every replica
/// (docs/design-decisions.md "Live"): per channel and break, where it starts and ends on the
/// origin's numbering and the origin's discontinuity numbers there — exactly what a replica needs
/// to number a viewer's playlist once a break has left the origin's window. Each replica's poller
/// records the breaks it sees; the first to record a break's opening or closing wins, so a
/// replica that saw less (it started late) never overwrites one that saw more.
///
/// Times are stored in whole microseconds (program date-times carry milliseconds).
public final class PostgresBreakHistory: Sendable {
    public let client: PostgresClient
    let logger: Logger
    /// The table, created by the first call that needs it.
    private let breaks: PostgresTable
    /// When each segment of a channel was first seen by any replica (``record(sightings:channel:)``).
    private let sightings: PostgresTable

    public static let table = "adstitch_live_breaks"

    public init(configuration: PostgresClient.Configuration, logger: Logger) {
        self.client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.logger = logger
        self.breaks = PostgresTable(client: self.client, logger: logger, schema: Self.schema)
        self.sightings = PostgresTable(
            client: self.client,
            logger: logger,
            schema: [
                """
                CREATE TABLE IF NOT EXISTS adstitch_live_sightings (
                    channel text NOT NULL,
                    sequence bigint NOT NULL,
                    seen_micros bigint NOT NULL,
                    PRIMARY KEY (channel, sequence)
                )
                """
            ]
        )
    }

    /// `postgres://user[:password]@host[:port]/database` (`serve --database-url`); nil when it
    /// is not such a URL.
    public convenience init?(url: String, logger: Logger) {
        guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme),
            let host = components.host, !host.isEmpty, let user = components.user, !user.isEmpty
        else { return nil }
        let database = String(components.path.dropFirst())
        let configuration = PostgresClient.Configuration(
            host: host,
            port: components.port ?? 5432,
            username: user,
            password: components.password,
            database: database.isEmpty ? nil : database,
            tls: .disable
        )
        self.init(configuration: configuration, logger: logger)
    }

    /// Runs the connection pool until the task is cancelled; every other call needs it running.
    public func run() async {
        await self.client.run()
    }

    /// Creates the tables when missing (the first query would otherwise).
    public func migrate() async throws {
        try await self.breaks.ready()
        try await self.sightings.ready()
    }

    /// Records when this replica first saw segments of `channel` (by the channel's numbers,
    /// seconds since the epoch on its clock); each segment keeps the earliest any replica
    /// recorded. Returns those earliest times (docs/design-decisions.md "Live: the cut").
    public func record(sightings: [Int: ExactDecimal], channel: String) async throws -> [Int: ExactDecimal] {
        guard !sightings.isEmpty else { return [:] }
        let ordered = sightings.sorted { $0.key < $1.key }
        let sequences = ordered.map { Int64($0.key) }
        let times = ordered.map { Self.micros($0.value) }
        let rows = try await self.sightings.query(
            """
            INSERT INTO adstitch_live_sightings (channel, sequence, seen_micros)
            SELECT \(channel), sighted.sequence, sighted.seen FROM unnest(\(sequences)::bigint[], \(times)::bigint[]) AS sighted(sequence, seen)
            ON CONFLICT (channel, sequence) DO UPDATE SET seen_micros = LEAST(adstitch_live_sightings.seen_micros, EXCLUDED.seen_micros)
            RETURNING sequence, seen_micros
            """
        )
        return try await Self.decodeSightings(rows)
    }

    /// The earliest sightings of `channel`'s segments numbered `from` on.
    public func sightings(channel: String, from sequence: Int) async throws -> [Int: ExactDecimal] {
        let rows = try await self.sightings.query(
            "SELECT sequence, seen_micros FROM adstitch_live_sightings WHERE channel = \(channel) AND sequence >= \(Int64(sequence))"
        )
        return try await Self.decodeSightings(rows)
    }

    static func decodeSightings(_ rows: PostgresRowSequence) async throws -> [Int: ExactDecimal] {
        var sightings: [Int: ExactDecimal] = [:]
        for try await (sequence, micros) in rows.decode((Int64, Int64).self) { sightings[Int(sequence)] = Self.seconds(micros) }
        return sightings
    }

    static let schema: [PostgresQuery] = [
        """
        CREATE TABLE IF NOT EXISTS adstitch_live_breaks (
            channel text NOT NULL,
            id text NOT NULL,
            first_sequence bigint NOT NULL,
            start_micros bigint NOT NULL,
            entering_discontinuity bigint NOT NULL,
            end_sequence bigint,
            end_micros bigint,
            end_discontinuity bigint,
            end_is_discontinuity boolean,
            recorded_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (channel, id)
        )
        """,
        // Added with the per-viewer live playlists: the duration the opening marker announced.
        "ALTER TABLE adstitch_live_breaks ADD COLUMN IF NOT EXISTS duration_micros bigint",
        // Added with `live_stall`: what opened the break (LiveBreak.Kind).
        "ALTER TABLE adstitch_live_breaks ADD COLUMN IF NOT EXISTS kind text NOT NULL DEFAULT 'marker'",
    ]

    /// Records breaks of `channel` as a poller saw them: a new break is inserted; a known one
    /// gets its closing if it had none. An opening or closing once recorded never changes.
    /// Returns the breaks as recorded now (another replica's closing where it came first).
    @discardableResult
    public func record(_ breaks: [LiveBreak], channel: String) async throws -> [LiveBreak] {
        var stored: [LiveBreak] = []
        for item in breaks {
            let closing = item.closing
            let endSequence = closing.map { Int64($0.end) }
            let endMicros = closing.map { Self.micros($0.time) }
            let endDiscontinuity = closing.map { Int64($0.discontinuitySequence) }
            let endIsDiscontinuity = closing.map(\.isDiscontinuity)
            let duration = item.duration.map(Self.micros)
            let rows = try await self.breaks.query(
                """
                INSERT INTO adstitch_live_breaks
                    (channel, id, first_sequence, start_micros, entering_discontinuity, duration_micros,
                     end_sequence, end_micros, end_discontinuity, end_is_discontinuity, kind)
                VALUES (\(channel), \(item.id), \(Int64(item.first)), \(Self.micros(item.start)), \(Int64(item.enteringDiscontinuity)),
                        \(duration), \(endSequence), \(endMicros), \(endDiscontinuity), \(endIsDiscontinuity), \(item.kind.rawValue))
                ON CONFLICT (channel, id) DO UPDATE SET
                    end_sequence = COALESCE(adstitch_live_breaks.end_sequence, EXCLUDED.end_sequence),
                    end_micros = COALESCE(adstitch_live_breaks.end_micros, EXCLUDED.end_micros),
                    end_discontinuity = COALESCE(adstitch_live_breaks.end_discontinuity, EXCLUDED.end_discontinuity),
                    end_is_discontinuity = COALESCE(adstitch_live_breaks.end_is_discontinuity, EXCLUDED.end_is_discontinuity)
                RETURNING \(unescaped: Self.columns)
                """
            )
            stored += try await Self.decode(rows)
        }
        return stored
    }

    static let columns = """
        id, first_sequence, start_micros, entering_discontinuity, duration_micros,
        end_sequence, end_micros, end_discontinuity, end_is_discontinuity, kind
        """

    /// Rows of ``columns`` as breaks.
    static func decode(_ rows: PostgresRowSequence) async throws -> [LiveBreak] {
        var breaks: [LiveBreak] = []
        for try await (id, first, start, entering, duration, end, endMicros, endDiscontinuity, endIsDiscontinuity, kind) in rows.decode(
            (String, Int64, Int64, Int64, Int64?, Int64?, Int64?, Int64?, Bool?, String).self
        ) {
            var item = LiveBreak(
                id: id,
                first: Int(first),
                start: Self.seconds(start),
                enteringDiscontinuity: Int(entering),
                duration: duration.map(Self.seconds),
                kind: LiveBreak.Kind(rawValue: kind) ?? .marker
            )
            if let end, let endMicros, let endDiscontinuity, let endIsDiscontinuity {
                item.closing = .init(
                    end: Int(end),
                    time: Self.seconds(endMicros),
                    discontinuitySequence: Int(endDiscontinuity),
                    isDiscontinuity: endIsDiscontinuity
                )
            }
            breaks.append(item)
        }
        return breaks
    }

    /// The breaks of `channel` that start at or after `since` (seconds since the epoch: the
    /// oldest session's join time), in origin order.
    public func breaks(channel: String, since: ExactDecimal) async throws -> [LiveBreak] {
        let rows = try await self.breaks.query(
            """
            SELECT \(unescaped: Self.columns)
            FROM adstitch_live_breaks
            WHERE channel = \(channel) AND start_micros >= \(Self.micros(since))
            ORDER BY first_sequence
            """
        )
        return try await Self.decode(rows)
    }

    /// Deletes breaks recorded longer ago than `age` (the session TTL: no session can still
    /// need them); returns how many.
    @discardableResult
    public func prune(olderThan age: Duration) async throws -> Int {
        let seconds = Int64(age.components.seconds)
        let rows = try await self.breaks.query(
            "DELETE FROM adstitch_live_breaks WHERE recorded_at < now() - make_interval(secs => \(Double(seconds))) RETURNING id"
        )
        var count = 0
        for try await _ in rows { count += 1 }
        let limit = Self.micros(ExactDecimal(Int(Date().timeIntervalSince1970))) - seconds * 1_000_000
        let old = try await self.sightings.query("DELETE FROM adstitch_live_sightings WHERE seen_micros < \(limit) RETURNING sequence")
        for try await _ in old { count += 1 }
        return count
    }

    /// Seconds as whole microseconds (rounded to the nearest).
    static func micros(_ seconds: ExactDecimal) -> Int64 {
        let unit = ExactDecimal(1).scaledValue / 1_000_000
        return Int64(clamping: (seconds.scaledValue + unit / 2) / unit)
    }

    static func seconds(_ micros: Int64) -> ExactDecimal {
        ExactDecimal(significand: Int(micros), exponent: 6)
    }
}
