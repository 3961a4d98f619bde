#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A Media Playlist (RFC 8216bis §4.4.3–4.4.5): its text, kept for lossless writing, and the
/// segments, header values and metadata derived from it.
///
/// The playlist is an index over its text: ``lines`` and ``segments`` are made into values as
/// they are read, so parsing a 40,000-segment playlist allocates a handful of arrays rather than
/// a string per line.
public struct MediaPlaylist: Sendable {
    let parsed: ParsedText
    let segmentRecords: [SegmentRecord]
    let byteRanges: [SegmentByteRange]
    let keySets: [[Key]]
    let maps: [Map]
    let parts: [Part]

    /// Where the playlist was loaded from; URIs resolve against it.
    public let url: URL?
    /// ``url`` up to its last `/`, for the plain relative URIs segment lines hold
    /// (``URIResolution/directory(of:)``); nil when the general resolution is needed.
    let baseDirectory: Substring?

    public let version: Int?
    public let targetDuration: Int?
    /// `EXT-X-MEDIA-SEQUENCE`, 0 when absent.
    public let mediaSequence: Int
    /// `EXT-X-DISCONTINUITY-SEQUENCE`, 0 when absent.
    public let discontinuitySequence: Int
    public let playlistType: PlaylistType?
    public let hasEndList: Bool
    public let isIFramesOnly: Bool
    public let hasIndependentSegments: Bool
    public let start: Start?
    public let partInf: PartInf?
    public let serverControl: ServerControl?
    public let skip: Located<Skip>?
    public let defines: [Located<Define>]
    public let dateRanges: [DateRangeEntry]
    public let preloadHints: [Located<PreloadHint>]
    public let renditionReports: [Located<RenditionReport>]
    /// `EXT-X-PART`s after the last segment: the parts of a parent segment not yet complete.
    public let trailingParts: [Part]
    /// Problems found while deriving the model that do not stop parsing (e.g. an unresolvable
    /// byte range); ``PlaylistLinter`` reports them with its own findings.
    public let parseDiagnostics: [Diagnostic]
    /// The exact total duration.
    public let duration: ExactDecimal
    /// Whether an `EXT-X-KEY` tag appears: without one, no segment has a key in force.
    public var declaresKeys: Bool { self.keySets.count > 1 }

    /// Every non-blank line, in order.
    public var lines: PlaylistLines { PlaylistLines(parsed: self.parsed) }
    /// The media segments, in order.
    public var segments: MediaSegments { MediaSegments(playlist: self) }
    /// Each segment's start time (``MediaSegment/startTime``), without making segments into values.
    public var segmentStartTimes: some RandomAccessCollection<ExactDecimal> { self.segmentRecords.lazy.map(\.startTime) }
    /// Each segment's duration (``MediaSegment/duration``), without making segments into values.
    public var segmentDurations: some RandomAccessCollection<ExactDecimal> { self.segmentRecords.lazy.map(\.duration) }
    /// Each segment's start time, then the playlist's end: where it can be cut. Built here, where
    /// the loop is specialised — through the opaque ``segmentStartTimes`` another module pays a
    /// generic call per segment.
    public var segmentBoundaries: [ExactDecimal] {
        var times: [ExactDecimal] = []
        times.reserveCapacity(self.segmentRecords.count + 1)
        for record in self.segmentRecords { times.append(record.startTime) }
        times.append(self.duration)
        return times
    }
    /// The longest segment's duration rounded to the nearest whole second: what
    /// `EXT-X-TARGETDURATION` must be at least (RFC 8216bis §4.4.3.1); 0 without segments.
    public var longestRoundedSegmentDuration: Int {
        var longest = 0
        for record in self.segmentRecords { longest = max(longest, record.duration.roundedToInteger) }
        return longest
    }
    /// The text after normalisation (BOM stripped, LF line endings), as the lines index it.
    public var text: String { self.parsed.text }
    /// What parsing changed in the text (BOM, line endings, blank lines).
    public var source: SourceNotes { self.parsed.source }

