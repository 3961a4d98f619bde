import AdCampaign
import AdDecision
import HLSPlaylist

/// One thing a player reported of a session, as kept: times in whole milliseconds (stream time
/// where it happened, the server's receive time), never the device's wall clock — a player's
/// clock hours off must not move a KPI (docs/quality.md "Clock skew").
public struct QualityEvent: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// Playback started: `ms` the startup time.
        case startup
        /// The player stalled at `at` for `ms`.
        case stall
        /// The player switched to (or started on) the variant of `bandwidth` at `at`.
        case level
        /// An error at `at`; `fatal` ends the session; `code` what the player said.
        case error
        /// Playback ended (or the viewer left) at `at`.
        case ended
        /// An AVPlayer access log entry (AVPlayerItemAccessLogEvent): one stretch on one variant.
        case access
        /// What one replica saw of the session itself (``ServerView``, in ``QualityEvent/view``):
        /// never from a report, replaced as the replica sees more.
        case server
    }

    public var kind: Kind
    /// Stream time in ms (the player's `currentTime`, the stitched timeline's); nil where the
    /// report did not say (a startup, an access log entry without `playbackStartOffset`).
    public var at: Int64?
    /// A duration in ms: a startup's time, a stall's length, an access entry's `durationWatched`.
    public var ms: Int64?
    /// A variant's BANDWIDTH (bits/s): a level switch, an access entry's `indicatedBitrate`.
    public var bandwidth: Int64?
    /// Whether an error ended playback.
    public var fatal: Bool?
    /// What the player said of an error (its code, an HTTP status, a domain and comment).
    public var code: String?
    /// An access log entry's `numberOfStalls` (its stalls have no stream time or length).
    public var stalls: Int?
    /// An access log entry's `startupTime` in ms.
    public var startup: Int64?
    /// When the server received it (ms since 1970, the server's clock).
    public var received: Int64
    /// A ``Kind/server`` event's view.
    public var view: ServerView?

    public init(
        kind: Kind,
        at: Int64? = nil,
        ms: Int64? = nil,
        bandwidth: Int64? = nil,
        fatal: Bool? = nil,
        code: String? = nil,
        stalls: Int? = nil,
        startup: Int64? = nil,
        received: Int64,
        view: ServerView? = nil
    ) {
        self.kind = kind
        self.at = at
        self.ms = ms
        self.bandwidth = bandwidth
        self.fatal = fatal
        self.code = code
        self.stalls = stalls
        self.startup = startup
        self.received = received
        self.view = view
    }
}

/// What a session's reports are joined to: who it was (the dimensions KPIs split by) and where its
/// breaks lay, taken from the session's signed token and plan when its first report arrives.
public struct QualitySession: Sendable, Hashable, Codable {
    /// A stretch of the stitched timeline that is not programme: an ad or a slate of a break.
    public struct Span: Sendable, Hashable, Codable {
        /// The break's id (`mid-1`).
        public var breakID: String
        /// The ad's id, or `slate`.
        public var piece: String
        /// Stream time, ms.
        public var start: Int64
        public var end: Int64

        public init(breakID: String, piece: String, start: Int64, end: Int64) {
            self.breakID = breakID
            self.piece = piece
            self.start = start
            self.end = end
        }
    }

    public var campaign: String
    /// The session's id as its token carries it.
    public var session: String
    /// When its first report arrived (ms since 1970, the server's clock).
    public var first: Int64
    /// The viewer's `device` attribute as the token carries it, else `unknown`.
    public var device: String
    /// The variant playback started on (`v2`: its index among the programme's variants, as the
    /// session's renditions are named) and its BANDWIDTH, if the programme declares one.
    public var startupVariant: String
    public var startupBandwidth: Int64?
    /// Which startup entry chose it (`startup[1]`, `startup.experiment.b[0]`), or `default`.
    public var startupRule: String
    /// The session's arm of the campaign's startup experiment (`a`, `b`), if it has one.
    public var experiment: String?
    /// `stitched` or `interstitials`.
    public var insertion: String
    /// The session's ads and slates on its timeline, in play order; none for a live session (its
    /// breaks are filled per refresh) — its stalls are then placed nowhere.
    public var spans: [Span]
    /// Where the session's programme pieces start after a break (the returns), stream ms: with
    /// the spans' starts, the splices a stall may follow.
    public var returns: [Int64]

    public init(
        campaign: String,
        session: String,
        first: Int64,
        device: String,
        startupVariant: String,
        startupBandwidth: Int64?,
        startupRule: String,
        experiment: String? = nil,
        insertion: String,
        spans: [Span],
        returns: [Int64]
    ) {
        self.campaign = campaign
        self.session = session
        self.first = first
        self.device = device
        self.startupVariant = startupVariant
        self.startupBandwidth = startupBandwidth
        self.startupRule = startupRule
        self.experiment = experiment
        self.insertion = insertion
        self.spans = spans
        self.returns = returns
    }
}

extension QualitySession {
    /// A session's dimensions and timeline from its plan: the startup variant (`v2`, with its
    /// BANDWIDTH) and the rule that chose it, the viewer's `device` attribute, the insertion mode,
    /// and each ad and slate of its breaks at its exact stream times, rounded once to ms.
    public init(campaign: String, session: String, first: Int64, plan: Plan, insertion: String) {
        let variants = plan.campaign.templateAsset?.variants.map(\.streamInf) ?? []
        let startup = plan.startup.variant
        var spans: [Span] = []
        var returns: [Int64] = []
        for (index, piece) in plan.pieces.enumerated() {
            let start = piece.start.roundedMilliseconds
            if let breakID = piece.breakID {
                spans.append(Span(breakID: breakID, piece: piece.id, start: start, end: (piece.start + piece.duration).roundedMilliseconds))
            } else if index > 0, plan.pieces[index - 1].breakID != nil {
                returns.append(start)
            }
        }
        self.init(
            campaign: campaign,
            session: session,
            first: first,
            device: plan.context.attributes["device"] ?? "unknown",
            startupVariant: "v\(startup)",
            startupBandwidth: variants.indices.contains(startup) ? variants[startup].bandwidth.map(Int64.init) : nil,
            startupRule: plan.startup.ruleName,
            experiment: plan.startup.arm?.rawValue,
            insertion: insertion,
            spans: spans,
            returns: returns
        )
    }
}
