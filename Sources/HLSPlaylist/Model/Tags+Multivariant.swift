/// The `TYPE` of an `EXT-X-MEDIA` rendition.
public enum MediaType: String, Sendable, Hashable {
    case audio = "AUDIO"
    case video = "VIDEO"
    case subtitles = "SUBTITLES"
    case closedCaptions = "CLOSED-CAPTIONS"
}

/// `EXT-X-MEDIA` (RFC 8216bis §4.4.6.1): an alternative rendition.
public struct Media: AttributeTag {
    public static let tagName = "EXT-X-MEDIA"
    public static let schema: [String: AttributeType] = [
        "TYPE": .enumeratedString, "URI": .quotedString, "GROUP-ID": .quotedString, "LANGUAGE": .quotedString,
        "ASSOC-LANGUAGE": .quotedString, "NAME": .quotedString, "STABLE-RENDITION-ID": .quotedString,
        "DEFAULT": .enumeratedString, "AUTOSELECT": .enumeratedString, "FORCED": .enumeratedString,
        "INSTREAM-ID": .quotedString, "BIT-DEPTH": .decimalInteger, "SAMPLE-RATE": .decimalInteger,
        "CHARACTERISTICS": .quotedString, "CHANNELS": .quotedString,
    ]
    public var attributes: AttributeList
    public init(attributes: AttributeList) { self.attributes = attributes }

    public var type: MediaType? { self.attributes.string("TYPE").flatMap(MediaType.init(rawValue:)) }
    public var uri: String? {
        get { self.attributes.string("URI") }
        set { self.attributes.setQuoted("URI", newValue) }
    }
    public var groupID: String? { self.attributes.string("GROUP-ID") }
    public var language: String? { self.attributes.string("LANGUAGE") }
    public var name: String? { self.attributes.string("NAME") }
    public var isDefault: Bool { self.attributes.flag("DEFAULT") ?? false }
    public var isAutoselect: Bool { self.attributes.flag("AUTOSELECT") ?? false }
    public var isForced: Bool { self.attributes.flag("FORCED") ?? false }
    public var instreamID: String? { self.attributes.string("INSTREAM-ID") }
    public var channels: String? { self.attributes.string("CHANNELS") }
}

/// Attributes shared by `EXT-X-STREAM-INF` and `EXT-X-I-FRAME-STREAM-INF` (RFC 8216bis §4.4.6.2–3).
public protocol VariantAttributes: AttributeTag {}

extension VariantAttributes {
    public var bandwidth: Int? {
        get { self.attributes.integer("BANDWIDTH") }
        set { self.attributes.set("BANDWIDTH", rawValue: newValue.map(String.init)) }
    }
    public var averageBandwidth: Int? {
        get { self.attributes.integer("AVERAGE-BANDWIDTH") }
        set { self.attributes.set("AVERAGE-BANDWIDTH", rawValue: newValue.map(String.init)) }
    }
    /// The `CODECS` list, split at commas; set to an empty list, the attribute is removed.
    public var codecs: [String] {
        get { self.attributes.string("CODECS").map { $0.split(separator: ",").map { $0.trimmingSpaces() } } ?? [] }
        set { self.attributes.setQuoted("CODECS", newValue.isEmpty ? nil : newValue.joined(separator: ",")) }
    }
    public var resolution: Resolution? { self.attributes.resolution("RESOLUTION") }
    /// An audio-only variant: its CODECS lists only audio formats (AAC, AC-3, E-AC-3, AC-4, Opus,
    /// FLAC, ALAC, MP3) and it has no RESOLUTION. Without CODECS, a variant is not known to be one.
    public var isAudioOnly: Bool {
        let codecs = self.codecs
        return !codecs.isEmpty && self.resolution == nil
            && codecs.allSatisfy { codec in
                let family = codec.prefix { $0 != "." }.lowercased()
                return ["mp4a", "ac-3", "ec-3", "ac-4", "opus", "flac", "alac", "mp3"].contains(family)
            }
    }
    /// `HDR10`, `HLG`, `PQ` or `SDR` as written.
    public var videoRange: String? { self.attributes.string("VIDEO-RANGE") }
    /// The VIDEO-RANGE, SDR when absent (RFC 8216bis §4.4.6.2: the attribute defaults to SDR).
    public var range: VideoRange { self.videoRange.map(VideoRange.init(rawValue:)) ?? .sdr }
    public var hdcpLevel: String? { self.attributes.string("HDCP-LEVEL") }
    public var video: String? { self.attributes.string("VIDEO") }
    public var score: ExactDecimal? { self.attributes.decimal("SCORE") }
    public var stableVariantID: String? { self.attributes.string("STABLE-VARIANT-ID") }
    public var pathwayID: String? { self.attributes.string("PATHWAY-ID") }
}

