import AdOrigin
import AdPostgres
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// One creative's conditioning (docs/design-decisions.md "Conditioning creatives"): queued when a
/// session first met the creative, taken by one replica's worker, done (in the campaign's store)
/// or failed. Times are Unix milliseconds.
struct ConditioningJob: Sendable, Hashable, Codable {
    enum State: String, Sendable, Hashable, Codable {
        case queued
        case running
        case done
        case failed
    }

    var campaign: String
    /// The creative's identity (its `UniversalAdId`, else its id, else its file's URL).
    var creative: String
    /// The mezzanine or progressive file conditioned.
    var source: String
    /// The creative's `<Duration>` as its ad server announced it (nil: a job queued before it
    /// was kept): a source that runs otherwise is refused before it is encoded.
    var announced: String?
    /// The source's validators when it was queued (``OriginClient/validators(_:timeout:)``):
    /// a source that changes is another job, its encode another folder of the store.
    var version: String
    var state: State
    /// Encodes begun (a retry after a failure is another).
    var attempts: Int
    /// Why the last attempt failed.
    var error: String?
    /// What the encode made (``ConditioningSummary``, JSON), once done.
    var report: String?
    var queuedAt: Int64
    var startedAt: Int64?
    var finishedAt: Int64?
    /// Not taken before this (a retry's backoff).
    var nextTryAt: Int64

    /// Encodes a job may begin before it is given up.
    static let maxAttempts = 3

    /// How long after a failed attempt `attempt` (from 1) the job is taken again: 30 s, then 60 s.
    static func backoff(after attempt: Int) -> Int64 { 30_000 << Int64(max(0, attempt - 1)) }
}

/// Where conditioning jobs are kept, shared by the replicas that share it.
protocol ConditioningJobStore: Sendable {
    /// Queues the job for (`campaign`, `creative`, `version`) unless there is one; the job as it stands.
    func enqueue(campaign: String, creative: String, version: String, source: String, announced: String, now: Int64) async throws -> ConditioningJob
    /// Takes the oldest job due by `now` — queued, or running longer than `lease` on a worker that
    /// has stopped — for this replica; nil when none is. One taker per job, whoever asks at once.
    func claim(now: Int64, lease: Int64) async throws -> ConditioningJob?
    /// Records how the job's attempt ended.
    func finish(_ job: ConditioningJob) async throws
    /// Every job, the newest first.
    func jobs() async throws -> [ConditioningJob]
    /// What `serve` says at start about where jobs are kept.
    var summary: String { get }
}

/// This replica's jobs, in memory: without `--database` each replica conditions on its own.
final class MemoryConditioningJobs: ConditioningJobStore {
    private struct Key: Hashable {
        var campaign: String
        var creative: String
        var version: String
    }

    private let state = Mutex([Key: ConditioningJob]())

    func enqueue(campaign: String, creative: String, version: String, source: String, announced: String, now: Int64) async throws -> ConditioningJob {
        self.state.withLock { jobs in
            let key = Key(campaign: campaign, creative: creative, version: version)
            if let job = jobs[key] { return job }
            let job = ConditioningJob(
                campaign: campaign,
                creative: creative,
                source: source,
                announced: announced,
                version: version,
                state: .queued,
                attempts: 0,
                queuedAt: now,
                nextTryAt: now
            )
            jobs[key] = job
            return job
        }
    }

    func claim(now: Int64, lease: Int64) async throws -> ConditioningJob? {
        self.state.withLock { jobs in
            let due = jobs.values.filter { job in
                (job.state == .queued && job.nextTryAt <= now) || (job.state == .running && (job.startedAt ?? 0) < now - lease)
            }
            guard var job = due.min(by: { ($0.queuedAt, $0.creative) < ($1.queuedAt, $1.creative) }) else { return nil }
            job.state = .running
            job.startedAt = now
            job.attempts += 1
            jobs[Key(campaign: job.campaign, creative: job.creative, version: job.version)] = job
            return job
        }
    }

    func finish(_ job: ConditioningJob) async throws {
        self.state.withLock { $0[Key(campaign: job.campaign, creative: job.creative, version: job.version)] = job }
    }

    func jobs() async throws -> [ConditioningJob] {
        self.state.withLock { $0.values.sorted { ($0.queuedAt, $0.creative) > ($1.queuedAt, $1.creative) } }
    }

    var summary: String {
        "creatives are conditioned by this replica alone, its jobs in memory (no --database): share PostgreSQL so one replica encodes each creative"
    }
}

/// Jobs in PostgreSQL (table `adstitch_conditioning_jobs`), taken with `FOR UPDATE SKIP LOCKED`:
/// however many replicas ask at once, one takes each job.
final class PostgresConditioningJobs: ConditioningJobStore {
    let table: PostgresTable
    static let deadline = Duration.seconds(2)

