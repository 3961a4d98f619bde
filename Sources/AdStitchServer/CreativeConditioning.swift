import AdCampaign
import AdCampaignStore
import AdConditioning
import AdMedia
import AdMetrics
import AdOrigin
import AdServerClient
import Foundation
import HLSPlaylist
import Logging
import ServiceLifecycle
import Synchronization

/// Conditioning of ad server creatives that arrive without HLS that fits (docs/design-decisions.md
/// "Conditioning creatives"): a session that meets one looks in the campaign's store
/// (`creatives.store`), plays it from there when it is conditioned, else queues a job and skips it
/// (VAST error 407). This replica's workers (``ConditioningWorkers``, `serve
/// --conditioning-jobs`) take jobs from the shared queue, one encode per creative across replicas,
/// write the asset into the store and check it loads as an ad of the campaign with no warning.
final class CreativeConditioning: Sendable {
    let jobs: any ConditioningJobStore
    let campaigns: CampaignStore
    let origin: OriginClient
    let mediaRoots: [URL]
    let metrics: ServerMetrics
    let logger: Logger
    /// Encodes this replica runs at once (0: none; it still queues jobs for others).
    let workers: Int

    /// What this replica last learned of each job it queued, so a session start costs at most
    /// one store round trip per creative every ``recheckAfter``.
    private let known = Mutex([String: (job: ConditioningJob, at: ContinuousClock.Instant)]())
    static let recheckAfter = Duration.seconds(5)
    /// Each source's validators as last asked (``version(of:)``).
    private let versions = Mutex([URL: (version: String, at: ContinuousClock.Instant)]())
    /// A `HEAD` of a source that takes longer counts as unanswered.
    static let versionTimeout = Duration.milliseconds(500)
    /// A running job whose worker has said nothing for this long is taken again (the replica stopped).
    static let lease = Duration.seconds(1_800)
    /// The most a source may be: it is downloaded whole before ffmpeg reads it.
    static let maxSourceBytes = 1 << 30
    /// The time a source's download may take: one that crawls (1 KiB/s) or never ends is stopped.
    static let downloadTime = Duration.seconds(300)
    /// The time one job may take, download and every encode of it together; its encoder is
    /// stopped past it (and with the job, when the replica shuts down).
    static let jobTime = Duration.seconds(1_800)

    init(
        jobs: any ConditioningJobStore,
        campaigns: CampaignStore,
        origin: OriginClient,
        mediaRoots: [URL],
        metrics: ServerMetrics,
        logger: Logger,
        workers: Int
    ) {
        self.jobs = jobs
        self.campaigns = campaigns
        self.origin = origin
        self.mediaRoots = mediaRoots
        self.metrics = metrics
        self.logger = logger
        self.workers = workers
    }

    /// The hook ``AdServerDecisions/decide`` asks for `served`'s creatives without HLS; nil
    /// when the campaign has no `creatives:`.
    func condition(for served: ServedCampaign) -> AdServerDecisions.Condition? {
        guard let settings = served.campaign.creatives else { return nil }
        let (id, addresses) = (served.campaign.id, served.adServerAddresses)
        return { source, creative, duration in
            await self.lookup(campaign: id, settings: settings, source: source, creative: creative, announced: duration, addresses: addresses)
        }
    }

    /// How a source is fetched: under the campaign's address policy, on the connections of what
    /// ad servers name.
    func sourceSettings(_ addresses: AddressPolicy) -> OriginSettings {
        var settings = self.origin.settings.forAdServerLinks(addresses)
        settings.timeout = Self.downloadTime
        settings.maxBytes = Self.maxSourceBytes
        return settings
    }

