import AdCampaign
import AdCampaignStore
import AdDecision
import AdLive
import AdMetrics
import AdOrigin
import AdServerClient
import AdSessions
import AdStitching
import Foundation
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// A session start that asks an ad decision server, and the replay of its recorded decisions on
/// any replica (docs/design-decisions.md "Ad servers").
extension SessionController {
    /// The session `token` starts on a VOD campaign with an ad decision server, planned from its
    /// answers for every break (asked at once, within the campaign's `timeout`) and recorded in
    /// ``decisions`` so every replica plans the same ads; the token says so
    /// (``SessionToken/decided``). Nil without an ad server, or when the answers could not be
    /// recorded: then the session plays its pools, the same everywhere.
    func decide(_ served: ServedCampaign, token: SessionToken, deviceHeaders headers: [(name: String, value: String)]) async -> VerifiedSession? {
        guard token.liveJoin == nil else { return nil }
        let context = token.context
        guard let asked = await self.ask(served, for: context, deviceHeaders: headers) else { return nil }
        // Once per session start: the creatives that do not play tell their ad server why.
        self.beacons?.fireErrors(asked.decisions.reports, headers: headers, addresses: served.adServerAddresses)
        let (decisions, known) = (asked.decisions, asked.creatives)
        var stored = StoredDecisions(breaks: [:])
        for (breakID, ads) in decisions.decided {
            stored.breaks[breakID] = ads.compactMap { ad in
                known[ObjectIdentifier(ad.asset)].map { StoredDecisions.Creative(ad, url: $0.url) }
            }
        }
        var decided = token
        decided.decided = true
        do {
            let standing = try await self.decisions.record(stored, session: decided.decisionKey, expires: token.expires)
            if standing != stored { return try await self.restore(served, decided, from: standing) }
        } catch {
            self.store.logger.warning(
                "cannot record a session's ad decisions; it plays the campaign's pools",
                metadata: ["campaign": "\(served.campaign.id)", "error": "\(error)"]
            )
            return nil
        }
        let plan = Planner().plan(served.campaign, for: context, decided: decisions.decided)
        let renderer = SessionRenderer(layout: served.renderer.layout.adding(known.values.map(\.creative)))
        return VerifiedSession(token: decided, plan: plan, load: served.load, renderer: renderer)
    }

    /// What the ad decision server the viewer's rules choose decides for `context`, every break
    /// (or `breaks`: a live break as it opens) asked at once on the viewer's behalf (counted in
    /// the metrics), with the creatives that play laid out and the URLs they were had from; nil
    /// when the viewer's breaks ask none.
    func ask(
        _ served: ServedCampaign,
        for context: ViewerContext,
        breaks: [AdBreak]? = nil,
        deviceHeaders: [(name: String, value: String)]
    ) async -> (decisions: AdServerDecisions, creatives: [ObjectIdentifier: (creative: StitchLayout.LaidOutCreative, url: URL)])? {
        guard let creatives = served.creatives, let settings = served.campaign.adServer(for: context) else { return nil }
        let laidOut = Mutex<[ObjectIdentifier: (creative: StitchLayout.LaidOutCreative, url: URL)]>([:])
        let started = ContinuousClock.now
        let decisions = await AdServerDecisions.decide(
            served.campaign,
            settings: settings,
            breaks: breaks,
            for: context,
            client: creatives.client,
            deviceHeaders: deviceHeaders,
            condition: self.conditioning?.condition(for: served)
        ) { url, id in
            switch await creatives.creative(url, id: id) {
            case .success(let creative):
                laidOut.withLock { $0[ObjectIdentifier(creative.asset)] = (creative, url) }
                return .success(creative.asset)
            case .failure(let failure):
                return .failure(failure)
            }
        }
        self.store.metrics.adServer(outcomes: decisions.reports.map(\.metricOutcome), duration: ContinuousClock.now - started)
        return (decisions, laidOut.withLock { $0 })
    }

