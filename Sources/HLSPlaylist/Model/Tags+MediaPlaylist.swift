/// `EXT-X-PLAYLIST-TYPE` (RFC 8216bis §4.4.3.5).
public enum PlaylistType: String, Sendable, Hashable {
    case event = "EVENT"
    case vod = "VOD"
}

/// `EXT-X-PART-INF` (RFC 8216bis §4.4.3.7).
public struct PartInf: AttributeTag {
    public static let tagName = "EXT-X-PART-INF"
    public static let schema: [String: AttributeType] = ["PART-TARGET": .decimalFloatingPoint]
    public var attributes: AttributeList
    public init(attributes: AttributeList) { self.attributes = attributes }

    public var partTarget: ExactDecimal? { self.attributes.decimal("PART-TARGET") }
}

/// `EXT-X-SERVER-CONTROL` (RFC 8216bis §4.4.3.8).
public struct ServerControl: AttributeTag {
    public static let tagName = "EXT-X-SERVER-CONTROL"
    public static let schema: [String: AttributeType] = [
        "CAN-SKIP-UNTIL": .decimalFloatingPoint, "CAN-SKIP-DATERANGES": .enumeratedString,
        "HOLD-BACK": .decimalFloatingPoint, "PART-HOLD-BACK": .decimalFloatingPoint,
        "CAN-BLOCK-RELOAD": .enumeratedString,
    ]
    public var attributes: AttributeList
    public init(attributes: AttributeList) { self.attributes = attributes }

    public var canSkipUntil: ExactDecimal? { self.attributes.decimal("CAN-SKIP-UNTIL") }
    public var canSkipDateRanges: Bool { self.attributes.flag("CAN-SKIP-DATERANGES") ?? false }
    public var holdBack: ExactDecimal? { self.attributes.decimal("HOLD-BACK") }
    public var partHoldBack: ExactDecimal? { self.attributes.decimal("PART-HOLD-BACK") }
    public var canBlockReload: Bool { self.attributes.flag("CAN-BLOCK-RELOAD") ?? false }
}

/// `EXT-X-SKIP` (RFC 8216bis §4.4.5.2): segments a delta update left out.
public struct Skip: AttributeTag {
    public static let tagName = "EXT-X-SKIP"
    public static let schema: [String: AttributeType] = [
        "SKIPPED-SEGMENTS": .decimalInteger, "RECENTLY-REMOVED-DATERANGES": .quotedString,
    ]
    public var attributes: AttributeList
    public init(attributes: AttributeList) { self.attributes = attributes }

    public var skippedSegments: Int? { self.attributes.integer("SKIPPED-SEGMENTS") }
    public var recentlyRemovedDateRanges: [String] {
        self.attributes.string("RECENTLY-REMOVED-DATERANGES").map { $0.split(separator: "\t").map(String.init) } ?? []
    }
}

/// `EXT-X-PRELOAD-HINT` (RFC 8216bis §4.4.5.3).
public struct PreloadHint: AttributeTag {
    public static let tagName = "EXT-X-PRELOAD-HINT"
    public static let schema: [String: AttributeType] = [
        "TYPE": .enumeratedString, "URI": .quotedString,
        "BYTERANGE-START": .decimalInteger, "BYTERANGE-LENGTH": .decimalInteger,
    ]
    public var attributes: AttributeList
    public init(attributes: AttributeList) { self.attributes = attributes }

    /// `PART` or `MAP`.
    public var type: String? { self.attributes.string("TYPE") }
    public var uri: String? { self.attributes.string("URI") }
    public var byteRangeStart: Int { self.attributes.integer("BYTERANGE-START") ?? 0 }
    public var byteRangeLength: Int? { self.attributes.integer("BYTERANGE-LENGTH") }
}

/// `EXT-X-RENDITION-REPORT` (RFC 8216bis §4.4.5.4).
public struct RenditionReport: AttributeTag {
    public static let tagName = "EXT-X-RENDITION-REPORT"
    public static let schema: [String: AttributeType] = [
        "URI": .quotedString, "LAST-MSN": .decimalInteger, "LAST-PART": .decimalInteger,
    ]
    public var attributes: AttributeList
    public init(attributes: AttributeList) { self.attributes = attributes }

    public var uri: String? { self.attributes.string("URI") }
    public var lastMediaSequenceNumber: Int? { self.attributes.integer("LAST-MSN") }
    public var lastPart: Int? { self.attributes.integer("LAST-PART") }
}
