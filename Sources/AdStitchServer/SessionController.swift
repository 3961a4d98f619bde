import AdCampaign
import AdCampaignStore
import AdDecision
import AdLive
import AdLiveRuntime
import AdMetrics
import AdSessions
import AdStitching
import Crypto
import Foundation
import HLSPlaylist
import HTTPTypes
import Hummingbird
import NIOCore

/// The per-viewer API (docs/http-api.md): the multivariant playlist of a new session, then the
/// session's files (``SessionFile``) under its signed token, through the response cache.
struct SessionController: Sendable {
    let store: CampaignStore
    let policy: SessionPolicy
    /// Where absolute URIs (interstitial asset lists) point (`serve --public-url`).
    let publicAddress: PublicAddress
    /// Where sessions' ad decision server answers are recorded for every replica.
    let decisions: any AdDecisionStore
    /// Conditioning of ad server creatives without HLS (campaigns with `creatives:`).
    let conditioning: CreativeConditioning?
    /// Fires the tracking URLs of sessions' ads: ad server creatives' error URIs, and every ad's
    /// events as its viewer reaches them (server-side reporting).
    let beacons: BeaconFirer?
    /// Who fires each ad event of a session: the first to claim it (``BeaconLedger``).
    let ledger: (any BeaconLedger)?
    /// The beacon links' claims under way, bounded (``BeaconClaims``).
    let claims: BeaconClaims?
    /// Viewers' frequency caps: the caps a start reached, the impressions it adds.
    let capper: FrequencyCapper

    /// Recent token-scoped answers (immutable, so they can be served again as they are).
    let cache: ResponseCache

    /// Viewers' requests as answered, for the server's own view of their sessions (``ServerViews``).
    let observer = SessionObserver()

    /// Recent sessions by token text: the token as verified and decoded, and its plan, so the
    /// files of one session (its master, each rendition, the manifest) are planned once.
    let sessions: LRUCache<String, VerifiedSession>

    /// The memory planned sessions may hold, by ``estimatedBytes(_:token:)``. A VOD plan of the
    /// two-hour campaign holds some 80 allocations (~6.5 KB measured), so this keeps ~512 of
    /// them: enough for the seconds between a session's start and its players' first fetches at
    /// hundreds of starts a second; one fetched again later is planned again (~15 µs). A live
    /// session's plan has no timeline (its breaks are filled per refresh), so several times as
    /// many live viewers stay planned — they ask again every few seconds for as long as they
    /// watch, and a miss costs a refresh its token check and plan again (a third of its CPU).
    static let plannedSessionBytes = 512 * 6_900

    /// What a planned session holds in memory, roughly (calibrated on the two-hour campaign's
    /// plan: 17 pieces, 3 breaks, ~6.5 KB): each piece and break is a few allocations with their
    /// strings, the rest a fixed part and the viewer's attributes.
    static func estimatedBytes(_ session: VerifiedSession, token: String) -> Int {
        let plan = session.plan
        return 1_024 + token.utf8.count + 256 * plan.pieces.count + 512 * plan.breaks.count + 64 * plan.appliedRules.count
            + 64 * plan.context.attributes.count
    }

    init(
        store: CampaignStore,
        policy: SessionPolicy,
        cacheBytes: Int = ServerConfiguration.defaultResponseCacheBytes,
        publicAddress: PublicAddress = PublicAddress(),
        decisions: any AdDecisionStore = MemoryAdDecisionStore(),
        conditioning: CreativeConditioning? = nil,
        beacons: BeaconFirer? = nil,
        ledger: (any BeaconLedger)? = nil,
        claims: BeaconClaims? = nil,
        impressions: any ImpressionStore = MemoryImpressionStore()
    ) {
        self.store = store
        self.policy = policy
        self.publicAddress = publicAddress
        self.decisions = decisions
        self.conditioning = conditioning
        self.beacons = beacons
        self.ledger = ledger
        self.claims = claims ?? beacons.map { BeaconClaims(metrics: $0.metrics, logger: store.logger) }
        self.capper = FrequencyCapper(store: impressions, logger: store.logger)
        self.cache = ResponseCache(budget: cacheBytes)
        self.sessions = LRUCache(budget: Self.plannedSessionBytes) { token, session in Self.estimatedBytes(session, token: token) }
        // A planned session holds its load's renderer: an evicted catalogue title's sessions
        // would keep the title's layout alive past the cache's bounds. Planned again if asked.
        let sessions = self.sessions
        store.onTitlesEvicted { revisions in
            let dropped = Set(revisions)
            sessions.removeAll { _, session in dropped.contains(session.token.revision) }
        }
    }