    /// Builds a playlist from lines — parsed ones, edited ones or new ones. Untouched lines keep
    /// their text; the result is parsed again, so it is checked like any playlist.
    public init(lines: some Sequence<PlaylistLine>, url: URL? = nil) throws(PlaylistError) {
        let text = PlaylistWriter().write(lines: lines)
        let parsed = try ParsedText.parse(text)
        guard parsed.firstMultivariantTagLine == 0 else {
            throw PlaylistError(
                .unexpectedPlaylistType,
                line: parsed.firstMultivariantTagLine,
                text: "",
                "a media playlist cannot hold multivariant tags"
            )
        }
        try self.init(parsed: parsed, url: url)
    }

    init(parsed: ParsedText, url: URL?) throws(PlaylistError) {
        var builder = Builder(parsed: parsed)
        try builder.build()
        self.parsed = parsed
        self.url = url
        self.baseDirectory = url.flatMap(URIResolution.directory(of:))
        self.segmentRecords = builder.segments
        self.byteRanges = builder.byteRanges
        self.keySets = builder.keySets
        self.maps = builder.maps
        self.parts = builder.parts
        self.version = builder.version
        self.targetDuration = builder.targetDuration
        self.mediaSequence = builder.mediaSequence ?? 0
        self.discontinuitySequence = builder.discontinuitySequence ?? 0
        self.playlistType = builder.playlistType
        self.hasEndList = builder.hasEndList
        self.isIFramesOnly = builder.isIFramesOnly
        self.hasIndependentSegments = builder.hasIndependentSegments
        self.start = builder.start
        self.partInf = builder.partInf
        self.serverControl = builder.serverControl
        self.skip = builder.skip
        self.defines = builder.defines
        self.dateRanges = builder.dateRanges
        self.preloadHints = builder.preloadHints
        self.renditionReports = builder.renditionReports
        self.trailingParts = Array(builder.parts[builder.pendingPartsStart...])
        self.parseDiagnostics = builder.diagnostics
        self.duration = builder.elapsed
    }

    /// The playlist cut to the segments `range` (a stretch of one programme asset that AdStitch
    /// plays as a virtual island: docs/campaign-format.md "One programme asset"): the same lines and tables, those segments only,
    /// each keeping its key, map, byte range and media sequence number; the duration theirs.
    public func segments(_ range: Range<Int>) -> MediaPlaylist {
        MediaPlaylist(slicing: self, range.clamped(to: 0..<self.segmentRecords.count))
    }

    private init(slicing source: MediaPlaylist, _ range: Range<Int>) {
        self.parsed = source.parsed
        self.url = source.url
        self.baseDirectory = source.baseDirectory
        self.segmentRecords = Array(source.segmentRecords[range])
        self.byteRanges = source.byteRanges
        self.keySets = source.keySets
        self.maps = source.maps
        self.parts = source.parts
        self.version = source.version
        self.targetDuration = source.targetDuration
        // A segment's number is the playlist's media sequence plus its position (§6.3.2): the
        // slice starts later, so that its segments keep theirs (implicit IVs depend on them).
        self.mediaSequence = source.mediaSequence + range.lowerBound
        self.discontinuitySequence = source.discontinuitySequence
        self.playlistType = source.playlistType
        self.hasEndList = source.hasEndList
        self.isIFramesOnly = source.isIFramesOnly
        self.hasIndependentSegments = source.hasIndependentSegments
        self.start = nil
        self.partInf = source.partInf
        self.serverControl = source.serverControl
        self.skip = source.skip
        self.defines = source.defines
        self.dateRanges = source.dateRanges
        self.preloadHints = []
        self.renditionReports = []
        self.trailingParts = []
        self.parseDiagnostics = source.parseDiagnostics
        self.duration = self.segmentRecords.reduce(.zero) { $0 + $1.duration }
    }

    /// The absolute URI of a URI written in this playlist on an http(s) origin, appended to
    /// `text` (a rendered block) as text when it is a plain relative one (`segment_12.ts`;
    /// ``URIResolution/plainText(_:directory:)``): what ``resolve(_:)``'s `absoluteString` would
    /// be, without making a URL. False, `text` unchanged, otherwise.
    public func appendResolvedText(_ uri: Substring, to text: inout String) -> Bool {
        guard let directory = self.baseDirectory else { return false }
        return URIResolution.appendPlainText(uri, directory: directory, to: &text)
    }

    /// The absolute URL of a URI written in this playlist.
    public func resolve(_ uri: some StringProtocol) -> URL? {
        URIResolution.resolve(String(uri), against: self.url, directory: self.baseDirectory)
    }
}

