import AdCampaign
import AdCampaignStore
import AdDecision
import AdLiveRuntime
import AdMedia
import AdPreview
import AdQuality
import AdServerClient
import AdSessions
import AdStitching
import Foundation
import HLSPlaylist
import Hummingbird

/// The campaign preview tool (docs/preview.md): what a given viewer at a given time gets, and
/// why, with a player that plays exactly that plan.
///
/// - `GET /preview`: the campaigns and their load status;
/// - `GET /preview/{id}?session=…&at=…&locale=…`: the form, the timeline, the reasons, startup
///   and variant order, the boundary manifest and the player;
/// - `GET /preview/{id}` of a catalogue: the titles started recently and a form for any path;
///   `title=PATH` on this and the routes below previews that title, loaded as a session start
///   loads it;
/// - `GET /preview/{id}/compare?count=N&…`: N sessions of the same context side by side;
/// - `GET /preview/{id}/report.json?…`: the plan report (what `adstitch preview --format json` prints);
/// - `GET /preview/{id}/media` and `media.json`: what `adstitch validate --media` finds in the
///   campaign's segments (ffprobe), made once per revision;
/// - `GET /preview/{id}/master.m3u8?…`: a session's master that honours `at` (the public
///   endpoint decides with the server's clock); its media playlists are the public
///   token-scoped ones;
/// - `GET /preview/assets/preview.css|preview.js`, and `hls.js` with `serve --hls-js`.
struct PreviewController: Sendable {

    let store: CampaignStore
    let sessions: SessionController
    /// The hls.js build the players use (``SessionPolicy/previewPlayer``), read once; nil without one.
    let player: String?
    let media = PreviewMediaReports()

    /// Players' viewing-quality reports, for the Quality page.
    let quality: any QualityStore
    /// The server's own view of sessions, flushed before the Quality page reads.
    let views: ServerViews

    init(store: CampaignStore, sessions: SessionController, player: String?, views: ServerViews) {
        self.store = store
        self.sessions = sessions
        self.player = player
        self.quality = views.store
        self.views = views
    }

    func register(on router: Router<AdStitchRequestContext>) {
        let access = self.sessions.policy.preview
        // Every route checks the preview's access first (``PreviewAccess``): pages, assets,
        // masters and session files alike, so a preview session is no ad-free stream.
        func route(_ path: RouterPath, _ handler: @escaping @Sendable (Request, AdStitchRequestContext) async throws -> Response) {
            router.getAndHead(path) { request, context in
                try access.check(request)
                return try await handler(request, context)
            }
        }
        router.getAndHead(Routes.preview) { request, _ in
            if let login = access.login(request) { return login }
            try access.check(request)
            return Self.html(PreviewPage.list(self.store.statuses, served: self.store.campaign))
        }
        // Static: tagged once, not per request.
        let stylesheet = Response.tagged(PreviewAssets.stylesheet, contentType: "text/css; charset=utf-8", cache: "public, max-age=300")
        let script = Response.tagged(PreviewAssets.script, contentType: "text/javascript; charset=utf-8", cache: "public, max-age=300")
        route(Routes.previewStylesheet) { _, _ in stylesheet }
        route(Routes.previewScript) { _, _ in script }
        // Registered either way, so the route answers its methods (405 for others) with or without a build.
        let hlsJS = self.player.map { Response.tagged($0, contentType: "text/javascript; charset=utf-8", cache: "public, max-age=300") }
        route(Routes.previewPlayer) { _, _ in
            guard let hlsJS else {
                throw Problem.notFound("this server has no hls.js build for the preview: start it with serve --hls-js FILE (make run does)")
            }
            return hlsJS
        }
        route(Routes.previewCreatives) { _, _ in
            let jobs: [ConditioningJob]
            do {
                jobs = try await self.sessions.conditioning?.jobs.jobs() ?? []
            } catch {
                throw Problem(
                    status: .serviceUnavailable,
                    title: "Jobs unavailable",
                    detail: "cannot read the conditioning jobs (\(error)); try again"
                )
            }
            return Self.html(PreviewPage.creatives(jobs, queue: self.sessions.conditioning?.jobs.summary ?? "no conditioning"))
        }
        route(Routes.previewCampaign) { request, context in try await self.page(request, context) }
        route(Routes.previewCompare) { request, context in try await self.compare(request, context) }
        route(Routes.previewReport) { request, context in try await self.report(request, context) }
        route(Routes.previewQuality) { request, context in try await self.qualityPage(request, context) }
        route(Routes.previewMaster) { request, context in try await self.master(request, context) }
        // Async: the first request of a revision waits for ffprobe (off the event loops).
        for (path, json) in [(Routes.previewMedia, false), (Routes.previewMediaJSON, true)] {
            router.getAndHead(path) { request, context async throws -> Response in
                try access.check(request)
                let served = try self.store.campaign(for: context, listedAt: "/preview")
                let report = await self.media.report(served.campaign)
                if json {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                    let text = String(decoding: (try? encoder.encode(report)) ?? Data(), as: UTF8.self)
                    return Response.tagged(text + "\n", contentType: "application/json", cache: "no-store", for: request)
                }
                return Self.html(PreviewPage.media(served, report: report))
            }
        }
        route(Routes.previewSessionFile) { request, context in
            try await self.sessions.sessionFile(request, context, scope: .preview)
        }
        // A live interstitial preview session's media playlists: the channel's, as on the public
        // route (their asset lists resolve to the preview's session files beside them).
        route(Routes.previewChannelPlaylist) { request, context in try self.sessions.channelPlaylist(request, context) }
    }

