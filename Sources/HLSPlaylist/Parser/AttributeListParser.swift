/// Parses and type-checks attribute lists (RFC 8216bis §4.2).
enum AttributeListParser {
    /// Splits `NAME=VALUE,NAME="quoted, value"` into attributes, keeping order and quoting.
    /// Whitespace before a name is tolerated (and kept in the original line text).
    static func parse(_ text: Substring, line: Int) throws(PlaylistError) -> AttributeList {
        var attributes: [Attribute] = []
        let utf8 = text.utf8
        var index = utf8.startIndex
        let end = utf8.endIndex
        while index != end {
            while index != end, utf8[index] == UInt8(ascii: " ") || utf8[index] == UInt8(ascii: "\t") {
                index = utf8.index(after: index)
            }
            let nameStart = index
            while index != end, utf8[index] != UInt8(ascii: "="), utf8[index] != UInt8(ascii: ",") {
                index = utf8.index(after: index)
            }
            let name = text[nameStart..<index]
            guard index != end, utf8[index] == UInt8(ascii: "="), !name.isEmpty else {
                throw PlaylistError(
                    .malformedAttributeList,
                    line: line,
                    text: text,
                    "expected NAME=VALUE pairs separated by commas, found \"\(name)\" without a value"
                )
            }
            index = utf8.index(after: index)  // past "="
            let valueStart = index
            if index != end, utf8[index] == UInt8(ascii: "\"") {
                index = utf8.index(after: index)
                while index != end, utf8[index] != UInt8(ascii: "\"") { index = utf8.index(after: index) }
                guard index != end else {
                    throw PlaylistError(
                        .malformedAttributeList,
                        line: line,
                        text: text,
                        "the quoted value of \(name) has no closing quote"
                    )
                }
                index = utf8.index(after: index)  // past the closing quote
                guard index == end || utf8[index] == UInt8(ascii: ",") else {
                    throw PlaylistError(
                        .malformedAttributeList,
                        line: line,
                        text: text,
                        "expected a comma after the quoted value of \(name)"
                    )
                }
            } else {
                while index != end, utf8[index] != UInt8(ascii: ",") { index = utf8.index(after: index) }
            }
            let value = text[valueStart..<index]
            guard !value.isEmpty else {
                throw PlaylistError(.malformedAttributeList, line: line, text: text, "\(name) has an empty value")
            }
            let nameString = String(name)
            if attributes.contains(where: { $0.name == nameString }) {
                // RFC 8216bis §4.2: an AttributeName MUST NOT occur more than once in an attribute-list.
                throw PlaylistError(.duplicateAttribute, line: line, text: text, "\(name) appears more than once")
            }
            attributes.append(Attribute(name: nameString, rawValue: String(value)))
            if index != end {
                index = utf8.index(after: index)  // past ","
                guard index != end else {
                    throw PlaylistError(.malformedAttributeList, line: line, text: text, "the attribute list ends with a comma")
                }
            }
        }
        return AttributeList(attributes)
    }

    /// Parses an attribute-list tag value and checks each attribute the spec types.
    static func parse<T: AttributeTag>(_ type: T.Type, _ value: Substring?, line: Int, text: Substring) throws(PlaylistError) -> T {
        guard let value, !value.isEmpty else {
            throw PlaylistError(.malformedTag, line: line, text: text, "#\(T.tagName) needs an attribute list after a colon")
        }
        let list = try Self.parse(value, line: line)
        for attribute in list.attributes {
            let raw = attribute.rawValue[...]
            if let expected = T.schema[attribute.name] {
                // RFC 8216bis §4.3: hexadecimal-sequences are subject to variable substitution, so
                // `IV={$iv}` is checked once the reference is replaced (resolving re-parses the lines).
                let isCheckedAfterSubstitution = expected == .hexadecimalSequence && raw.hasVariableReference
                guard expected.accepts(raw) || isCheckedAfterSubstitution else {
                    throw PlaylistError(
                        .invalidAttributeValue,
                        line: line,
                        text: text,
                        "\(attribute.name) must be \(expected.name), found \(attribute.rawValue)"
                    )
                }
            } else if T.self == DateRange.self, attribute.name.hasPrefix("X-"), !DateRange.acceptsClientAttribute(raw) {
                throw PlaylistError(
                    .invalidAttributeValue,
                    line: line,
                    text: text,
                    "\(attribute.name) must be a quoted-string, a hexadecimal-sequence or a signed-decimal-floating-point number"
                )
            }
        }
        return T(attributes: list)
    }
}
