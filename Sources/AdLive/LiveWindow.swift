import HLSPlaylist

/// A viewer's live window: what a media playlist of the session lists now.
public struct LiveWindow: Sendable, Hashable {
    public enum Item: Sendable, Hashable {
        /// An origin programme segment, by its origin sequence number.
        case programme(Int)
        /// A segment of the viewer's fill of a break: the break's id and the segment's position
        /// in the fill.
        case fill(breakID: String, position: Int, LiveFill)
    }

    public struct Entry: Sendable, Hashable {
        public let item: Item
        /// Its media sequence number in the viewer's playlist: never changes once served.
        public let sequence: Int
        /// Its discontinuity sequence number (a tag on it counts): never changes once served.
        public let discontinuitySequence: Int
        /// Whether an `EXT-X-DISCONTINUITY` stands before it.
        public let isDiscontinuity: Bool
    }

    public let entries: [Entry]
    /// `EXT-X-MEDIA-SEQUENCE`: the first entry's number.
    public let mediaSequence: Int
    /// `EXT-X-DISCONTINUITY-SEQUENCE`: the first entry's discontinuity number less its own tag —
    /// the discontinuities that have left the window (RFC 8216bis §6.2.2).
    public let discontinuitySequence: Int
}