    /// A token whose signature was checked, and its plan on one load of its revision. A class,
    /// immutable: taking one from the cache or handing it on is one reference, not the token's
    /// and the plan's dozen.
    final class VerifiedSession: Sendable {
        let token: SessionToken
        let plan: Plan
        /// ``ServedCampaign/load`` the plan was made on: a plan is only rendered by its own load's layout.
        let load: Int
        /// What kind of session it is (stitched, interstitial, live), over the load's renderer with
        /// the session's ad server creatives laid out beside its ads: chosen here, once.
        let kind: any SessionKind

        init(token: SessionToken, plan: Plan, load: Int, renderer: SessionRenderer) {
            self.token = token
            self.plan = plan
            self.load = load
            self.kind = renderer.session(token.insertion, reporting: token.reporting)
        }

        var renderer: SessionRenderer { self.kind.renderer }

        /// A session planned from the campaign's pools alone.
        convenience init(_ served: ServedCampaign, token: SessionToken) {
            self.init(token: token, plan: SessionController.plan(served, token), load: served.load, renderer: served.renderer)
        }
    }

    /// The session file route (`/v1/campaigns/{id}/sessions/{token}/{file}`) is not the router's:
    /// ``SessionFileDoor`` answers it in the connection's pipeline.
    func register(on router: Router<AdStitchRequestContext>) {
        router.getAndHead(Routes.master) { request, context in try await self.master(request, context) }
        router.getAndHead(Routes.catalogueMaster) { request, context in try await self.catalogueMaster(request, context) }
        router.getAndHead(Routes.beacon) { request, context in try await self.beacon(request, context) }
        router.getAndHead(Routes.channelPlaylist) { request, context in try self.channelPlaylist(request, context) }
        router.get(Routes.sessionEvents) { request, context in try await self.events(request, context) }
    }

    /// Notes a viewer's answered request of a session file for the server's view of it
    /// (``SessionObserver``): GETs answered with a success or `304`, not probes (`HEAD`), not
    /// preview sessions, not errors.
    func observe(_ asked: SessionFileRequest, _ head: HTTPRequest, status: HTTPResponse.Status) {
        guard head.method == .get, asked.scope == .viewer, status.code < 400 else { return }
        self.observer.note(
            campaign: asked.campaign,
            token: asked.token,
            .file(asked.file),
            at: self.policy.nowMilliseconds,
            clues: SessionObserver.Clues(head)
        )
    }

    /// A session file's answer as sent: status, headers (with the range's), body.
    typealias SessionFileParts = (status: HTTPResponse.Status, headers: HTTPFields, body: AnswerBody)