    init(client: PostgresClient, logger: Logger) {
        self.table = PostgresTable(
            client: client,
            logger: logger,
            schema: [
                """
                CREATE TABLE IF NOT EXISTS adstitch_conditioning_jobs (
                    campaign text NOT NULL,
                    creative text NOT NULL,
                    version text NOT NULL,
                    source text NOT NULL,
                    state text NOT NULL,
                    attempts bigint NOT NULL DEFAULT 0,
                    error text,
                    report text,
                    queued_at bigint NOT NULL,
                    started_at bigint,
                    finished_at bigint,
                    next_try_at bigint NOT NULL,
                    PRIMARY KEY (campaign, creative, version)
                )
                """,
                // A table made before announced durations were kept.
                "ALTER TABLE adstitch_conditioning_jobs ADD COLUMN IF NOT EXISTS announced text",
            ]
        )
    }

    private typealias Row = (String, String, String, String, String, Int, String?, String?, Int, Int?, Int?, Int, String?)

    /// The columns of ``Row``, in its order.
    private static let columns =
        "campaign, creative, version, source, state, attempts, error, report, queued_at, started_at, finished_at, next_try_at, announced"

    private static func job(_ row: Row) -> ConditioningJob {
        ConditioningJob(
            campaign: row.0,
            creative: row.1,
            source: row.3,
            announced: row.12,
            version: row.2,
            state: ConditioningJob.State(rawValue: row.4) ?? .failed,
            attempts: row.5,
            error: row.6,
            report: row.7,
            queuedAt: Int64(row.8),
            startedAt: row.9.map(Int64.init),
            finishedAt: row.10.map(Int64.init),
            nextTryAt: Int64(row.11)
        )
    }

    private func first(_ query: PostgresQuery) async throws -> ConditioningJob? {
        let table = self.table
        try await Deadline.run(within: Self.deadline) { try await table.ready() }
        return try await Deadline.run(within: Self.deadline) { () async throws -> ConditioningJob? in
            let rows = try await table.query(query)
            for try await row in rows.decode(Row.self) { return Self.job(row) }
            return nil
        }
    }

    func enqueue(campaign: String, creative: String, version: String, source: String, announced: String, now: Int64) async throws -> ConditioningJob {
        // The row that stands: a conflicting insert changes nothing and returns the known job.
        let job = try await self.first(
            """
            INSERT INTO adstitch_conditioning_jobs (campaign, creative, version, source, state, queued_at, next_try_at, announced)
            VALUES (\(campaign), \(creative), \(version), \(source), 'queued', \(Int(now)), \(Int(now)), \(announced))
            ON CONFLICT (campaign, creative, version) DO UPDATE SET campaign = EXCLUDED.campaign
            RETURNING \(unescaped: Self.columns)
            """
        )
        guard let job else { throw PostgresConditioningJobsError(message: "the job's row was not returned") }
        return job
    }

    func claim(now: Int64, lease: Int64) async throws -> ConditioningJob? {
        let stale = Int(now - lease)
        return try await self.first(
            """
            UPDATE adstitch_conditioning_jobs SET state = 'running', started_at = \(Int(now)), attempts = attempts + 1
            WHERE (campaign, creative, version) = (
                SELECT campaign, creative, version FROM adstitch_conditioning_jobs
                WHERE (state = 'queued' AND next_try_at <= \(Int(now))) OR (state = 'running' AND started_at < \(stale))
                ORDER BY queued_at, creative LIMIT 1 FOR UPDATE SKIP LOCKED
            )
            RETURNING \(unescaped: Self.columns)
            """
        )
    }

    func finish(_ job: ConditioningJob) async throws {
        _ = try await self.first(
            """
            UPDATE adstitch_conditioning_jobs SET state = \(job.state.rawValue), error = \(job.error), report = \(job.report),
                finished_at = \(job.finishedAt.map(Int.init)), next_try_at = \(Int(job.nextTryAt))
            WHERE campaign = \(job.campaign) AND creative = \(job.creative) AND version = \(job.version)
            RETURNING \(unescaped: Self.columns)
            """
        )
    }

    func jobs() async throws -> [ConditioningJob] {
        let table = self.table
        try await Deadline.run(within: Self.deadline) { try await table.ready() }
        return try await Deadline.run(within: Self.deadline) { () async throws -> [ConditioningJob] in
            let rows = try await table.query(
                "SELECT \(unescaped: Self.columns) FROM adstitch_conditioning_jobs ORDER BY queued_at DESC, creative DESC LIMIT 1000"
            )
            var jobs: [ConditioningJob] = []
            for try await row in rows.decode(Row.self) { jobs.append(Self.job(row)) }
            return jobs
        }
    }

    var summary: String { "creative conditioning jobs are shared through PostgreSQL (table adstitch_conditioning_jobs)" }
}

struct PostgresConditioningJobsError: Error, CustomStringConvertible {
    var message: String
    var description: String { self.message }
}
