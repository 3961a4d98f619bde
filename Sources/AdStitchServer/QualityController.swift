import AdCampaign
import AdCampaignStore
import AdDecision
import AdMetrics
import AdOrigin
import AdQuality
import AdSessions
import Foundation
import HLSPlaylist
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// Viewing quality (docs/quality.md, docs/http-api.md "Viewing quality"): players' reports of a
/// session taken in (`POST …/sessions/{token}/qoe`), one session's figures on its timeline
/// (`GET …/sessions/{token}/qoe`) and a campaign's KPIs (`GET …/qoe`). A report is refused for a
/// token its session's files would refuse (403, 410), bounded where it enters (body, entries,
/// reports per session and minute) and never touches a playlist: playlists do not read the store.
struct QualityController: Sendable {
    let sessions: SessionController
    let store: any QualityStore
    /// The server's own view of sessions, flushed before a read so it holds what this replica answered.
    let views: ServerViews

    /// Reports one session may send a minute (per replica): one every two seconds.
    static let reportsPerMinute = 30
    /// How long a report may wait on the store before it is answered 503.
    static let storeTimeout: Duration = .seconds(2)

    /// Reports per session in the current minute, by session key: bounded to the 100,000 sessions
    /// reported most recently.
    let recent = LRUCache<String, ReportWindow>(budget: 100_000) { _, _ in 1 }

    struct ReportWindow: Sendable {
        var minute: Int64
        var count: Int
    }

    func register(on router: Router<AdStitchRequestContext>) {
        router.get(Routes.sessionQuality) { request, context in try await self.session(request, context) }
        router.head(Routes.sessionQuality) { request, context in try await self.session(request, context) }
        router.post(Routes.sessionQuality) { request, context in try await self.report(request, context) }
        for method in [HTTPRequest.Method.put, .delete, .patch, .trace] {
            router.on(Routes.sessionQuality, method: method) { _, _ -> Response in
                var response = Problem(
                    status: .methodNotAllowed,
                    title: "Method not allowed",
                    detail: "a session's quality reports are posted (POST) and read (GET)"
                ).response
                response.headers[.allow] = "GET, HEAD, POST, OPTIONS"
                return response
            }
        }
        router.getAndHead(Routes.campaignQuality) { request, context in try await self.campaign(request, context) }
    }

    private var metrics: ServerMetrics { self.sessions.store.metrics }
    private var now: Int64 { self.sessions.policy.nowMilliseconds }

    /// `POST /v1/campaigns/{id}/sessions/{token}/qoe`: `202` with what was kept.
    func report(_ request: Request, _ context: AdStitchRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        let tokenText = try context.parameters.require("token")
        let received = self.now
        let outcome = self.metrics
        let token: SessionToken
        let plan: Plan
        do {
            (token, plan) = try await self.sessions.checkedPlan(tokenText, campaign: id, scope: .viewer)
        } catch {
            outcome.qualityReport(outcome: "refused")
            throw error
        }
        let key = id + "\u{1f}" + token.session
        guard self.admit(key, now: received) else {
            outcome.qualityReport(outcome: "limited")
            var problem = Problem(
                status: .tooManyRequests,
                title: "Too many reports",
                detail: "a session sends at most \(Self.reportsPerMinute) reports a minute; send its events together, every few seconds"
            ).response
            problem.headers[.retryAfter] = "60"
            return problem
        }
        let report: QualityReport
        do {
            let (cmcd, body) = try await self.body(request)
            report = try cmcd ? QualityReport(cmcd: body, received: received) : QualityReport(json: body, received: received)
        } catch let problem as QualityReport.Problem {
            outcome.qualityReport(outcome: "invalid")
            throw Problem.badRequest("the report's \(problem.description)")
        } catch {
            outcome.qualityReport(outcome: "invalid")
            throw error
        }
        let session = QualitySession(campaign: id, session: token.session, first: received, plan: plan, insertion: token.insertion.rawValue)
        let retention = Int64(plan.campaign.quality.retention) * 1000
        let kept: Int
        do {
            let store = self.store
            let events = report.events
            let replacing: QualityReplacement? = report.replacesAccessLog ? .accessLog : nil
            kept = try await Deadline.run(within: Self.storeTimeout) {
                try await store.record(session, events: events, replacing: replacing, forgetBefore: received - retention)
            }
        } catch {
            outcome.qualityReport(outcome: "unavailable")
            self.sessions.store.logger.warning("cannot keep a viewing-quality report", metadata: ["campaign": "\(id)", "error": "\(error)"])
            throw Problem(
                status: .serviceUnavailable,
                title: "Reports unavailable",
                detail: "the report store did not answer; send the report again later"
            )
        }
        outcome.qualityReport(outcome: "accepted")
        for event in report.events.prefix(kept) { self.count(event, in: session, placed: !plan.pieces.isEmpty) }
        let answer = Acknowledgement(kept: kept, dropped: report.events.count - kept, ignored: report.ignored)
        var response = try Self.json(answer, cache: "no-store")
        response.status = .accepted
        return response
    }

