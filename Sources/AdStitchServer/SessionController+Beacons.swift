import AdCampaign
import AdCampaignStore
import AdDecision
import AdMetrics
import AdServerClient
import AdSessions
import AdStitching
import Crypto
import Foundation
import HLSPlaylist
import HTTPTypes
import Hummingbird

/// Server-side ad measurement (docs/campaign-format.md "Measurement", docs/http-api.md
/// "Beacons"): a stitched or live session's media playlists list the segments where its ads'
/// events fall by links on the beacon route, `…/sessions/{token}/beacons/{piece}/{events}/{signature}?to=URI`
/// (a live session's with `&break=ID`: the piece is of that break's fill).
/// A fetch answers `302` to the segment at once, and fires the events' URLs in the background —
/// each event once per session however often, and on whichever replica, the segment is fetched
/// (``BeaconLedger``). The signature (HMAC-SHA256 of the token, place, events and target under
/// the token secret, 96 bits) makes the route redirect only where AdStitch's own playlists point.
extension SessionController {
    /// Whether this server fires ads' events for sessions that report server-side (`serve` does;
    /// an application built without a firer and a ledger does not, and its playlists keep the
    /// segments' own URIs).
    var firesBeacons: Bool { self.beacons != nil && self.ledger != nil && self.claims != nil }

    /// The links of a session's playlists, or nil when this server fires no beacons (the caller
    /// asks only for sessions that report server-side).
    func beaconLinks(_ campaign: Campaign, token tokenText: String) -> BeaconLinks? {
        guard self.firesBeacons else { return nil }
        let policy = self.policy
        return BeaconLinks { place, events, target in
            let key = policy.signingKey
            let signature = SessionToken.base64URL(
                Data(HMAC<SHA256>.authenticationCode(for: Self.beaconBody(tokenText, place, events.rawValue, target), using: key).prefix(12))
            )
            let encoded = target.addingPercentEncoding(withAllowedCharacters: VASTMacros.unreserved) ?? target
            let link = "beacons/\(place.piece)/\(events.rawValue)/\(signature)?to=\(encoded)"
            guard let breakID = place.breakID else { return link }
            return link + "&break=" + (breakID.addingPercentEncoding(withAllowedCharacters: VASTMacros.unreserved) ?? breakID)
        }
    }

    /// The plan the session's playlists were rendered from: the one kept for the token on this
    /// load, else its recorded ad server decisions read back, else planned now; nil when the
    /// decisions cannot be read.
    func renderedPlan(_ served: ServedCampaign, _ token: SessionToken, tokenText: String) async -> Plan? {
        if let known = self.sessions.get(tokenText), known.load == served.load { return known.plan }
        if token.decided { return try? await self.restore(served, token).plan }
        return Self.plan(served, token)
    }

    /// What a beacon link's signature covers (a live link's break too).
    static func beaconBody(_ token: String, _ place: BeaconPlace, _ events: Int, _ target: String) -> [UInt8] {
        let body = "beacon\u{0}\(token)\u{0}\(place.piece)\u{0}\(events)\u{0}\(target)"
        return Array((place.breakID.map { body + "\u{0}break\u{0}" + $0 } ?? body).utf8)
    }

    /// `GET …/sessions/{token}/beacons/{piece}/{events}/{signature}?to=URI`: `302` to the segment,
    /// the events fired after (never before the answer, never failing it); `403` for a link
    /// AdStitch did not write.
    func beacon(_ request: Request, _ context: AdStitchRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        let tokenText = try context.parameters.require("token")
        guard let piece = Int(try context.parameters.require("piece")), (0..<100_000).contains(piece),
            let raw = Int(try context.parameters.require("events")), (1..<64).contains(raw),
            let signature = SessionToken.bytes(base64URL: try context.parameters.require("signature").utf8), signature.count == 12,
            let target = request.uri.queryParameters["to"].map(String.init), !target.isEmpty,
            case let place = request.uri.queryParameters["break"].map({ BeaconPlace.live(String($0), piece) }) ?? .plan(piece),
            self.policy.verifyingKeys.verify(signature, of: Self.beaconBody(tokenText, place, raw, target))
        else {
            throw Problem.forbidden("this beacon link is not one AdStitch wrote for this session; play the session's own playlists")
        }
        // A HEAD is a probe, not playback: it fires nothing. A link's repeats while its claim is
        // under way join it; past the limit of claims under way, it is shed (``BeaconClaims``).
        if request.method == .get {
            self.observer.note(
                campaign: id,
                token: tokenText,
                .beacon(piece: piece, events: raw, breakID: place.breakID),
                at: self.policy.nowMilliseconds,
                clues: SessionObserver.Clues(request.head)
            )
        }
        if request.method == .get, let claims = self.claims {
            let headers = self.deviceHeaders(request.headers, peer: context.remoteAddress)
            claims.submit(BeaconClaims.Key(session: tokenText, place: place, events: raw)) {
                await self.fire(campaign: id, token: tokenText, place: place, events: BeaconEvents(rawValue: raw), target: target, headers: headers)
            }
        }
        var fields = HTTPFields()
        fields[.location] = target
        fields[.cacheControl] = "no-store"
        return Response(status: .found, headers: fields)
    }

