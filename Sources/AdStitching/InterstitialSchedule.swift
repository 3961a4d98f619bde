import AdCampaign
import AdDecision
import HLSPlaylist

/// A viewer's plan as HLS Interstitials (RFC 8216bis Appendix D): the primary content — the
/// programme without ads — and each break that plays as an interstitial on its timeline, with
/// the same ads in the same order as the plan's stitched form.
///
/// Primary content: islands of their own one after another (a discontinuity between two), or
/// the one programme asset whole (`program: { playlist: … }`), whose replaced stretches stay in
/// and are skipped by the break's resume offset.
public struct InterstitialSchedule: Sendable {
    /// A stretch of primary content and where it starts on the primary timeline.
    public struct Primary: Sendable {
        public let asset: Asset
        public let start: ExactDecimal
        /// The island it plays as; nil for the one programme asset whole.
        public let island: Island?
    }

    /// One break as an interstitial.
    public struct Interstitial: Sendable {
        public let planned: PlannedBreak
        /// Where it plays on the primary timeline.
        public let start: ExactDecimal
        /// How much of the primary it skips: the replaced stretch, 0 for an insertion.
        public let resumeOffset: ExactDecimal
        /// `CUE="PRE"`: before the primary starts.
        public let isPreRoll: Bool
        /// `CUE="POST"`: after the primary ends.
        public let isPostRoll: Bool
        /// `X-SNAP`: whether some video variant has no segment boundary at the start (OUT) or at
        /// the resume point (IN).
        public let snap: Snap
        /// Its ads and slate, in play order, as the stitched plan has them (stream times).
        public let pieces: [Piece]
        /// The place of its first piece in the plan's pieces (the others follow it): how beacon
        /// links and an ad's own session playlist name a piece.
        public let firstPiece: Int

        public var id: String { self.planned.adBreak.id }
        /// What plays: the sum of its pieces.
        public var duration: ExactDecimal { self.planned.duration }
        /// A replacement occupies a range of the primary; an insertion a point.
        public var isReplacement: Bool { self.resumeOffset > .zero }
    }

    /// `X-SNAP` (Appendix D.2).
    public struct Snap: Sendable, Hashable {
        public var out: Bool
        public var `in`: Bool

        public static let none = Snap(out: false, in: false)
    }

    public let plan: Plan
    public let primary: [Primary]
    /// The breaks that play (a break nothing could fill has no interstitial), in plan order.
    public let interstitials: [Interstitial]
    /// Each interstitial's index in ``interstitials``, by break id: a session of thousands of
    /// breaks looks each up once, not by a scan (``interstitial(_:)``).
    private let indices: [String: Int]
    /// The primary timeline's length.
    public let duration: ExactDecimal

