import AdCampaign
import AdCampaignStore
import AdDecision
import AdMetrics
import AdOrigin
import AdQuality
import AdSessions
import AdStitching
import HLSPlaylist
import Logging
import ServiceLifecycle
import Synchronization

/// Each session's ``AdQuality/ServerView`` on this replica, read from what its
/// ``SessionObserver`` noted and written to the quality store — the server's own view of its
/// viewers (docs/quality.md "The server's own view"). A session's view is written when it
/// changes in a way its figures read, or when it has been fetched for another half minute (a
/// live viewer's time watched); each replica writes its own, whole, replacing the one it wrote
/// before, and ``AdQuality/SessionQuality`` merges them. Flushed every ``interval`` by
/// ``ServerViewsService``, and before this replica answers a quality read, so that a read sees
/// what the replica has answered. Flushes run one at a time.
final class ServerViews: Sendable {
    let sessions: SessionController
    let store: any QualityStore
    /// This replica's name in the views it writes (`serve --replica`).
    let replica: String

    /// How often the views are flushed.
    static let interval: Duration = .seconds(2)
    /// A view whose session is still fetched is written again after this long without a change.
    static let rewriteAfter: Int64 = 30_000
    /// Views written at once.
    static let concurrentWrites = 8

    /// A session's view and what its observations are read against, by token text (a known
    /// session's requests need no token check or plan): bounded by memory.
    struct Kept: Sendable {
        var view: ServerView
        var session: QualitySession
        /// The plan's pieces (start, duration: stream ms; the events its ad tracks), for the
        /// stream time of a beacon link and the ad's progress.
        var pieces: [(start: Int64, duration: Int64, tracked: Int)]
        /// The BANDWIDTH of each video rendition (`v{n}`).
        var bandwidths: [Int64?]
        var retention: Int64
        /// Changes since the view was last written, and the last fetch it held then.
        var changed: Bool
        var written: Int64
    }

    private let kept = LRUCache<String, Kept>(budget: 32 << 20) { token, kept in
        let view = kept.view
        let entries = view.switches.count + view.segments.count + view.ads.count + (view.cmcd?.bitrates.count ?? 0)
        return 512 + token.utf8.count + 96 * kept.session.spans.count + 16 * kept.pieces.count + 48 * entries
    }
    /// Sessions by their player's CMCD `sid` (campaign, then the sid): how a media request, whose
    /// URI carries no token, finds its session.
    private let sids = LRUCache<String, String>(budget: 100_000) { _, _ in 1 }
    private let chain = Mutex<Task<Void, Never>?>(nil)

    init(sessions: SessionController, store: any QualityStore, replica: String) {
        self.sessions = sessions
        self.store = store
        self.replica = replica
    }

    /// Reads what was noted since the last flush into the sessions' views and writes those that
    /// changed; after any flush under way.
    func flush() async {
        let task = self.chain.withLock { previous in
            let next = Task { [previous] in
                await previous?.value
                await self.flushOnce()
            }
            previous = next
            return next
        }
        await task.value
    }

    private func flushOnce() async {
        let (batches, dropped) = self.sessions.observer.take()
        let metrics = self.sessions.store.metrics
        if dropped > 0 { metrics.qualityObservations(outcome: "dropped", count: dropped) }
        guard !batches.isEmpty else { return }
        metrics.qualityObservations(outcome: "read", count: batches.reduce(0) { $0 + $1.seen.reduce(0) { $0 + $1.count } })
        var due: [(token: String, kept: Kept)] = []
        // The sessions' own requests first, then the media requests their CMCD `sid` joins to them.
        let joined =
            batches.filter { !$0.token.hasPrefix(SessionObserver.sidPrefix) }
            + batches.filter { $0.token.hasPrefix(SessionObserver.sidPrefix) }
        for var batch in joined {
            guard let first = batch.seen.first else { continue }
            if batch.token.hasPrefix(SessionObserver.sidPrefix) {
                let sid = batch.token.dropFirst(SessionObserver.sidPrefix.count)
                guard let token = self.sids.get(batch.campaign + "\u{1f}" + sid), self.kept.get(token) != nil else {
                    metrics.qualityObservations(outcome: "unjoined", count: batch.seen.reduce(0) { $0 + $1.count })
                    continue
                }
                batch.token = token
            }
            let known = self.kept.get(batch.token)
            guard let start = known == nil ? await self.begin(campaign: batch.campaign, token: batch.token, at: first.at) : known else { continue }
            let kept = self.kept.update(batch.token, initial: start) { kept -> Kept in
                for seen in batch.seen {
                    let observation = ServerView.Observation(
                        Self.what(seen.what, kept),
                        at: seen.at,
                        last: seen.last,
                        count: seen.count,
                        cmcd: seen.clues.flatMap { CMCDRequest(query: $0.cmcdQuery, headers: $0.cmcdHeaders) },
                        playbackSession: seen.clues?.playbackSession
                    )
                    if kept.view.add(observation) { kept.changed = true }
                }
                if kept.view.last - kept.written >= Self.rewriteAfter { kept.changed = true }
                return kept
            }
            if let sid = kept.view.cmcd?.session { self.sids.put(batch.campaign + "\u{1f}" + sid, batch.token) }
            if kept.changed { due.append((batch.token, kept)) }
        }
        // Written a few at once; a store that fails is said once a flush, not once a session.
        var failures: [any Error] = []
        await withTaskGroup(of: (any Error)?.self) { group in
            for (index, (token, kept)) in due.enumerated() {
                if index >= Self.concurrentWrites, let failed = await group.next(), let error = failed { failures.append(error) }
                group.addTask { await self.write(token, kept) }
            }
            for await case let error? in group { failures.append(error) }
        }
        if let error = failures.first {
            self.sessions.store.logger.warning(
                "cannot keep \(failures.count) of \(due.count) sessions' server views; they are written at the next flush",
                metadata: ["error": "\(error)"]
            )
        }
    }

