/// Turns one line of text into a ``PlaylistLine``: tag, URI or comment.
enum LineParser {
    /// `line` is the trimmed content, `original` the full line as written.
    static func parse(_ line: Substring, original: Substring, number: Int) throws(PlaylistError) -> PlaylistLine {
        let utf8 = line.utf8
        guard utf8.first == UInt8(ascii: "#") else {
            return PlaylistLine(content: .uri(line), original: original, number: number)
        }
        // The hot path of media playlists: one EXTINF per segment.
        if utf8.starts(with: extinfPrefix) {
            let value = line[line.utf8.index(line.startIndex, offsetBy: extinfPrefix.count)...]
            return PlaylistLine(content: .tag(try self.inf(value, line: number, text: line)), original: original, number: number)
        }
        guard utf8.starts(with: extPrefix) else {
            return PlaylistLine(content: .comment(line), original: original, number: number)
        }
        return PlaylistLine(content: .tag(try self.tag(line, number: number)), original: original, number: number)
    }

    /// The tag of a line starting with `#EXT`.
    static func tag(_ line: Substring, number: Int) throws(PlaylistError) -> Tag {
        let utf8 = line.utf8
        let nameStart = utf8.index(after: utf8.startIndex)
        let colon = utf8.firstIndex(of: UInt8(ascii: ":"))
        let name = line[nameStart..<(colon ?? line.endIndex)]
        let value = colon.map { line[utf8.index(after: $0)...] }
        return try self.tag(name: name, value: value, line: number, text: line)
    }

    static let extinfPrefix = Array("#EXTINF:".utf8)
    static let extPrefix = Array("#EXT".utf8)

    static func malformedInf(line: Int, text: Substring) -> PlaylistError {
        PlaylistError(
            .malformedTag,
            line: line,
            text: text,
            "EXTINF needs a duration in seconds as a decimal number (e.g. 10 or 9.984), then a comma"
        )
    }

    private static func tag(name: Substring, value: Substring?, line: Int, text: Substring) throws(PlaylistError) -> Tag {
        guard let kind = TagKind(rawValue: String(name)) else {
            return .unknown(name: name, value: value)
        }
        switch kind {
        case .m3u: return .m3u
        case .version: return .version(try self.integer(value, kind, line: line, text: text))
        case .independentSegments: return .independentSegments
        case .start: return .start(try AttributeListParser.parse(Start.self, value, line: line, text: text))
        case .define: return .define(try AttributeListParser.parse(Define.self, value, line: line, text: text))
        case .targetDuration: return .targetDuration(try self.integer(value, kind, line: line, text: text))
        case .mediaSequence: return .mediaSequence(try self.integer(value, kind, line: line, text: text))
        case .discontinuitySequence: return .discontinuitySequence(try self.integer(value, kind, line: line, text: text))
        case .endList: return .endList
        case .playlistType:
            guard let type = value.flatMap({ PlaylistType(rawValue: String($0)) }) else {
                throw PlaylistError(.malformedTag, line: line, text: text, "#EXT-X-PLAYLIST-TYPE must be EVENT or VOD")
            }
            return .playlistType(type)
        case .iFramesOnly: return .iFramesOnly
        case .partInf: return .partInf(try AttributeListParser.parse(PartInf.self, value, line: line, text: text))
        case .serverControl: return .serverControl(try AttributeListParser.parse(ServerControl.self, value, line: line, text: text))
        case .inf: return try self.inf(value ?? "", line: line, text: text)
        case .byteRange:
            guard let value, let range = ByteRange(value) else {
                throw PlaylistError(
                    .malformedTag,
                    line: line,
                    text: text,
                    "#EXT-X-BYTERANGE must be LENGTH or LENGTH@OFFSET in decimal bytes"
                )
            }
            return .byteRange(range)
        case .discontinuity: return .discontinuity
        case .key: return .key(try AttributeListParser.parse(Key.self, value, line: line, text: text))
        case .map: return .map(try AttributeListParser.parse(Map.self, value, line: line, text: text))
        case .programDateTime:
            guard let value, !value.isEmpty else {
                throw PlaylistError(.malformedTag, line: line, text: text, "#EXT-X-PROGRAM-DATE-TIME needs an ISO 8601 date-time")
            }
            return .programDateTime(value)
        case .gap: return .gap
        case .bitrate: return .bitrate(try self.integer(value, kind, line: line, text: text))
        case .part: return .part(try AttributeListParser.parse(Part.self, value, line: line, text: text))
        case .dateRange: return .dateRange(try AttributeListParser.parse(DateRange.self, value, line: line, text: text))
        case .skip: return .skip(try AttributeListParser.parse(Skip.self, value, line: line, text: text))
        case .preloadHint: return .preloadHint(try AttributeListParser.parse(PreloadHint.self, value, line: line, text: text))
        case .renditionReport:
            return .renditionReport(try AttributeListParser.parse(RenditionReport.self, value, line: line, text: text))
        case .media: return .media(try AttributeListParser.parse(Media.self, value, line: line, text: text))
        case .streamInf: return .streamInf(try AttributeListParser.parse(StreamInf.self, value, line: line, text: text))
        case .iFrameStreamInf:
            return .iFrameStreamInf(try AttributeListParser.parse(IFrameStreamInf.self, value, line: line, text: text))
        case .sessionData: return .sessionData(try AttributeListParser.parse(SessionData.self, value, line: line, text: text))
        case .sessionKey: return .sessionKey(try AttributeListParser.parse(Key.self, value, line: line, text: text))
        case .contentSteering:
            return .contentSteering(try AttributeListParser.parse(ContentSteering.self, value, line: line, text: text))
        case .cueOut: return .cueOut(CueOut(value: value))
        case .cueOutCont: return .cueOutCont(CueOutCont(value: value))
        case .cueIn: return .cueIn
        case .oatclsSCTE35: return .oatclsSCTE35(value ?? "")
        }
    }