    /// The session of a decided token planned again from its recorded decisions: what a replica
    /// does for a session another started (or whose plan it no longer holds).
    func restore(_ served: ServedCampaign, _ token: SessionToken, from known: StoredDecisions? = nil) async throws(Problem) -> VerifiedSession {
        guard let creatives = served.creatives else {
            throw Problem(
                status: .serviceUnavailable,
                title: "No ad server",
                detail:
                    "this replica cannot reach campaign \(served.campaign.id)'s ad server's creatives; start a new session at \(Routes.masterPath(served.campaign.id))"
            )
        }
        let stored: StoredDecisions
        if let known {
            stored = known
        } else {
            let read: StoredDecisions?
            do {
                read = try await self.decisions.decisions(session: token.decisionKey)
            } catch {
                throw Problem(
                    status: .serviceUnavailable,
                    title: "Ad decisions unavailable",
                    detail: "cannot read this session's ad decisions (\(error)); try again in a few seconds"
                )
            }
            guard let read else {
                throw Problem(
                    status: .gone,
                    title: "Ad decisions unknown",
                    detail:
                        "this replica does not know the ad decisions of this session (\(self.decisions.summary)); start a new session at \(Routes.masterPath(served.campaign.id))"
                )
            }
            stored = read
        }
        var decided: [String: [Ad]] = [:]
        var laidOut: [StitchLayout.LaidOutCreative] = []
        for adBreak in served.campaign.breaks {
            for creative in stored.breaks[adBreak.id] ?? [] {
                switch await creatives.creative(creative.url, id: creative.id) {
                case .success(let loaded):
                    laidOut.append(loaded)
                    decided[adBreak.id, default: []].append(creative.ad(loaded.asset))
                case .failure(let failure):
                    throw Problem(
                        status: .serviceUnavailable,
                        title: "Creative unavailable",
                        detail: "creative \(creative.id) of this session cannot be loaded (\(failure.reason)); try again in a few seconds"
                    )
                }
            }
        }
        let context = token.context
        let plan = Planner().plan(served.campaign, for: context, decided: decided)
        return VerifiedSession(token: token, plan: plan, load: served.load, renderer: SessionRenderer(layout: served.renderer.layout.adding(laidOut)))
    }

    /// The ads the viewer's ad decision server chose for each live break since the session
    /// joined, by break id, with their creatives laid out (docs/design-decisions.md "Ad servers"):
    /// a break is asked for at the first refresh that sees it — any replica's — and recorded under
    /// the session and the break, so every later refresh, rendition and replica plays the same.
    /// A break whose duration nobody states (no marker duration, no `marker_breaks.duration`) is
    /// not asked: its pools fill it. Throws when a recorded creative cannot be had on this replica
    /// (a refresh later tries again), rather than list other ads than another replica did.
    func liveDecisions(
        _ served: ServedCampaign,
        token: SessionToken,
        breaks: [LiveBreak],
        deviceHeaders headers: [(name: String, value: String)]
    ) async throws(Problem) -> (decided: [String: [Ad]], creatives: [StitchLayout.LaidOutCreative]) {
        guard let memo = served.liveDecisions, let live = served.campaign.live, let joined = token.liveJoin else { return ([:], []) }
        let context = token.context
        guard served.campaign.adServer(for: context) != nil else { return ([:], []) }
        var decided: [String: [Ad]] = [:]
        var creatives: [StitchLayout.LaidOutCreative] = []
        // An interstitial session's player may join a break mid-way: its asset list is the viewer's too.
        for liveBreak in breaks where (liveBreak.first >= joined || token.insertion == .interstitials) && liveBreak.kind == .marker {
            guard let duration = LiveSchedule.plannedDuration(liveBreak, live: live) else { continue }
            let adBreak = live.adBreak(id: liveBreak.id, duration: duration)
            let key = token.decisionKey + "\u{1f}" + liveBreak.id
            let found = await memo.decided(key) {
                await self.decideLiveBreak(served, adBreak, key: key, expires: token.expires, context: context, deviceHeaders: headers)
            }
            guard let found else {
                throw Problem(
                    status: .serviceUnavailable,
                    title: "Creative unavailable",
                    detail: "a creative of break \(liveBreak.id) of this session cannot be loaded on this replica yet; try again in a few seconds"
                )
            }
            decided[liveBreak.id] = found.ads
            creatives += found.creatives
        }
        return (decided, creatives)
    }

