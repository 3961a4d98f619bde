import AdCampaign
import AdDecision
import HLSPlaylist

/// The boundary manifest (docs/architecture.md "Boundary manifest"; schema in
/// docs/boundary-manifest.schema.json): where each break and ad starts and ends in stream time,
/// the policy the player UI must enforce, tracking URLs, and the map from stream time to
/// programme time. Times are exact decimals, written as JSON numbers without rounding.
public struct BoundaryManifest: Sendable, Hashable {
    public struct Break: Sendable, Hashable {
        public let id: String
        public let start: ExactDecimal
        public let end: ExactDecimal
        public let duration: ExactDecimal
        public let restrict: Restriction
        /// `once: true`: a viewer who seeks back over the break does not see it again.
        public let once: Bool
        public let ads: [AdEntry]
        /// An interstitial session: where the break sits on the primary timeline.
        public let primary: PrimaryPlacement?
    }

    /// Where an interstitial sits on the primary timeline (the programme without ads): its
    /// `START-DATE` as an offset, and how much primary it skips (`X-RESUME-OFFSET`).
    public struct PrimaryPlacement: Sendable, Hashable {
        public let start: ExactDecimal
        public let resumeOffset: ExactDecimal
    }

    public struct AdEntry: Sendable, Hashable {
        public let id: String
        public let start: ExactDecimal
        public let duration: ExactDecimal
        public let tracking: [String: [String]]
        public let isSlate: Bool
        /// The ad's verification scripts: in the tracking document, not the manifest.
        public var verifications: [AdVerification] = []
    }

    public struct IslandEntry: Sendable, Hashable {
        public let id: String
        public let start: ExactDecimal
        public let end: ExactDecimal
        /// Where the island starts in programme (content) time: the sum of the islands before it.
        public let contentStart: ExactDecimal
    }

    /// `stitched` or `interstitials`.
    public let insertion: Insertion
    public let campaign: String
    public let session: String
    public let duration: ExactDecimal
    /// An interstitial session: the primary timeline's length.
    public let primaryDuration: ExactDecimal?
    public let breaks: [Break]
    /// Every instant playback crosses between programme, ad and slate (each ad start; repeats
    /// of the slate are one stretch).
    public let boundaries: [ExactDecimal]
    public let islands: [IslandEntry]
    /// A session that reports client-side: its tracking document, relative to the manifest
    /// (``TrackingDocument``).
    public var trackingURI: String?
    /// Whether each ad lists its `tracking` URLs (``Campaign/Reporting/handsTrackersToPlayer``).
    public var listsTrackers = true

    /// An interstitial session's manifest: the same breaks, ads and times as the stitched
    /// session's — stream time is the timeline a player shows when it counts interstitials in
    /// (hls.js's integrated timeline: primary plus each break's playout, less the primary a
    /// replacement skips) — and, per break, its place on the primary timeline.
    public init(_ schedule: InterstitialSchedule) {
        self.init(schedule.plan, schedule: schedule)
    }

    public init(_ plan: Plan) {
        self.init(plan, schedule: nil)
    }