    /// Fires what `events` of the ad at `place` have not fired yet: the ad as the session's
    /// playlists listed it (its plan's piece, or the piece of a live break's fill as this replica
    /// fills it now), its URLs for each event with VAST 4.3 §6.1 macros filled, the viewer's
    /// `X-Device-*` headers.
    func fire(
        campaign id: String,
        token tokenText: String,
        place: BeaconPlace,
        events: BeaconEvents,
        target: String,
        headers: [(name: String, value: String)]
    )
        async
    {
        guard let firer = self.beacons, let ledger = self.ledger, let claims = self.claims else { return }
        guard let token = self.sessions.get(tokenText)?.token ?? SessionToken(decoding: tokenText, keys: self.policy.verifyingKeys),
            token.campaign == id, let served = await self.served(token)
        else { return }
        guard let placed = await self.beaconAd(served, token, tokenText: tokenText, place: place, headers: headers) else { return }
        let ad = placed.ad
        let tracked = events.names.filter { !(ad.tracking[$0] ?? []).isEmpty }
        guard let claimed = await claims.claim(ledger, session: token.decisionKey, place: place, ad: ad.id, events: tracked) else { return }
        for name in tracked where !claimed.contains(name) { self.store.metrics.beacon(name, outcome: "deduped") }
        // A segment's events in play order: the impression's URLs answered before the start's go.
        firer.fire(
            claimed.map { event in
                let values = VASTMacros.values(placed.macros(event: event, target: target))
                return (event, (ad.tracking[event] ?? []).map { VASTMacros.fill($0, values) })
            },
            headers: headers,
            addresses: served.adServerAddresses
        )
        // The ad played: its first claimed event counts it towards the viewer's frequency caps,
        // in a stitched, interstitial or live session alike (a live ad under its break).
        if !claimed.isEmpty, token.scope == .viewer, let viewer = token.attributes["viewer"], !served.campaign.frequencyCaps.isEmpty {
            let at = self.policy.nowMilliseconds
            await self.capper.record(campaign: served.campaign, session: token.session, place: place, ad: ad.id, viewer: viewer, at: at)
        }
    }

    /// An ad where a session plays it, as its events' macros need it.
    struct PlacedAd {
        let ad: Ad
        /// VAST 4.3 `[BREAKPOSITION]`: 1 pre-roll, 2 mid-roll, 3 post-roll.
        let breakPosition: String
        /// The programme time the ad plays at (the programme before it, ads left out); nil in a
        /// live session, whose programme has no start the viewer shares.
        let contentPlayhead: ExactDecimal?

        /// The macros AdStitch knows when it fires `event` (VAST 4.3 §6.1), beside `[TIMESTAMP]`
        /// and `[CACHEBUSTING]`: the segment (`[ASSETURI]`), the ad's identity, the break's
        /// position, the ad's playhead at the event (0 at its impression and start, its quartiles,
        /// its duration at complete) and the programme's (as `[CONTENTPLAYHEAD]` and, its VAST
        /// 4.1 name, `[MEDIAPLAYHEAD]`).
        func macros(event: String, target: String) -> [String: String] {
            let quarters =
                switch event {
                case "firstQuartile": 1
                case "midpoint": 2
                case "thirdQuartile": 3
                case "complete": 4
                default: 0
                }
            let duration = self.ad.asset.duration.roundedMilliseconds
            var values = [
                "ASSETURI": target, "UNIVERSALADID": self.ad.id, "BREAKPOSITION": self.breakPosition,
                "ADPLAYHEAD": VASTMacros.time(milliseconds: duration * Int64(quarters) / 4),
            ]
            if let contentPlayhead {
                let playhead = VASTMacros.time(milliseconds: contentPlayhead.roundedMilliseconds)
                values["CONTENTPLAYHEAD"] = playhead
                values["MEDIAPLAYHEAD"] = playhead
            }
            return values
        }
    }

