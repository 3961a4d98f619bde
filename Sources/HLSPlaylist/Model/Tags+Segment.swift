/// `EXTINF` (RFC 8216bis §4.4.4.1): a media segment's duration and optional title.
public struct Inf: Sendable, Hashable {
    /// The exact duration in seconds.
    public var duration: ExactDecimal
    /// The duration as written (`10.010010`), written back unchanged.
    public var durationText: Substring
    /// The title after the comma; nil when the line has no comma, empty when nothing follows it.
    /// Titles may contain commas: everything after the first one belongs to the title.
    public var title: Substring?

    /// A parsed `EXTINF` keeping its original text.
    public init(duration: ExactDecimal, durationText: Substring, title: Substring?) {
        self.duration = duration
        self.durationText = durationText
        self.title = title
    }

    /// A new `EXTINF`, written with the shortest exact decimal (at least three fractional digits,
    /// which keeps version 3's floating-point form visible to players).
    public init(duration: ExactDecimal, title: Substring? = "") {
        self.init(duration: duration, durationText: Substring(duration.formatted(minimumFractionDigits: 3)), title: title)
    }
}

/// A byte range `LENGTH[@OFFSET]` as written in `EXT-X-BYTERANGE`, `EXT-X-MAP` and `EXT-X-PART`.
public struct ByteRange: Sendable, Hashable, CustomStringConvertible {
    public var length: Int
    /// The offset as written; nil when omitted (which is not the same as `@0`).
    public var offset: Int?

    public init(length: Int, offset: Int?) {
        self.length = length
        self.offset = offset
    }

    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        guard let lengthText = parts.first, Self.isDecimalInteger(lengthText), let length = Int(lengthText) else { return nil }
        var offset: Int?
        if parts.count == 2 {
            guard Self.isDecimalInteger(parts[1]), let value = Int(parts[1]) else { return nil }
            offset = value
        }
        self.init(length: length, offset: offset)
    }

    private static func isDecimalInteger(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 &- 48 < 10 }
    }

    public var description: String {
        self.offset.map { "\(self.length)@\($0)" } ?? "\(self.length)"
    }
}

/// An encryption method of `EXT-X-KEY` / `EXT-X-SESSION-KEY`.
public struct KeyMethod: RawRepresentable, Sendable, Hashable {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let noEncryption = KeyMethod(rawValue: "NONE")
    public static let aes128 = KeyMethod(rawValue: "AES-128")
    public static let sampleAES = KeyMethod(rawValue: "SAMPLE-AES")
    public static let sampleAESCTR = KeyMethod(rawValue: "SAMPLE-AES-CTR")
}

/// `EXT-X-KEY` (RFC 8216bis §4.4.4.4) and `EXT-X-SESSION-KEY` (§4.4.6.5).
public struct Key: AttributeTag {
    public static let tagName = "EXT-X-KEY"
    public static let schema: [String: AttributeType] = [
        "METHOD": .enumeratedString, "URI": .quotedString, "IV": .hexadecimalSequence,
        "KEYFORMAT": .quotedString, "KEYFORMATVERSIONS": .quotedString,
    ]
    public var attributes: AttributeList
    public init(attributes: AttributeList) { self.attributes = attributes }

    public init(method: KeyMethod, uri: String? = nil, iv: String? = nil) {
        var list = AttributeList([Attribute(name: "METHOD", rawValue: method.rawValue)])
        list.setQuoted("URI", uri)
        list.set("IV", rawValue: iv)
        self.init(attributes: list)
    }

    public var method: KeyMethod? { self.attributes.string("METHOD").map(KeyMethod.init(rawValue:)) }
    public var uri: String? { self.attributes.string("URI") }
    /// The IV as written (`0x…`), if explicit.
    public var iv: String? {
        get { self.attributes.string("IV") }
        set { self.attributes.set("IV", rawValue: newValue) }
    }
    /// `KEYFORMAT`, defaulting to `identity` (§4.4.4.4).
    public var keyFormat: String { self.attributes.string("KEYFORMAT") ?? "identity" }
    public var keyFormatVersions: String? { self.attributes.string("KEYFORMATVERSIONS") }
}

extension Array where Element == Key {
    /// The keys in force after an `EXT-X-KEY` tag (RFC 8216bis §4.4.4.4): a key applies until the
    /// next key with the same KEYFORMAT, and METHOD=NONE ends them all.
    public mutating func apply(_ key: Key) {
        if key.method == .noEncryption {
            self.removeAll()
        } else if let same = self.firstIndex(where: { $0.keyFormat == key.keyFormat }) {
            self[same] = key
        } else {
            self.append(key)
        }
    }
}

/// `EXT-X-MAP` (RFC 8216bis §4.4.4.5): the Media Initialization Section of the segments that follow.
public struct Map: AttributeTag {
    public static let tagName = "EXT-X-MAP"
    public static let schema: [String: AttributeType] = ["URI": .quotedString, "BYTERANGE": .quotedString]
    public var attributes: AttributeList
    public init(attributes: AttributeList) { self.attributes = attributes }

    public init(uri: String, byteRange: ByteRange? = nil) {
        var list = AttributeList()
        list.setQuoted("URI", uri)
        list.setQuoted("BYTERANGE", byteRange?.description)
        self.init(attributes: list)
    }

    public var uri: String? { self.attributes.string("URI") }
    public var byteRange: ByteRange? { self.attributes.string("BYTERANGE").flatMap(ByteRange.init) }
}

/// `EXT-X-PART` (RFC 8216bis §4.4.4.9): a partial segment of a low-latency playlist.
public struct Part: AttributeTag {
    public static let tagName = "EXT-X-PART"
    public static let schema: [String: AttributeType] = [
        "URI": .quotedString, "DURATION": .decimalFloatingPoint, "INDEPENDENT": .enumeratedString,
        "BYTERANGE": .quotedString, "GAP": .enumeratedString,
    ]
    public var attributes: AttributeList
    public init(attributes: AttributeList) { self.attributes = attributes }

    public var uri: String? { self.attributes.string("URI") }
    public var duration: ExactDecimal? { self.attributes.decimal("DURATION") }
    public var isIndependent: Bool { self.attributes.flag("INDEPENDENT") ?? false }
    public var byteRange: ByteRange? { self.attributes.string("BYTERANGE").flatMap(ByteRange.init) }
    public var isGap: Bool { self.attributes.flag("GAP") ?? false }
}