    private init(_ plan: Plan, schedule: InterstitialSchedule?) {
        self.insertion = schedule == nil ? .stitched : .interstitials
        self.primaryDuration = schedule?.duration
        self.campaign = plan.campaign.id
        self.session = plan.context.session
        self.duration = plan.duration
        var breaks: [Break] = []
        // Each break's pieces gathered in one pass: a scan of every piece per break made a
        // session of 3,000 breaks take 1.88 s.
        var piecesOf: [String: [Piece]] = [:]
        for piece in plan.pieces {
            if let id = piece.breakID { piecesOf[id, default: []].append(piece) }
        }
        for planned in plan.breaks where planned.duration > .zero {
            var entries: [AdEntry] = []
            for piece in piecesOf[planned.adBreak.id] ?? [] {
                switch piece.kind {
                case .ad(let ad, _):
                    entries.append(
                        AdEntry(
                            id: ad.id,
                            start: piece.start,
                            duration: piece.duration,
                            tracking: ad.tracking,
                            isSlate: false,
                            verifications: ad.verifications
                        )
                    )
                case .slate:
                    if let last = entries.last, last.isSlate {
                        entries[entries.count - 1] = AdEntry(
                            id: "slate",
                            start: last.start,
                            duration: last.duration + piece.duration,
                            tracking: [:],
                            isSlate: true
                        )
                    } else {
                        entries.append(AdEntry(id: "slate", start: piece.start, duration: piece.duration, tracking: [:], isSlate: true))
                    }
                case .island:
                    continue
                }
            }
            breaks.append(
                Break(
                    id: planned.adBreak.id,
                    start: planned.start,
                    end: planned.end,
                    duration: planned.duration,
                    restrict: planned.adBreak.restrict,
                    once: planned.adBreak.once,
                    ads: entries,
                    primary: schedule.flatMap { $0.interstitial(planned.adBreak.id) }.map {
                        PrimaryPlacement(start: $0.isPostRoll ? schedule?.duration ?? $0.start : $0.start, resumeOffset: $0.resumeOffset)
                    }
                )
            )
        }
        self.breaks = breaks
        var boundaries: [ExactDecimal] = []
        var previous: Piece?
        for piece in plan.pieces {
            let isSlateRepeat = previous.map { if case .slate = $0.kind, case .slate = piece.kind { true } else { false } } ?? false
            if !isSlateRepeat { boundaries.append(piece.start) }
            previous = piece
        }
        self.boundaries = boundaries
        var contentStart = ExactDecimal.zero
        var islands: [IslandEntry] = []
        for piece in plan.pieces {
            guard case .island(let island) = piece.kind else { continue }
            // A virtual island knows where it starts in the programme asset: a replaced stretch
            // before it is skipped in content time.
            let start = island.contentStart ?? contentStart
            islands.append(IslandEntry(id: island.id, start: piece.start, end: piece.start + piece.duration, contentStart: start))
            contentStart = start + piece.duration
        }
        self.islands = islands
    }

    /// The manifest as JSON, field names as the contract fixes them (docs/boundary-manifest.schema.json).
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("version", .integer(1)),
            ("insertion", .string(self.insertion.rawValue)),
            ("campaign", .string(self.campaign)),
            ("session", .string(self.session)),
            ("duration", .decimal(self.duration)),
        ]
        if let primaryDuration { members.append(("primaryDuration", .decimal(primaryDuration))) }
        if let trackingURI { members.append(("trackingUri", .string(trackingURI))) }
        members += [
            ("breaks", .array(self.breaks.map { Self.json($0, trackers: self.listsTrackers) })),
            ("boundaries", .array(self.boundaries.map(JSONValue.decimal))),
            ("islands", .array(self.islands.map(Self.json))),
        ]
        return .object(members)
    }

    private static func json(_ item: Break, trackers: Bool) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("id", .string(item.id)), ("start", .decimal(item.start)), ("end", .decimal(item.end)),
            ("duration", .decimal(item.duration)), ("restrict", .array(item.restrict.names.map(JSONValue.string))),
        ]
        if item.once { members.append(("once", .bool(true))) }
        if let primary = item.primary {
            members.append(("primary", .object([("start", .decimal(primary.start)), ("resumeOffset", .decimal(primary.resumeOffset))])))
        }
        members.append(("ads", .array(item.ads.map { Self.json($0, trackers: trackers) })))
        return .object(members)
    }

    private static func json(_ ad: AdEntry, trackers: Bool) -> JSONValue {
        var members: [(String, JSONValue)] = [("id", .string(ad.id)), ("start", .decimal(ad.start)), ("duration", .decimal(ad.duration))]
        if ad.isSlate { members.append(("slate", .bool(true))) }
        if trackers, !ad.tracking.isEmpty {
            members.append(("tracking", .object(ad.tracking.keys.sorted().map { ($0, .array((ad.tracking[$0] ?? []).map(JSONValue.string))) })))
        }
        return .object(members)
    }

    private static func json(_ island: IslandEntry) -> JSONValue {
        .object([
            ("id", .string(island.id)), ("start", .decimal(island.start)), ("end", .decimal(island.end)),
            ("contentStart", .decimal(island.contentStart)),
        ])
    }
}
