/// The value type RFC 8216bis §4.2 gives an attribute.
public enum AttributeType: Sendable, Hashable {
    case decimalInteger
    case hexadecimalSequence
    case decimalFloatingPoint
    case signedDecimalFloatingPoint
    case quotedString
    case enumeratedString
    case decimalResolution
    /// `CLOSED-CAPTIONS`: a quoted-string or the enumerated `NONE`.
    case quotedStringOrNone

    /// Whether `raw` (the value as written) is of this type.
    func accepts(_ raw: Substring) -> Bool {
        let bytes = raw.utf8
        switch self {
        case .decimalInteger:
            // §4.2 allows up to 2⁶⁴−1; AdStitch holds values as Int, so it accepts up to Int.max
            // (no real BANDWIDTH, sequence number or byte offset comes near).
            return !bytes.isEmpty && bytes.count <= 20 && bytes.allSatisfy { $0 &- 48 < 10 } && Int(raw) != nil
        case .hexadecimalSequence:
            guard bytes.count > 2, raw.hasPrefix("0x") || raw.hasPrefix("0X") else { return false }
            return raw.utf8.dropFirst(2).allSatisfy { $0.isHexDigit }
        case .decimalFloatingPoint:
            return bytes.first != UInt8(ascii: "-") && ExactDecimal(raw) != nil
        case .signedDecimalFloatingPoint:
            return ExactDecimal(raw) != nil
        case .quotedString:
            return bytes.count >= 2 && bytes.first == UInt8(ascii: "\"") && bytes.last == UInt8(ascii: "\"")
        case .enumeratedString:
            return !bytes.isEmpty && !bytes.contains(UInt8(ascii: "\"")) && !bytes.contains(UInt8(ascii: " "))
        case .decimalResolution:
            return Resolution(raw) != nil
        case .quotedStringOrNone:
            return raw == "NONE" || AttributeType.quotedString.accepts(raw)
        }
    }

    var name: String {
        switch self {
        case .decimalInteger: "a decimal-integer (at most 9223372036854775807)"
        case .hexadecimalSequence: "a hexadecimal-sequence (0x…)"
        case .decimalFloatingPoint: "a decimal-floating-point number"
        case .signedDecimalFloatingPoint: "a signed-decimal-floating-point number"
        case .quotedString: "a quoted-string"
        case .enumeratedString: "an enumerated-string"
        case .decimalResolution: "a decimal-resolution (WIDTHxHEIGHT)"
        case .quotedStringOrNone: "a quoted-string or NONE"
        }
    }
}

extension UInt8 {
    var isHexDigit: Bool {
        (self &- 48 < 10) || (self | 0x20) &- 97 < 6
    }
}

/// A tag whose value is an attribute list: the list is the truth, typed properties read and
/// write it, so an untouched tag serialises exactly as it was written.
public protocol AttributeTag: Sendable, Hashable {
    /// The tag name without the leading `#`, e.g. `EXT-X-KEY`.
    static var tagName: String { get }
    /// The types of the attributes the spec defines for this tag; others are kept untyped.
    static var schema: [String: AttributeType] { get }
    var attributes: AttributeList { get set }
    init(attributes: AttributeList)
}

extension AttributeTag {
    /// The type an attribute must have: from the schema, or for `X-` attributes of
    /// client-defined tags, whatever it looks like.
    static func type(of name: String) -> AttributeType? {
        self.schema[name]
    }
}