    public init(_ plan: Plan, snaps: [String: Snap] = [:]) {
        self.plan = plan
        var primary: [Primary] = []
        var interstitials: [Interstitial] = []
        let programme = plan.campaign.programAsset
        if let programme { primary.append(Primary(asset: programme, start: .zero, island: nil)) }
        var time = ExactDecimal.zero
        var islandsLeft = plan.pieces.count { if case .island = $0.kind { true } else { false } }
        let planned = Dictionary(plan.breaks.map { ($0.adBreak.id, $0) }, uniquingKeysWith: { first, _ in first })
        var index = 0
        while index < plan.pieces.count {
            let piece = plan.pieces[index]
            guard let breakID = piece.breakID else {
                if case .island(let island) = piece.kind, programme == nil {
                    primary.append(Primary(asset: piece.asset, start: time, island: island))
                }
                time += piece.duration
                islandsLeft -= 1
                index += 1
                continue
            }
            var pieces: [Piece] = []
            let firstPiece = index
            while index < plan.pieces.count, plan.pieces[index].breakID == breakID {
                pieces.append(plan.pieces[index])
                index += 1
            }
            guard let planned = planned[breakID], planned.duration > .zero else { continue }
            let start: ExactDecimal
            let resumeOffset: ExactDecimal
            let isPostRoll: Bool
            if let programme, let placement = planned.adBreak.placement {
                start = placement.cut
                resumeOffset = placement.replaced ?? .zero
                isPostRoll = placement.replaced == nil && placement.cut >= programme.duration
            } else {
                start = time
                resumeOffset = .zero
                isPostRoll = islandsLeft == 0
            }
            interstitials.append(
                Interstitial(
                    planned: planned,
                    start: start,
                    resumeOffset: resumeOffset,
                    isPreRoll: start == .zero && !isPostRoll,
                    isPostRoll: isPostRoll,
                    snap: snaps[breakID] ?? .none,
                    pieces: pieces,
                    firstPiece: firstPiece
                )
            )
        }
        self.primary = primary
        self.interstitials = interstitials
        self.indices = Dictionary(interstitials.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.duration = programme?.duration ?? primary.last.map { $0.start + $0.asset.duration } ?? .zero
    }

    /// The interstitial of break `id`, if it plays.
    public func interstitial(_ id: String) -> Interstitial? {
        self.indices[id].map { self.interstitials[$0] }
    }

    /// The breaks of `campaign` whose interstitial resumes the primary inside its final segment
    /// (of any video variant or audio rendition), in campaign order: a mid-roll right before a
    /// last island of one segment, or a cut whose resume point is the programme's last segment.
    /// hls.js before 1.7 stalls after such a break: it plays the break apart from the primary,
    /// and on resuming drops the seek to the resume point when the only fragment left is the one
    /// it loads again (docs/real-clients.md "hls.js before 1.7: a break before the last segment").
    /// A post-roll (resuming at the primary's end) is not one. A function of the campaign alone,
    /// so of its revision; live programmes have no interstitials and none.
    public static func breaksResumingInFinalSegment(of campaign: Campaign) -> [String] {
        // The primary timeline: the programme asset whole, else the islands one after another.
        let resumes: [(id: String, time: ExactDecimal)]
        let last: (asset: Asset, start: ExactDecimal)
        switch campaign.programme {
        case .live, .catalogue:
            return []
        case .asset(let programme, _):
            resumes = campaign.breaks.compactMap { adBreak in
                adBreak.placement.map { (adBreak.id, $0.cut + ($0.replaced ?? .zero)) }
            }
            last = (programme, .zero)
        case .islands(let islands):
            guard let final = islands.last else { return [] }
            var starts: [String: ExactDecimal] = [:]
            var ends: [String: ExactDecimal] = [:]
            var time = ExactDecimal.zero
            for island in islands {
                starts[island.id] = time
                time += island.asset.duration
                ends[island.id] = time
            }
            resumes = campaign.breaks.compactMap { adBreak in
                switch adBreak.position {
                case .before(let island): starts[island].map { (adBreak.id, $0) }
                case .after(let island): ends[island].map { (adBreak.id, $0) }
                case .live: nil
                }
            }
            last = (final.asset, time - final.asset.duration)
        }
        let playlists = last.asset.variants.map(\.playlist) + last.asset.audioRenditions.compactMap(\.playlist)
        guard let finalSegment = playlists.compactMap({ $0.segmentStartTimes.last }).min() else { return [] }
        let end = last.start + last.asset.duration
        return resumes.filter { $0.time >= last.start + finalSegment && $0.time < end }.map(\.id)
    }

    /// Which breaks of one programme asset need `X-SNAP`: a break's start (OUT) or resume point
    /// (IN) that is not a segment boundary of every video variant (they are cut on the first
    /// variant's boundaries; another variant's may differ). Islands of their own meet at
    /// boundaries by construction and need none.
    static func snaps(of campaign: Campaign) -> [String: Snap] {
        guard let programme = campaign.programAsset else { return [:] }
        let boundaries = programme.variants.map { variant in
            Set(variant.playlist.segmentStartTimes).union([variant.playlist.duration])
        }
        var snaps: [String: Snap] = [:]
        for adBreak in campaign.breaks {
            guard let placement = adBreak.placement else { continue }
            let resume = placement.replaced.map { placement.cut + $0 }
            let snap = Snap(
                out: boundaries.contains { !$0.contains(placement.cut) },
                in: resume.map { resume in boundaries.contains { !$0.contains(resume) } } ?? false
            )
            if snap != .none { snaps[adBreak.id] = snap }
        }
        return snaps
    }
}
