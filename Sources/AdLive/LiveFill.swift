import HLSPlaylist

/// A segment a viewer plays in a break: one of an ad's (or the slate's) segments, in play order.
/// `piece` counts the break's pieces from 0 (an `EXT-X-DISCONTINUITY` before each); `index` is the
/// segment's place in its piece.
public struct LiveFill: Sendable, Hashable {
    public let duration: ExactDecimal
    public let piece: Int
    public let index: Int

    public init(duration: ExactDecimal, piece: Int, index: Int) {
        self.duration = duration
        self.piece = piece
        self.index = index
    }
}