    /// A session's first view on this replica: its token checked and its plan read (a token that
    /// no longer passes — expired, forged — is not followed).
    private func begin(campaign: String, token tokenText: String, at: Int64) async -> Kept? {
        guard let (token, plan) = try? await self.sessions.checkedPlan(tokenText, campaign: campaign, scope: .viewer) else { return nil }
        let reporting = token.reporting ?? plan.campaign.reporting
        var segmentAtStart = false
        if reporting == .server, self.sessions.firesBeacons, let first = plan.pieces.first, case .ad(let ad, _) = first.kind {
            segmentAtStart = !BeaconEvents(tracking: ad.tracking).isDisjoint(with: [.impression, .start])
        }
        let session = QualitySession(campaign: campaign, session: token.session, first: at, plan: plan, insertion: token.insertion.rawValue)
        return Kept(
            view: ServerView(replica: self.replica, at: at, live: token.liveJoin != nil, segmentAtStart: segmentAtStart),
            session: session,
            pieces: plan.pieces.map { piece in
                let tracked = if case .ad(let ad, _) = piece.kind { BeaconEvents(tracking: ad.tracking).rawValue } else { 0 }
                return (piece.start.roundedMilliseconds, piece.duration.roundedMilliseconds, tracked)
            },
            bandwidths: (plan.campaign.templateAsset?.variants ?? []).map { $0.streamInf.bandwidth.map(Int64.init) },
            retention: Int64(plan.campaign.quality.retention) * 1000,
            changed: true,
            written: at
        )
    }

    /// What a request was, on the session's timeline.
    static func what(_ what: SessionObserver.What, _ kept: Kept) -> ServerView.Observation.What {
        switch what {
        case .master:
            return .master
        case .file(let name):
            guard name.hasSuffix(".m3u8") else { return .file }
            let stem = name.dropLast(5)
            if stem.first == "v", let index = Int(stem.dropFirst()), index >= 0 {
                return .video(String(stem), bandwidth: kept.bandwidths.indices.contains(index) ? kept.bandwidths[index] : nil)
            }
            return .playlist
        case .media:
            return .media
        case .beacon(let piece, let events, let breakID):
            // A live break's pieces are the channel's, not the plan's: no stream time.
            guard breakID == nil, kept.pieces.indices.contains(piece) else {
                return .segment(stream: nil, ad: ServerView.AdProgress(piece: piece, breakID: breakID, tracked: 0, fetched: events, end: nil))
            }
            let (start, duration, tracked) = kept.pieces[piece]
            return .segment(
                stream: start + duration * Self.quarters(BeaconEvents(rawValue: events)) / 4,
                ad: ServerView.AdProgress(piece: piece, breakID: nil, tracked: tracked, fetched: events, end: start + duration)
            )
        }
    }

    /// Where in its ad a link's first event falls, in quarters: the impression and start at 0, a
    /// quartile at its quarter, complete at the end.
    static func quarters(_ events: BeaconEvents) -> Int64 {
        if !events.isDisjoint(with: [.impression, .start]) { return 0 }
        if events.contains(.firstQuartile) { return 1 }
        if events.contains(.midpoint) { return 2 }
        if events.contains(.thirdQuartile) { return 3 }
        return 4
    }

    /// Writes a session's view; the error if the store did not take it (the view is left
    /// changed, and written at the next flush).
    private func write(_ token: String, _ kept: Kept) async -> (any Error)? {
        let now = self.sessions.policy.nowMilliseconds
        let store = self.store
        let event = QualityEvent(kind: .server, received: now, view: kept.view)
        do {
            _ = try await Deadline.run(within: QualityController.storeTimeout) {
                try await store.record(
                    kept.session,
                    events: [event],
                    replacing: .serverView(replica: self.replica),
                    forgetBefore: now - kept.retention
                )
            }
            let last = kept.view.last
            self.kept.update(token, initial: kept) { current in
                current.written = last
                current.changed = current.view != kept.view
            }
            self.sessions.store.metrics.qualityObservations(outcome: "written", count: 1)
            return nil
        } catch {
            return error
        }
    }
}

/// Flushes the replica's ``ServerViews`` every ``ServerViews/interval``, and once more when the
/// server stops.
struct ServerViewsService: Service {
    let views: ServerViews

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: ServerViews.interval)
                await self.views.flush()
            }
        }
        await self.views.flush()
    }
}
