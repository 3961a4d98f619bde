import AdCampaign
import AdDecision
import AdLiveRuntime
import AdMetrics
import AdOrigin
import AdStitching
import Foundation
import Logging
import Synchronization

/// The campaigns of a folder: every `*/campaign.yaml` (and `*.yaml` at the top), each loaded and
/// laid out once, and loaded again when its files change (``reload(logger:)``, polled by
/// ``CampaignReloader``). A campaign that fails to reload keeps serving its last good revision,
/// and older revisions stay available, so sessions started on them keep their ads.
///
/// A changed file is loaded only once it is stable: unchanged (sizes and modification times of
/// the campaign file and everything it references) across two polls, so a half-written file is
/// never loaded. Publish a campaign by writing a new folder and renaming it into place.
public final class CampaignStore: Sendable {
    public let folder: URL
    public let metrics: ServerMetrics
    let scanner: CampaignFolder
    /// At most this many revisions of a campaign are kept for sessions started on them: each
    /// holds its layout and bodies. Within that, a revision is kept while a session started on it
    /// may still play (``revisionRetention``), so a session stays playable for its whole TTL
    /// however often a campaign or its origin changes — up to this many changes per TTL.
    static let maxKeptRevisions = 32

    private struct Entry {
        var fingerprint: String
        var status: CampaignStatus
        /// The local files of the last successful load: watched for changes.
        var files: CampaignFiles
        /// ``files`` as sorted paths (``CampaignFolder/watched(_:)``).
        var watched: [String]
        /// The remote playlists the last load fetched (or tried to), with the campaign's
        /// `origin:` options: no local file tells when they change, so every `origin.poll` the
        /// origin is asked (conditionally) whether they did.
        var remote: [URL: OriginOptions] = [:]
        var checkedAt = ContinuousClock.now
        /// The error of the last load (nil: it succeeded), and of the last poll of the origin
        /// since (nil: the origin answered): `/v1/campaigns` shows the poll's first.
        var loadError: String?
        var pollError: String?
    }

    private struct State {
        var current: [String: ServedCampaign] = [:]
        var revisions: [String: [ServedCampaign]] = [:]
        /// Catalogue campaigns (`program: { catalogue: URL }`): their titles, loaded as viewers
        /// start them.
        var catalogues: [String: CatalogueTitles] = [:]
        /// Campaign files whose origin is being asked now (``checkOrigins``).
        var originChecks: Set<String> = []
        /// When each kept revision stopped being the current one, by "id/revision".
        var superseded: [String: ContinuousClock.Instant] = [:]
        var entries: [String: Entry] = [:]
        /// Changed files seen on the last poll and their fingerprint then: loaded when the next
        /// poll sees the same.
        var pending: [String: String] = [:]
        var patternLimitHits = 0
        /// The folder's YAML files that are not campaign files (``CampaignFolder/campaignFiles()``).
        var skipped: [CampaignFolder.Skipped] = []
    }

    private let state = Mutex(State())

    /// Remote playlists (``buildApplication(_:logger:)``): fetched through an origin client, with
    /// the answers kept for conditional polls. Nil: local files only.
    let remote: RemotePlaylists?
    /// The pollers of live campaigns' channels; nil: live campaigns fail to load.
    let live: LiveChannels?
    /// Folders campaigns' media may lie in through a link (`serve --media-root`).
    let mediaRoots: [URL]
    /// For what happens outside a request (a session's decisions not recorded).
    package let logger: Logger
    /// How long a revision that is no longer current is kept: the session TTL, past which no
    /// session started on it plays.
    let revisionRetention: Duration

    /// Where a campaign's local media are served: its layout's URI style, given the campaign's
    /// id and folder (the server passes its media route's). The store lays campaigns out with it
    /// and knows no route.
    public typealias MediaURIs = @Sendable (_ campaign: String, _ folder: URL) -> URIStyle
    let mediaURIs: MediaURIs