    /// The answer to a session file request, with whatever it waits for: a catalogue title
    /// loaded, recorded ad decisions read, a live channel's ad decisions asked.
    func completed(_ answer: SessionFileAnswer, _ asked: SessionFileRequest, _ head: HTTPRequest) async throws -> SessionFileParts {
        if let parts = try self.completedNow(answer, asked, head) { return parts }
        var answer = answer
        if case .title(let token) = answer {
            try await self.restoreTitle(token)
            answer = try self.answer(asked)
        }
        if case .restore(let served, let token) = answer {
            self.sessions.put(asked.token, try await self.restore(served, token))
            answer = try self.answer(asked)
        }
        if let parts = try self.completedNow(answer, asked, head) { return parts }
        guard case .live(let file, let served, let token, let joined, let verified) = answer else {
            throw Problem(status: .serviceUnavailable, title: "Busy", detail: "this replica could not keep the session's plan; try again")
        }
        let request = Request(head: head, body: RequestBody(buffer: ByteBuffer()))
        let (headers, body) = try await self.liveFile(
            file,
            served,
            token,
            joined: joined,
            tokenText: asked.token,
            verified: verified,
            for: request,
            peer: asked.peer
        )
        // A live file changes at every refresh: a Range of one version, asked of the next, can
        // fall past its end (Chromium's native HLS re-asked a live playlist by range, got 416,
        // and failed to parse). Ignored for them (RFC 9110 §14.2: a server MAY): the whole file.
        let ranged = AnswerBody.ranged(headers, body, range: nil, ifRange: nil)
        return (ranged.status, ranged.headers, ranged.body)
    }

    /// The answer when it waits for nothing — a stitched file (kept, or rendered now), an asset
    /// list — with its range; nil when it waits (``completed(_:_:_:)``).
    func completedNow(_ answer: SessionFileAnswer, _ asked: SessionFileRequest, _ head: HTTPRequest) throws -> SessionFileParts? {
        let (headers, body): (HTTPFields, AnswerBody)
        switch answer {
        case .complete(let completeHeaders, let completeBody):
            (headers, body) = (completeHeaders, completeBody)
        case .assetList(let file, let served, let token, let verified):
            let request = Request(head: head, body: RequestBody(buffer: ByteBuffer()))
            (headers, body) = try self.assetList(file, served, token, tokenText: asked.token, verified: verified, for: request)
        case .live, .restore, .title:
            return nil
        }
        let ranged = AnswerBody.ranged(headers, body, range: head.headerFields[.range], ifRange: head.headerFields[.ifRange])
        return (ranged.status, ranged.headers, ranged.body)
    }

    /// `GET /preview/{id}/sessions/{token}/{file}` (``PreviewController``): a preview session's
    /// files, answered as the viewer route's (``SessionFileDoor``).
    func sessionFile(_ request: Request, _ context: AdStitchRequestContext, scope: SessionToken.Scope) async throws -> Response {
        let asked = SessionFileRequest(
            campaign: try context.parameters.require("id"),
            token: try context.parameters.require("token"),
            file: try context.parameters.require("file"),
            gzip: Response.acceptsGzip(request.headers[.acceptEncoding], range: request.headers[.range]),
            scope: scope,
            peer: context.remoteAddress
        )
        let (status, headers, body) = try await self.completed(try self.answer(asked), asked, request.head)
        return Response(status: status, headers: headers, body: body.responseBody)
    }

    /// A session file request, by the parts of its path that name the bytes.
    struct SessionFileRequest {
        var campaign: String
        var token: String
        var file: String
        /// Whether the request accepts gzip (its `Accept-Encoding`).
        var gzip: Bool
        var scope: SessionToken.Scope
        /// The connection's other end: the viewer, unless a proxy stands in front
        /// (``deviceHeaders(_:peer:)``).
        var peer: SocketAddress?
    }

    /// What a session file request gets: the whole answer of a stitched file (kept, or planned,
    /// rendered and kept now), or the checked token of a file the request itself shapes (an
    /// asset list names the request's host; a live file moves with the channel).
    enum SessionFileAnswer {
        case complete(HTTPFields, AnswerBody)
        case assetList(SessionFile, ServedCampaign, SessionToken, VerifiedSession?)
        case live(SessionFile, ServedCampaign, SessionToken, joined: Int, VerifiedSession?)
        /// A session whose ads an ad server decided, not planned on this replica's load yet: its
        /// recorded decisions are read first (``restore(_:_:from:)``), then it is answered.
        case restore(ServedCampaign, SessionToken)
        /// A catalogue session whose title's revision this replica does not hold: it is loaded
        /// first (``restoreTitle(_:)``), then the session is answered.
        case title(SessionToken)
    }

