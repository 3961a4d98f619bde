/// Why a playlist could not be parsed or its variables resolved: where, what was found and what was expected.
public struct PlaylistError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        case missingHeader = "missing-header"
        case malformedTag = "malformed-tag"
        case malformedAttributeList = "malformed-attribute-list"
        case invalidAttributeValue = "invalid-attribute-value"
        case duplicateAttribute = "duplicate-attribute"
        case unexpectedURI = "unexpected-uri"
        case segmentWithoutURI = "segment-without-uri"
        case variantWithoutURI = "variant-without-uri"
        case mixedPlaylistTypes = "mixed-playlist-types"
        case unexpectedPlaylistType = "unexpected-playlist-type"
        case undefinedVariable = "undefined-variable"
        case duplicateVariable = "duplicate-variable"
        case invalidVariableDefinition = "invalid-variable-definition"
        case notUTF8 = "not-utf8"
    }

    public var code: Code
    /// The 1-based line number, or 0 when the error concerns the whole playlist.
    public var line: Int
    /// The offending text (the line, or the part of it at fault).
    public var text: String
    /// What was wrong and what was expected instead.
    public var message: String

    public init(_ code: Code, line: Int, text: some StringProtocol, _ message: String) {
        self.code = code
        self.line = line
        self.text = String(text.prefix(200))
        self.message = message
    }

    /// `line 3: EXTINF duration must be a decimal number, e.g. 10.010: "#EXTINF:ten,"`
    public var description: String {
        let location = self.line > 0 ? "line \(self.line): " : ""
        return self.text.isEmpty ? "\(location)\(self.message)" : "\(location)\(self.message): \"\(self.text)\""
    }
}
