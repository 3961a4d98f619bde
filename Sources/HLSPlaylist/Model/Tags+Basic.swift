/// `EXT-X-START` (RFC 8216bis §4.4.2.2): the preferred point to start playing.
public struct Start: AttributeTag {
    public static let tagName = "EXT-X-START"
    public static let schema: [String: AttributeType] = [
        "TIME-OFFSET": .signedDecimalFloatingPoint, "PRECISE": .enumeratedString,
    ]
    public var attributes: AttributeList
    public init(attributes: AttributeList) { self.attributes = attributes }

    /// Seconds from the start (positive) or from the end (negative) of the playlist.
    public var timeOffset: ExactDecimal? { self.attributes.decimal("TIME-OFFSET") }
    public var isPrecise: Bool { self.attributes.flag("PRECISE") ?? false }
}

/// `EXT-X-DEFINE` (RFC 8216bis §4.4.2.3): a variable for substitution.
public struct Define: AttributeTag {
    public static let tagName = "EXT-X-DEFINE"
    public static let schema: [String: AttributeType] = [
        "NAME": .quotedString, "VALUE": .quotedString, "IMPORT": .quotedString, "QUERYPARAM": .quotedString,
    ]
    public var attributes: AttributeList
    public init(attributes: AttributeList) { self.attributes = attributes }

    /// How the variable gets its value.
    public enum Source: Sendable, Hashable {
        case value(name: String, value: String)
        case importFromMultivariant(name: String)
        case queryParameter(name: String)
    }

    /// The variable's definition, or nil when the tag has none of NAME+VALUE, IMPORT, QUERYPARAM.
    public var source: Source? {
        if let name = self.attributes.string("NAME"), let value = self.attributes.string("VALUE") {
            return .value(name: name, value: value)
        }
        if let name = self.attributes.string("IMPORT") { return .importFromMultivariant(name: name) }
        if let name = self.attributes.string("QUERYPARAM") { return .queryParameter(name: name) }
        return nil
    }

    /// The variable name it defines.
    public var variableName: String? {
        switch self.source {
        case .value(let name, _), .importFromMultivariant(let name), .queryParameter(let name): name
        case nil: nil
        }
    }
}
