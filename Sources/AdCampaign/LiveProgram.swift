import HLSPlaylist

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A live programme (`program: { live: URL }`, docs/campaign-format.md "Live"): a channel whose
/// origin serves a sliding window without `EXT-X-ENDLIST`. Its breaks are not known at load: they
/// come from the channel's markers as the poller reads them, with what the markers do not say
/// from `marker_breaks`.
public struct LiveProgram: Sendable {
    /// The channel's multivariant playlist on its origin.
    public let url: URL
    /// The multivariant playlist with one window of each media playlist as read at load: it tells
    /// the channel's renditions, container and target duration. Only the multivariant playlist
    /// counts in the revision — the windows change every few seconds.
    public let asset: Asset
    /// What a viewer who joins while a break plays gets of its rest (`join_mid_break`).
    public let joinMidBreak: JoinMidBreak
    /// A break's nominal duration when its marker gives none (`marker_breaks.duration`).
    public let defaultDuration: ExactDecimal?
    /// The pools that fill every break (`marker_breaks.pools`).
    public let pools: [String]
    /// The player policy while a break plays (`marker_breaks.restrict`).
    public let restrict: Restriction
    /// What viewers get while the channel's origin stands still (`live_stall`); nil: the last
    /// window keeps serving, frozen.
    public let stall: LiveStall?

    /// `join_mid_break`: the rest of a break a viewer joins in the middle of.
    public enum JoinMidBreak: String, Sendable, Hashable, CaseIterable {
        /// The slate, until the programme returns: no ad starts part-way.
        case slate
        /// The channel's own programme (its ad as broadcast).
        case program
    }

    /// The break a live marker opens, for the planner: the marker's id and duration (else
    /// `marker_breaks.duration`), filled from `marker_breaks.pools`.
    public func adBreak(id: String, duration: ExactDecimal) -> AdBreak {
        AdBreak(id: id, position: .live, duration: duration, pools: self.pools, restrict: self.restrict, once: false, placement: nil)
    }
}

/// `live_stall: { after, fill }` (docs/campaign-format.md "A stalled origin"): once a live
/// channel's newest segment has ended `after` target durations ago, viewers' windows go on with
/// the slate (or `EXT-X-GAP` segments timed like it) on the channel's clock until the origin moves
/// again.
public struct LiveStall: Sendable, Hashable {
    /// Target durations of standstill before the fill begins (2–100).
    public let after: Int
    public let fill: Fill

    public enum Fill: String, Sendable, Hashable, CaseIterable {
        /// The campaign's slate, decoded by the player.
        case slate
        /// `EXT-X-GAP` segments timed as the slate's (RFC 8216bis §4.4.4.7): the player fetches nothing.
        case gap
    }

    /// The bounds of `after`: past the two target durations a viewer's window is held back by
    /// (a fill that began sooner would list time an advancing origin may still publish), and at
    /// most 100.
    public static let afterRange = 2...100

    public init(after: Int = 3, fill: Fill = .slate) {
        self.after = after
        self.fill = fill
    }
}
