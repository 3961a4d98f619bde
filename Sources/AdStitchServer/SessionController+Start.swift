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

/// Session starts (docs/http-api.md "Sessions"): the query and headers read, the token signed,
/// the plan made and the multivariant playlist answered.
extension SessionController {
    /// `GET /v1/campaigns/{id}/master.m3u8?session=…&attr=…`: plans the session now and returns
    /// its multivariant playlist, whose URIs carry the session token. With a start key the query
    /// must be signed (``SessionPolicy/checkStart(_:startKey:)``); without one, the campaign's
    /// trusted attributes (`seen`) are ignored, and the `AdStitch-Ignored-Attributes` header
    /// names those dropped.
    func master(_ request: Request, _ context: AdStitchRequestContext) async throws -> Response {
        try await self.start(self.store.campaign(for: context), title: nil, request, context)
    }

    /// Starts a session of `served` (a catalogue's title at `title`) for the viewer the request's
    /// query and headers describe.
    func start(_ served: ServedCampaign, title: String?, _ request: Request, _ context: AdStitchRequestContext) async throws -> Response {
        let query = request.uri.queryParameters.map { (name: String($0.key), value: String($0.value)) }
        guard query.count <= ViewerAttributes.maxParameters else {
            throw Problem.badRequest("a session start takes at most \(ViewerAttributes.maxParameters) query parameters")
        }
        for (name, value) in query where !ViewerAttributes.fits(name: name, value: value) {
            throw Problem.badRequest(ViewerAttributes.limitsText)
        }
        if let startKey = self.policy.startKey { try self.policy.checkStart(query, startKey: startKey) }
        var session: String?
        var asked: Insertion?
        var reporting: Campaign.Reporting?
        var attributes: [String: String] = [:]
        var ignored: [String] = []
        for (name, value) in query {
            if name == "session" {
                session = value
            } else if name == "insertion" {
                guard let mode = Insertion(rawValue: value) else {
                    throw Problem.badRequest("insertion=\(value) is not a mode; use stitched, interstitials or auto")
                }
                asked = mode
            } else if name == "reporting" {
                guard let mode = Campaign.Reporting(rawValue: value) else {
                    throw Problem.badRequest(
                        "reporting=\(value) is not a mode; use \(Campaign.Reporting.choices)"
                    )
                }
                reporting = mode
            } else if SessionPolicy.signatureParameters.contains(name) {
                continue
            } else if self.policy.startKey == nil, served.campaign.trustedAttributes.contains(name) {
                ignored.append(name)
            } else {
                attributes[name] = value
            }
        }
        // What the headers say where the query does not — never a trusted attribute: headers are
        // not signed, so a start key cannot vouch for them (and without one the query's are dropped
        // too). The language is one tag of at most ViewerAttributes.maxLanguageLength characters.
        for (name, value) in [
            ("locale", request.headers[.acceptLanguage].flatMap(ViewerAttributes.preferredLanguage)),
            ("device", request.headers[.userAgent].map(ViewerAttributes.device)),
        ] {
            guard attributes[name] == nil, let value else { continue }
            if served.campaign.trustedAttributes.contains(name) {
                ignored.append(name)
            } else {
                attributes[name] = value
            }
        }
        guard SessionToken.fits(session: session ?? "", attributes: attributes) else {
            throw Problem.badRequest(
                "the session id and attributes add up to more than \(SessionToken.maxContextBytes) bytes; send only what the campaign's rules use"
            )
        }
        if let bandwidth = attributes["bandwidth"], Int(bandwidth).map({ (1...CampaignLimits.maxBandwidth).contains($0) }) != true {
            throw Problem.badRequest(
                "bandwidth=\(bandwidth) must be the bits per second the player measured, a whole number from 1 to \(CampaignLimits.maxBandwidth)"
            )
        }
        let token = try await self.newToken(
            served,
            session: session ?? "s-" + UUID().uuidString.lowercased(),
            at: self.policy.nowMilliseconds,
            attributes: attributes,
            scope: .viewer,
            insertion: asked,
            reporting: reporting,
            title: title,
            userAgent: request.headers[.userAgent]
        )
        // A title's master is below `assets/`: its URIs climb back to the campaign's folder.
        let prefix = title.map { Routes.catalogueSessionsPrefix(title: $0) } ?? ""
        var response = try await self.masterResponse(served, token: token, prefix: prefix, for: request, context)
        if !ignored.isEmpty {
            response.headers[.ignoredAttributes] = Set(ignored).sorted().joined(separator: ", ")
        }
        return response
    }

