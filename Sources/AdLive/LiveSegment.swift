import HLSPlaylist

/// One segment of a live channel's programme as its origin numbers it.
public struct LiveSegment: Sendable, Hashable {
    /// The origin's media sequence number.
    public let sequence: Int
    /// The origin's discontinuity sequence number (RFC 8216bis §6.2.2: a tag on the segment counts).
    public let discontinuitySequence: Int
    /// Whether the origin puts an `EXT-X-DISCONTINUITY` before it.
    public let isDiscontinuity: Bool
    public let duration: ExactDecimal
    /// Its start, from `EXT-X-PROGRAM-DATE-TIME`: seconds since the epoch, exact.
    public let start: ExactDecimal

    public init(sequence: Int, discontinuitySequence: Int, isDiscontinuity: Bool, duration: ExactDecimal, start: ExactDecimal) {
        self.sequence = sequence
        self.discontinuitySequence = discontinuitySequence
        self.isDiscontinuity = isDiscontinuity
        self.duration = duration
        self.start = start
    }

    public var end: ExactDecimal { self.start + self.duration }
}

extension LiveSegment {
    /// The segments of an origin's live window, dated: each from its own
    /// `EXT-X-PROGRAM-DATE-TIME`, or the last dated one before it plus the durations between.
    /// Nil when no segment before the first undated one carries a date (live breaks are placed by
    /// date, so a window without dates cannot be used).
    public static func segments(of playlist: MediaPlaylist) -> [LiveSegment]? {
        var segments: [LiveSegment] = []
        var next: ExactDecimal?
        for segment in playlist.segments {
            guard let start = segment.programDateTime.flatMap({ DateTime($0)?.secondsSinceEpoch }) ?? next else { return nil }
            segments.append(
                LiveSegment(
                    sequence: segment.mediaSequenceNumber,
                    discontinuitySequence: segment.discontinuitySequenceNumber,
                    isDiscontinuity: segment.isDiscontinuity,
                    duration: segment.duration,
                    start: start
                )
            )
            next = start + segment.duration
        }
        return segments
    }
}