    /// What a preview route is about: a campaign's load, or a catalogue's title (the query's
    /// `title=`), held or loaded as a session start would load it. Nil for a catalogue without
    /// a title: its page lists titles to preview.
    func subject(_ context: AdStitchRequestContext, viewer: PreviewContext) async throws -> ServedCampaign? {
        let id = try context.parameters.require("id")
        guard let titles = self.store.catalogue(id) else {
            let served = try self.store.campaign(for: context, listedAt: "/preview")
            if let title = viewer.title {
                throw Problem.badRequest("title: \(title) names a catalogue's title, and campaign \"\(id)\" is not a catalogue; leave title out")
            }
            return served
        }
        guard let title = viewer.title else { return nil }
        return try await self.sessions.title(title, of: titles)
    }

    /// ``subject(_:viewer:)`` where a title is needed (the compare view, the report, the master).
    func requiredSubject(_ context: AdStitchRequestContext, viewer: PreviewContext) async throws -> ServedCampaign {
        guard let served = try await self.subject(context, viewer: viewer) else {
            let id = (try? context.parameters.require("id")) ?? ""
            throw Problem.badRequest(
                "campaign \"\(id)\" is a catalogue: add title=PATH, the path of a title's multivariant playlist below its prefix (/preview/\(id) lists recent ones)"
            )
        }
        return served
    }

    /// `GET /preview/{id}/quality?since=…`: the campaign's viewing quality, drawn.
    func qualityPage(_ request: Request, _ context: AdStitchRequestContext) async throws -> Response {
        let served = try self.store.campaign(for: context, listedAt: "/preview")
        let now = self.sessions.policy.nowMilliseconds
        let since = try QualityController.since(request, now: now)
        await self.views.flush()
        let sessions = try await QualityController.sessions(self.quality, campaign: served.campaign.id, since: since, now: now)
        return Self.html(
            PreviewPage.quality(
                served.campaign,
                sessions: sessions,
                since: DateTime.iso8601(millisecondsSinceEpoch: since),
                until: DateTime.iso8601(millisecondsSinceEpoch: now),
                truncated: sessions.count >= MemoryQualityStore.maxSessionsPerQuery
            )
        )
    }

    func page(_ request: Request, _ context: AdStitchRequestContext) async throws -> Response {
        let viewer = Self.context(request)
        guard let served = try await self.subject(context, viewer: viewer) else {
            let id = try context.parameters.require("id")
            guard let titles = self.store.catalogue(id) else { throw Problem.notFound("no catalogue \"\(id)\" is loaded; /preview lists them") }
            return Self.html(PreviewPage.catalogue(titles.template.campaign, recent: titles.recent, held: titles.held, context: viewer))
        }
        guard viewer.errors.isEmpty else {
            return Self.html(PreviewPage.campaign(served, context: viewer, plan: nil, hasPlayer: self.player != nil), status: .badRequest)
        }
        if let live = served.campaign.live {
            let plan = Planner().plan(served.campaign, for: viewer.viewer)
            return Self.html(
                PreviewPage.live(
                    served,
                    live: live,
                    context: viewer,
                    plan: plan,
                    now: ExactDecimal(significand: Int(self.sessions.policy.nowMilliseconds), exponent: 3),
                    hasPlayer: self.player != nil
                )
            )
        }
        let decided = await self.decided(served, viewer: viewer, request: request, context)
        return Self.html(
            PreviewPage.campaign(
                served,
                context: viewer,
                plan: decided.plan,
                hasPlayer: self.player != nil,
                adServer: decided.reports,
                renderer: decided.renderer,
                caps: decided.caps
            )
        )
    }