    /// `EXTINF:<duration>,[<title>]` — the title is everything after the first comma.
    private static func inf(_ value: Substring, line: Int, text: Substring) throws(PlaylistError) -> Tag {
        let comma = value.utf8.firstIndex(of: UInt8(ascii: ","))
        let durationText = value[..<(comma ?? value.endIndex)]
        guard let duration = ExactDecimal(durationText), duration >= .zero else {
            throw Self.malformedInf(line: line, text: text)
        }
        let title = comma.map { value[value.utf8.index(after: $0)...] }
        return .inf(Inf(duration: duration, durationText: durationText, title: title))
    }

    private static func integer(_ value: Substring?, _ kind: TagKind, line: Int, text: Substring) throws(PlaylistError) -> Int {
        guard let value, !value.isEmpty, value.utf8.allSatisfy({ $0 &- 48 < 10 }), let number = Int(value) else {
            throw PlaylistError(.malformedTag, line: line, text: text, "#\(kind.rawValue) needs a decimal-integer value")
        }
        return number
    }
}

/// The tag names AdStitch parses into typed values.
enum TagKind: String {
    case m3u = "EXTM3U"
    case version = "EXT-X-VERSION"
    case independentSegments = "EXT-X-INDEPENDENT-SEGMENTS"
    case start = "EXT-X-START"
    case define = "EXT-X-DEFINE"
    case targetDuration = "EXT-X-TARGETDURATION"
    case mediaSequence = "EXT-X-MEDIA-SEQUENCE"
    case discontinuitySequence = "EXT-X-DISCONTINUITY-SEQUENCE"
    case endList = "EXT-X-ENDLIST"
    case playlistType = "EXT-X-PLAYLIST-TYPE"
    case iFramesOnly = "EXT-X-I-FRAMES-ONLY"
    case partInf = "EXT-X-PART-INF"
    case serverControl = "EXT-X-SERVER-CONTROL"
    case inf = "EXTINF"
    case byteRange = "EXT-X-BYTERANGE"
    case discontinuity = "EXT-X-DISCONTINUITY"
    case key = "EXT-X-KEY"
    case map = "EXT-X-MAP"
    case programDateTime = "EXT-X-PROGRAM-DATE-TIME"
    case gap = "EXT-X-GAP"
    case bitrate = "EXT-X-BITRATE"
    case part = "EXT-X-PART"
    case dateRange = "EXT-X-DATERANGE"
    case skip = "EXT-X-SKIP"
    case preloadHint = "EXT-X-PRELOAD-HINT"
    case renditionReport = "EXT-X-RENDITION-REPORT"
    case media = "EXT-X-MEDIA"
    case streamInf = "EXT-X-STREAM-INF"
    case iFrameStreamInf = "EXT-X-I-FRAME-STREAM-INF"
    case sessionData = "EXT-X-SESSION-DATA"
    case sessionKey = "EXT-X-SESSION-KEY"
    case contentSteering = "EXT-X-CONTENT-STEERING"
    case cueOut = "EXT-X-CUE-OUT"
    case cueOutCont = "EXT-X-CUE-OUT-CONT"
    case cueIn = "EXT-X-CUE-IN"
    case oatclsSCTE35 = "EXT-OATCLS-SCTE35"
}
