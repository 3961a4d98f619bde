import AdCampaign
import HLSPlaylist

/// The ranges every number from a live origin's window must fall in. A live origin is outside our
/// control and every replica polls it, so one absurd value must not take them all down: each
/// number is checked where it enters — a window as the poller reads it (``problem(in:)``), a
/// marker's duration as the tracker reads it — as ``CampaignLimits`` does for campaign files.
/// docs/reliability.md "Live origin faults" lists what a viewer sees for each.
public enum LiveLimits {
    /// `EXT-X-TARGETDURATION` of a usable window, in seconds. RFC 8216bis sets no bound; real live
    /// channels use 2–10 s, and the poller refreshes every half target duration, so a window that
    /// claims a day (or 2⁶³ s) would stop polling — or overflow the stall arithmetic — for good.
    public static let targetDurations = 1...60
    /// Media and discontinuity sequence numbers stay below 2⁵³: a viewer's numbers add each break's
    /// shift to the origin's, and none of that arithmetic may overflow.
    public static let maxSequence = 1 << 53
    /// A live break (its marker's duration, and what the viewer's fill covers) runs at most as long
    /// as a campaign's break may: dates that jump inside a break (10⁷ s) would otherwise make every
    /// viewer's playlist hold days of slate.
    public static let maxBreakDuration = CampaignLimits.maxBreakDuration
    /// A viewer's live media playlist lists at most this many segments (its live edge kept): the
    /// origin's window is at most 16 MiB, but each break's fill adds its own segments.
    public static let maxViewerEntries = 20_000

    /// Why a window the poller read cannot be used (the last good window keeps serving), or nil.
    public static func problem(in playlist: MediaPlaylist) -> String? {
        guard let target = playlist.targetDuration else { return "the window has no EXT-X-TARGETDURATION" }
        guard Self.targetDurations.contains(target) else {
            return "EXT-X-TARGETDURATION:\(target) is outside \(Self.targetDurations.lowerBound)–\(Self.targetDurations.upperBound) s"
        }
        let limit = ExactDecimal(Self.targetDurations.upperBound)
        if let long = playlist.segments.first(where: { $0.duration > limit }) {
            return "segment \(long.mediaSequenceNumber) lasts \(long.duration) s, more than \(limit) s"
        }
        let count = playlist.segments.count
        guard playlist.mediaSequence >= 0, playlist.mediaSequence <= Self.maxSequence - count else {
            return "EXT-X-MEDIA-SEQUENCE:\(playlist.mediaSequence) is outside 0–2⁵³"
        }
        guard playlist.discontinuitySequence >= 0, playlist.discontinuitySequence <= Self.maxSequence - count else {
            return "EXT-X-DISCONTINUITY-SEQUENCE:\(playlist.discontinuitySequence) is outside 0–2⁵³"
        }
        return nil
    }

    /// A break duration a marker announced, checked: nil (none: `marker_breaks.duration` then) when
    /// not positive, at most ``maxBreakDuration``; with the problem to report when it was changed.
    static func breakDuration(_ duration: ExactDecimal?) -> (duration: ExactDecimal?, problem: String?) {
        guard let duration else { return (nil, nil) }
        guard duration > .zero else {
            return (nil, "a break duration of \(duration) s is not positive; the break is planned for marker_breaks.duration")
        }
        guard duration <= Self.maxBreakDuration else {
            return (
                Self.maxBreakDuration,
                "a break duration of \(duration) s is longer than \(Self.maxBreakDuration) s; planned for \(Self.maxBreakDuration) s"
            )
        }
        return (duration, nil)
    }
}