    /// The answer to a session file request, or the problem that says why there is none. Only
    /// ``Problem``s are thrown. The viewer route (``SessionFileDoor``) and the preview's both
    /// come here, so they answer alike.
    func answer(_ asked: SessionFileRequest) throws(Problem) -> SessionFileAnswer {
        let (id, tokenText, file, scope) = (asked.campaign, asked.token, asked.file, asked.scope)
        let now = self.policy.nowSeconds
        // Only answers to tokens that passed the checks below are cached, under their campaign,
        // token, file and scope: a hit needs no second look at the signature — but the token may
        // have expired since.
        let key = ResponseCache.Key(campaign: id, token: tokenText, file: file, gzip: asked.gzip, scope: scope)
        if let cached = self.cache.get(key) {
            try Self.checkExpiry(cached.expires, now: now, campaign: id)
            self.store.metrics.responseCache(hit: true)
            return .complete(cached.headers, cached.body)
        }
        let (token, verified) = try self.checkedToken(tokenText, campaign: id, scope: scope, now: now)
        guard let served = try self.keptRevision(token) else { return .title(token) }
        let reporting = token.reporting ?? served.campaign.reporting
        if file == SessionFile.tracking.name, reporting == .server {
            throw Problem.notFound(
                "this session reports server-side: AdStitch fires its ads' events as the player reaches them, so it has no tracking.json; a session started with reporting=client has one"
            )
        }
        let kind = served.renderer.session(token.insertion, reporting: reporting)
        guard let sessionFile = kind.file(named: file), sessionFile != .multivariant else {
            let names = kind.files.filter { $0 != .multivariant }.map(\.name)
            throw Problem.notFound(
                "no file \(file) in \(kind.name) sessions of campaign \(served.campaign.id); they have \(names.joined(separator: ", "))"
            )
        }
        if token.decided, verified?.load != served.load {
            return .restore(served, token)
        }
        // A live session's files move with the channel (its asset lists too: the breaks come as it plays).
        if let joined = token.liveJoin, !sessionFile.isFiller {
            return .live(sessionFile, served, token, joined: joined, verified)
        }
        if case .assetList = sessionFile {
            return .assetList(sessionFile, served, token, verified)
        }
        // The bytes are a function of the token and the file, so they are named by them.
        let etag = Response.digest((tokenText + "/" + file).utf8)
        let rendered = try self.render(Self.metricKind(sessionFile)) {
            let session = self.session(served, token, tokenText: tokenText, verified: verified)
            // Server-side reporting: the ads' event segments by their beacon links (scope viewer
            // only), in a stitched session's playlists or an interstitial session's ad playlists.
            let beacons = scope == .viewer && reporting == .server ? self.beaconLinks(served.campaign, token: tokenText) : nil
            if case .adPlaylist(let piece, let variant) = sessionFile {
                guard beacons != nil, let (ad, _) = session.renderer.trackedAd(session.plan, piece: piece),
                    variant.map(ad.asset.variants.indices.contains) ?? true
                else {
                    throw Problem.notFound(
                        "no \(file) in this session: an interstitial session has a playlist of its own for an ad whose events AdStitch fires, as its asset lists name"
                    )
                }
            }
            return try session.kind.render(sessionFile, session.plan, links: SessionLinks(beacons: beacons))
        }
        let cache = sessionFile.isFiller ? "public, max-age=86400" : "public, max-age=86400, immutable"
        self.store.metrics.responseCache(hit: false)
        let (headers, body) = Response.stitchedParts(
            rendered,
            served.body,
            contentType: sessionFile.contentType,
            cache: cache,
            gzip: asked.gzip,
            etag: etag
        )
        self.cache.put(key, headers: headers, body: body, expires: token.expires)
        return .complete(headers, body)
    }

