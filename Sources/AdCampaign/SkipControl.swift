import HLSPlaylist

/// A break's skip control (`skip: { after: 5, for: 10, label: skip-ad }`; draft-pantos-hls-rfc8216bis
/// Appendix D: `X-SKIP-CONTROL-OFFSET`, `-DURATION` and `-LABEL-ID` on the interstitial's date
/// range, `SKIP-CONTROL` in its asset list): the player offers to skip the rest of the break
/// `after` seconds into it, for `for` seconds (nil: until it ends), its button's text named by
/// `label`. Only interstitial sessions can offer it — a stitched break is part of the programme's
/// timeline — and a break that restricts skipping cannot.
public struct SkipControl: Sendable, Hashable {
    /// Seconds into the break when the control appears.
    public var after: ExactDecimal
    /// Seconds it stays; nil: until the break ends.
    public var duration: ExactDecimal?
    /// The id of the control's label (the player maps it to its text).
    public var label: String?

    public init(after: ExactDecimal, duration: ExactDecimal? = nil, label: String? = nil) {
        self.after = after
        self.duration = duration
        self.label = label
    }
}
