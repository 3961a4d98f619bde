import HLSPlaylist

/// The ranges every number from a campaign or its playlists must fall in. Each is checked where
/// the number enters (the loader, with the file, line and field), so planning and rendering
/// never meet a value their arithmetic cannot hold: a replica serves every viewer of every
/// campaign, and one absurd value must not take it down. docs/campaign-format.md lists them
/// with these reasons.
public enum CampaignLimits {
    /// A break runs at most an hour: no real pod is longer, and a break is rendered segment by
    /// segment for every session (a million-second break would render 52 MB per session).
    public static let maxBreakDuration = ExactDecimal(3600)
    /// The breaks of a campaign add up to at most a day.
    public static let maxTotalBreakDuration = ExactDecimal(86_400)
    /// An asset (island, ad, slate) and the whole programme run at most a week: the longest VOD
    /// event anyone stitches, and it keeps every stream time and programme date-time in range.
    public static let maxProgramDuration = ExactDecimal(7 * 86_400)
    /// The slate repeats at most this many times in the longest break (a 1 s slate in a 1 h break).
    public static let maxSlateRepeats = 3600
    /// `FRAME-RATE` from 0.001 to 1000: the alignment check allows a frame of difference, and a
    /// frame must stay between a millisecond and a quarter of an hour.
    public static let frameRates = ExactDecimal(significand: 1, exponent: 3)...ExactDecimal(1000)
    /// `BANDWIDTH` and `AVERAGE-BANDWIDTH` below 2⁵³ bits/s: exact in a `Double`, so averages and
    /// comparisons cannot lose or overflow.
    public static let maxBandwidth = (1 << 53) - 1
    /// An ad's `weight` and a rule's `boost` factor: at most a million, so products across rules stay finite.
    public static let maxWeight = 1_000_000.0
    /// Ad entries across all pools, after YAML aliases are expanded (a 72 KB file can alias a
    /// million): more than any real campaign has, few enough to validate in well under a second.
    public static let maxAdEntries = 10_000
    /// YAML nodes after aliases are expanded, for the same reason.
    public static let maxNodes = 200_000
    /// The campaign file and every playlist it reads.
    public static let maxCampaignFileBytes = 1 << 20
    public static let maxPlaylistBytes = 16 << 20
    /// Rewrite rules per campaign: the rules a viewer gets are a 64-bit set.
    public static let maxRewriteRules = 64
    /// Flight dates and date-times: years 1970 through 9999.
    public static let years = 1970...9999
}