    /// A session's token as its files' requests check it: its signature (unless it is kept, by
    /// its text, from an earlier check), its campaign, its scope and its expiry; with the session
    /// kept for it, if any.
    func checkedToken(
        _ tokenText: String,
        campaign id: String,
        scope: SessionToken.Scope,
        now: Int64
    ) throws(Problem) -> (SessionToken, VerifiedSession?) {
        // Only tokens whose signature was checked are kept, by their text: a hit needs no second check.
        let verified = self.sessions.get(tokenText)
        guard let token = verified?.token ?? SessionToken(decoding: tokenText, keys: self.policy.verifyingKeys), token.campaign == id else {
            throw Problem.forbidden("the session token is not valid for this campaign: start a new session at \(Routes.masterPath(id))")
        }
        guard token.scope == scope else {
            throw Problem.forbidden(
                token.scope == .preview
                    ? "this token belongs to a preview session; it plays under /preview/\(id)/sessions/, not on the public API"
                    : "this token belongs to a viewer session; it plays under /v1/campaigns/\(id)/sessions/"
            )
        }
        try Self.checkExpiry(token.expires, now: now, campaign: id)
        return (token, verified)
    }

    /// The revision the session started on, so a reloaded campaign does not change its ads; nil
    /// for a catalogue title this replica must load first (``restoreTitle(_:)``), 410 when the
    /// revision is no longer kept.
    func keptRevision(_ token: SessionToken) throws(Problem) -> ServedCampaign? {
        if let served = self.store.campaign(token.campaign, revision: token.revision) { return served }
        if token.title != nil, self.store.catalogue(token.campaign) != nil { return nil }
        throw Self.gone(token)
    }

    /// The answer for a session whose revision this server no longer keeps.
    static func gone(_ token: SessionToken) -> Problem {
        Problem(
            status: .gone,
            title: "Gone",
            detail:
                "revision \(token.revision) of campaign \(token.campaign) is no longer kept on this server; start a new session at \(Routes.masterPath(token.campaign))"
        )
    }

    /// A session's token checked (``checkedToken(_:campaign:scope:now:)``) and its plan on the
    /// load of its revision (a catalogue title loaded, an ad server's recorded decisions read, if
    /// they must be): what a player's report of the session is joined to.
    func checkedPlan(_ tokenText: String, campaign id: String, scope: SessionToken.Scope) async throws(Problem) -> (SessionToken, Plan) {
        let (token, _) = try self.checkedToken(tokenText, campaign: id, scope: scope, now: self.policy.nowSeconds)
        guard let served = await self.served(token) else { throw Self.gone(token) }
        guard let plan = await self.renderedPlan(served, token, tokenText: tokenText) else {
            throw Problem(status: .serviceUnavailable, title: "Busy", detail: "the session's ad decisions could not be read; try again")
        }
        return (token, plan)
    }

    /// The `kind` label of `adstitch_stitch_duration_seconds` for a file.
    static func metricKind(_ file: SessionFile) -> String {
        switch file {
        case .multivariant: "multivariant"
        case .playlist: "media"
        case .boundaries: "boundaries"
        case .tracking: "tracking"
        case .emptySubtitles, .emptyIMSC: "subtitles"
        case .assetList: "asset-list"
        case .adPlaylist: "ad-playlist"
        }
    }

