/// A media segment with everything that applies to it (RFC 8216bis §4.4.4): its own tags and
/// the ones in force from earlier lines (key, map, bitrate), and where it sits on the timeline.
public struct MediaSegment: Sendable, Hashable {
    /// The URI as written (variables unresolved until ``MediaPlaylist/resolvingVariables(importingFrom:playlistURL:)``).
    public var uri: Substring
    /// The `EXTINF` duration, exact.
    public var duration: ExactDecimal
    /// The `EXTINF` duration as written.
    public var durationText: Substring
    /// The `EXTINF` title; nil when the line has no comma.
    public var title: Substring?
    /// The segment's sub-range, with its absolute offset resolved; nil for a whole resource.
    public var byteRange: SegmentByteRange?
    /// Preceded by `EXT-X-DISCONTINUITY`.
    public var isDiscontinuity = false
    /// The `EXT-X-KEY`s in force, one per KEYFORMAT; empty when the segment is clear.
    public var keys: [Key] = []
    /// The `EXT-X-MAP` in force.
    public var map: Map?
    /// `EXT-X-PROGRAM-DATE-TIME` as written, when one is applied to this segment.
    public var programDateTime: Substring?
    /// Marked `EXT-X-GAP`.
    public var isGap = false
    /// `EXT-X-BITRATE` in force (kbit/s); it skips segments with a byte range (§4.4.4.8).
    public var bitrate: Int?
    /// The `EXT-X-PART`s of this parent segment.
    public var parts: [Part] = []
    /// Seconds from the start of the playlist: the exact sum of the durations before it.
    public var startTime: ExactDecimal = .zero
    /// The media sequence number (§4.4.3.2).
    public var mediaSequenceNumber = 0
    /// The discontinuity sequence number (§4.4.3.3).
    public var discontinuitySequenceNumber = 0
    /// The line number of the `EXTINF`.
    public var infLineNumber = 0
    /// The line number of the URI.
    public var uriLineNumber = 0
    /// Indices into ``MediaPlaylist/lines`` of every line after the previous segment's URI up to and including this URI.
    public var lineIndices: Range<Int> = 0..<0

    public init(uri: Substring, duration: ExactDecimal, durationText: Substring, title: Substring? = nil) {
        self.uri = uri
        self.duration = duration
        self.durationText = durationText
        self.title = title
    }

    /// The end of the segment on the playlist timeline.
    public var endTime: ExactDecimal { self.startTime + self.duration }
}

/// A segment's sub-range of its resource.
public struct SegmentByteRange: Sendable, Hashable {
    public var length: Int
    /// The absolute offset; nil when it was omitted and cannot be resolved (RFC 8216bis §4.4.4.2:
    /// the previous segment must be a sub-range of the same resource) — the linter reports it.
    public var offset: Int?
    /// Whether the playlist wrote the offset (`@0` is explicit; an omitted one continues the previous range).
    public var isOffsetExplicit: Bool
    /// The line number of the `EXT-X-BYTERANGE` tag.
    public var lineNumber: Int
    /// The index in ``MediaPlaylist/lines`` of the `EXT-X-BYTERANGE` tag.
    public var lineIndex: Int
}

/// A value parsed from a line, with the line's number.
public struct Located<Value: Sendable & Hashable>: Sendable, Hashable {
    public var value: Value
    /// The 1-based line number.
    public var line: Int

    public init(_ value: Value, line: Int) {
        self.value = value
        self.line = line
    }
}

/// An `EXT-X-DATERANGE` and where it stands among the segments.
public struct DateRangeEntry: Sendable, Hashable {
    public var dateRange: DateRange
    public var line: Int
    /// The index of the first segment after the tag (`segments.count` when it follows the last one).
    public var segmentIndex: Int
}

/// The lines of a segment in force without a key or map, read from a playlist's index without
/// making a ``MediaSegment`` (``MediaPlaylist/plainSegment(at:)``): what writing its lines again
/// needs.
public struct PlainSegment: Sendable {
    public let uri: Substring
    public let duration: ExactDecimal
    public let durationText: Substring
    public let title: Substring?
    public let byteRange: SegmentByteRange?
    public let isGap: Bool

    /// The lines `segment` writes.
    public init(_ segment: MediaSegment) {
        self.uri = segment.uri
        self.duration = segment.duration
        self.durationText = segment.durationText
        self.title = segment.title
        self.byteRange = segment.byteRange
        self.isGap = segment.isGap
    }

    init(uri: Substring, duration: ExactDecimal, durationText: Substring, title: Substring?, byteRange: SegmentByteRange?, isGap: Bool) {
        self.uri = uri
        self.duration = duration
        self.durationText = durationText
        self.title = title
        self.byteRange = byteRange
        self.isGap = isGap
    }
}

extension MediaPlaylist {
    /// Segment `position`'s lines when no `EXT-X-KEY` and no `EXT-X-MAP` is in force at it; nil
    /// otherwise (read ``segments`` for those).
    public func plainSegment(at position: Int) -> PlainSegment? {
        let record = self.segmentRecords[position]
        guard record.map < 0, self.keySets[Int(record.keySet)].isEmpty else { return nil }
        let inf = self.parsed.inf(at: Int(record.infLine))
        return PlainSegment(
            uri: self.parsed.content(at: Int(record.uriLine)),
            duration: record.duration,
            durationText: inf.durationText,
            title: inf.title,
            byteRange: record.byteRange >= 0 ? self.byteRanges[Int(record.byteRange)] : nil,
            isGap: record.isGap
        )
    }
}
