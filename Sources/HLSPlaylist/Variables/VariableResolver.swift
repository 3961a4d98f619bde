#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension MediaPlaylist {
    /// The playlist with every variable reference replaced (RFC 8216bis §4.3, §4.4.2.3).
    ///
    /// - Parameters:
    ///   - multivariant: the multivariant playlist this one was loaded from, for `IMPORT`.
    ///   - playlistURL: the URL the playlist was requested with, for `QUERYPARAM`
    ///     (defaults to ``url``).
    public func resolvingVariables(
        importingFrom multivariant: MultivariantPlaylist? = nil,
        playlistURL: URL? = nil
    ) throws(PlaylistError) -> MediaPlaylist {
        guard self.needsResolution else { return self }
        let imports = try multivariant.map { (playlist) throws(PlaylistError) in try playlist.variables() }
        var resolver = VariableResolver(imports: imports, url: playlistURL ?? self.url, isMultivariant: false)
        let lines = try resolver.resolve(self.lines)
        return try MediaPlaylist(lines: lines, url: self.url)
    }

    private var needsResolution: Bool { !self.defines.isEmpty || self.lines.mayUseVariables }
}

extension MultivariantPlaylist {
    /// The playlist with every variable reference replaced (RFC 8216bis §4.3, §4.4.2.3).
    /// `IMPORT` is not allowed in a multivariant playlist.
    public func resolvingVariables(playlistURL: URL? = nil) throws(PlaylistError) -> MultivariantPlaylist {
        var resolver = VariableResolver(imports: nil, url: playlistURL ?? self.url, isMultivariant: true)
        let lines = try resolver.resolve(self.lines)
        return try MultivariantPlaylist(lines: lines, url: self.url)
    }

    /// The variables this playlist defines, resolved — what its media playlists may `IMPORT`.
    public func variables(playlistURL: URL? = nil) throws(PlaylistError) -> [String: String] {
        var resolver = VariableResolver(imports: nil, url: playlistURL ?? self.url, isMultivariant: true)
        _ = try resolver.resolve(self.lines)
        return resolver.values
    }
}

/// Substitutes `{$name}` references in URI lines, quoted-string and hexadecimal-sequence
/// attribute values (RFC 8216bis §4.3) — in order: a variable must be defined before it is used.
struct VariableResolver {
    let imports: [String: String]?
    let url: URL?
    let isMultivariant: Bool
    /// For the linter: IMPORT and QUERYPARAM get an empty value instead of failing when their
    /// source (the multivariant playlist, the request URL) is not at hand.
    let placeholdersForExternalValues: Bool
    private(set) var values: [String: String] = [:]

    init(imports: [String: String]?, url: URL?, isMultivariant: Bool, placeholdersForExternalValues: Bool = false) {
        self.imports = imports
        self.url = url
        self.isMultivariant = isMultivariant
        self.placeholdersForExternalValues = placeholdersForExternalValues
    }

    mutating func resolve(_ lines: some Collection<PlaylistLine>) throws(PlaylistError) -> [PlaylistLine] {
        var result = Array(lines)
        for index in result.indices {
            let line = result[index]
            switch line.content {
            case .comment: continue
            case .tag(.define(let define)):
                try self.define(define, line: line)
            case .uri(let uri):
                if let replaced = try self.substitute(uri, line: line) {
                    result[index].content = .uri(Substring(replaced))
                }
            case .tag(let tag):
                guard let list = tag.attributes else { continue }
                var changed = list
                var didChange = false
                for attribute in list.attributes
                where attribute.isQuoted || AttributeType.hexadecimalSequence.accepts(attribute.rawValue[...])
                    || tag.attributeSchema?[attribute.name] == .hexadecimalSequence
                {
                    if let replaced = try self.substitute(attribute.rawValue[...], line: line) {
                        changed.set(attribute.name, rawValue: replaced)
                        didChange = true
                    }
                }
                if didChange { result[index].content = .tag(tag.replacingAttributes(changed)) }
            }
        }
        return result
    }

