/// A playlist tag with its typed value (RFC 8216bis §4.4, plus the common ad markers).
///
/// Each case is named for its tag without the `EXT-X-` prefix: `.key` is `EXT-X-KEY`, `.inf`
/// is `EXTINF`. Tags AdStitch does not know stay as ``unknown(name:value:)`` and are written
/// back unchanged.
public enum Tag: Sendable, Hashable {
    // Basic tags (§4.4.1) and tags for both playlist types (§4.4.2)
    case m3u
    case version(Int)
    case independentSegments
    case start(Start)
    case define(Define)
    // Media playlist tags (§4.4.3)
    case targetDuration(Int)
    case mediaSequence(Int)
    case discontinuitySequence(Int)
    case endList
    case playlistType(PlaylistType)
    case iFramesOnly
    case partInf(PartInf)
    case serverControl(ServerControl)
    // Media segment tags (§4.4.4)
    case inf(Inf)
    case byteRange(ByteRange)
    case discontinuity
    case key(Key)
    case map(Map)
    /// The date and time as written (ISO 8601, e.g. `2026-11-23T06:00:00.000+01:00`), kept verbatim.
    case programDateTime(Substring)
    case gap
    /// `EXT-X-BITRATE` in kilobits per second.
    case bitrate(Int)
    case part(Part)
    // Media metadata tags (§4.4.5)
    case dateRange(DateRange)
    case skip(Skip)
    case preloadHint(PreloadHint)
    case renditionReport(RenditionReport)
    // Multivariant playlist tags (§4.4.6)
    case media(Media)
    case streamInf(StreamInf)
    case iFrameStreamInf(IFrameStreamInf)
    case sessionData(SessionData)
    case sessionKey(Key)
    case contentSteering(ContentSteering)
    // Common ad markers (not in the RFC; SCTE-35 signalling as many packagers write it)
    case cueOut(CueOut)
    case cueOutCont(CueOutCont)
    case cueIn
    /// `EXT-OATCLS-SCTE35`: a base64 SCTE-35 message, verbatim.
    case oatclsSCTE35(Substring)
    /// Any other `#EXT…` tag: the name without `#` and the value after the first colon.
    case unknown(name: Substring, value: Substring?)

    /// The tag's name without the leading `#`.
    public var name: String {
        switch self {
        case .m3u: "EXTM3U"
        case .version: "EXT-X-VERSION"
        case .independentSegments: "EXT-X-INDEPENDENT-SEGMENTS"
        case .start: Start.tagName
        case .define: Define.tagName
        case .targetDuration: "EXT-X-TARGETDURATION"
        case .mediaSequence: "EXT-X-MEDIA-SEQUENCE"
        case .discontinuitySequence: "EXT-X-DISCONTINUITY-SEQUENCE"
        case .endList: "EXT-X-ENDLIST"
        case .playlistType: "EXT-X-PLAYLIST-TYPE"
        case .iFramesOnly: "EXT-X-I-FRAMES-ONLY"
        case .partInf: PartInf.tagName
        case .serverControl: ServerControl.tagName
        case .inf: "EXTINF"
        case .byteRange: "EXT-X-BYTERANGE"
        case .discontinuity: "EXT-X-DISCONTINUITY"
        case .key: Key.tagName
        case .map: Map.tagName
        case .programDateTime: "EXT-X-PROGRAM-DATE-TIME"
        case .gap: "EXT-X-GAP"
        case .bitrate: "EXT-X-BITRATE"
        case .part: Part.tagName
        case .dateRange: DateRange.tagName
        case .skip: Skip.tagName
        case .preloadHint: PreloadHint.tagName
        case .renditionReport: RenditionReport.tagName
        case .media: Media.tagName
        case .streamInf: StreamInf.tagName
        case .iFrameStreamInf: IFrameStreamInf.tagName
        case .sessionData: SessionData.tagName
        case .sessionKey: "EXT-X-SESSION-KEY"
        case .contentSteering: ContentSteering.tagName
        case .cueOut: "EXT-X-CUE-OUT"
        case .cueOutCont: "EXT-X-CUE-OUT-CONT"
        case .cueIn: "EXT-X-CUE-IN"
        case .oatclsSCTE35: "EXT-OATCLS-SCTE35"
        case .unknown(let name, _): String(name)
        }
    }

    /// The attribute list of an attribute-list tag.
    public var attributes: AttributeList? {
        switch self {
        case .start(let tag): tag.attributes
        case .define(let tag): tag.attributes
        case .partInf(let tag): tag.attributes
        case .serverControl(let tag): tag.attributes
        case .key(let tag), .sessionKey(let tag): tag.attributes
        case .map(let tag): tag.attributes
        case .part(let tag): tag.attributes
        case .dateRange(let tag): tag.attributes
        case .skip(let tag): tag.attributes
        case .preloadHint(let tag): tag.attributes
        case .renditionReport(let tag): tag.attributes
        case .media(let tag): tag.attributes
        case .streamInf(let tag): tag.attributes
        case .iFrameStreamInf(let tag): tag.attributes
        case .sessionData(let tag): tag.attributes
        case .contentSteering(let tag): tag.attributes
        default: nil
        }
    }

    /// The same tag with another attribute list (for attribute-list tags; others unchanged).
    func replacingAttributes(_ list: AttributeList) -> Tag {
        switch self {
        case .start: .start(Start(attributes: list))
        case .define: .define(Define(attributes: list))
        case .partInf: .partInf(PartInf(attributes: list))
        case .serverControl: .serverControl(ServerControl(attributes: list))
        case .key: .key(Key(attributes: list))
        case .sessionKey: .sessionKey(Key(attributes: list))
        case .map: .map(Map(attributes: list))
        case .part: .part(Part(attributes: list))
        case .dateRange: .dateRange(DateRange(attributes: list))
        case .skip: .skip(Skip(attributes: list))
        case .preloadHint: .preloadHint(PreloadHint(attributes: list))
        case .renditionReport: .renditionReport(RenditionReport(attributes: list))
        case .media: .media(Media(attributes: list))
        case .streamInf: .streamInf(StreamInf(attributes: list))
        case .iFrameStreamInf: .iFrameStreamInf(IFrameStreamInf(attributes: list))
        case .sessionData: .sessionData(SessionData(attributes: list))
        case .contentSteering: .contentSteering(ContentSteering(attributes: list))
        default: self
        }
    }

    /// The value after the colon as it is written, or nil for a tag without one.
    public var serializedValue: String? {
        if let list = self.attributes { return list.serialized }
        switch self {
        case .version(let value), .targetDuration(let value), .mediaSequence(let value),
            .discontinuitySequence(let value), .bitrate(let value):
            return String(value)
        case .playlistType(let type): return type.rawValue
        case .inf(let inf): return inf.title.map { "\(inf.durationText),\($0)" } ?? String(inf.durationText)
        case .byteRange(let range): return range.description
        case .programDateTime(let text), .oatclsSCTE35(let text): return String(text)
        case .cueOut(let cue): return cue.value.map(String.init)
        case .cueOutCont(let cue): return cue.value.map(String.init)
        case .unknown(_, let value): return value.map(String.init)
        default: return nil
        }
    }

    /// The whole line: `#NAME` or `#NAME:VALUE`.
    public var serialized: String {
        self.serializedValue.map { "#\(self.name):\($0)" } ?? "#\(self.name)"
    }
}
