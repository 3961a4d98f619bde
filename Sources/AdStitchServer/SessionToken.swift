import Crypto
import Foundation

/// The session in a URL: everything a replica needs to plan the session again — campaign,
/// revision, session id, decision time and viewer attributes — signed with HMAC-SHA256, so any
/// replica serves any request of the session and nobody edits their way out of an ad.
///
/// `base64url(JSON).base64url(HMAC-SHA256(secret, first part))`. The JSON has sorted keys, so a
/// context always gives the same token.
public struct SessionToken: Sendable, Hashable {
    /// Where a token plays: sessions started on the public API, or by the preview tool (whose
    /// tokens carry any decision time an operator asks for, so they never play on `/v1/…`).
    public enum Scope: String, Sendable, Hashable {
        case viewer = "v"
        case preview = "p"
    }

    public var campaign: String
    public var revision: String
    public var session: String
    /// The decision time, in milliseconds since the Unix epoch.
    public var at: Int64
    public var attributes: [String: String]
    /// When the token stops playing, in seconds since the Unix epoch (`serve --session-ttl`).
    public var expires: Int64
    public var scope: Scope

    public init(
        campaign: String,
        revision: String,
        session: String,
        at: Int64,
        attributes: [String: String],
        expires: Int64,
        scope: Scope = .viewer
    ) {
        self.campaign = campaign
        self.revision = revision
        self.session = session
        self.at = at
        self.attributes = attributes
        self.expires = expires
        self.scope = scope
    }

    /// The session id and viewer attributes (names and values, UTF-8) of a session start add up
    /// to at most this many bytes: the token rides in every playlist URI, and a URI past the
    /// server's request-head limit (80 KiB) could never be fetched.
    public static let maxContextBytes = 8192

    /// Whether a session and its attributes fit in a token (``maxContextBytes``).
    public static func fits(session: String, attributes: [String: String]) -> Bool {
        session.utf8.count + attributes.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count } <= Self.maxContextBytes
    }

    /// Decision times a token may carry: 1970-01-01T00:00:00Z up to 9999-11-30T23:59:59.999Z,
    /// so the programme date-times of a session (at most 8 days long) keep four-digit years.
    public static let decisionTimes: ClosedRange<Int64> = 0...253_399_795_199_999

    private struct Payload: Codable {
        var c: String
        var r: String
        var s: String
        var t: Int64
        var a: [String: String]
        var e: Int64
        var k: String
    }

    /// The signed token.
    public func encoded(secret: SymmetricKey) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let payload = Payload(
            c: self.campaign,
            r: self.revision,
            s: self.session,
            t: self.at,
            a: self.attributes,
            e: self.expires,
            k: self.scope.rawValue
        )
        let body = Self.base64URL((try? encoder.encode(payload)) ?? Data())
        let signature = HMAC<SHA256>.authenticationCode(for: Data(body.utf8), using: secret)
        return body + "." + Self.base64URL(Data(signature))
    }

    /// The token's contents, or nil when it is malformed, its signature matches none of
    /// `secrets` (the first signs, all verify: keys rotate without ending sessions), or it carries
    /// a decision time outside ``decisionTimes``.
    public init?(decoding token: some StringProtocol, secrets: [SymmetricKey]) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let signature = Self.data(base64URL: parts[1]) else { return nil }
        let body = Data(parts[0].utf8)
        guard secrets.contains(where: { HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: body, using: $0) }),
            let json = Self.data(base64URL: parts[0]), let payload = try? JSONDecoder().decode(Payload.self, from: json),
            let scope = Scope(rawValue: payload.k), Self.decisionTimes.contains(payload.t)
        else { return nil }
        self.init(
            campaign: payload.c,
            revision: payload.r,
            session: payload.s,
            at: payload.t,
            attributes: payload.a,
            expires: payload.e,
            scope: scope
        )
    }

    public init?(decoding token: some StringProtocol, secret: SymmetricKey) {
        self.init(decoding: token, secrets: [secret])
    }

    /// Base64url without padding (RFC 4648 §5).
    static func base64URL(_ data: Data) -> String {
        String(
            decoding: data.base64EncodedString().utf8.compactMap { byte -> UInt8? in
                switch byte {
                case UInt8(ascii: "+"): UInt8(ascii: "-")
                case UInt8(ascii: "/"): UInt8(ascii: "_")
                case UInt8(ascii: "="): nil
                default: byte
                }
            },
            as: UTF8.self
        )
    }

    /// Decodes unpadded base64url in one pass (every request decodes a token); nil for any
    /// character outside the alphabet or a length no encoding produces.
    static func data(base64URL text: some StringProtocol) -> Data? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for character in text.utf8 {
            let value: UInt8
            switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = character - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = character - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = character - UInt8(ascii: "0") + 52
            case UInt8(ascii: "-"): value = 62
            case UInt8(ascii: "_"): value = 63
            default: return nil
            }
            accumulator = (accumulator << 6) | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        // A final group of one character (6 bits) encodes nothing; leftover bits must be zero.
        guard bits < 6, accumulator == 0 else { return nil }
        return Data(bytes)
    }
}