private let sharedVariantSchema: [String: AttributeType] = [
    "BANDWIDTH": .decimalInteger, "AVERAGE-BANDWIDTH": .decimalInteger, "SCORE": .decimalFloatingPoint,
    "CODECS": .quotedString, "SUPPLEMENTAL-CODECS": .quotedString, "RESOLUTION": .decimalResolution,
    "HDCP-LEVEL": .enumeratedString, "ALLOWED-CPC": .quotedString, "VIDEO-RANGE": .enumeratedString,
    "REQ-VIDEO-LAYOUT": .quotedString, "STABLE-VARIANT-ID": .quotedString, "VIDEO": .quotedString,
    "PATHWAY-ID": .quotedString, "PROGRAM-ID": .decimalInteger,
]

/// `EXT-X-STREAM-INF` (RFC 8216bis §4.4.6.2): a variant stream; its URI is the next URI line.
public struct StreamInf: VariantAttributes {
    public static let tagName = "EXT-X-STREAM-INF"
    public static let schema: [String: AttributeType] = sharedVariantSchema.merging([
        "FRAME-RATE": .decimalFloatingPoint, "AUDIO": .quotedString, "SUBTITLES": .quotedString,
        "CLOSED-CAPTIONS": .quotedStringOrNone,
    ]) { $1 }
    public var attributes: AttributeList
    public init(attributes: AttributeList) { self.attributes = attributes }

    /// `FRAME-RATE` exactly (`29.970` stays `29.970` in the attribute text).
    public var frameRate: ExactDecimal? { self.attributes.decimal("FRAME-RATE") }
    public var audio: String? { self.attributes.string("AUDIO") }
    public var subtitles: String? { self.attributes.string("SUBTITLES") }
    /// `CLOSED-CAPTIONS`: a group id, or nil for `NONE` and absent.
    public var closedCaptions: String? {
        self.attributes["CLOSED-CAPTIONS"].flatMap { $0.isQuoted ? String($0.value) : nil }
    }
}

/// `EXT-X-I-FRAME-STREAM-INF` (RFC 8216bis §4.4.6.3): an I-frame-only variant.
public struct IFrameStreamInf: VariantAttributes {
    public static let tagName = "EXT-X-I-FRAME-STREAM-INF"
    public static let schema: [String: AttributeType] = sharedVariantSchema.merging(["URI": .quotedString]) { $1 }
    public var attributes: AttributeList
    public init(attributes: AttributeList) { self.attributes = attributes }

    public var uri: String? {
        get { self.attributes.string("URI") }
        set { self.attributes.setQuoted("URI", newValue) }
    }
}

/// `EXT-X-SESSION-DATA` (RFC 8216bis §4.4.6.4).
public struct SessionData: AttributeTag {
    public static let tagName = "EXT-X-SESSION-DATA"
    public static let schema: [String: AttributeType] = [
        "DATA-ID": .quotedString, "VALUE": .quotedString, "URI": .quotedString, "FORMAT": .enumeratedString,
        "LANGUAGE": .quotedString,
    ]
    public var attributes: AttributeList
    public init(attributes: AttributeList) { self.attributes = attributes }

    public init(dataID: String, uri: String) {
        var list = AttributeList()
        list.setQuoted("DATA-ID", dataID)
        list.setQuoted("URI", uri)
        self.init(attributes: list)
    }

    public var dataID: String? { self.attributes.string("DATA-ID") }
    public var value: String? { self.attributes.string("VALUE") }
    public var uri: String? { self.attributes.string("URI") }
    public var language: String? { self.attributes.string("LANGUAGE") }
}

/// `EXT-X-CONTENT-STEERING` (RFC 8216bis §4.4.6.6).
public struct ContentSteering: AttributeTag {
    public static let tagName = "EXT-X-CONTENT-STEERING"
    public static let schema: [String: AttributeType] = ["SERVER-URI": .quotedString, "PATHWAY-ID": .quotedString]
    public var attributes: AttributeList
    public init(attributes: AttributeList) { self.attributes = attributes }

    public var serverURI: String? { self.attributes.string("SERVER-URI") }
    public var pathwayID: String? { self.attributes.string("PATHWAY-ID") }
}

extension Substring {
    func trimmingSpaces() -> String {
        let utf8 = self.utf8
        guard let first = utf8.firstIndex(where: { $0 != UInt8(ascii: " ") }),
            let last = utf8.lastIndex(where: { $0 != UInt8(ascii: " ") })
        else { return "" }
        return String(self[first...last])
    }
}

/// A variant's `VIDEO-RANGE` (RFC 8216bis §4.4.6.2): what a display must handle to show it.
public struct VideoRange: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let sdr = VideoRange(rawValue: "SDR")
    public static let hlg = VideoRange(rawValue: "HLG")
    public static let pq = VideoRange(rawValue: "PQ")

    public var description: String { self.rawValue }
}
