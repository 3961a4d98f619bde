/// `EXT-X-DATERANGE` (RFC 8216bis §4.4.5.1): a range of time with attributes, such as an ad
/// break or an HLS Interstitial (`CLASS="com.apple.hls.interstitial"`).
public struct DateRange: AttributeTag {
    public static let tagName = "EXT-X-DATERANGE"
    public static let schema: [String: AttributeType] = [
        "ID": .quotedString, "CLASS": .quotedString, "START-DATE": .quotedString, "CUE": .quotedString,
        "END-DATE": .quotedString, "DURATION": .decimalFloatingPoint, "PLANNED-DURATION": .decimalFloatingPoint,
        "SCTE35-CMD": .hexadecimalSequence, "SCTE35-OUT": .hexadecimalSequence, "SCTE35-IN": .hexadecimalSequence,
        "END-ON-NEXT": .enumeratedString,
        // HLS Interstitials (RFC 8216bis Appendix D).
        "X-ASSET-URI": .quotedString, "X-ASSET-LIST": .quotedString,
        "X-RESUME-OFFSET": .signedDecimalFloatingPoint, "X-PLAYOUT-LIMIT": .decimalFloatingPoint,
        "X-SNAP": .quotedString, "X-RESTRICT": .quotedString, "X-CONTENT-MAY-VARY": .quotedString,
        "X-TIMELINE-OCCUPIES": .quotedString, "X-TIMELINE-STYLE": .quotedString,
        "X-SKIP-CONTROL-OFFSET": .decimalFloatingPoint, "X-SKIP-CONTROL-DURATION": .decimalFloatingPoint,
        "X-SKIP-CONTROL-LABEL-ID": .quotedString,
    ]
    /// The class of HLS Interstitials.
    public static let interstitialClass = "com.apple.hls.interstitial"

    public var attributes: AttributeList
    public init(attributes: AttributeList) { self.attributes = attributes }

    public var id: String? { self.attributes.string("ID") }
    public var dateRangeClass: String? { self.attributes.string("CLASS") }
    /// `START-DATE` as written (ISO 8601).
    public var startDate: String? { self.attributes.string("START-DATE") }
    public var endDate: String? { self.attributes.string("END-DATE") }
    /// `CUE`: `PRE`, `POST`, `ONCE`, comma-separated.
    public var cue: [String] { self.attributes.string("CUE").map { $0.split(separator: ",").map(String.init) } ?? [] }
    public var duration: ExactDecimal? { self.attributes.decimal("DURATION") }
    public var plannedDuration: ExactDecimal? { self.attributes.decimal("PLANNED-DURATION") }
    public var endOnNext: Bool { self.attributes.flag("END-ON-NEXT") ?? false }
    public var isInterstitial: Bool { self.dateRangeClass == Self.interstitialClass }

    /// The client-defined `X-` attributes, in order.
    public var clientAttributes: [Attribute] { self.attributes.attributes.filter { $0.name.hasPrefix("X-") } }

    /// The type a client-defined attribute may have: RFC 8216bis §4.4.5.1 allows a
    /// quoted-string, a hexadecimal-sequence or a signed-decimal-floating-point number.
    static func acceptsClientAttribute(_ raw: Substring) -> Bool {
        AttributeType.quotedString.accepts(raw) || AttributeType.hexadecimalSequence.accepts(raw)
            || AttributeType.signedDecimalFloatingPoint.accepts(raw)
    }
}
