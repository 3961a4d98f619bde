import HLSPlaylist

/// A stretch of the programme between breaks: its own HLS asset, or a stretch of the one
/// programme asset AdStitch cut at the breaks (a virtual island, `program: { playlist: … }`).
public struct Island: Sendable {
    public let id: String
    public let asset: Asset
    /// A virtual island: where it starts in the programme asset (replaced stretches before it
    /// count). Nil for islands of their own, which follow one another.
    public let contentStart: ExactDecimal?
}