    /// - Parameter loadNow: load the folder before returning (tests); `buildApplication` loads it
    ///   on NIO's blocking thread pool instead, since loading waits for remote playlists and the
    ///   caller may be an event loop.
    public init(
        folder: URL,
        logger: Logger,
        metrics: ServerMetrics = ServerMetrics(),
        remote: RemotePlaylists? = nil,
        live: LiveChannels? = nil,
        mediaRoots: [URL] = [],
        revisionRetention: Duration = .seconds(86_400),
        mediaURIs: @escaping MediaURIs,
        loadNow: Bool = true
    ) {
        self.live = live
        self.mediaURIs = mediaURIs
        self.logger = logger
        self.mediaRoots = mediaRoots
        self.revisionRetention = revisionRetention
        self.folder = folder.standardizedFileURL
        self.scanner = CampaignFolder(url: self.folder)
        self.metrics = metrics
        self.remote = remote
        // At start-up there is no earlier poll to compare with: load what is there.
        if loadNow { self.reload(logger: logger, settle: false) }
    }

    /// The revision new sessions of `id` get.
    public func campaign(_ id: String) -> ServedCampaign? {
        self.state.withLock { $0.current[id] }
    }

    /// A given revision of `id`, current or kept; for a catalogue, a title's revision this
    /// replica holds.
    public func campaign(_ id: String, revision: String) -> ServedCampaign? {
        let (served, catalogue) = self.state.withLock { state in
            (state.revisions[id]?.last { $0.campaign.revision == revision }, state.catalogues[id])
        }
        return served ?? catalogue?.title(revision: revision)
    }

    /// What else holds a catalogue title's load forgets it when the title is evicted (the
    /// sessions planned on it: ``SessionController``), so a title's memory goes with it.
    private let evictionObservers = Mutex([@Sendable ([String]) -> Void]())

    package func onTitlesEvicted(_ observer: @escaping @Sendable ([String]) -> Void) {
        self.evictionObservers.withLock { $0.append(observer) }
    }

    func titlesEvicted(_ revisions: [String]) {
        guard !revisions.isEmpty else { return }
        for observer in self.evictionObservers.withLock({ $0 }) { observer(revisions) }
    }

    /// The catalogue campaign `id` (`program: { catalogue: URL }`); nil: none is loaded.
    package func catalogue(_ id: String) -> CatalogueTitles? {
        self.state.withLock { $0.catalogues[id] }
    }

    public var statuses: [CampaignStatus] {
        self.state.withLock { $0.entries.values.map(\.status).sorted { $0.file < $1.file } }
    }

    /// The folder's YAML files not loaded as campaigns, and why (as of the last reload).
    package var skipped: [CampaignFolder.Skipped] {
        self.state.withLock { $0.skipped }
    }

    /// Loads what changed and has stayed unchanged since the previous call (with `settle`
    /// false: what changed, at once). Returns whether any campaign was loaded, failed or removed.
    ///
    /// Local changes are loaded first; then the origins of unchanged campaigns whose poll is due
    /// are asked concurrently, each on its own thread and bounded by its own timeout, and this
    /// waits for them at most `originWait` (nil: until they answer). A check still running then
    /// goes on — its campaign loads when it answers — and the next call starts none for that
    /// campaign: one slow origin holds up no other campaign's reload.
    @discardableResult
    public func reload(logger: Logger, settle: Bool = true, originWait: Duration? = nil) -> Bool {
        let files: [URL]
        do {
            let scan = try self.scanner.campaignFiles()
            files = scan.files
            let known = self.state.withLock { state in
                defer { state.skipped = scan.skipped }
                return Set(state.skipped)
            }
            for item in scan.skipped where !known.contains(item) {
                logger.warning("YAML file not loaded as a campaign", metadata: ["file": "\(item.file)", "why": "\(item.reason)"])
            }
        } catch {
            // EMFILE under a flood of connections, a network file system hiccup: transient. What
            // is loaded keeps serving; the next poll tries again.
            self.metrics.folderListingFailed()
            logger.error(
                "cannot list the campaigns folder; keeping what is loaded",
                metadata: ["folder": "\(self.folder.path)", "error": "\(error)"]
            )
            return false
        }
        var changed = false
        var originChecks: [(file: URL, fingerprint: String, entry: Entry)] = []
        for file in files {
            let previous = self.state.withLock { $0.entries[file.path] }
            let fingerprint = self.scanner.fingerprint(file, watched: previous?.watched ?? [])
            guard previous?.fingerprint != fingerprint else {
                self.state.withLock { _ = $0.pending.removeValue(forKey: file.path) }
                // Local files unchanged; its origin may have changed (asked below, concurrently).
                if let previous { originChecks.append((file, fingerprint, previous)) }
                continue
            }
            // Its origin is being asked, and may load it: the local change waits for the next poll.
            if self.state.withLock({ $0.originChecks.contains(file.path) }) { continue }
            if settle {
                let stable = self.state.withLock { state in
                    defer { state.pending[file.path] = fingerprint }
                    return state.pending[file.path] == fingerprint
                }
                guard stable else { continue }  // changed since the last poll: wait for the next
            }
            self.state.withLock { _ = $0.pending.removeValue(forKey: file.path) }
            changed = true
            self.load(file, fingerprint: fingerprint, previous: previous, logger: logger)
        }
        if self.checkOrigins(originChecks, wait: originWait, logger: logger) { changed = true }
        let present = Set(files.map(\.path))
        self.state.withLock { state in
            for (path, entry) in state.entries where !present.contains(path) {
                changed = true
                state.entries[path] = nil
                if let id = entry.status.id {
                    state.current[id] = nil  // kept revisions still serve their sessions
                    state.catalogues[id] = nil
                }
                logger.info("campaign file removed", metadata: ["file": "\(path)"])
            }
            state.pending = state.pending.filter { present.contains($0.key) }
        }
        let (loaded, failing, remote) = self.state.withLock { state in
            (
                state.current.count + state.catalogues.count, state.entries.values.filter { $0.status.error != nil }.count,
                Set(state.entries.values.flatMap(\.remote.keys))
            )
        }
        self.remote?.keep(only: remote)
        self.metrics.campaigns(loaded: loaded, failing: failing)
        self.reportPatternLimitHits(logger: logger)
        return changed
    }

