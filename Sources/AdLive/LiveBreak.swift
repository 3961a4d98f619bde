import HLSPlaylist

/// A break of a live channel as its history keeps it (docs/design-decisions.md "Live"): the
/// origin segments it replaces, `first` up to `end` (exclusive; nil while it is open), and the
/// origin's numbers at both ends — all a replica needs to number every viewer's playlist after
/// the break has left the origin's window.
public struct LiveBreak: Sendable, Hashable {
    /// Stable on every replica: from the marker (a DATERANGE ID, an SCTE-35 event id) or the
    /// origin sequence number of its first segment.
    public let id: String
    /// The first origin segment it replaces.
    public let first: Int
    /// The start of `first` (seconds since the epoch).
    public let start: ExactDecimal
    /// The origin discontinuity sequence number just before `first` (of `first` less its own tag).
    public let enteringDiscontinuity: Int
    /// The closing: the origin segment after the last it replaces, its start, and its origin
    /// discontinuity sequence number and tag. Nil while open.
    public var closing: Closing?
    /// The duration its opening marker announced (nil: none; `marker_breaks.duration` then): what
    /// the viewer's ads are planned for, fixed when it opens so the plan never changes.
    public let duration: ExactDecimal?
    /// What opened it: a marker of the channel, or the origin standing still (`live_stall`).
    public let kind: Kind

    public enum Kind: String, Sendable, Hashable {
        /// An ad break the channel's markers announced: filled with the viewer's ads, then slate.
        case marker
        /// The origin stood still (`live_stall`): slate (or gaps) on the channel's clock after the
        /// window's last segment, no ads, until the origin publishes again. It starts where the
        /// origin stopped and replaces what the origin publishes for the time it filled — nothing,
        /// when the origin resumes past it (then it is an insertion).
        case stall
    }

    public struct Closing: Sendable, Hashable {
        public let end: Int
        public let time: ExactDecimal
        public let discontinuitySequence: Int
        public let isDiscontinuity: Bool

        public init(end: Int, time: ExactDecimal, discontinuitySequence: Int, isDiscontinuity: Bool) {
            self.end = end
            self.time = time
            self.discontinuitySequence = discontinuitySequence
            self.isDiscontinuity = isDiscontinuity
        }
    }

    public init(
        id: String,
        first: Int,
        start: ExactDecimal,
        enteringDiscontinuity: Int,
        duration: ExactDecimal? = nil,
        closing: Closing? = nil,
        kind: Kind = .marker
    ) {
        self.id = id
        self.first = first
        self.start = start
        self.enteringDiscontinuity = enteringDiscontinuity
        self.duration = duration
        self.closing = closing
        self.kind = kind
    }

    /// The replaced stretch's length by its dates, at most ``LiveLimits/maxBreakDuration`` (an origin
    /// whose dates jump inside a break must not make every viewer's fill days long); nil while open.
    public var replacedDuration: ExactDecimal? {
        self.closing.map { min(max(.zero, $0.time - self.start), LiveLimits.maxBreakDuration) }
    }

    /// Whether origin segment `sequence` is one it replaces.
    public func replaces(_ sequence: Int) -> Bool { sequence >= self.first && self.closing.map { sequence < $0.end } ?? true }
}