    /// The ad at `place` of a session: its plan's piece, or a live break's fill's; nil when the
    /// place holds no ad (or the live break has left this replica's channel).
    private func beaconAd(
        _ served: ServedCampaign,
        _ token: SessionToken,
        tokenText: String,
        place: BeaconPlace,
        headers: [(name: String, value: String)]
    ) async -> PlacedAd? {
        guard let plan = await self.renderedPlan(served, token, tokenText: tokenText) else { return nil }
        guard let breakID = place.breakID else {
            guard plan.pieces.indices.contains(place.piece), case .ad(let ad, let breakID) = plan.pieces[place.piece].kind else { return nil }
            let position = plan.breaks.first { $0.adBreak.id == breakID }.map { AdServerDecisions.position($0.adBreak, in: plan.campaign) }
            let programme = plan.pieces[..<place.piece].compactMap { piece -> ExactDecimal? in
                if case .island = piece.kind { piece.duration } else { nil }
            }
            return PlacedAd(ad: ad, breakPosition: Self.breakPositions[position ?? "mid"] ?? "2", contentPlayhead: programme.sum())
        }
        guard let joined = token.liveJoin,
            let kind = (try? await self.liveKind(served, token, joined: joined, deviceHeaders: headers)) as? LiveSessionKind,
            let fill = try? kind.schedule(plan).fills[breakID], fill.pieces.indices.contains(place.piece),
            let ad = fill.pieces[place.piece].ad
        else { return nil }
        return PlacedAd(ad: ad, breakPosition: "2", contentPlayhead: nil)
    }

    /// VAST 4.3 `[BREAKPOSITION]` of a break by where ad requests place it (``AdServerDecisions/position(_:in:)``).
    static let breakPositions = ["pre": "1", "mid": "2", "post": "3"]
}

extension SessionController {
    /// `GET /v1/sessions/{token}/events`: the ad events fired for a session, in the order they were
    /// claimed, each with its break and ad when the session's revision is still kept (support,
    /// and the tests' view of the ledger).
    func events(_ request: Request, _ context: AdStitchRequestContext) async throws -> Response {
        let tokenText = try context.parameters.require("token")
        guard let token = SessionToken(decoding: tokenText, keys: self.policy.verifyingKeys) else {
            throw Problem.forbidden("the session token is not valid: events are listed for a token a session start gave")
        }
        // An expired token lists nothing, as it plays nothing (410).
        try Self.checkExpiry(token.expires, now: self.policy.nowSeconds, campaign: token.campaign)
        guard let ledger = self.ledger else { throw Problem.notFound("this server fires no ad events") }
        let entries: [BeaconLedgerEntry]
        do {
            entries = try await ledger.events(session: token.decisionKey)
        } catch {
            throw Problem(status: .serviceUnavailable, title: "Ledger unavailable", detail: "the beacon ledger did not answer; try again")
        }
        var plan: Plan?
        if let served = await self.served(token) {
            plan = await self.renderedPlan(served, token, tokenText: tokenText)
        }
        let events: [JSONValue] = entries.map { entry in
            let piece = entry.place.piece
            var members: [(String, JSONValue)] = [("piece", .integer(piece))]
            if let breakID = entry.place.breakID {
                members.append(("break", .string(breakID)))
                members.append(("ad", .string(entry.ad)))
            } else if let plan, plan.pieces.indices.contains(piece), case .ad(let ad, _) = plan.pieces[piece].kind {
                members.append(("break", .string(plan.pieces[piece].breakID ?? "")))
                members.append(("ad", .string(ad.id)))
            }
            members.append(("event", .string(entry.event)))
            members.append(("at", .string(DateTime.iso8601(millisecondsSinceEpoch: entry.at))))
            return .object(members)
        }
        let json = JSONValue.object([
            ("campaign", .string(token.campaign)), ("session", .string(token.session)), ("events", .array(events)),
        ])
        return .tagged(json.text() + "\n", contentType: "application/json", cache: "no-store", for: request)
    }
}