/// A segment as the index keeps it: offsets and table indices only (no references).
struct SegmentRecord: Sendable {
    var duration: ExactDecimal
    var startTime: ExactDecimal
    var discontinuitySequenceNumber: Int
    /// Indices into the line records.
    var firstLine: Int32
    var infLine: Int32
    var uriLine: Int32
    /// Indices into the playlist's tables; -1 for none.
    var byteRange: Int32
    var keySet: Int32
    var map: Int32
    var programDateTimeLine: Int32
    var bitrate: Int
    var partsStart: Int32
    var partsEnd: Int32
    var isDiscontinuity: Bool
    var isGap: Bool
}

extension MediaPlaylist {
    /// Walks the lines once, keeping what is in force (key, map, bitrate) and what is pending
    /// for the next segment (RFC 8216bis §4.4.4: segment tags apply to the next URI).
    fileprivate struct Builder {
        let parsed: ParsedText
        var segments: [SegmentRecord] = []
        var byteRanges: [SegmentByteRange] = []
        var keySets: [[Key]] = [[]]
        var maps: [Map] = []
        var parts: [Part] = []
        var diagnostics: [Diagnostic] = []
        var version: Int?
        var targetDuration: Int?
        var mediaSequence: Int?
        var discontinuitySequence: Int?
        var playlistType: PlaylistType?
        var hasEndList = false
        var isIFramesOnly = false
        var hasIndependentSegments = false
        var start: Start?
        var partInf: PartInf?
        var serverControl: ServerControl?
        var skip: Located<Skip>?
        var defines: [Located<Define>] = []
        var dateRanges: [DateRangeEntry] = []
        var preloadHints: [Located<PreloadHint>] = []
        var renditionReports: [Located<RenditionReport>] = []

        // In force until replaced: indices into keySets and maps, the bitrate.
        var keySet: Int32 = 0
        var map: Int32 = -1
        var bitrate = -1
        // Pending for the next segment.
        var pendingInf: Int?
        var pendingDiscontinuity = false
        var pendingByteRange: (range: ByteRange, index: Int)?
        var pendingProgramDateTime: Int32 = -1
        var pendingGap = false
        var pendingPartsStart = 0
        var firstLineOfNextSegment = 0
        var discontinuityCount = 0
        var elapsed = ExactDecimal.zero
        // The previous segment's URI line and the end of its sub-range, for implicit offsets.
        var previousRange: (uriLine: Int, end: Int?)?

        init(parsed: ParsedText) {
            self.parsed = parsed
        }

        mutating func build() throws(PlaylistError) {
            self.segments.reserveCapacity(self.parsed.durations.count)
            for (index, record) in self.parsed.records.enumerated() {
                switch record.kind {
                case .comment: continue
                case .inf:
                    if let pending = self.pendingInf {
                        throw PlaylistError(
                            .segmentWithoutURI,
                            line: Int(self.parsed.records[pending].number),
                            text: self.parsed.original(at: pending),
                            "this EXTINF is followed by another EXTINF (line \(record.number)) instead of its segment URI"
                        )
                    }
                    self.pendingInf = index
                case .uri: try self.addSegment(uriLine: index)
                case .tag: self.add(self.parsed.tags[Int(record.payload)], line: Int(record.number), index: index)
                }
            }
            if let pending = self.pendingInf {
                throw PlaylistError(
                    .segmentWithoutURI,
                    line: Int(self.parsed.records[pending].number),
                    text: self.parsed.original(at: pending),
                    "this EXTINF has no segment URI after it; add the URI line or remove the tag"
                )
            }
            try self.checkMediaSequenceNumbers()
        }

        /// ``MediaSegments`` computes media sequence numbers as segments are read; make sure the
        /// last one fits in an `Int`. RFC 8216bis §4.2 allows decimal-integers up to 2⁶⁴−1, so
        /// `EXT-X-MEDIA-SEQUENCE` plus `SKIPPED-SEGMENTS` plus the position can overflow.
        private func checkMediaSequenceNumbers() throws(PlaylistError) {
            guard !self.segments.isEmpty else { return }
            let (base, skipOverflow) = (self.mediaSequence ?? 0).addingReportingOverflow(self.skip?.value.skippedSegments ?? 0)
            let (_, overflow) = base.addingReportingOverflow(self.segments.count - 1)
            guard skipOverflow || overflow else { return }
            let first = skipOverflow ? 0 : Int.max - base + 1
            let uriLine = Int(self.segments[first].uriLine)
            throw PlaylistError(
                .malformedTag,
                line: Int(self.parsed.records[uriLine].number),
                text: self.parsed.original(at: uriLine),
                "this segment's media sequence number (EXT-X-MEDIA-SEQUENCE plus SKIPPED-SEGMENTS plus its position) "
                    + "exceeds \(Int.max); lower EXT-X-MEDIA-SEQUENCE"
            )
        }

        private mutating func add(_ tag: Tag, line: Int, index: Int) {
            switch tag {
            case .version(let value): self.version = self.version ?? value
            case .targetDuration(let value): self.targetDuration = self.targetDuration ?? value
            case .mediaSequence(let value): self.mediaSequence = self.mediaSequence ?? value
            case .discontinuitySequence(let value): self.discontinuitySequence = self.discontinuitySequence ?? value
            case .playlistType(let value): self.playlistType = self.playlistType ?? value
            case .endList: self.hasEndList = true
            case .iFramesOnly: self.isIFramesOnly = true
            case .independentSegments: self.hasIndependentSegments = true
            case .start(let value): self.start = self.start ?? value
            case .partInf(let value): self.partInf = self.partInf ?? value
            case .serverControl(let value): self.serverControl = self.serverControl ?? value
            case .skip(let value): self.skip = self.skip ?? Located(value, line: line)
            case .define(let value): self.defines.append(Located(value, line: line))
            case .byteRange(let range): self.pendingByteRange = (range, index)
            case .discontinuity: self.pendingDiscontinuity = true
            case .programDateTime: self.pendingProgramDateTime = Int32(index)
            case .gap: self.pendingGap = true
            case .bitrate(let value): self.bitrate = value
            case .part(let part): self.parts.append(part)
            case .map(let value):
                self.map = Int32(self.maps.count)
                self.maps.append(value)
            case .key(let key):
                var keys = self.keySets[Int(self.keySet)]
                keys.apply(key)
                self.keySet = Int32(self.keySets.count)
                self.keySets.append(keys)
            case .dateRange(let value):
                self.dateRanges.append(DateRangeEntry(dateRange: value, line: line, segmentIndex: self.segments.count))
            case .preloadHint(let value): self.preloadHints.append(Located(value, line: line))
            case .renditionReport(let value): self.renditionReports.append(Located(value, line: line))
            case .inf, .m3u, .cueOut, .cueOutCont, .cueIn, .oatclsSCTE35, .unknown:
                return
            case .media, .streamInf, .iFrameStreamInf, .sessionData, .sessionKey, .contentSteering:
                return  // excluded by the parser's kind check
            }
        }

        private mutating func addSegment(uriLine index: Int) throws(PlaylistError) {
            let record = self.parsed.records[index]
            guard let infLine = self.pendingInf else {
                throw PlaylistError(
                    .unexpectedURI,
                    line: Int(record.number),
                    text: self.parsed.original(at: index),
                    "a segment URI must follow its #EXTINF (RFC 8216bis §4.4.4.1: EXTINF is required for each segment)"
                )
            }
            let duration = self.parsed.durations[Int(self.parsed.records[infLine].payload)]
            if self.pendingDiscontinuity { self.discontinuityCount += 1 }
            // A duration can reach 10¹⁹ s and a discontinuity sequence 2⁶³−1: absurd, but text
            // must never make the parser trap, so overflowing sums are errors.
            let (elapsed, durationOverflow) = self.elapsed.scaledValue.addingReportingOverflow(duration.scaledValue)
            guard !durationOverflow else {
                throw PlaylistError(
                    .malformedTag,
                    line: Int(self.parsed.records[infLine].number),
                    text: self.parsed.original(at: infLine),
                    "the playlist's total duration exceeds what AdStitch can hold exactly (about 1.7 × 10²⁰ s); "
                        + "this EXTINF duration cannot be right"
                )
            }
            let (discontinuitySequenceNumber, discontinuityOverflow) =
                (self.discontinuitySequence ?? 0).addingReportingOverflow(self.discontinuityCount)
            guard !discontinuityOverflow else {
                throw PlaylistError(
                    .malformedTag,
                    line: Int(record.number),
                    text: self.parsed.original(at: index),
                    "this segment's discontinuity sequence number (EXT-X-DISCONTINUITY-SEQUENCE plus the discontinuities "
                        + "before it) exceeds \(Int.max); lower EXT-X-DISCONTINUITY-SEQUENCE"
                )
            }
            var byteRange: Int32 = -1
            if let pending = self.pendingByteRange {
                let resolved = self.resolve(pending.range, uriLine: index, tagIndex: pending.index)
                var end: Int?
                if let offset = resolved.offset {
                    // Both numbers can be up to Int.max; their sum must not trap.
                    let (sum, overflow) = offset.addingReportingOverflow(pending.range.length)
                    guard !overflow else {
                        throw PlaylistError(
                            .malformedTag,
                            line: resolved.lineNumber,
                            text: self.parsed.original(at: pending.index),
                            "the byte range ends beyond \(Int.max) bytes; check LENGTH and OFFSET"
                        )
                    }
                    end = sum
                }
                byteRange = Int32(self.byteRanges.count)
                self.byteRanges.append(resolved)
                self.previousRange = (index, end)
            } else {
                self.previousRange = nil
            }
            self.segments.append(
                SegmentRecord(
                    duration: duration,
                    startTime: self.elapsed,
                    discontinuitySequenceNumber: discontinuitySequenceNumber,
                    firstLine: Int32(self.firstLineOfNextSegment),
                    infLine: Int32(infLine),
                    uriLine: Int32(index),
                    byteRange: byteRange,
                    keySet: self.keySet,
                    map: self.map,
                    programDateTimeLine: self.pendingProgramDateTime,
                    bitrate: byteRange < 0 ? self.bitrate : -1,  // §4.4.4.8: BITRATE skips segments with a byte range
                    partsStart: Int32(self.pendingPartsStart),
                    partsEnd: Int32(self.parts.count),
                    isDiscontinuity: self.pendingDiscontinuity,
                    isGap: self.pendingGap
                )
            )
            self.elapsed = ExactDecimal(scaledValue: elapsed)
            self.pendingInf = nil
            self.pendingDiscontinuity = false
            self.pendingByteRange = nil
            self.pendingProgramDateTime = -1
            self.pendingGap = false
            self.pendingPartsStart = self.parts.count
            self.firstLineOfNextSegment = index + 1
        }

        /// RFC 8216bis §4.4.4.2: without an offset, the range starts after the previous
        /// segment's, which must be a sub-range of the same resource.
        private mutating func resolve(_ range: ByteRange, uriLine: Int, tagIndex: Int) -> SegmentByteRange {
            let line = Int(self.parsed.records[tagIndex].number)
            if let offset = range.offset {
                return SegmentByteRange(length: range.length, offset: offset, isOffsetExplicit: true, lineNumber: line, lineIndex: tagIndex)
            }
            var offset: Int?
            switch self.previousRange {
            case let (previousURI, end)? where self.parsed.contentsEqual(previousURI, uriLine):
                offset = end
            case let (previousURI, _)?:
                self.diagnostics.append(
                    .error(
                        "byterange-offset",
                        line: line,
                        "EXT-X-BYTERANGE omits its offset, but the previous segment is a range of another resource "
                            + "(\(self.parsed.content(at: previousURI))); write the offset explicitly (LENGTH@OFFSET)"
                    )
                )
            case nil where !self.segments.isEmpty:
                self.diagnostics.append(
                    .error(
                        "byterange-offset",
                        line: line,
                        "EXT-X-BYTERANGE omits its offset, but the previous segment is a whole resource, not a range; "
                            + "write the offset explicitly (LENGTH@OFFSET)"
                    )
                )
            case nil:
                self.diagnostics.append(
                    .error(
                        "byterange-offset",
                        line: line,
                        "EXT-X-BYTERANGE omits its offset, but there is no prior range to continue; "
                            + "write the offset explicitly (LENGTH@OFFSET, e.g. @0)"
                    )
                )
            }
            return SegmentByteRange(length: range.length, offset: offset, isOffsetExplicit: false, lineNumber: line, lineIndex: tagIndex)
        }
    }
}
