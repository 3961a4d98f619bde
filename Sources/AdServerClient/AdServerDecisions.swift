import AdCampaign
import AdDecision
import AdOrigin
import AdServer
import Foundation
import HLSPlaylist

/// What a campaign's ad decision server (`ad_server:`) decides for one viewer — the one home of
/// asking it, for `stitch`, `preview` and `serve` alike: a VAST request per break, all breaks at
/// once (or one VMAP request, its breaks mapped onto the campaign's), each bounded by the
/// campaign's `timeout` for its whole wrapper chain and its creatives' loading; the answer's ads
/// that can play (an HLS creative that stitches with the programme), each whole, in pod order;
/// what failed or was skipped, and why.
public struct AdServerDecisions: Sendable {
    /// The creatives each break plays first, by break id.
    public var decided: [String: [Ad]]
    /// One report per break of the campaign, in campaign order.
    public var reports: [BreakReport]

    public init(decided: [String: [Ad]], reports: [BreakReport]) {
        self.decided = decided
        self.reports = reports
    }

    /// Every creative that plays, once each (by asset), in break order.
    public var creatives: [Ad] {
        var seen: Set<ObjectIdentifier> = []
        return self.reports.flatMap { self.decided[$0.breakID] ?? [] }.filter { seen.insert(ObjectIdentifier($0.asset)).inserted }
    }

    /// One break's request and what came of it.
    public struct BreakReport: Sendable, Hashable {
        public var breakID: String
        /// The request as sent (reports show it with its secrets masked: `Redaction.url(_:)`).
        public var url: String
        public var outcome: Outcome
        public var error: String?
        /// The VAST error code of a failed answer (301: nothing within the timeout).
        public var errorCode: Int?
        public var wrappers: [String] = []
        public var played: [String] = []
        public var skipped: [Skipped] = []
        /// What the answer says that its media does not: a `<Duration>` more than a segment off
        /// the creative's playlists (the fill goes by the media), naming both figures.
        public var warnings: [String] = []

        /// `answered`: the ad server answered (its ads may still all be skipped); `failed`: no
        /// usable answer (error, timeout, unparsable), the break's fallback pools fill it.
        public enum Outcome: String, Sendable, Hashable {
            case answered
            case failed
        }

        public struct Skipped: Sendable, Hashable {
            public var id: String
            public var reason: String
            public var vastError: Int?
            /// The `<Error>` URIs of its chain (the inline ad's and every wrapper's), fired with
            /// `vastError` as `[ERRORCODE]` by a server that plays the session.
            public var errorURLs: [String] = []
        }

        /// The `outcome` label of `adstitch_ad_server_requests_total`: `filled` (an ad plays),
        /// `empty` (answered, nothing plays), `timeout`, `error`.
        public var metricOutcome: String {
            switch self.outcome {
            case .answered: self.played.isEmpty ? "empty" : "filled"
            case .failed: self.errorCode == 301 ? "timeout" : "error"
            }
        }

        /// The report as the preview's JSON writes it (`adServer`, one entry per break).
        public var json: JSONValue {
            var fields: [(String, JSONValue)] = [
                ("break", .string(self.breakID)), ("url", .string(Redaction.url(self.url))), ("outcome", .string(self.outcome.rawValue)),
            ]
            if let error = self.error { fields.append(("error", .string(error))) }
            fields.append(("wrappers", .array(self.wrappers.map { .string(Redaction.url($0)) })))
            fields.append(("played", .array(self.played.map(JSONValue.string))))
            if !self.warnings.isEmpty { fields.append(("warnings", .array(self.warnings.map(JSONValue.string)))) }
            fields.append(
                (
                    "skipped",
                    .array(
                        self.skipped.map { skipped in
                            .object(
                                [("id", .string(skipped.id)), ("reason", .string(skipped.reason))]
                                    + (skipped.vastError.map { [("vastError", JSONValue.integer($0))] } ?? [])
                            )
                        }
                    )
                )
            )
            return .object(fields)
        }

        public var text: String {
            var line = "ad server: break \(self.breakID): GET \(Redaction.url(self.url)) → \(self.outcome.rawValue)"
            if let error = self.error { line += " (\(error)); the break's fallback pools fill it" }
            if !self.wrappers.isEmpty { line += "; wrappers followed: \(self.wrappers.count)" }
            line += "; plays: \(self.played.isEmpty ? "none" : self.played.joined(separator: ", "))"
            for skipped in self.skipped {
                line += "; skipped \(skipped.id): \(skipped.reason)\(skipped.vastError.map { " [VAST \($0)]" } ?? "")"
            }
            for warning in self.warnings { line += "; warning: \(warning)" }
            return line
        }