    /// What a report's answer says: events kept, dropped past the session's bound, entries ignored.
    struct Acknowledgement: Encodable {
        var kept: Int
        var dropped: Int
        var ignored: Int
    }

    /// `GET /v1/campaigns/{id}/sessions/{token}/qoe`: the session's figures and its events on its
    /// timeline; to whoever holds the session's token.
    func session(_ request: Request, _ context: AdStitchRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        let tokenText = try context.parameters.require("token")
        let (token, _) = try self.sessions.checkedToken(tokenText, campaign: id, scope: .viewer, now: self.sessions.policy.nowSeconds)
        await self.views.flush()
        let found: (QualitySession, [QualityEvent])?
        do {
            let store = self.store
            found = try await Deadline.run(within: Self.storeTimeout) { try await store.session(campaign: id, session: token.session) }
        } catch {
            throw Problem(status: .serviceUnavailable, title: "Reports unavailable", detail: "the report store did not answer; try again")
        }
        guard let (session, events) = found else {
            throw Problem.notFound(
                "nothing of this session yet: no player report, and no request of it answered (docs/http-api.md \"Viewing quality\")"
            )
        }
        return try Self.json(SessionQuality(session: session, events: events, now: self.now), cache: "no-store")
    }

    /// `GET /v1/campaigns/{id}/qoe?since=…&by=…`: the campaign's KPIs over its sessions first
    /// reported since `since` (ISO 8601, or a span back from now: `24h`, `7d`; default `24h`).
    func campaign(_ request: Request, _ context: AdStitchRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        guard self.sessions.store.campaign(id) != nil || self.sessions.store.catalogue(id) != nil else {
            throw Problem.notFound("no campaign \(id); see GET \(Routes.campaigns.description)")
        }
        let now = self.now
        let since = try Self.since(request, now: now)
        var by: QualityKPIs.Dimension?
        if let text = request.uri.queryParameters["by"].map(String.init) {
            guard let dimension = QualityKPIs.Dimension(rawValue: text) else {
                throw Problem.badRequest(
                    "by=\(text) is not a dimension; use \(QualityKPIs.Dimension.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            by = dimension
        }
        await self.views.flush()
        let found = try await Self.sessions(self.store, campaign: id, since: since, now: now)
        let kpis = QualityKPIs(found, by: by)
        return try Self.json(
            CampaignQuality(
                campaign: id,
                since: DateTime.iso8601(millisecondsSinceEpoch: since),
                until: DateTime.iso8601(millisecondsSinceEpoch: now),
                truncated: found.count >= MemoryQualityStore.maxSessionsPerQuery,
                kpis: kpis
            ),
            cache: "no-store"
        )
    }

    /// The start (ms) of the window `?since=` asks for: ISO 8601 with its zone, or a span back from
    /// `now` (`24h`, `7d`); default a day. The one reading of it, for the KPIs and the preview's page.
    static func since(_ request: Request, now: Int64) throws(Problem) -> Int64 {
        guard let text = request.uri.queryParameters["since"].map(String.init) else { return now - 86_400_000 }
        if let seconds = FrequencyCap.seconds(text) { return now - Int64(seconds) * 1000 }
        if let date = DateTime(text), date.hasTimeZone { return date.secondsSinceEpoch.roundedMilliseconds }
        throw Problem.badRequest("since=\(text) is neither an ISO 8601 date (2026-12-07T10:00:00Z) nor a span back from now (24h, 7d)")
    }

    /// A campaign's sessions first reported since `since`, with their figures; 503 when the store
    /// does not answer within 10 s.
    static func sessions(_ store: any QualityStore, campaign id: String, since: Int64, now: Int64) async throws -> [SessionQuality] {
        do {
            let found = try await Deadline.run(within: .seconds(10)) { try await store.sessions(campaign: id, since: since) }
            return found.map { SessionQuality(session: $0.0, events: $0.1, now: now) }
        } catch {
            throw Problem(status: .serviceUnavailable, title: "Reports unavailable", detail: "the report store did not answer; try again")
        }
    }

    /// The KPI document: the window, then the KPIs' own members.
    struct CampaignQuality: Encodable {
        var campaign: String
        var since: String
        var until: String
        /// The window held more sessions than one answer reads: the latest were read.
        var truncated: Bool
        var kpis: QualityKPIs

        enum CodingKeys: String, CodingKey { case campaign, since, until, truncated }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(self.campaign, forKey: .campaign)
            try container.encode(self.since, forKey: .since)
            try container.encode(self.until, forKey: .until)
            try container.encode(self.truncated, forKey: .truncated)
            try self.kpis.encode(to: encoder)
        }
    }

    /// One more report of session `key` this minute, if it is within the bound.
    private func admit(_ key: String, now: Int64) -> Bool {
        let minute = now / 60_000
        return self.recent.update(key, initial: ReportWindow(minute: minute, count: 0)) { window in
            if window.minute != minute { window = ReportWindow(minute: minute, count: 0) }
            guard window.count < Self.reportsPerMinute else { return false }
            window.count += 1
            return true
        }
    }

    /// The body, at most ``QualityReport/maxBytes``, and whether it is CMCD's event mode
    /// (`application/cmcd`, CTA-5004-B) rather than JSON (`application/json`, `+json`, or
    /// `text/plain` as `navigator.sendBeacon` sends it); 415 for anything else.
    private func body(_ request: Request) async throws -> (cmcd: Bool, bytes: [UInt8]) {
        let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        let cmcd = type == "application/cmcd"
        guard cmcd || type == "application/json" || type.hasSuffix("+json") || type == "text/plain" else {
            throw Problem(
                status: .unsupportedMediaType,
                title: "Unsupported media type",
                detail:
                    "a report is JSON (Content-Type: application/json): {\"events\": […]}, {\"accessLog\": […]}, {\"errorLog\": […]}; or CMCD event mode (application/cmcd)"
            )
        }
        do {
            let buffer = try await request.body.collect(upTo: QualityReport.maxBytes)
            return (cmcd, Array(buffer.readableBytesView))
        } catch {
            throw Problem(
                status: .contentTooLarge,
                title: "Report too large",
                detail: "a report is at most \(QualityReport.maxBytes) bytes; send more often, with fewer entries"
            )
        }
    }

    /// The metrics of a kept event (players' own events; an access log is sent again whole, so
    /// its counts are not added). `placed`: the session's plan has a timeline (a live session's
    /// has none: its breaks are filled per refresh).
    private func count(_ event: QualityEvent, in session: QualitySession, placed: Bool) {
        switch event.kind {
        case .startup:
            if let ms = event.ms { self.metrics.qualityStartup(.milliseconds(ms)) }
        case .stall:
            let place = event.at.flatMap { at in placed ? (session.spans.contains { $0.start <= at && at < $0.end } ? "break" : "programme") : nil }
            self.metrics.qualityStall(place: place ?? "unplaced", duration: .milliseconds(event.ms ?? 0))
        case .error:
            self.metrics.qualityError(fatal: event.fatal == true)
        case .level, .ended, .access, .server:
            break
        }
    }

    static func json(_ value: some Encodable, cache: String) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let text = String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
        return .tagged(text, contentType: "application/json", cache: cache)
    }
}