    /// One live break's decision for a session: the recorded one, else the ad server's answer,
    /// recorded now (first write wins: two replicas asking at once play the same). Nil when a
    /// recorded creative cannot be had.
    private func decideLiveBreak(
        _ served: ServedCampaign,
        _ adBreak: AdBreak,
        key: String,
        expires: Int64,
        context: ViewerContext,
        deviceHeaders: [(name: String, value: String)]
    ) async -> LiveAdDecisions.Decided? {
        if let recorded = try? await self.decisions.decisions(session: key) {
            return await self.laidOut(served, recorded.breaks[adBreak.id] ?? [])
        }
        guard let asked = await self.ask(served, for: context, breaks: [adBreak], deviceHeaders: deviceHeaders) else {
            return LiveAdDecisions.Decided(ads: [], creatives: [])
        }
        self.beacons?.fireErrors(asked.decisions.reports, headers: deviceHeaders, addresses: served.adServerAddresses)
        let ads = asked.decisions.decided[adBreak.id] ?? []
        let stored = StoredDecisions(
            breaks: [
                adBreak.id: ads.compactMap { ad in
                    asked.creatives[ObjectIdentifier(ad.asset)].map { StoredDecisions.Creative(ad, url: $0.url) }
                }
            ]
        )
        do {
            let standing = try await self.decisions.record(stored, session: key, expires: expires)
            if standing != stored { return await self.laidOut(served, standing.breaks[adBreak.id] ?? []) }
        } catch {
            // This replica plays what it asked for, the same at every refresh; another replica
            // that cannot read it asks again.
            self.store.logger.warning(
                "cannot record a live break's ad decisions; other replicas may play other ads in it",
                metadata: ["campaign": "\(served.campaign.id)", "break": "\(adBreak.id)", "error": "\(error)"]
            )
        }
        return LiveAdDecisions.Decided(ads: ads, creatives: ads.compactMap { asked.creatives[ObjectIdentifier($0.asset)]?.creative })
    }

    /// Recorded creatives as ads, each from the creative cache; nil when one cannot be had.
    private func laidOut(_ served: ServedCampaign, _ recorded: [StoredDecisions.Creative]) async -> LiveAdDecisions.Decided? {
        guard let cache = served.creatives else { return recorded.isEmpty ? LiveAdDecisions.Decided(ads: [], creatives: []) : nil }
        var decided = LiveAdDecisions.Decided(ads: [], creatives: [])
        for creative in recorded {
            guard case .success(let loaded) = await cache.creative(creative.url, id: creative.id) else { return nil }
            decided.creatives.append(loaded)
            decided.ads.append(creative.ad(loaded.asset))
        }
        return decided
    }

    /// VAST 4.3 §2.4.2's headers for a request made on the viewer's behalf: the viewer's address,
    /// user agent and languages. The address is the connection's (`peer`); the first
    /// `X-Forwarded-For` hop only when forwarded headers are trusted (`serve --trust-forwarded`,
    /// a proxy in front that sets it) — else any viewer could name any address to the ad server.
    func deviceHeaders(_ fields: HTTPFields, peer: SocketAddress?) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        let forwarded =
            self.publicAddress.trustsForwardedHeaders
            ? fields[.xForwardedFor]?.split(separator: ",").first?.trimmingCharacters(in: .whitespaces) : nil
        if let address = forwarded.flatMap({ IPAddress($0)?.description }) ?? peer?.ipAddress {
            headers.append(("X-Device-IP", address))
        }
        if let agent = fields[.userAgent] { headers.append(("X-Device-User-Agent", agent)) }
        if let language = fields[.acceptLanguage] { headers.append(("X-Device-Accept-Language", language)) }
        return headers
    }
}
