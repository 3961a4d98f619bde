import HLSPlaylist

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An ad decision server the campaign's breaks ask for ads (`ad_server:`, docs/campaign-format.md
/// "Ad decision servers"): a VAST request per break, or one VMAP request for the session, its
/// answer's ads played first, the `fallback` pools (else the break's own) filling what it leaves,
/// then the slate.
public struct AdServerSettings: Sendable {
    public enum Request: Sendable {
        /// A VAST request per break, its placeholders filled per viewer and break.
        case vast(AdServerTemplate)
        /// One VMAP request per session (no break placeholders): its breaks map onto the campaign's.
        case vmap(AdServerTemplate)

        public var template: AdServerTemplate {
            switch self {
            case .vast(let template), .vmap(let template): template
            }
        }
    }

    public let request: Request
    /// For the whole chain of one break, wrappers included.
    public let timeout: Duration
    public let maxWrappers: Int
    /// Pools that fill what the ad server leaves; nil: the break's own pools.
    public let fallback: [String]?
    /// Hosts (names or address literals) the URLs of its answers may name although they resolve
    /// to a loopback or private address (`trusted_hosts:`): everything else an answer names —
    /// wrappers, creatives, trackers — must resolve to public addresses.
    public let trustedHosts: [String]

    public init(request: Request, timeout: Duration, maxWrappers: Int, fallback: [String]?, trustedHosts: [String] = []) {
        self.request = request
        self.timeout = timeout
        self.maxWrappers = maxWrappers
        self.fallback = fallback
        self.trustedHosts = trustedHosts
    }

    public static let maxTrustedHosts = 64

    /// Whether `text` is a host name (letters, digits, `-`, `.`) or an IP address literal (an
    /// IPv6 one without brackets, as `::1`), and nothing else.
    public static func isHostName(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 253 else { return false }
        let name = text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."):
                true
            default: false
            }
        }
        let v6 =
            text.contains(":")
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: ":"), UInt8(ascii: "."):
                    true
                default: false
                }
            }
        return name || v6
    }

    public static let defaultTimeout = Duration.seconds(2)
    public static let timeouts = Duration.milliseconds(100)...Duration.seconds(30)
    public static let defaultMaxWrappers = 5
    public static let maxWrappersRange = 0...10
}

/// A URL with placeholders (`{session}`, `{break.duration}`, `{market}`…), each value
/// percent-encoded where it is written. `{{` and `}}` write `{` and `}`.
public struct AdServerTemplate: Sendable, Hashable {
    public enum Part: Sendable, Hashable {
        case literal(String)
        case session
        case breakID
        /// `pre`, `mid` or `post`.
        case breakPosition
        case breakDuration
        case programID
        case programDuration
        /// A random number per request: a cache buster.
        case cacheBuster
        /// A viewer attribute, by name (empty when the viewer has none).
        case attribute(String)
    }

    public let parts: [Part]
    public let source: String

    /// Where a template went wrong: the message and the byte offset in the template (as for a
    /// rewrite rule's template).
    public typealias Problem = RewriteTemplate.Problem

    static let named: [String: Part] = [
        "session": .session, "break.id": .breakID, "break.position": .breakPosition, "break.duration": .breakDuration,
        "program.id": .programID, "program.duration": .programDuration, "cachebuster": .cacheBuster,
    ]

    /// Whether it names a break placeholder (`{break.id}`, `{break.position}`, `{break.duration}`).
    public var namesBreak: Bool {
        self.parts.contains { [.breakID, .breakPosition, .breakDuration].contains($0) }
    }

    public init(_ source: String) throws(Problem) {
        var parts: [Part] = []
        var literal = ""
        let bytes = Array(source.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "{"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "{") {
                literal += "{"
                index += 2
            } else if byte == UInt8(ascii: "}"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "}") {
                literal += "}"
                index += 2
            } else if byte == UInt8(ascii: "{") {
                guard let close = bytes[index...].firstIndex(of: UInt8(ascii: "}")) else {
                    throw Problem(message: "has a '{' without its '}' (write '{{' for a literal brace)", offset: index)
                }
                let name = String(decoding: bytes[(index + 1)..<close], as: UTF8.self)
                if !literal.isEmpty { parts.append(.literal(literal)) }
                literal = ""
                if let part = Self.named[name] {
                    parts.append(part)
                } else if !name.isEmpty, !name.contains("."),
                    name.utf8.allSatisfy({ $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") || ($0 &- 97 < 26) || ($0 &- 48 < 10) })
                {
                    parts.append(.attribute(name))
                } else {
                    throw Problem(
                        message: "names '{\(name)}', which is not a placeholder: use {session}, {break.id}, {break.position}, {break.duration}, "
                            + "{program.id}, {program.duration}, {cachebuster} or a viewer attribute ({market})",
                        offset: index
                    )
                }
                index = close + 1
            } else if byte == UInt8(ascii: "}") {
                throw Problem(message: "has a '}' without its '{' (write '}}' for a literal brace)", offset: index)
            } else {
                let start = index
                while index < bytes.count, bytes[index] != UInt8(ascii: "{"), bytes[index] != UInt8(ascii: "}") { index += 1 }
                literal += String(decoding: bytes[start..<index], as: UTF8.self)
            }
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        self.parts = parts
        self.source = source
        // The literal text must make an http(s) URL.
        let skeleton = parts.map { if case .literal(let text) = $0 { text } else { "x" } }.joined()
        guard let url = URL(string: skeleton), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw Problem(message: "is not an http(s) URL with its placeholders filled", offset: 0)
        }
    }

    /// What a break's request needs to fill the template.
    public struct Values: Sendable {
        public var session: String
        public var attributes: [String: String]
        public var breakID: String
        public var breakPosition: String
        public var breakDuration: ExactDecimal
        public var programID: String
        public var programDuration: ExactDecimal
        public var cacheBuster: UInt32

        public init(
            session: String,
            attributes: [String: String],
            breakID: String,
            breakPosition: String,
            breakDuration: ExactDecimal,
            programID: String,
            programDuration: ExactDecimal,
            cacheBuster: UInt32
        ) {
            self.session = session
            self.attributes = attributes
            self.breakID = breakID
            self.breakPosition = breakPosition
            self.breakDuration = breakDuration
            self.programID = programID
            self.programDuration = programDuration
            self.cacheBuster = cacheBuster
        }
    }

    /// The request URL for `values`, each value percent-encoded (RFC 3986 unreserved characters
    /// kept), so no viewer value can add a parameter or a path.
    public func url(_ values: Values) -> URL? {
        var text = ""
        for part in self.parts {
            switch part {
            case .literal(let literal): text += literal
            case .session: text += Self.encoded(values.session)
            case .breakID: text += Self.encoded(values.breakID)
            case .breakPosition: text += values.breakPosition
            case .breakDuration: text += values.breakDuration.description
            case .programID: text += Self.encoded(values.programID)
            case .programDuration: text += values.programDuration.description
            case .cacheBuster: text += String(values.cacheBuster)
            case .attribute(let name): text += Self.encoded(values.attributes[name] ?? "")
            }
        }
        return URL(string: text)
    }

    /// `value` with every byte but RFC 3986 §2.3's unreserved characters percent-encoded.
    static func encoded(_ value: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in value.utf8 {
            let unreserved =
                (byte &- 65 < 26) || (byte &- 97 < 26) || (byte &- 48 < 10) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
            if unreserved {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
