#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A Media Playlist (RFC 8216bis §4.4.3–4.4.5): its lines, kept for lossless writing, and the
/// segments, header values and metadata derived from them.
public struct MediaPlaylist: Sendable {
    /// Every non-blank line, in order — the truth the rest is derived from.
    public let lines: [PlaylistLine]
    public let segments: [MediaSegment]
    /// Where the playlist was loaded from; URIs resolve against it.
    public let url: URL?
    public let source: SourceNotes

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
    public var duration: ExactDecimal { self.segments.last?.endTime ?? .zero }

    /// Builds the model from lines (parsed, or edited and re-derived).
    public init(lines: [PlaylistLine], url: URL? = nil) throws(PlaylistError) {
        try self.init(lines: lines, url: url, source: SourceNotes())
    }

    init(lines: [PlaylistLine], url: URL?, source: SourceNotes) throws(PlaylistError) {
        var builder = Builder()
        for index in lines.indices {
            try builder.add(lines[index], at: index)
        }
        try builder.finish()
        self.lines = lines
        self.url = url
        self.source = source
        self.segments = builder.segments
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
        self.trailingParts = builder.pendingParts
        self.parseDiagnostics = builder.diagnostics
    }

    /// The absolute URL of a URI written in this playlist.
    public func resolve(_ uri: some StringProtocol) -> URL? {
        URIResolution.resolve(String(uri), against: self.url)
    }
}