    func lookup(
        campaign: String,
        settings: CreativeSettings,
        source: URL,
        creative: String,
        announced: String,
        addresses: AddressPolicy
    ) async -> AdServerDecisions.Conditioned {
        guard let scheme = source.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return .unavailable("its file \(Redaction.url(source.absoluteString)) is not an http(s) URL")
        }
        if let refusal = await self.origin.refusal(of: source, under: addresses) { return .unavailable(refusal) }
        let version = await self.version(of: source, settings: self.sourceSettings(addresses))
        let master = settings.master(for: creative, version: version)
        if FileManager.default.fileExists(atPath: master.path) { return .ready(master) }
        // The encode of an earlier version of the source plays while this one is conditioned.
        let previous = Self.currentMaster(settings, creative: creative)
        guard settings.conditions else {
            return previous.map { .ready($0) } ?? .unavailable("not conditioned in \(settings.store.path) (creatives: condition: off)")
        }
        let key = [campaign, creative, version].joined(separator: "\u{1f}")
        let now = ContinuousClock.now
        var job = self.known.withLock { known in known[key].flatMap { now - $0.at < Self.recheckAfter ? $0.job : nil } }
        if job == nil {
            do {
                let stands = try await self.jobs.enqueue(
                    campaign: campaign,
                    creative: creative,
                    version: version,
                    source: source.absoluteString,
                    announced: announced,
                    now: Self.millis()
                )
                if stands.attempts == 0, stands.state == .queued, self.known.withLock({ $0[key] == nil }) { self.metrics.conditioningQueued() }
                self.known.withLock { $0[key] = (stands, now) }
                job = stands
            } catch {
                return previous.map { .ready($0) } ?? .pending("cannot queue it for conditioning now (\(error)); a later session tries again")
            }
        }
        if let previous { return .ready(previous) }
        switch job?.state {
        case .failed?:
            return .unavailable("conditioning failed: \(job?.error ?? "unknown")")
        case .done?:
            return .unavailable(
                "conditioned on another replica, but not in this replica's store \(settings.store.path): give every replica the same store"
            )
        case .running?:
            return .pending("being conditioned (attempt \(job?.attempts ?? 1)); sessions after it play it")
        case .queued?, nil:
            return .pending("queued for conditioning; sessions after it play it")
        }
    }

    /// The source's validators (``OriginClient/validators(_:timeout:)``), asked again once older
    /// than the origin's poll interval (`--origin-poll`), as remote playlists are; the last known
    /// when the source does not answer (empty: never known).
    func version(of source: URL, settings: OriginSettings) async -> String {
        let now = ContinuousClock.now
        let known = self.versions.withLock { $0[source] }
        if let known, now - known.at < self.origin.settings.poll { return known.version }
        guard let fresh = await self.origin.validators(source, timeout: Self.versionTimeout, settings: settings) else { return known?.version ?? "" }
        self.versions.withLock { versions in
            if versions.count >= 10_000 { versions.removeAll() }
            versions[source] = (fresh, now)
        }
        return fresh
    }

    /// The multivariant playlist of the version of `creative` conditioned last, if any.
    static func currentMaster(_ settings: CreativeSettings, creative: String) -> URL? {
        guard let name = try? String(contentsOf: settings.current(for: creative), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
            !name.isEmpty, !name.contains("/"), !name.hasPrefix(".")
        else { return nil }
        let master = settings.folder(for: creative).appendingPathComponent(name).appendingPathComponent("master.m3u8")
        return FileManager.default.fileExists(atPath: master.path) ? master : nil
    }

    /// Unix milliseconds now.
    static func millis() -> Int64 { Int64((Date().timeIntervalSince1970 * 1_000).rounded(.down)) }

    // MARK: - Workers

    /// Takes and runs jobs until cancelled, one at a time; idle, asks again every second (every
    /// five, without asking the store, while no campaign served has `creatives:`).
    func work() async {
        while !Task.isCancelled {
            guard self.campaigns.statuses.contains(where: { $0.id.flatMap(self.campaigns.campaign)?.campaign.creatives != nil }) else {
                try? await Task.sleep(for: .seconds(5))
                continue
            }
            let job: ConditioningJob?
            do {
                job = try await self.jobs.claim(now: Self.millis(), lease: Int64(Self.lease.components.seconds) * 1_000)
            } catch {
                self.logger.warning("cannot take a conditioning job", metadata: ["error": "\(error)"])
                job = nil
            }
            guard let job else {
                try? await Task.sleep(for: .seconds(1))
                continue
            }
            await self.run(job)
        }
    }

    /// One attempt at `job`: encode into a folder of its own beside the creative's, check it,
    /// then move it into place; the job ends done, or is tried again later, or given up.
    func run(_ job: ConditioningJob) async {
        let started = ContinuousClock.now
        self.metrics.conditioningRunning(1)
        defer { self.metrics.conditioningRunning(-1) }
        self.logger.info(
            "conditioning a creative",
            metadata: ["campaign": "\(job.campaign)", "creative": "\(job.creative)", "attempt": "\(job.attempts)"]
        )
        let outcome = await self.encode(job)
        var finished = job
        finished.finishedAt = Self.millis()
        let label: String
        switch outcome {
        case .success(let summary):
            finished.state = .done
            finished.error = nil
            finished.report = summary
            label = "done"
        case .failure(let failure):
            finished.error = failure.message
            if failure.final || job.attempts >= ConditioningJob.maxAttempts {
                finished.state = .failed
                label = "failed"
            } else {
                finished.state = .queued
                finished.nextTryAt = Self.millis() + ConditioningJob.backoff(after: job.attempts)
                label = "retry"
            }
            self.logger.warning(
                "conditioning a creative failed",
                metadata: ["campaign": "\(job.campaign)", "creative": "\(job.creative)", "error": "\(failure.message)", "next": "\(label)"]
            )
        }
        self.metrics.conditioning(label, duration: ContinuousClock.now - started)
        do {
            try await self.jobs.finish(finished)
        } catch {
            self.logger.warning("cannot record a conditioning job's end", metadata: ["creative": "\(job.creative)", "error": "\(error)"])
        }
    }

    struct Failure: Error {
        var message: String
        /// Trying again would fail the same way (the asset does not fit the programme).
        var final = false
    }

    /// The source downloaded (under the campaign's address policy, bounded in bytes and time),
    /// then the encode and its check on a dispatch queue (ffmpeg and the loader block), stopped
    /// with the job; the summary of what was made (JSON), or why not.
    private func encode(_ job: ConditioningJob) async -> Result<String, Failure> {
        guard let served = self.campaigns.campaign(job.campaign) else {
            return .failure(Failure(message: "campaign \(job.campaign) is not served here any more", final: true))
        }
        let campaign = served.campaign
        guard let settings = campaign.creatives else {
            return .failure(Failure(message: "campaign \(job.campaign) no longer has creatives:", final: true))
        }
        let stop = MediaTool.Stop(deadline: .now + Self.jobTime)
        let parent = settings.folder(for: job.creative, version: job.version).deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        } catch {
            return .failure(Failure(message: "cannot create the store \(parent.path): \(error.localizedDescription)"))
        }
        // ffmpeg reads a file of ours, never a URL an ad server named (it would follow redirects
        // and resolve names beyond the address policy).
        let file = parent.appendingPathComponent(".source-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: file) }
        guard let url = URL(string: job.source) else { return .failure(Failure(message: "the source \(job.source) is not a URL", final: true)) }
        do {
            _ = try await self.origin.download(url, to: file.path, settings: self.sourceSettings(served.adServerAddresses))
        } catch {
            let final: Bool
            switch error.reason {
            case .refused, .tooLarge, .notHTTP: final = true
            case .status(let code): final = (400..<500).contains(code)
            default: final = false
            }
            return .failure(Failure(message: "cannot download the source: \(error)", final: final))
        }
        let announced = job.announced.flatMap { ExactDecimal($0) }
        let source = self.origin.playlistSource.allowingLinks(into: self.mediaRoots)
        return await withTaskCancellationHandler {
            // A thread of its own for the encode's hours of waiting on ffmpeg (never the global
            // queue's few threads).
            await withCheckedContinuation { continuation in
                Thread {
                    continuation.resume(
                        returning: Self.encode(
                            job,
                            file: file,
                            announced: announced,
                            campaign: campaign,
                            settings: settings,
                            source: source,
                            stop: stop
                        )
                    )
                }.start()
            }
        } onCancel: {
            stop.cancel()
        }
    }

    private static func encode(
        _ job: ConditioningJob,
        file: URL,
        announced: ExactDecimal?,
        campaign: Campaign,
        settings: CreativeSettings,
        source: PlaylistSource,
        stop: MediaTool.Stop
    ) -> Result<String, Failure> {
        let files = FileManager.default
        let out = settings.folder(for: job.creative, version: job.version)
        let parent = out.deletingLastPathComponent()
        let partial = parent.appendingPathComponent(".partial-\(out.lastPathComponent)-\(UUID().uuidString.prefix(8))", isDirectory: true)
        defer { try? files.removeItem(at: partial) }
        let report: Conditioner.Report
        do {
            let target = try ConditioningTarget(campaign: campaign)
            var conditioner = Conditioner(target: target, loudness: settings.loudness)
            // On idle CPU only: sessions keep the CPU they need while it encodes.
            conditioner.background = true
            conditioner.stop = stop
            report = try conditioner.condition(file.path, into: partial, announced: announced)
        } catch {
            return .failure(Failure(message: error.description, final: error.final))
        }
        let problems = Conditioner.problems(report, id: job.creative, campaign: campaign, source: source, folder: partial)
        guard problems.isEmpty else {
            return .failure(Failure(message: "the conditioned asset does not play in the campaign: \(problems.joined(separator: "; "))", final: true))
        }
        // Into place at once: a session sees no folder or a whole one. A replica that finished
        // first (sharing the store) keeps its folder.
        if !files.fileExists(atPath: out.path) {
            do {
                try files.moveItem(at: partial, to: out)
            } catch  where files.fileExists(atPath: out.path) {
                // Another replica's, moved in between.
            } catch {
                return .failure(Failure(message: "cannot move the asset into \(out.path): \(error.localizedDescription)"))
            }
        }
        // The newest version plays where a session's source cannot be asked what it is.
        do {
            try Data(out.lastPathComponent.utf8).write(to: settings.current(for: job.creative), options: .atomic)
        } catch {
            return .failure(Failure(message: "cannot write \(settings.current(for: job.creative).path): \(error.localizedDescription)"))
        }
        let summary = ConditioningSummary(
            folder: parent.lastPathComponent + "/" + out.lastPathComponent,
            duration: report.duration,
            container: report.container,
            renditions: report.renditions.map { "\($0.kind)\($0.resolution.map { " \($0)" } ?? "") \($0.bandwidth) bit/s" },
            inputLoudness: report.inputLoudness,
            seconds: report.seconds,
            notes: report.notes
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return .success(String(decoding: (try? encoder.encode(summary)) ?? Data("{}".utf8), as: UTF8.self))
    }
}

/// What a done job made, as `GET /v1/creatives` shows it.
struct ConditioningSummary: Codable, Sendable, Hashable {
    /// The creative's folder in the store.
    var folder: String
    var duration: String
    var container: String
    var renditions: [String]
    var inputLoudness: Double?
    /// The encode's wall-clock time.
    var seconds: Double
    var notes: [String]
}

/// This replica's conditioning workers, as many as `serve --conditioning-jobs`.
struct ConditioningWorkers: Service {
    let conditioning: CreativeConditioning

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<self.conditioning.workers {
                    group.addTask { await self.conditioning.work() }
                }
            }
        }
    }
}