        /// The report once the session is planned: an ad the answer gave that the break's fill did
        /// not play is said so, with the fill's reason (`played` then lists what plays). The
        /// answer's own choice goes by its `<Duration>`s, the fill by the media's.
        public func settled(by plan: Plan) -> BreakReport {
            guard let planned = plan.breaks.first(where: { $0.adBreak.id == self.breakID }) else { return self }
            let candidates = planned.candidates
            var report = self
            report.played = []
            for id in self.played {
                switch candidates.first(where: { $0.ad.id == id })?.outcome {
                case .chosen?, nil:
                    report.played.append(id)
                case .excluded(let rule, let reason)?:
                    report.skipped.append(Skipped(id: id, reason: "answered, but the fill did not play it: rule \(rule) excludes it (\(reason))"))
                case .notChosen(let reason)?:
                    report.skipped.append(Skipped(id: id, reason: "answered, but the fill did not play it: \(reason)"))
                }
            }
            return report
        }
    }

    /// A creative's HLS playlists, loaded and checked against the campaign's programme as a pool
    /// ad is (``CampaignLoader/creative(at:id:for:source:)``), or why it cannot play. The server
    /// keeps them by identity; `stitch` loads each as it comes.
    public typealias LoadCreative = @Sendable (_ url: URL, _ id: String) async -> Result<Asset, CreativeFailure>

    public struct CreativeFailure: Error, Sendable, Hashable {
        public var reason: String

        public init(_ reason: String) {
            self.reason = reason
        }
    }

    /// What became of a creative without an HLS media file once conditioning was asked for it
    /// (`creatives:`): conditioned, its multivariant playlist in the campaign's store; queued or
    /// encoding (skipped for now, VAST error 407); or not to be had (403).
    public enum Conditioned: Sendable, Hashable {
        case ready(URL)
        case pending(String)
        case unavailable(String)
    }

    /// Looks up (and queues, when missing) the conditioned form of the creative `id` whose
    /// mezzanine or progressive file is `source`, announced to run `duration` seconds (its
    /// `<Duration>` as exact decimal text: a source that runs otherwise is refused unencoded).
    public typealias Condition = @Sendable (_ source: URL, _ id: String, _ duration: String) async -> Conditioned

    /// Loads a creative with the (blocking) campaign loader on a thread of `work`'s — never on a
    /// Swift concurrency thread, an event loop or the global queue, which its origin fetches would
    /// hold — at most a few at once per creative host (``BlockingWork``).
    public static func loadCreative(
        _ url: URL,
        id: String,
        for campaign: Campaign,
        source: PlaylistSource,
        on work: BlockingWork
    ) async -> Result<Asset, CreativeFailure> {
        do {
            return .success(
                try await work.run(origin: BlockingWork.origin(of: url)) {
                    try CampaignLoader.creative(at: url, id: id, for: campaign, source: source)
                }
            )
        } catch let error as CampaignError {
            return .failure(CreativeFailure(error.issues.first?.message ?? "\(error)"))
        } catch {
            return .failure(CreativeFailure("\(error)"))
        }
    }

    /// Asks `settings`' server for every break of `context`'s session.
    ///
    /// - Parameters:
    ///   - breaks: the breaks to ask for; nil: the campaign's (a live channel's break is asked
    ///     for alone, when it opens: ``LiveProgram/adBreak(id:duration:)``). VMAP maps its
    ///     schedule onto these.
    ///   - deviceHeaders: VAST 4.3 §2.4.2 `X-Device-IP`, `X-Device-User-Agent`,
    ///     `X-Device-Accept-Language` of the viewer's request (a server-side caller asks on the viewer's behalf).
    ///   - condition: how a creative without an HLS media file is had conditioned (nil: such a
    ///     creative is skipped, VAST error 403); it shares the break's timeout.
    ///   - loadCreative: how a chosen creative's playlists are had; it gets what is left of the
    ///     break's timeout, and a creative not had by then is skipped (say so).
    public static func decide(
        _ campaign: Campaign,
        settings: AdServerSettings,
        breaks: [AdBreak]? = nil,
        for context: ViewerContext,
        client: OriginClient,
        deviceHeaders: [(name: String, value: String)] = [],
        condition: Condition? = nil,
        loadCreative: @escaping LoadCreative
    ) async -> AdServerDecisions {
        let breaks = breaks ?? campaign.breaks
        let asker = Asker(
            settings: settings,
            campaign: campaign,
            breaks: breaks,
            context: context,
            client: client,
            deviceHeaders: deviceHeaders,
            condition: condition,
            loadCreative: loadCreative,
            addresses: campaign.adServerAddresses
        )
        let byBreak = Dictionary(await asker.everyBreak().map { ($0.0.breakID, $0) }, uniquingKeysWith: { first, _ in first })
        let ordered = breaks.compactMap { byBreak[$0.id] }
        var decided: [String: [Ad]] = [:]
        for (report, ads) in ordered where !ads.isEmpty { decided[report.breakID] = ads }
        return AdServerDecisions(decided: decided, reports: ordered.map(\.0))
    }

    /// `pre`, `mid` or `post`, as VAST requests name a break's place.
    public static func position(_ adBreak: AdBreak, in campaign: Campaign) -> String {
        switch adBreak.position {
        case .before(let island) where island == campaign.islands.first?.id: "pre"
        case .after(let island) where island == campaign.islands.last?.id: "post"
        default: adBreak.placement.map { $0.cut == .zero ? "pre" : "mid" } ?? "mid"
        }
    }
}