extension MediaPlaylist {
    /// Walks the lines once, keeping what is in force (key, map, bitrate) and what is pending
    /// for the next segment (RFC 8216bis §4.4.4: segment tags apply to the next URI).
    fileprivate struct Builder {
        var segments: [MediaSegment] = []
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

        // In force until replaced.
        var keys: [Key] = []
        var map: Map?
        var bitrate: Int?
        // Pending for the next segment.
        var pendingInf: (inf: Inf, line: Int)?
        var pendingDiscontinuity = false
        var pendingByteRange: (range: ByteRange, line: Int, index: Int)?
        var pendingProgramDateTime: Substring?
        var pendingGap = false
        var pendingParts: [Part] = []
        var firstLineIndexOfNextSegment = 0
        var discontinuityCount = 0
        var elapsed = ExactDecimal.zero
        // The previous segment's resource and the end of its sub-range, for implicit offsets.
        var previousRange: (uri: Substring, end: Int?)?
        var hasPreviousSegment = false

        mutating func add(_ line: PlaylistLine, at index: Int) throws(PlaylistError) {
            switch line.content {
            case .comment: return
            case .uri(let uri): try self.addSegment(uri: uri, line: line, index: index)
            case .tag(let tag): try self.add(tag, line: line, index: index)
            }
        }

        private mutating func add(_ tag: Tag, line: PlaylistLine, index: Int) throws(PlaylistError) {
            switch tag {
            case .inf(let inf):
                if let pending = self.pendingInf {
                    throw PlaylistError(
                        .segmentWithoutURI, line: pending.line, text: "#EXTINF:\(pending.inf.durationText)",
                        "this EXTINF is followed by another EXTINF (line \(line.number)) instead of its segment URI")
                }
                self.pendingInf = (inf, line.number)
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
            case .skip(let value): self.skip = self.skip ?? Located(value, line: line.number)
            case .define(let value): self.defines.append(Located(value, line: line.number))
            case .byteRange(let range): self.pendingByteRange = (range, line.number, index)
            case .discontinuity: self.pendingDiscontinuity = true
            case .programDateTime(let text): self.pendingProgramDateTime = text
            case .gap: self.pendingGap = true
            case .bitrate(let value): self.bitrate = value
            case .part(let part): self.pendingParts.append(part)
            case .map(let value): self.map = value
            case .key(let key):
                // §4.4.4.4: a key applies until the next key with the same KEYFORMAT, or METHOD=NONE.
                if key.method == .noEncryption {
                    self.keys.removeAll()
                } else if let same = self.keys.firstIndex(where: { $0.keyFormat == key.keyFormat }) {
                    self.keys[same] = key
                } else {
                    self.keys.append(key)
                }
            case .dateRange(let value):
                self.dateRanges.append(DateRangeEntry(dateRange: value, line: line.number, segmentIndex: self.segments.count))
            case .preloadHint(let value): self.preloadHints.append(Located(value, line: line.number))
            case .renditionReport(let value): self.renditionReports.append(Located(value, line: line.number))
            case .m3u, .cueOut, .cueOutCont, .cueIn, .oatclsSCTE35, .unknown:
                return
            case .media, .streamInf, .iFrameStreamInf, .sessionData, .sessionKey, .contentSteering:
                return  // excluded by the parser's kind check
            }
        }

        private mutating func addSegment(uri: Substring, line: PlaylistLine, index: Int) throws(PlaylistError) {
            guard let (inf, infLine) = self.pendingInf else {
                throw PlaylistError(
                    .unexpectedURI, line: line.number, text: uri,
                    "a segment URI must follow its #EXTINF (RFC 8216bis §4.4.4.1: EXTINF is required for each segment)")
            }
            var segment = MediaSegment(uri: uri, duration: inf.duration, durationText: inf.durationText, title: inf.title)
            segment.isDiscontinuity = self.pendingDiscontinuity
            if self.pendingDiscontinuity { self.discontinuityCount += 1 }
            segment.keys = self.keys
            segment.map = self.map
            segment.programDateTime = self.pendingProgramDateTime
            segment.isGap = self.pendingGap
            segment.parts = self.pendingParts
            segment.startTime = self.elapsed
            segment.mediaSequenceNumber =
                (self.mediaSequence ?? 0) + (self.skip?.value.skippedSegments ?? 0) + self.segments.count
            segment.discontinuitySequenceNumber = (self.discontinuitySequence ?? 0) + self.discontinuityCount
            segment.infLineNumber = infLine
            segment.uriLineNumber = line.number
            segment.lineIndices = self.firstLineIndexOfNextSegment..<(index + 1)
            if let pending = self.pendingByteRange {
                segment.byteRange = self.resolve(pending.range, uri: uri, line: pending.line, index: pending.index)
                self.previousRange = (uri, segment.byteRange?.offset.map { $0 + pending.range.length })
            } else {
                segment.bitrate = self.bitrate
                self.previousRange = nil
            }
            self.hasPreviousSegment = true
            self.elapsed += inf.duration
            self.segments.append(segment)
            self.pendingInf = nil
            self.pendingDiscontinuity = false
            self.pendingByteRange = nil
            self.pendingProgramDateTime = nil
            self.pendingGap = false
            self.pendingParts = []
            self.firstLineIndexOfNextSegment = index + 1
        }

        /// RFC 8216bis §4.4.4.2: without an offset, the range starts after the previous
        /// segment's, which must be a sub-range of the same resource.
        private mutating func resolve(_ range: ByteRange, uri: Substring, line: Int, index: Int) -> SegmentByteRange {
            if let offset = range.offset {
                return SegmentByteRange(length: range.length, offset: offset, isOffsetExplicit: true, lineNumber: line, lineIndex: index)
            }
            var offset: Int?
            switch self.previousRange {
            case let (previousURI, end)? where previousURI == uri:
                offset = end
            case let (previousURI, _)?:
                self.diagnostics.append(
                    .error(
                        "byterange-offset", line: line,
                        "EXT-X-BYTERANGE omits its offset, but the previous segment is a range of another resource "
                            + "(\(previousURI)); write the offset explicitly (LENGTH@OFFSET)"))
            case nil where self.hasPreviousSegment:
                self.diagnostics.append(
                    .error(
                        "byterange-offset", line: line,
                        "EXT-X-BYTERANGE omits its offset, but the previous segment is a whole resource, not a range; "
                            + "write the offset explicitly (LENGTH@OFFSET)"))
            case nil:
                self.diagnostics.append(
                    .error(
                        "byterange-offset", line: line,
                        "EXT-X-BYTERANGE omits its offset, but there is no prior range to continue; "
                            + "write the offset explicitly (LENGTH@OFFSET, e.g. @0)"))
            }
            return SegmentByteRange(length: range.length, offset: offset, isOffsetExplicit: false, lineNumber: line, lineIndex: index)
        }

        mutating func finish() throws(PlaylistError) {
            if let pending = self.pendingInf {
                throw PlaylistError(
                    .segmentWithoutURI, line: pending.line, text: "#EXTINF:\(pending.inf.durationText)",
                    "this EXTINF has no segment URI after it; add the URI line or remove the tag")
            }
        }
    }
}