    /// The form's viewer planned as a session would be: under the frequency caps their
    /// impressions reached (read, never added to), with the answers of the ad decision server the
    /// viewer's rules choose (asked now), else from the pools.
    func decided(
        _ served: ServedCampaign,
        viewer: PreviewContext,
        request: Request,
        _ requestContext: AdStitchRequestContext
    ) async -> (plan: Plan, reports: [AdServerDecisions.BreakReport], renderer: SessionRenderer, caps: FrequencyCapStatus.Viewer?) {
        var context = viewer.viewer
        var caps: FrequencyCapStatus.Viewer?
        if let id = viewer.attributes["viewer"], !served.campaign.frequencyCaps.isEmpty {
            let status = await self.sessions.capper.status(served.campaign, viewer: id, at: viewer.at)
            context.capped = status.reached
            caps = FrequencyCapStatus.Viewer(id: id, status: status)
        }
        guard
            let asked = await self.sessions.ask(
                served,
                for: context,
                deviceHeaders: self.sessions.deviceHeaders(request.headers, peer: requestContext.remoteAddress)
            )
        else {
            return (Planner().plan(served.campaign, for: context), [], served.renderer, caps)
        }
        let plan = Planner().plan(served.campaign, for: context, decided: asked.decisions.decided)
        let renderer = SessionRenderer(layout: served.renderer.layout.adding(asked.creatives.values.map(\.creative)))
        return (plan, asked.decisions.reports.map { $0.settled(by: plan) }, renderer, caps)
    }

    func compare(_ request: Request, _ context: AdStitchRequestContext) async throws -> Response {
        var viewer = Self.context(request)
        let served = try await self.requiredSubject(context, viewer: viewer)
        let countText = PreviewContext.pairs(request.uri.query).last { $0.key == "count" }?.value ?? "6"
        var count = 6
        if let value = Int(countText), (1...PreviewPage.maxCompared).contains(value) {
            count = value
        } else {
            viewer.errors.append("count: \(countText) must be a whole number from 1 to \(PreviewPage.maxCompared)")
        }
        // Sessions `{session}-1` … `{session}-N`: the same viewer context, N draws.
        let plans =
            viewer.errors.isEmpty
            ? (1...count).map { Planner().plan(served.campaign, for: viewer.with(session: "\(viewer.session)-\($0)").viewer) } : []
        return Self.html(PreviewPage.compare(served, context: viewer, plans: plans, count: count), status: plans.isEmpty ? .badRequest : .ok)
    }

    func report(_ request: Request, _ context: AdStitchRequestContext) async throws -> Response {
        let viewer = try Self.validContext(request)
        let served = try await self.requiredSubject(context, viewer: viewer)
        let decided = await self.decided(served, viewer: viewer, request: request, context)
        var json = served.report(decided.plan).json
        // With an ad server: under `adServer`, each break's request and answer (as `adstitch preview --format json`).
        if case .object(let fields) = json, !decided.reports.isEmpty {
            json = .object(fields + [("adServer", .array(decided.reports.map(\.json)))])
        }
        // With frequency caps and a viewer: each cap, whether it is reached, and the impressions it counts.
        if case .object(let fields) = json, let caps = decided.caps {
            json = .object(fields + [("frequencyCaps", caps.json(served.campaign.frequencyCaps))])
        }
        return .tagged(json.text(), contentType: "application/json", cache: "no-store", for: request)
    }

    /// A new session's master for the form's context, `at` included, so the player plays the
    /// plan the page shows. Its token is a preview token: its playlists are served under
    /// `/preview/{id}/sessions/` and never on the public API, so an operator's choice of decision
    /// time cannot become a viewer's way around a flight or a time rule.
    func master(_ request: Request, _ context: AdStitchRequestContext) async throws -> Response {
        let viewer = try Self.validContext(request)
        let served = try await self.requiredSubject(context, viewer: viewer)
        // The one session start (SessionController.newToken), as a preview: the form's decision time.
        let token = try await self.sessions.newToken(
            served,
            session: viewer.session,
            at: viewer.at,
            attributes: viewer.attributes,
            scope: .preview,
            insertion: viewer.insertion,
            reporting: viewer.reporting,
            title: viewer.title,
            userAgent: request.headers[.userAgent]
        )
        return try await self.sessions.masterResponse(served, token: token, prefix: "/preview/\(served.campaign.id)/", for: request, context)
    }

    static func context(_ request: Request) -> PreviewContext {
        PreviewContext(query: PreviewContext.pairs(request.uri.query))
    }

    static func validContext(_ request: Request) throws -> PreviewContext {
        let viewer = Self.context(request)
        guard viewer.errors.isEmpty else { throw Problem.badRequest(viewer.errors.joined(separator: "; ")) }
        return viewer
    }

    /// Every HTML page's response (the preview's and `/play`'s): no caching, and a CSP that keeps
    /// scripts, forms and frames to this server.
    static func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        var response = Response.tagged(text, contentType: "text/html; charset=utf-8", cache: "no-store")
        response.status = status
        // Everything the page needs comes from this server; media may be remote.
        response.headers[.contentSecurityPolicy] =
            "default-src 'self'; media-src * blob: data:; connect-src *; worker-src 'self' blob:; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
            + "form-action 'self'; frame-ancestors 'none'"
        return response
    }
}
