/// A rule of the rewriter (`rewrite:`, docs/campaign-format.md): for viewers its condition
/// holds for, a segment, map or key URI of the stitched output that `match` matches is written
/// as `replace` makes it. The first rule in campaign order that applies to a URI and matches it
/// wins; a URI no rule takes is written as it would be without rules.
public struct RewriteRule: Sendable {
    public let name: String
    /// `when:`: the same conditions as `rules:` (an empty one always holds).
    public let condition: Condition
    public let appliesTo: RewriteTargets
    /// Matched against the URI AdStitch would write: the absolute URL for media on an origin.
    public let match: Pattern
    public let replace: RewriteTemplate
}

/// What a rewrite rule touches (`applies_to:`).
public struct RewriteTargets: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Segment and map URIs of the programme's islands.
    public static let program = RewriteTargets(rawValue: 1 << 0)
    /// … of ads.
    public static let ads = RewriteTargets(rawValue: 1 << 1)
    /// … of the slate.
    public static let slate = RewriteTargets(rawValue: 1 << 2)
    /// Key URIs (`EXT-X-KEY`) of every piece.
    public static let keys = RewriteTargets(rawValue: 1 << 3)

    /// Without `applies_to:`: everything but keys.
    public static let `default`: RewriteTargets = [.program, .ads, .slate]

    public static let named: [(name: String, target: RewriteTargets)] = [
        ("program", .program), ("ads", .ads), ("slate", .slate), ("keys", .keys),
    ]

    /// The names of the targets in this set, in canonical order.
    public var names: [String] { Self.named.filter { self.contains($0.target) }.map(\.name) }
}

/// A `replace:` template: literal text, capture references (`$1`, `${1}`, `${name}`) and
/// per-viewer placeholders (`{session}`, `{market}`: a viewer attribute), percent-encoded when
/// written. `$$`, `{{` and `}}` write `$`, `{` and `}`.
public struct RewriteTemplate: Sendable, Hashable {
    public enum Part: Sendable, Hashable {
        case literal(String)
        /// A capture group of `match`, by number (0: the whole match).
        case capture(Int)
        /// The session id.
        case session
        /// A viewer attribute, by name (empty when the viewer has none).
        case attribute(String)
    }

    public let parts: [Part]
    /// The template as written.
    public let source: String

    /// Where a template went wrong: the message and the byte offset in the template.
    public struct Problem: Error, Sendable, Hashable {
        public let message: String
        public let offset: Int
    }

    /// Parses `source` against `pattern`'s groups; `attributes` are the placeholder names a
    /// viewer may fill (the session aside).
    public init(_ source: String, pattern: Pattern, attributes: Set<String>) throws(Problem) {
        var parts: [Part] = []
        var literal = ""
        let bytes = Array(source.utf8)
        var index = 0
        func flush() {
            if !literal.isEmpty { parts.append(.literal(literal)) }
            literal = ""
        }
        func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
        func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }
        func group(_ number: Int, at offset: Int) throws(Problem) -> Part {
            guard number <= pattern.captureCount else {
                throw Problem(
                    message:
                        "refers to group $\(number), but the pattern has \(pattern.captureCount) capture group\(pattern.captureCount == 1 ? "" : "s")",
                    offset: offset
                )
            }
            return .capture(number)
        }
        while index < bytes.count {
            let byte = bytes[index]
            let next = index + 1 < bytes.count ? bytes[index + 1] : nil
            switch (byte, next) {
            case (UInt8(ascii: "$"), UInt8(ascii: "$")?), (UInt8(ascii: "{"), UInt8(ascii: "{")?), (UInt8(ascii: "}"), UInt8(ascii: "}")?):
                literal.append(Character(UnicodeScalar(byte)))
                index += 2
            case (UInt8(ascii: "$"), let digit?) where isDigit(digit):
                var end = index + 1
                while end < bytes.count, isDigit(bytes[end]), end - index <= 3 { end += 1 }
                flush()
                parts.append(try group(Int(text(index + 1..<end)) ?? 0, at: index))
                index = end
            case (UInt8(ascii: "$"), UInt8(ascii: "{")?):
                guard let close = bytes[(index + 2)...].firstIndex(of: UInt8(ascii: "}")) else {
                    throw Problem(message: "has a ${ without its closing }", offset: index)
                }
                let name = text(index + 2..<close)
                flush()
                if let number = Int(name) {
                    parts.append(try group(number, at: index))
                } else if let number = pattern.groupNumber(named: name) {
                    parts.append(.capture(number))
                } else {
                    throw Problem(message: "refers to group ${\(name)}, which the pattern does not name", offset: index)
                }
                index = close + 1
            case (UInt8(ascii: "$"), _):
                throw Problem(message: "has a $ that is not a group reference; write $1, ${1} or ${name}, or $$ for a dollar sign", offset: index)
            case (UInt8(ascii: "{"), _):
                guard let close = bytes[(index + 1)...].firstIndex(of: UInt8(ascii: "}")) else {
                    throw Problem(message: "has a { without its closing }; write {{ for a brace", offset: index)
                }
                let name = text(index + 1..<close)
                flush()
                if name == "session" {
                    parts.append(.session)
                } else if attributes.contains(name) {
                    parts.append(.attribute(name))
                } else {
                    let known = (["session"] + attributes.sorted()).joined(separator: ", ")
                    throw Problem(message: "has the unknown placeholder {\(name)}; placeholders are \(known)", offset: index)
                }
                index = close + 1
            case (UInt8(ascii: "}"), _):
                throw Problem(message: "has a } that closes nothing; write }} for a brace", offset: index)
            case (let byte, _) where byte <= 0x20 || byte == 0x7f || byte == UInt8(ascii: "\""):
                // A URI is one line without spaces, and a key's sits in quotes: such a byte would
                // break the playlist line it is written into.
                throw Problem(
                    message: "has \(byte == UInt8(ascii: "\"") ? "a quote" : byte == 0x20 ? "a space" : "a control character"), which a URI "
                        + "cannot hold; percent-encode it (%\(String(byte, radix: 16, uppercase: true)))",
                    offset: index
                )
            default:
                var end = index + 1
                while end < bytes.count, ![UInt8(ascii: "$"), UInt8(ascii: "{"), UInt8(ascii: "}")].contains(bytes[end]),
                    bytes[end] > 0x20, bytes[end] != 0x7f, bytes[end] != UInt8(ascii: "\"")
                {
                    end += 1
                }
                literal += text(index..<end)
                index = end
            }
        }
        flush()
        self.parts = parts
        self.source = source
    }

    /// Whether writing it needs the viewer (a session or attribute placeholder).
    public var isPerViewer: Bool {
        self.parts.contains {
            switch $0 {
            case .session, .attribute: true
            default: false
            }
        }
    }
}
