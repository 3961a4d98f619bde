import HLSPlaylist

/// An ad break: where it sits, how long it may run, which pools fill it, and the UI policy the
/// player must enforce while it plays (`restrict: [skip, jump]`, carried into the boundary manifest).
public struct AdBreak: Sendable {
    public enum Position: Sendable, Hashable {
        case before(island: String)
        case after(island: String)
        /// A break of a live channel, placed by its markers (``LiveProgram/adBreak(id:duration:)``).
        case live
    }

    public let id: String
    public let position: Position
    /// The nominal duration: ads and slate fill at most this much.
    public let duration: ExactDecimal
    public let pools: [String]
    public let restrict: Restriction
    /// `once: true`: the break plays once per session; a viewer who seeks back over it does not
    /// see it again (HLS Interstitials `CUE="ONCE"`; `"once": true` in the boundary manifest).
    public let once: Bool
    /// For a break in one programme asset (`at:` or a marker): where it was asked for and where
    /// it cuts. Nil for a break before or after an island of its own.
    public let placement: Placement?
    /// `skip:`: when an interstitial session's player may offer to skip the break.
    public var skip: SkipControl? = nil

    /// Where a break of a single programme asset sits.
    public struct Placement: Sendable, Hashable {
        /// The programme time asked for (`at:`); nil for a marker, which stands on a boundary.
        public let requested: ExactDecimal?
        /// The programme time of the cut: the segment boundary at or before the requested time.
        public let cut: ExactDecimal
        /// Replacement: the programme time the ads replace (whole segments); nil: an insertion point.
        public let replaced: ExactDecimal?
        /// The marker's line in the programme's first variant playlist; nil for `at:`.
        public let markerLine: Int?
    }
}