    /// An interstitial session's asset list of a break (RFC 8216bis Appendix D.3). Its URIs of
    /// local media are absolute on the host the request named (hls.js 1.6 resolves a relative
    /// asset URI against the page, not the list), so it is not kept in the response cache, whose
    /// keys do not hold the host; a player fetches it once per break.
    private func assetList(
        _ file: SessionFile,
        _ served: ServedCampaign,
        _ token: SessionToken,
        tokenText: String,
        verified: VerifiedSession?,
        for request: Request
    ) throws -> (HTTPFields, AnswerBody) {
        guard case .assetList = file else { throw Problem.notFound("not an asset list") }
        // The public base (serve --public-url), else the request's own host: then the list is
        // the requester's alone, never kept by a shared cache (PublicAddress).
        let address = self.publicAddress.base(for: request)
        // Server-side reporting: an ad whose events AdStitch fires plays from the session's own
        // copy of its playlists, whose event segments are beacon links.
        let reporting = token.reporting ?? served.campaign.reporting
        let adPlaylistURI: ((Int) -> String)? =
            token.scope == .viewer && reporting == .server && self.beaconLinks(served.campaign, token: tokenText) != nil
            ? { piece in
                (address?.base ?? "")
                    + Routes.sessionFilePath(token.campaign, token: tokenText, file: SessionFile.adPlaylist(piece: piece, variant: nil).name)
            } : nil
        let text = try self.render(Self.metricKind(file)) {
            let session = verified.flatMap { $0.load == served.load ? $0 : nil } ?? VerifiedSession(served, token: token)
            return try session.kind.render(file, session.plan, links: SessionLinks(base: address?.base, adPlaylistURI: adPlaylistURI)).text
        }
        let (headers, body) = Response.taggedParts(
            text,
            contentType: file.contentType,
            cache: address?.shared == true ? "public, max-age=86400, immutable" : "private, max-age=86400, immutable",
            for: request,
            etag: nil
        )
        return (headers, AnswerBody(body))
    }

    /// A token past its expiry gets 410 Gone: the session is over, a new one starts at the master.
    static func checkExpiry(_ expires: Int64, now: Int64, campaign id: String) throws(Problem) {
        guard now < expires else {
            throw Problem(
                status: .gone,
                title: "Session expired",
                detail: "this session expired at \(expires) (unix seconds); start a new session at \(Routes.masterPath(id))"
            )
        }
    }

    /// Runs a plan and render, timed under `kind`; a stitch error is a 500 that says why, but a
    /// file the session does not have (``StitchError/Reason/notInSession``) is a 404, and one made
    /// from a live channel not read yet (``StitchError/Reason/notReady``) a 503.
    func render<Output>(_ kind: String, _ body: () throws -> Output) throws(Problem) -> Output {
        do {
            return try self.store.metrics.stitch(kind, body)
        } catch let error as StitchError where error.reason == .notInSession {
            throw Problem.notFound(error.message)
        } catch let error as StitchError where error.reason == .notReady {
            throw Problem(status: .serviceUnavailable, title: "Channel not ready", detail: error.message)
        } catch let error as StitchError {
            throw Problem(status: .internalServerError, title: "Cannot stitch", detail: error.message)
        } catch let problem as Problem {
            throw problem
        } catch {
            throw Problem(status: .internalServerError, title: "Cannot stitch", detail: "\(error)")
        }
    }

    /// The session on this load: the one kept for the token, else planned now and kept (a
    /// decided session is restored before it gets here).
    func session(_ served: ServedCampaign, _ token: SessionToken, tokenText: String, verified: VerifiedSession?) -> VerifiedSession {
        if let verified, verified.load == served.load { return verified }
        let session = VerifiedSession(served, token: token)
        self.sessions.put(tokenText, session)
        return session
    }

    static func plan(_ served: ServedCampaign, _ token: SessionToken) -> Plan {
        let context = token.context
        return Planner().plan(served.campaign, for: context)
    }

    static func playlist(_ text: String, cache: String, for request: Request) -> Response {
        .tagged(text, contentType: "application/vnd.apple.mpegurl", cache: cache, for: request)
    }

}

extension HTTPField.Name {
    static let xForwardedFor = Self("X-Forwarded-For")!
    /// The trusted attributes a session start without a start key ignored (`seen`).
    static let ignoredAttributes = Self("AdStitch-Ignored-Attributes")!
}
