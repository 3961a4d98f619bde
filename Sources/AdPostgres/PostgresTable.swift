import Logging
import PostgresNIO
import Synchronization

/// A store's table in PostgreSQL: the client and logger its queries go through, and the
/// statements that create it (`CREATE … IF NOT EXISTS`, so any replica may run them first), run
/// once per process by the first call that needs the table; a failed run is tried again by the
/// next call. One home for what the live break history, the ad decisions, the conditioning jobs,
/// the beacon ledger and the impressions each need.
public final class PostgresTable: Sendable {
    public let client: PostgresClient
    public let logger: Logger
    private let schema: [PostgresQuery]
    private let created = Mutex(false)

    public init(client: PostgresClient, logger: Logger, schema: [PostgresQuery]) {
        self.client = client
        self.logger = logger
        self.schema = schema
    }

    /// Creates the table (and its indexes) unless this process already has.
    public func ready() async throws {
        guard !self.created.withLock({ $0 }) else { return }
        for statement in self.schema {
            do {
                try await self.client.query(statement, logger: self.logger)
            } catch {
                // Two replicas creating one table at once: PostgreSQL may refuse the second
                // `CREATE … IF NOT EXISTS` with a unique violation in its catalogue (pg_type) while
                // the first commits. The table is there then; one more run settles it.
                try await self.client.query(statement, logger: self.logger)
            }
        }
        self.created.withLock { $0 = true }
    }

    /// Runs `query` once the table is ready.
    @discardableResult
    public func query(_ query: PostgresQuery) async throws -> PostgresRowSequence {
        try await self.ready()
        return try await self.client.query(query, logger: self.logger)
    }
}

extension PostgresTable {
    /// The schema statement that widens `table`'s primary key to `key` unless `column` is in it
    /// already: a table made before `column` joined its key, migrated on first use (run again, a
    /// no-op). The names are the code's, never input.
    public static func widenPrimaryKey(of table: String, to key: [String], adding column: String) -> PostgresQuery {
        PostgresQuery(
            unsafeSQL: """
                DO $$ BEGIN
                    IF NOT EXISTS (
                        SELECT 1 FROM information_schema.key_column_usage
                        WHERE table_name = '\(table)' AND constraint_name = '\(table)_pkey' AND column_name = '\(column)'
                    ) THEN
                        ALTER TABLE \(table) DROP CONSTRAINT \(table)_pkey, ADD PRIMARY KEY (\(key.joined(separator: ", ")));
                    END IF;
                END $$
                """
        )
    }
}