    private mutating func define(_ define: Define, line: PlaylistLine) throws(PlaylistError) {
        let list = define.attributes
        let kinds = ["NAME", "IMPORT", "QUERYPARAM"].filter { list[$0] != nil }
        guard kinds.count == 1, let source = define.source, let name = define.variableName else {
            throw PlaylistError(
                .invalidVariableDefinition,
                line: line.number,
                text: line.text,
                "EXT-X-DEFINE needs exactly one of NAME (with VALUE), IMPORT or QUERYPARAM (RFC 8216bis §4.4.2.3)"
            )
        }
        guard !name.isEmpty, name.utf8.allSatisfy(Self.isNameByte) else {
            throw PlaylistError(
                .invalidVariableDefinition,
                line: line.number,
                text: line.text,
                "variable name \"\(name)\" may contain only A-Z, a-z, 0-9, '-' and '_'"
            )
        }
        guard self.values[name] == nil else {
            throw PlaylistError(
                .duplicateVariable,
                line: line.number,
                text: line.text,
                "variable \"\(name)\" is already defined; each EXT-X-DEFINE must name a different variable"
            )
        }
        switch source {
        case .value(_, let value):
            self.values[name] = value
        case .importFromMultivariant:
            guard !self.isMultivariant else {
                throw PlaylistError(
                    .invalidVariableDefinition,
                    line: line.number,
                    text: line.text,
                    "IMPORT is only allowed in media playlists; define \"\(name)\" with NAME and VALUE here"
                )
            }
            if self.imports == nil, self.placeholdersForExternalValues {
                self.values[name] = ""
                return
            }
            guard let imports = self.imports else {
                throw PlaylistError(
                    .undefinedVariable,
                    line: line.number,
                    text: line.text,
                    "IMPORT=\"\(name)\" needs the multivariant playlist this playlist was loaded from"
                )
            }
            guard let value = imports[name] else {
                throw PlaylistError(
                    .undefinedVariable,
                    line: line.number,
                    text: line.text,
                    "IMPORT=\"\(name)\": the multivariant playlist defines no variable \"\(name)\""
                )
            }
            self.values[name] = value
        case .queryParameter:
            if self.url == nil, self.placeholdersForExternalValues {
                self.values[name] = ""
                return
            }
            guard let value = self.queryParameter(name) else {
                throw PlaylistError(
                    .undefinedVariable,
                    line: line.number,
                    text: line.text,
                    "QUERYPARAM=\"\(name)\": the playlist URL \(self.url?.absoluteString ?? "(none)") has no query parameter \"\(name)\""
                )
            }
            guard !value.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }) else {
                throw PlaylistError(
                    .invalidVariableDefinition,
                    line: line.number,
                    text: line.text,
                    "QUERYPARAM=\"\(name)\": the decoded value may not contain quotes or line breaks"
                )
            }
            self.values[name] = value
        }
    }

    /// The percent-decoded value of a query parameter of ``url``.
    private func queryParameter(_ name: String) -> String? {
        guard let query = self.url?.query(percentEncoded: true) else { return nil }
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, Self.percentDecoded(parts[0]) == name else { continue }
            if let value = Self.percentDecoded(parts[1]), !value.isEmpty { return value }
        }
        return nil
    }

    /// `text` with its references replaced, or nil when it has none. Replacements are not
    /// themselves substituted again (§6.3.1).
    private func substitute(_ text: Substring, line: PlaylistLine) throws(PlaylistError) -> String? {
        guard text.hasVariableReference else { return nil }
        var result = ""
        var rest = text
        while let open = rest.firstRange(of: "{$") {
            result += rest[..<open.lowerBound]
            let afterOpen = rest[open.upperBound...]
            guard let close = afterOpen.firstIndex(of: "}"),
                case let name = afterOpen[..<close], !name.isEmpty, name.utf8.allSatisfy(Self.isNameByte)
            else {
                // Not a reference (no valid name and closing brace): literal text.
                result += "{$"
                rest = afterOpen
                continue
            }
            guard let value = self.values[String(name)] else {
                throw PlaylistError(
                    .undefinedVariable,
                    line: line.number,
                    text: line.text,
                    "variable \"\(name)\" is used but not defined by an EXT-X-DEFINE before this line"
                )
            }
            result += value
            rest = afterOpen[afterOpen.index(after: close)...]
        }
        result += rest
        return result
    }

    /// RFC 3986 §2.1 percent-decoding; nil when an escape is malformed or the result is not UTF-8.
    static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next(), let low = iterator.next(), high.isHexDigit, low.isHexDigit,
                let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            else { return nil }
            bytes.append(value)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (byte &- 48 < 10) || (byte &- 65 < 26) || (byte &- 97 < 26) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }
}

extension StringProtocol {
    /// Whether the text holds `{$`, the start of a variable reference (RFC 8216bis §4.3), found
    /// byte by byte: every line of every playlist is asked at load, and `contains("{$")` compares
    /// characters.
    var hasVariableReference: Bool {
        // Over the contiguous bytes when there are (native strings: a whole playlist's text is
        // asked several times per load), else through the view.
        if let found = self.utf8.withContiguousStorageIfAvailable({ bytes -> Bool in
            var from = 1
            while let dollar = bytes.firstIndex(ofByte: UInt8(ascii: "$"), from: from) {
                if bytes[dollar - 1] == UInt8(ascii: "{") { return true }
                from = dollar + 1
            }
            return false
        }) {
            return found
        }
        var previous: UInt8 = 0
        for byte in self.utf8 {
            if byte == UInt8(ascii: "$"), previous == UInt8(ascii: "{") { return true }
            previous = byte
        }
        return false
    }
}
