import AdCampaign
import AdMetrics
import AdOrigin
import AdStitching
import Foundation
import HLSPlaylist
import HTTPTypes
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// The titles of one catalogue campaign (`program: { catalogue: URL }`, docs/campaign-format.md
/// "Catalogues") this replica holds: each loaded when a viewer first starts it — its playlists
/// fetched below the prefix, cut at its markers or by the schedule, laid out — and kept within
/// the campaign's `cache:` bounds, least recently used first out.
///
/// - One load per title at a time, however many viewers start it at once (single flight).
/// - After `cache.ttl` the next start asks the origin, conditionally, whether the title's
///   playlists changed — in the background: that start gets the title it holds. A change loads a
///   new revision for later sessions; a 404 or 410 stops new sessions of the title; any other
///   failure keeps the title serving (stale on error).
/// - A title's revision is a digest of the campaign file, the title's path and every byte of its
///   playlists and the ads': replicas that read the same bytes agree, and a session's token names
///   its revision. Revisions stay loaded while the cache holds them, current or not, so sessions
///   keep their ads; a session whose revision this replica does not hold loads the title again,
///   and plays if the origin still has those bytes (``restore(_:revision:)``).
package final class CatalogueTitles: Sendable {
    /// The catalogue campaign as loaded from its file: every title is loaded from the same file.
    package struct Template: Sendable {
        package let campaign: Campaign
        package let catalogue: Catalogue
        let file: URL
        package let folder: URL
        /// Its local ad and slate playlists (``ServedCampaign/adPlaylists``), for the media route.
        package let adPlaylists: Set<URL>

        init(campaign: Campaign, catalogue: Catalogue, file: URL, folder: URL) {
            self.campaign = campaign
            self.catalogue = catalogue
            self.file = file
            self.folder = folder
            self.adPlaylists = ServedCampaign.adPlaylists(of: campaign)
        }
    }

    /// A loaded title.
    final class Title: Sendable {
        let path: String
        let served: ServedCampaign
        /// The template revision it was loaded on: a changed campaign file loads titles anew.
        let template: String
        /// What the origin said of each of the title's playlists, for conditional requests.
        let validators: [URL: Validator]
        /// Roughly what it holds in memory (``estimatedBytes(_:playlistBytes:)``).
        let bytes: Int

        init(path: String, served: ServedCampaign, template: String, validators: [URL: Validator], bytes: Int) {
            self.path = path
            self.served = served
            self.template = template
            self.validators = validators
            self.bytes = bytes
        }
    }

    struct Validator: Sendable, Hashable {
        var etag: String?
        var lastModified: String?
        /// A digest of the bytes and the URL after redirects: an origin without validators
        /// answers 200 every time, and the bytes tell.
        var digest: UInt64
        var count: Int
    }

    /// Why a title cannot start: what the viewer's request gets.
    package enum Failure: Error {
        /// The origin has no such title (404, 410).
        case missing(String)
        /// The origin failed (timeout, 5xx, connection).
        case origin(String)
        /// The title's playlists are not stitchable with the campaign's ads.
        case invalid(String)
    }

    private struct State {
        var template: Template
        /// By path: the title new sessions of it get.
        var current: [String: Title] = [:]
        /// By revision: every title held, current or not, with its last use for eviction.
        var held: [String: (title: Title, used: UInt64)] = [:]
        var clock: UInt64 = 0
        var bytes = 0
        /// When each path's origin was last asked whether it changed.
        var checked: [String: ContinuousClock.Instant] = [:]
        /// Loads running, by path: later starts of the same title wait for it.
        var loading: [String: Task<Title, any Error>] = [:]
        var revalidating: Set<String> = []
        /// Paths recently started, newest last (the preview's list), at most ``recentLimit``.
        var recent: [String] = []
        /// Paths the origin lately had no title at (404, 410) or had one that cannot be stitched:
        /// answered so again for ``absentLifetime`` without asking the origin (a negative cache),
        /// at most ``absentLimit``.
        var absent: [String: (failure: Failure, at: ContinuousClock.Instant)] = [:]
    }

    private let state: Mutex<State>
    let remote: RemotePlaylists
    let mediaRoots: [URL]
    let mediaURIs: CampaignStore.MediaURIs
    let logger: Logger
    let metrics: ServerMetrics
    /// Told of evicted revisions, so nothing else keeps them alive (``CampaignStore/titlesEvicted(_:)``).
    private weak let store: CampaignStore?

    static let recentLimit = 50
    static let absentLimit = 10_000

    /// How long a missing or unstitchable title is answered from memory: the catalogue's `ttl`,
    /// at most a minute (a title published since is found within it).
    var absentLifetime: Duration { min(self.template.catalogue.cache.ttl, .seconds(60)) }

    init(
        template: Template,
        remote: RemotePlaylists,
        mediaRoots: [URL],
        mediaURIs: @escaping CampaignStore.MediaURIs,
        logger: Logger,
        metrics: ServerMetrics,
        store: CampaignStore?
    ) {
        self.store = store
        self.mediaURIs = mediaURIs
        self.state = Mutex(State(template: template))
        self.remote = remote
        self.mediaRoots = mediaRoots
        self.logger = logger
        self.metrics = metrics
    }

    package var template: Template { self.state.withLock { $0.template } }

    /// A new load of the campaign file: titles load on it from now on; those held stay for their
    /// sessions while the cache keeps them.
    func update(_ template: Template) {
        let evicted = self.state.withLock { state in
            state.template = template
            state.current = state.current.filter { $0.value.template == template.campaign.revision }
            return self.evict(&state)
        }
        self.store?.titlesEvicted(evicted)
    }

    /// The titles held: how many, and their estimated bytes.
    package var held: (titles: Int, bytes: Int) { self.state.withLock { ($0.held.count, $0.bytes) } }

    /// Paths started recently, newest first.
    package var recent: [String] { self.state.withLock { $0.recent.reversed() } }

    /// The title a held revision is, for a session's files (nil: not held here).
    func title(revision: String) -> ServedCampaign? {
        self.state.withLock { state in
            guard let held = state.held[revision] else { return nil }
            state.clock += 1
            state.held[revision]?.used = state.clock
            return held.title.served
        }
    }

    /// The title at `path` for a new session: held, or loaded now (one load however many ask).
    /// Past the cache's `ttl`, the origin is asked in the background whether it changed.
    package func start(_ path: String) async throws(Failure) -> ServedCampaign {
        let (held, due) = self.state.withLock { state -> (Title?, Bool) in
            guard let title = state.current[path] else { return (nil, false) }
            Self.started(path, &state)
            state.clock += 1
            state.held[title.served.campaign.revision]?.used = state.clock
            let checked = state.checked[path] ?? .now
            guard ContinuousClock.now - checked >= state.template.catalogue.cache.ttl, state.revalidating.insert(path).inserted else {
                return (title, false)
            }
            return (title, true)
        }
        if let held {
            self.metrics.catalogueTitle(outcome: "hit")
            if due { Task { await self.revalidate(held) } }
            return held.served
        }
        let lifetime = self.absentLifetime
        if let absent = self.state.withLock({ $0.absent[path] }), ContinuousClock.now - absent.at < lifetime {
            self.metrics.catalogueTitle(outcome: "absent")
            throw absent.failure
        }
        self.metrics.catalogueTitle(outcome: "load")
        let loaded: ServedCampaign
        do {
            loaded = try await self.load(path).served
        } catch {
            switch error {
            case .missing, .invalid:
                self.state.withLock { state in
                    if state.absent.count >= Self.absentLimit { state.absent.removeAll(keepingCapacity: true) }
                    state.absent[path] = (error, .now)
                }
            case .origin:
                break
            }
            throw error
        }
        self.state.withLock { state in
            Self.started(path, &state)
            state.absent[path] = nil
        }
        return loaded
    }

    /// Notes `path` as started now (``recent``).
    private static func started(_ path: String, _ state: inout State) {
        state.recent.removeAll { $0 == path }
        state.recent.append(path)
        if state.recent.count > Self.recentLimit { state.recent.removeFirst() }
    }

    /// The title a session started on, loaded again (evicted, or started on another replica):
    /// nil when the origin no longer has the bytes of `revision`.
    package func restore(_ path: String, revision: String) async throws(Failure) -> ServedCampaign? {
        if let held = self.title(revision: revision) { return held }
        // The title as held now, checked within the ttl, is another revision: the origin has moved
        // on, and asking it again for every file of an old session would only repeat that.
        let fresh = self.state.withLock { state -> Bool in
            guard let current = state.current[path], let checked = state.checked[path] else { return false }
            return ContinuousClock.now - checked < state.template.catalogue.cache.ttl && current.served.campaign.revision != revision
        }
        if fresh { return nil }
        let title = try await self.load(path)
        return title.served.campaign.revision == revision ? title.served : nil
    }

    /// Loads `path`, or waits for the load already running.
    private func load(_ path: String) async throws(Failure) -> Title {
        let task = self.state.withLock { state -> Task<Title, any Error> in
            if let running = state.loading[path] { return running }
            let template = state.template
            let task = Task<Title, any Error> {
                defer { self.state.withLock { _ = $0.loading.removeValue(forKey: path) } }
                // On a thread of its own, a few at once per origin: a slow origin's titles never
                // hold the loads of another's (``BlockingWork``).
                let origin = BlockingWork.origin(of: template.catalogue.prefix)
                let title = try await self.remote.client.blocking.run(origin: origin) {
                    let title = try self.fetch(path, template: template)
                    self.install(title)
                    // A load allocates tens of MB for moments (parsing, laying out); an eviction
                    // frees a title. Hand the freed pages back, or RSS keeps them.
                    HeapTrim.release()
                    return title
                }
                return title
            }
            state.loading[path] = task
            return task
        }
        do {
            return try await task.value
        } catch let failure as Failure {
            throw failure
        } catch {
            throw .origin("\(error)")
        }
    }

    /// Makes `title` the one new sessions of its path get, and holds it within the bounds.
    private func install(_ title: Title) {
        let revision = title.served.campaign.revision
        let evicted = self.state.withLock { state in
            state.clock += 1
            if state.held[revision] == nil { state.bytes += title.bytes }
            state.held[revision] = (title, state.clock)
            if title.template == state.template.campaign.revision { state.current[title.path] = title }
            state.checked[title.path] = .now
            return self.evict(&state)
        }
        self.store?.titlesEvicted(evicted)
        self.metrics.catalogueHeld(self.held.titles, bytes: self.held.bytes, campaign: title.served.campaign.id)
    }

    /// Drops the least recently used titles until `cache.titles` and `cache.memory_mib` hold
    /// (the one used last always stays); returns the revisions dropped.
    private func evict(_ state: inout State) -> [String] {
        let cache = state.template.catalogue.cache
        var evicted: [String] = []
        while state.held.count > 1, state.held.count > cache.titles || state.bytes > cache.memoryMiB << 20 {
            guard let oldest = state.held.min(by: { $0.value.used < $1.value.used }) else { break }
            evicted.append(oldest.key)
            state.held[oldest.key] = nil
            state.bytes -= oldest.value.title.bytes
            let path = oldest.value.title.path
            if state.current[path] === oldest.value.title {
                state.current[path] = nil
                state.checked[path] = nil
            }
        }
        return evicted
    }

    /// Asks the origin whether `title`'s playlists changed (conditional requests); a change
    /// loads the title again, a 404 or 410 stops new sessions of it, another failure keeps it.
    private func revalidate(_ title: Title) async {
        defer { self.state.withLock { _ = $0.revalidating.remove(title.path) } }
        let client = self.remote.client
        var changed = false
        for (url, validator) in title.validators.sorted(by: { $0.key.absoluteString < $1.key.absoluteString }) {
            do {
                let outcome = try await client.fetch(url, settings: client.settings, etag: validator.etag, lastModified: validator.lastModified)
                if case .fetched(let playlist) = outcome, Self.digest(playlist) != validator.digest {
                    changed = true
                    break
                }
            } catch {
                if case .status(let code) = error.reason, code == 404 || code == 410 {
                    self.state.withLock { state in
                        if state.current[title.path] === title { state.current[title.path] = nil }
                        state.checked[title.path] = nil
                    }
                    self.logger.notice(
                        "catalogue title gone from its origin; new sessions of it get 404, running ones keep playing",
                        metadata: ["campaign": "\(title.served.campaign.id)", "title": "\(title.path)", "error": "\(error)"]
                    )
                    return
                }
                self.state.withLock { $0.checked[title.path] = .now }
                self.logger.warning(
                    "cannot revalidate a catalogue title; it keeps serving",
                    metadata: ["campaign": "\(title.served.campaign.id)", "title": "\(title.path)", "error": "\(error)"]
                )
                return
            }
        }
        guard changed else {
            self.state.withLock { $0.checked[title.path] = .now }
            return
        }
        do {
            _ = try await self.load(title.path)
        } catch {
            self.state.withLock { $0.checked[title.path] = .now }
            self.logger.warning(
                "a catalogue title changed at its origin but does not load; the held revision keeps serving",
                metadata: ["campaign": "\(title.served.campaign.id)", "title": "\(title.path)", "error": "\(error)"]
            )
        }
    }

    /// Fetches and loads the title (blocking: run on the thread pool).
    private func fetch(_ path: String, template: Template) throws(Failure) -> Title {
        let client = self.remote.client
        let prefix = template.catalogue.prefix.absoluteString
        let validators = Mutex([URL: Validator]())
        let originFailure = Mutex<OriginError?>(nil)
        // The media playlists of the title's multivariant playlist, asked of the origin together
        // as soon as it is read: the loader then waits about two round trips, not one per playlist.
        let started = Mutex([URL: OriginClient.Started]())
        // Only the title's multivariant playlist names media playlists: the rest (40 KB each for a
        // two-hour rung) are not parsed twice to learn they name none.
        let master = template.catalogue.url(of: path)
        // The title's playlists fresh from the origin; the ads' as the campaign's load read them.
        let isTitle: @Sendable (URL) -> Bool = { $0.absoluteString.hasPrefix(prefix) }
        // The load's parts, for `adstitch_catalogue_load_duration_seconds`.
        let began = ContinuousClock.now
        let waited = Mutex(Duration.zero)
        let source = self.remote.source(current: true).allowingLinks(into: self.mediaRoots).routingRemote(isTitle) { url, options in
            do {
                let settings = client.settings.applying(options)
                let fetch = started.withLock { $0.removeValue(forKey: url) } ?? client.start(url, settings: settings)
                let asked = ContinuousClock.now
                let answer = Result { try fetch.wait() }
                waited.withLock { $0 += ContinuousClock.now - asked }
                // No validators sent: the answer is a playlist, never a 304.
                guard case .fetched(let playlist) = try answer.get() else {
                    throw UnexpectedNotModified(url: url)
                }
                let next = url == master ? Self.mediaPlaylists(playlist).filter(isTitle) : []
                if !next.isEmpty {
                    let fetches = next.map { ($0, client.start($0, settings: settings)) }
                    started.withLock { started in
                        for (url, fetch) in fetches where started[url] == nil { started[url] = fetch }
                    }
                }
                validators.withLock {
                    $0[url] = Validator(
                        etag: playlist.etag,
                        lastModified: playlist.lastModified,
                        digest: Self.digest(playlist),
                        count: playlist.bytes.count
                    )
                }
                return (Data(playlist.bytes), playlist.url)
            } catch let error as OriginError {
                originFailure.withLock { $0 = $0 ?? error }
                throw error
            }
        }
        let campaign: Campaign
        do {
            campaign = try CampaignLoader.load(template.file, source: source, title: path, reusing: template.campaign.knownAssets)
            let missing = campaign.missingMedia()
            guard missing.isEmpty else { throw CampaignError(missing) }
        } catch {
            if let failure = originFailure.withLock({ $0 }) {
                if case .status(let code) = failure.reason, code == 404 || code == 410 {
                    throw .missing("no title \(path) in catalogue \(template.campaign.id): \(failure)")
                }
                throw .origin("title \(path) of catalogue \(template.campaign.id) cannot be fetched: \(failure)")
            }
            throw .invalid("title \(path) of catalogue \(template.campaign.id) cannot be stitched: \(error)")
        }
        let loaded = ContinuousClock.now
        do {
            let layout = try StitchLayout(campaign: campaign, uris: self.mediaURIs(campaign.id, template.folder))
            let served = try ServedCampaign(
                campaign: campaign,
                folder: template.folder,
                renderer: SessionRenderer(layout: layout),
                origin: client,
                mediaRoots: self.mediaRoots
            )
            let recorded = validators.withLock { $0 }
            let origin = waited.withLock { $0 }
            self.metrics.catalogueLoad(origin: origin, load: loaded - began - origin, layout: ContinuousClock.now - loaded)
            return Title(
                path: path,
                served: served,
                template: template.campaign.revision,
                validators: recorded,
                bytes: Self.estimatedBytes(served, playlistBytes: recorded.values.reduce(0) { $0 + $1.count })
            )
        } catch {
            throw .invalid("title \(path) of catalogue \(template.campaign.id) cannot be stitched: \((error as? StitchError)?.message ?? "\(error)")")
        }
    }

    /// What a loaded title holds, roughly: its stitched blocks plain and deflated, and its
    /// playlists parsed — segments as values with their URLs and lines, sixteen times their text.
    /// Calibrated on 2026-11-28: loading 160 two-hour titles of six variants (239 KB of playlists
    /// each; 1.0 MB of blocks) one after another without eviction grew the server's RSS by 4.8 MB
    /// a title, evenly (scripts/bench-catalogue.sh's setup; docs/performance.md "Catalogues").
    ///
    /// The programme's cut blocks are written as viewers play each rendition (``StitchLayout``),
    /// so they are counted as if every rendition were written: one copy of the programme's
    /// segment lines, plain and deflated, twice its playlists' text (those 1.0 MB held two copies).
    static func estimatedBytes(_ served: ServedCampaign, playlistBytes: Int) -> Int {
        let blocks = served.body.blocks.reduce(0) { $0 + $1.plain.readableBytes + $1.deflated.readableBytes }
        return 4_096 + blocks + 2 * playlistBytes + 16 * playlistBytes
    }

    /// The media playlists a fetched multivariant playlist references, as the loader resolves
    /// them (variables substituted, against where it was found); none for a media playlist, or
    /// one that does not parse (the loader says why).
    private static func mediaPlaylists(_ playlist: FetchedPlaylist) -> [URL] {
        guard case .multivariant(let multivariant) = try? PlaylistParser().parse(bytes: playlist.bytes, url: playlist.url),
            let resolved = try? multivariant.resolvingVariables()
        else { return [] }
        return resolved.mediaPlaylistURLs
    }

    /// Compared only within this process (validators are not shared): Swift's `Hasher`, seeded
    /// per process, reads eight bytes a round where the revision's FNV-1a reads one.
    private static func digest(_ playlist: FetchedPlaylist) -> UInt64 {
        var hasher = Hasher()
        playlist.bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        hasher.combine(playlist.url.absoluteString)
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }
}

/// A 304 to a request that sent no validators.
private struct UnexpectedNotModified: Error, CustomStringConvertible {
    var url: URL
    var description: String { "\(self.url.absoluteString) answered 304 Not Modified to a request without validators" }
}