    /// The revisions of `id` to keep, oldest first (the current one last): those a session may
    /// still play on, at most ``maxKeptRevisions``; a revision dropped while sessions may still
    /// play on it is logged (they get 410 and start again).
    private func retained(_ kept: [ServedCampaign], id: String, state: inout State, logger: Logger) -> [ServedCampaign] {
        let now = ContinuousClock.now
        var retained = kept.filter { served in
            guard let since = state.superseded["\(id)/\(served.campaign.revision)"] else { return true }
            return now - since < self.revisionRetention
        }
        if retained.count > Self.maxKeptRevisions {
            let dropped = retained.prefix(retained.count - Self.maxKeptRevisions)
            logger.warning(
                "campaign changed more often than its revisions can be kept for their sessions; the oldest sessions will be asked to start again",
                metadata: ["campaign": "\(id)", "dropped": "\(dropped.map(\.campaign.revision).joined(separator: ","))"]
            )
            retained.removeFirst(dropped.count)
        }
        let keptRevisions = Set(retained.map(\.campaign.revision))
        for served in kept where !keptRevisions.contains(served.campaign.revision) {
            state.superseded["\(id)/\(served.campaign.revision)"] = nil
        }
        return retained
    }

    /// Asks the origins of `checks` concurrently (see ``reload(logger:settle:originWait:)``);
    /// whether a campaign loaded anew within the wait.
    private func checkOrigins(_ checks: [(file: URL, fingerprint: String, entry: Entry)], wait: Duration?, logger: Logger) -> Bool {
        let due = checks.filter { check in
            guard self.remote != nil, !check.entry.remote.isEmpty else { return false }
            return self.state.withLock { $0.originChecks.insert(check.file.path).inserted }
        }
        guard !due.isEmpty else { return false }
        let group = DispatchGroup()
        let loaded = Mutex(false)
        for check in due {
            // A thread each, not the global queue: its few threads would all wait on a dripping
            // origin, and everything else queued there with them (``BlockingWork``).
            group.enter()
            Thread {
                defer {
                    self.state.withLock { _ = $0.originChecks.remove(check.file.path) }
                    group.leave()
                }
                guard self.originChanged(check.file, check.entry, logger: logger) else { return }
                self.load(check.file, fingerprint: check.fingerprint, previous: check.entry, current: true, logger: logger)
                loaded.withLock { $0 = true }
            }.start()
        }
        if let wait {
            let (seconds, attoseconds) = wait.components
            _ = group.wait(timeout: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)))
        } else {
            group.wait()
        }
        return loaded.withLock { $0 }
    }

    /// Whether the origin says a playlist of this campaign changed, when its `origin.poll` is due.
    /// A failed poll keeps the revision serving and shows the error (stale on error).
    private func originChanged(_ file: URL, _ entry: Entry, logger: Logger) -> Bool {
        guard let remote = self.remote, !entry.remote.isEmpty else { return false }
        let poll = entry.remote.values.lazy.compactMap(\.poll).first ?? remote.client.settings.poll
        guard ContinuousClock.now - entry.checkedAt >= poll else { return false }
        let pollError: String?
        var changed = false
        do {
            changed = try remote.changed(entry.remote)
            pollError = nil
        } catch {
            let serving = entry.status.serving.map { "revision \($0) keeps serving" } ?? "nothing is serving"
            pollError = "cannot refresh from the origin: \(error) — \(serving); the next poll tries again"
            logger.error("origin poll failed", metadata: ["file": "\(file.path)", "error": "\(error)"])
            self.metrics.reloadFailed(campaign: entry.status.id ?? CampaignFolder.name(of: file))
        }
        self.state.withLock { state in
            guard var entry = state.entries[file.path] else { return }
            entry.checkedAt = .now
            entry.pollError = pollError
            entry.status = CampaignStatus(
                file: entry.status.file,
                id: entry.status.id,
                serving: entry.status.serving,
                error: pollError ?? entry.loadError
            )
            state.entries[file.path] = entry
        }
        return changed
    }

    /// Loads the campaign in `file`. `current`: its remote playlists were just asked for (a poll
    /// found a change), so their answers are used without asking again.
    private func load(_ file: URL, fingerprint: String, previous: Entry?, current: Bool = false, logger: Logger) {
        let relativeFile = self.relative(file.path)
        // The files the attempt referenced: what the next polls watch (a restored segment must
        // bring a reload), and what the stored fingerprint is taken over.
        var attempted: CampaignFiles?
        // The remote playlists it fetched: what the next polls ask the origin about.
        let fetched = Mutex([URL: OriginOptions]())
        let source = (self.remote?.source(current: current) ?? .files).allowingLinks(into: self.mediaRoots).observingRemote { url, options in
            fetched.withLock { $0[url] = options }
        }
        defer {
            let remote = fetched.withLock { $0 }
            self.state.withLock { state in
                state.entries[file.path]?.remote = remote
                state.entries[file.path]?.checkedAt = .now
            }
        }
        do {
            let campaign = try CampaignLoader.load(file, source: source)
            attempted = campaign.files
            // A segment, key or init section the playlists name but the folder lacks would fail
            // in every player: refuse the revision, keep the last good one.
            let missing = campaign.missingMedia()
            guard missing.isEmpty else { throw CampaignError(missing) }
            // Fetched again from its origin and found the same (the revision is a digest of every
            // byte): the serving load stays, with its sessions' plans and answers.
            if previous?.status.serving == campaign.revision, previous?.fingerprint == fingerprint {
                self.state.withLock { state in
                    state.entries[file.path]?.loadError = nil
                    state.entries[file.path]?.pollError = nil
                    if let status = state.entries[file.path]?.status {
                        state.entries[file.path]?.status = CampaignStatus(file: status.file, id: status.id, serving: status.serving, error: nil)
                    }
                }
                return
            }
            let folder = file.deletingLastPathComponent().standardizedFileURL
            if let catalogue = campaign.catalogue {
                try self.install(campaign, catalogue: catalogue, file: file, folder: folder, logger: logger)
                return
            }
            let layout = try StitchLayout(campaign: campaign, uris: self.mediaURIs(campaign.id, folder))
            var channel: LiveChannel?
            if campaign.live != nil {
                guard let live = self.live else {
                    throw CampaignError([
                        CampaignIssue(file: file.path, line: 0, column: 0, field: "program.live", "this server polls no live channels")
                    ])
                }
                channel = live.channel(for: campaign, layout: layout)
            }
            let served = try ServedCampaign(
                campaign: campaign,
                folder: folder,
                renderer: SessionRenderer(layout: layout),
                channel: channel,
                origin: self.remote?.client,
                mediaRoots: self.mediaRoots
            )
            // Taken before the lock: it reads every referenced file's size and time.
            let loadedWatched = CampaignFolder.watched(campaign.files)
            let loadedFingerprint = self.scanner.fingerprint(file, watched: loadedWatched)
            try self.state.withLock { state in
                try self.checkUnique(campaign.id, file: file, state: state)
                state.catalogues[campaign.id] = nil
                if let replaced = state.current[campaign.id], replaced.campaign.revision != campaign.revision {
                    state.superseded["\(campaign.id)/\(replaced.campaign.revision)"] = .now
                }
                state.superseded["\(campaign.id)/\(campaign.revision)"] = nil
                state.current[campaign.id] = served
                var kept = state.revisions[campaign.id, default: []].filter { $0.campaign.revision != campaign.revision }
                kept.append(served)
                state.revisions[campaign.id] = self.retained(kept, id: campaign.id, state: &state, logger: logger)
                state.entries[file.path] = Entry(
                    fingerprint: loadedFingerprint,
                    status: CampaignStatus(file: relativeFile, id: campaign.id, serving: campaign.revision, error: nil),
                    files: campaign.files,
                    watched: loadedWatched
                )
            }
            logger.info("campaign loaded", metadata: ["campaign": "\(campaign.id)", "revision": "\(campaign.revision)"])
        } catch {
            let message = self.describe(error)
            // The previous revision, if any, keeps serving: a bad edit never replaces a good campaign.
            let watchedFiles = attempted ?? previous?.files ?? CampaignFiles()
            let watched = attempted == nil ? previous?.watched ?? [] : CampaignFolder.watched(watchedFiles)
            let failedFingerprint = attempted == nil ? fingerprint : self.scanner.fingerprint(file, watched: watched)
            self.state.withLock { state in
                state.entries[file.path] = Entry(
                    fingerprint: failedFingerprint,
                    status: CampaignStatus(file: relativeFile, id: previous?.status.id, serving: previous?.status.serving, error: message),
                    files: watchedFiles,
                    watched: watched,
                    loadError: message
                )
            }
            self.metrics.reloadFailed(campaign: previous?.status.id ?? CampaignFolder.name(of: file))
            logger.error("campaign failed to load", metadata: ["file": "\(file.path)", "error": "\(message)"])
        }
    }

    /// A catalogue campaign loaded: its titles load on it from now on (those held stay for their
    /// sessions while the cache keeps them).
    private func install(_ campaign: Campaign, catalogue: Catalogue, file: URL, folder: URL, logger: Logger) throws {
        guard let remote = self.remote else {
            throw CampaignError([
                CampaignIssue(file: file.path, line: 0, column: 0, field: "program.catalogue", "this server fetches no remote playlists")
            ])
        }
        let template = CatalogueTitles.Template(campaign: campaign, catalogue: catalogue, file: file, folder: folder)
        let watched = CampaignFolder.watched(campaign.files)
        let fingerprint = self.scanner.fingerprint(file, watched: watched)
        try self.state.withLock { state in
            try self.checkUnique(campaign.id, file: file, state: state)
            state.current[campaign.id] = nil
            if let titles = state.catalogues[campaign.id] {
                titles.update(template)
            } else {
                state.catalogues[campaign.id] = CatalogueTitles(
                    template: template,
                    remote: remote,
                    mediaRoots: self.mediaRoots,
                    mediaURIs: self.mediaURIs,
                    logger: self.logger,
                    metrics: self.metrics,
                    store: self
                )
            }
            state.entries[file.path] = Entry(
                fingerprint: fingerprint,
                status: CampaignStatus(file: self.relative(file.path), id: campaign.id, serving: campaign.revision, error: nil),
                files: campaign.files,
                watched: watched
            )
        }
        logger.info(
            "catalogue loaded",
            metadata: ["campaign": "\(campaign.id)", "revision": "\(campaign.revision)", "prefix": "\(catalogue.prefix)"]
        )
    }

    /// Refuses a campaign id another file of the folder already uses.
    private func checkUnique(_ id: String, file: URL, state: State) throws {
        guard let other = state.entries.first(where: { $0.key != file.path && $0.value.status.id == id }) else { return }
        throw CampaignError([
            CampaignIssue(
                file: file.path,
                line: 0,
                column: 0,
                field: "id",
                "campaign id \"\(id)\" is already used by \(self.relative(other.key)); ids must be unique in the folder"
            )
        ])
    }

    /// A load error as `GET /v1/campaigns` shows it: paths relative to the campaigns folder, so
    /// the API does not disclose where the server keeps its files.
    /// Logs pattern matches stopped by PCRE2's limits since the last poll (the metric counts them).
    private func reportPatternLimitHits(logger: Logger) {
        let hits = Pattern.limitHits
        let new = self.state.withLock { state in
            defer { state.patternLimitHits = hits }
            return hits - state.patternLimitHits
        }
        guard new > 0 else { return }
        logger.warning(
            "rule patterns hit PCRE2's match limits and counted as no match",
            metadata: ["matches": "\(new)", "limit": "\(Pattern.matchLimit) steps, depth \(Pattern.depthLimit)"]
        )
    }

}