    /// The token of a new session, for every route that starts one — the public master, a
    /// catalogue title's, the preview's (`scope: .preview`, its decision time the form's): a live
    /// session joins at the channel's live edge (stitched: `insertion=` other than that is
    /// refused), the viewer's reached frequency caps are read (and counted in
    /// `adstitch_frequency_cap_checks_total` for viewers' starts), and the insertion mode is
    /// resolved from what was asked, the campaign and the player.
    func newToken(
        _ served: ServedCampaign,
        session: String,
        at: Int64,
        attributes: [String: String],
        scope: SessionToken.Scope,
        insertion asked: Insertion?,
        reporting: Campaign.Reporting?,
        title: String?,
        userAgent: String?
    ) async throws -> SessionToken {
        var liveJoin: Int?
        if let channel = served.channel {
            guard let edge = channel.edge else {
                throw Problem(
                    status: .serviceUnavailable,
                    title: "Channel not ready",
                    detail: "this replica has not read the live channel \(channel.renditions[0].absoluteString) yet; try again in a few seconds"
                )
            }
            liveJoin = edge
        }
        // The caps the viewer reached (a viewer only a signed start or a trusting campaign gives).
        var capped: [Int] = []
        if let viewer = attributes["viewer"], !served.campaign.frequencyCaps.isEmpty {
            let status = await self.capper.status(served.campaign, viewer: viewer, at: at)
            capped = status.reached
            if scope == .viewer {
                self.store.metrics.frequencyCap(outcome: status.unavailable ? "unavailable" : capped.isEmpty ? "open" : "capped")
            }
        }
        return SessionToken(
            campaign: served.campaign.id,
            revision: served.campaign.revision,
            session: session,
            at: at,
            attributes: attributes,
            expires: self.policy.expiryOfNewToken,
            scope: scope,
            insertion: try Self.insertion(served.campaign, asked: asked, reporting: reporting, userAgent: userAgent, player: attributes["player"]),
            liveJoin: liveJoin,
            title: title,
            reporting: reporting,
            capped: capped
        )
    }

    /// The insertion mode of a new session of `campaign`: as asked, else as the campaign says,
    /// `auto` resolved for the player (``InsertionChoice``). A live channel's interstitial sessions
    /// report client-side (docs/campaign-format.md "Live interstitials"): `auto` gives a session
    /// that reports server-side stitched; `insertion=interstitials` with it is refused. And they
    /// need the player to resolve `EXT-X-DEFINE:QUERYPARAM` into the asset lists' URIs, which only
    /// hls.js 1.6+ is known to here (docs/real-clients.md "Which players resolve QUERYPARAM"):
    /// `auto` gives every other player — AVPlayer included, until tested — stitched.
    static func insertion(
        _ campaign: Campaign,
        asked: Insertion?,
        reporting: Campaign.Reporting?,
        userAgent: String?,
        player: String?
    ) throws(Problem) -> Insertion {
        let mode = asked ?? campaign.insertion
        let resolved = InsertionChoice.resolve(mode, userAgent: userAgent, player: player, campaign: campaign)
        guard campaign.live != nil, resolved == .interstitials else { return resolved }
        if mode == .auto, player.map(InsertionChoice.isHlsJs16) != true { return .stitched }
        guard (reporting ?? campaign.reporting) == .server else { return resolved }
        if asked == .interstitials {
            throw Problem.badRequest(
                "insertion=interstitials on a live channel needs reporting=client: its interstitial sessions report client-side (the player fires the ads' events from the asset lists)"
            )
        }
        return .stitched
    }

    /// The multivariant playlist of the session `token` describes; its URIs are
    /// `{prefix}sessions/{token}/…` (`prefix` empty: relative to `/v1/campaigns/{id}/`; a
    /// catalogue title's climbs there from below `assets/`). A
    /// campaign with an ad decision server asks it first (``decide(_:token:for:)``); the plan and
    /// render are timed, not the ad server (`adstitch_ad_server_duration_seconds`).
    func masterResponse(
        _ served: ServedCampaign,
        token: SessionToken,
        prefix: String,
        for request: Request,
        _ context: AdStitchRequestContext
    ) async throws -> Response {
        let decided = await self.decide(served, token: token, deviceHeaders: self.deviceHeaders(request.headers, peer: context.remoteAddress))
        var planned: Plan?
        var startedToken = ""
        let text = try self.render("multivariant") {
            let session = decided ?? VerifiedSession(served, token: token)
            planned = session.plan
            let tokenText = session.token.encoded(secret: self.policy.signingKey)
            startedToken = tokenText
            let base = prefix + "sessions/\(tokenText)/"
            // The session's other files are fetched next, under this token: planned already.
            self.sessions.put(tokenText, session)
            // A live interstitial session plays the channel's primary playlists, the token in their query.
            let playlistURI: (StitchRendition) -> String =
                session.kind is LiveInterstitialSessionKind
                ? {
                    prefix + SessionRenderer.channelFolder + SessionFile.playlist($0).name + "?" + SessionRenderer.channelTokenParameter + "="
                        + tokenText
                }
                : { base + SessionFile.playlist($0).name }
            return try session.kind.render(
                .multivariant,
                session.plan,
                links: SessionLinks(playlistURI: playlistURI, boundariesURI: base + SessionFile.boundaries.name)
            ).text
        }
        if token.scope == .viewer {
            self.observer.note(
                campaign: token.campaign,
                token: startedToken,
                .master,
                at: self.policy.nowMilliseconds,
                clues: SessionObserver.Clues(request.head)
            )
        }
        // A viewer's session counts towards their frequency caps (a preview's never does): an ad
        // whose beacons AdStitch fires when the player reaches it (server-side reporting) counts
        // then; any other ad now, at the start — nothing will say whether it played.
        if token.scope == .viewer, let viewer = token.attributes["viewer"], let plan = planned, !plan.campaign.frequencyCaps.isEmpty {
            let fired = (token.reporting ?? served.campaign.reporting) == .server && self.firesBeacons
            await self.capper.record(plan, viewer: viewer, at: token.at) { fired && !BeaconEvents(tracking: $0.tracking).isEmpty }
        }
        return Self.playlist(text, cache: "private, no-store", for: request)
    }
}
