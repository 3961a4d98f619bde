import AdCampaign
import AdDecision
import Crypto
import Foundation

/// The session in a URL: everything a replica needs to plan the session again — campaign,
/// revision, session id, decision time and viewer attributes — signed with HMAC-SHA256, so any
/// replica serves any request of the session and nobody edits their way out of an ad.
///
/// `base64url(payload).base64url(HMAC-SHA256(secret, first part) truncated to 128 bits)`
/// (RFC 2104 §5). The payload is binary (version 3, ``encoded(secret:)``): a third of the JSON
/// it replaced, so a token costs less to route, hash and decode on every request, and playlists
/// carry shorter URIs. Tokens issued before are still read, so sessions started before an
/// upgrade keep playing until they expire: version 2 (binary, no insertion mode: stitched) and
/// version 1 (`base64url(JSON).base64url(full HMAC)`).
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
    /// How the session gets its ads, decided at its start (`stitched` or `interstitials`, never
    /// `auto`): signed in, so a viewer cannot switch a session to the mode a player may skip in.
    public var insertion: Insertion
    /// A live session (`program: { live: URL }`): the origin media sequence number after the
    /// channel's last segment when it started. Breaks that open from there are the viewer's
    /// (docs/design-decisions.md "Live"); signed in, so every replica replaces the same breaks.
    public var liveJoin: Int?
    /// Whether an ad decision server's answers fill the session's breaks: they were recorded in
    /// the ``AdDecisionStore`` at its start, and every replica plans from them. Without, the
    /// session is planned from the pools alone (also when recording failed), the same everywhere.
    public var decided: Bool
    /// A catalogue session (`program: { catalogue: URL }`): the title's path below the prefix, so
    /// a replica that does not hold the title's revision loads it again (``CatalogueTitles``).
    public var title: String?
    /// Who fires the session's ad events when its start asked (`reporting=`); nil: as its
    /// campaign says. Signed in, so every replica renders the same playlists and tracking.
    public var reporting: Campaign.Reporting?
    /// The campaign's frequency caps the viewer had reached at the start (indexes, ascending):
    /// signed in, so every replica plans the same ads whatever impressions follow.
    public var capped: [Int]

    public init(
        campaign: String,
        revision: String,
        session: String,
        at: Int64,
        attributes: [String: String],
        expires: Int64,
        scope: Scope = .viewer,
        insertion: Insertion = .stitched,
        liveJoin: Int? = nil,
        decided: Bool = false,
        title: String? = nil,
        reporting: Campaign.Reporting? = nil,
        capped: [Int] = []
    ) {
        precondition(insertion != .auto, "a session's token carries the insertion mode auto resolved to")
        precondition(!decided || liveJoin == nil, "live sessions ask no ad server yet")
        precondition(
            capped.count <= Self.maxCapped && zip(capped, capped.dropFirst()).allSatisfy { $0 < $1 }
                && capped.allSatisfy { (0..<Self.maxCapped).contains($0) },
            "reached caps are distinct indexes below maxCapped, ascending"
        )
        self.liveJoin = liveJoin
        self.decided = decided
        self.title = title
        self.reporting = reporting
        self.capped = capped
        self.campaign = campaign
        self.revision = revision
        self.session = session
        self.at = at
        self.attributes = attributes
        self.expires = expires
        self.scope = scope
        self.insertion = insertion
    }

    /// The viewer the token describes, as the planner sees it.
    public var context: ViewerContext {
        ViewerContext(session: self.session, milliseconds: self.at, attributes: self.attributes, capped: self.capped)
    }

    /// Where the session's ad decisions are recorded (``AdDecisionStore``): one key per session
    /// start — campaign, revision, scope, session id and decision time.
    public var decisionKey: String {
        "\(self.campaign)\u{1f}\(self.revision)\u{1f}\(self.scope.rawValue)\u{1f}\(self.session)\u{1f}\(self.at)"
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

    /// The first byte of a version 3 payload (a version 1 payload is JSON and starts with `{`).
    package static let version: UInt8 = 3
    /// The first byte of a catalogue session's payload: version 3 and the title's path after the
    /// attributes.
    package static let versionWithTitle: UInt8 = 4
    /// The first byte of a payload with session options: version 3, then the reporting the start
    /// chose (`c` client, `s` server, `-` the campaign's), the reached frequency caps (a count and
    /// each index), then a catalogue title's path when bytes remain.
    package static let versionWithReporting: UInt8 = 5
    /// At most this many frequency caps are signed into a token (a campaign's caps beyond are
    /// not looked at).
    package static let maxCapped = FrequencyCap.maxCaps

    /// Whether the token has session options (version 5).
    package var hasOptions: Bool { self.reporting != nil || !self.capped.isEmpty }

    /// The first byte of a version 2 payload: version 3 without the insertion byte.
    package static let version2: UInt8 = 2
    /// Bytes of the HMAC kept in a version 2 token.
    package static let signatureBytes = 16

    /// The signed token. The payload: version, scope (`v`/`p`), insertion (`s` stitched, `i`
    /// interstitials, `l` a live session, stitched, `L` one as the channel's interstitials; `S` and `I`: stitched and interstitials
    /// with an ad server's recorded decisions), decision time and expiry (big-endian
    /// 64-bit; a live session's join point after them, the same way), then campaign, revision, session and the attributes' count and names and values (version 4: then a catalogue title's path; version 5: the reporting byte, then the title if any),
    /// each string as a LEB128 length and its UTF-8; attributes sorted by name, so a context
    /// always gives the same token.
    public func encoded(secret: SymmetricKey) -> String {
        var bytes: [UInt8] = [
            self.hasOptions ? Self.versionWithReporting : self.title == nil ? Self.version : Self.versionWithTitle,
            UInt8(ascii: self.scope == .viewer ? "v" : "p"),
            UInt8(
                ascii: self.liveJoin != nil
                    ? (self.insertion == .interstitials ? "L" : "l")
                    : self.insertion == .interstitials ? (self.decided ? "I" : "i") : (self.decided ? "S" : "s")
            ),
        ]
        bytes.reserveCapacity(64 + self.campaign.utf8.count + self.revision.utf8.count + self.session.utf8.count)
        for value in [self.at, self.expires] + (self.liveJoin.map { [Int64($0)] } ?? []) {
            withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
        }
        func append(_ count: Int) {
            var rest = UInt(count)
            repeat {
                bytes.append(UInt8(rest & 0x7f) | (rest > 0x7f ? 0x80 : 0))
                rest >>= 7
            } while rest > 0
        }
        func append(_ text: String) {
            append(text.utf8.count)
            bytes.append(contentsOf: text.utf8)
        }
        append(self.campaign)
        append(self.revision)
        append(self.session)
        append(self.attributes.count)
        for (name, value) in self.attributes.sorted(by: { $0.key < $1.key }) {
            append(name)
            append(value)
        }
        if self.hasOptions {
            bytes.append(UInt8(ascii: self.reporting.map { $0 == .client ? "c" : "s" } ?? "-"))
            // One byte each: at most maxCapped (64) caps, each index below it (the initializer's precondition).
            bytes.append(UInt8(self.capped.count))
            for index in self.capped { bytes.append(UInt8(index)) }
        }
        if let title = self.title { append(title) }
        let body = Self.base64URL(Data(bytes))
        let signature = HMAC<SHA256>.authenticationCode(for: Data(body.utf8), using: secret)
        return body + "." + Self.base64URL(signature.withUnsafeBytes { Data($0.prefix(Self.signatureBytes)) })
    }

    /// The keys tokens are verified with, each HMAC-SHA256 keyed once: verifying a token copies
    /// one instead of padding and hashing the key again for every request (1 % of the server's
    /// CPU when every request stitches). The first key is the one that signs.
    public struct VerifyingKeys: @unchecked Sendable {  // HMAC declares no Sendable; it is two hash states, values
        let keyed: [HMAC<SHA256>]

        public init(_ secrets: [SymmetricKey]) {
            precondition(!secrets.isEmpty, "tokens need a key to be verified with")
            self.keyed = secrets.map { HMAC<SHA256>(key: $0) }
        }

        /// Whether `signature` is the first `signature.count` bytes of the HMAC of `body` under
        /// one of the keys (compared in time independent of where the bytes differ).
        package func verify(_ signature: [UInt8], of body: some Collection<UInt8>) -> Bool {
            self.keyed.contains { keyed in
                var mac = keyed
                if body.withContiguousStorageIfAvailable({ mac.update(data: UnsafeRawBufferPointer($0)) }) == nil {
                    mac.update(data: Array(body))
                }
                return mac.finalize().withUnsafeBytes { code in
                    signature.withUnsafeBytes { expected in
                        guard expected.count <= code.count else { return false }
                        var difference: UInt8 = 0
                        for index in 0..<expected.count { difference |= code[index] ^ expected[index] }
                        return difference == 0
                    }
                }
            }
        }
    }

    /// The token's contents, or nil when it is malformed, its signature matches none of
    /// `keys` (the first signs, all verify: keys rotate without ending sessions), or it carries
    /// a decision time outside ``decisionTimes``.
    public init?(decoding token: some StringProtocol, keys: VerifyingKeys) {
        // The token's bytes in place, read by one non-generic function: this initialiser is
        // generic and public, so a caller in another module runs it unspecialised, and every
        // byte of the token went through the string type's witness tables (issue 53: 8 % of the
        // CPU of a load whose every answer is a session's first, 2.5 % read this way).
        let decoded =
            token.utf8.withContiguousStorageIfAvailable { Self.decoding($0, keys: keys) }
            ?? Array(token.utf8).withUnsafeBufferPointer { Self.decoding($0, keys: keys) }
        guard let decoded else { return nil }
        self = decoded
    }

    private static func decoding(_ text: UnsafeBufferPointer<UInt8>, keys: VerifyingKeys) -> SessionToken? {
        // Split at the one dot on the bytes (`split` on a string walks grapheme clusters: 3 % of
        // the server's CPU under live refreshes went to finding this dot).
        guard let dot = text.firstIndex(of: UInt8(ascii: ".")) else { return nil }
        let (first, second) = (UnsafeBufferPointer(rebasing: text[..<dot]), UnsafeBufferPointer(rebasing: text[(dot + 1)...]))
        guard !second.contains(UInt8(ascii: ".")), let signature = Self.bytes(base64URL: second), let payload = Self.bytes(base64URL: first) else {
            return nil
        }
        let decoded: SessionToken?
        switch payload.first {
        case Self.version, Self.version2, Self.versionWithTitle, Self.versionWithReporting:
            guard signature.count == Self.signatureBytes, keys.verify(signature, of: first) else { return nil }
            decoded = Self.binary(payload)
        case UInt8(ascii: "{"):
            guard signature.count == SHA256.byteCount, keys.verify(signature, of: first) else { return nil }
            decoded = Self.json(Data(payload))
        default:
            return nil
        }
        guard let decoded, Self.decisionTimes.contains(decoded.at) else { return nil }
        return decoded
    }

    public init?(decoding token: some StringProtocol, secrets: [SymmetricKey]) {
        self.init(decoding: token, keys: VerifyingKeys(secrets))
    }

    public init?(decoding token: some StringProtocol, secret: SymmetricKey) {
        self.init(decoding: token, secrets: [secret])
    }

    /// A version 4, 3 or 2 payload (``encoded(secret:)``), read strictly: lengths within the bytes,
    /// UTF-8 valid, attributes sorted without repeats, nothing after the last one.
    private static func binary(_ payload: [UInt8]) -> SessionToken? {
        var next = payload.startIndex
        var remaining: Int { payload.endIndex - next }
        func byte() -> UInt8? {
            guard next < payload.endIndex else { return nil }
            defer { next += 1 }
            return payload[next]
        }
        func integer() -> Int64? {
            var value: UInt64 = 0
            for _ in 0..<8 {
                guard let next = byte() else { return nil }
                value = value << 8 | UInt64(next)
            }
            return Int64(bitPattern: value)
        }
        func count() -> Int? {
            var value = 0
            for shift in stride(from: 0, to: 28, by: 7) {
                guard let next = byte() else { return nil }
                value |= Int(next & 0x7f) << shift
                if next & 0x80 == 0 { return value <= remaining ? value : nil }
            }
            return nil
        }
        // Each string read from its bytes in place (``count()`` keeps it within the payload).
        func text() -> String? {
            guard let length = count() else { return nil }
            defer { next += length }
            return String(validating: payload[next..<next + length], as: UTF8.self)
        }
        let version = byte()
        guard [Self.version, Self.version2, Self.versionWithTitle, Self.versionWithReporting].contains(version), let scopeByte = byte(),
            let scope = Scope(rawValue: String(UnicodeScalar(scopeByte)))
        else { return nil }
        var insertion = Insertion.stitched
        var live = false
        var decided = false
        if version != Self.version2 {
            switch byte() {
            case UInt8(ascii: "s"): insertion = .stitched
            case UInt8(ascii: "i"): insertion = .interstitials
            case UInt8(ascii: "S"): (insertion, decided) = (.stitched, true)
            case UInt8(ascii: "I"): (insertion, decided) = (.interstitials, true)
            case UInt8(ascii: "l"): live = true
            case UInt8(ascii: "L"): (insertion, live) = (.interstitials, true)
            default: return nil
            }
        }
        guard let at = integer(), let expires = integer() else { return nil }
        var liveJoin: Int?
        if live {
            guard let join = integer(), join >= 0 else { return nil }
            liveJoin = Int(join)
        }
        guard let campaign = text(), let revision = text(), let session = text(),
            let attributeCount = count()
        else { return nil }
        var attributes: [String: String] = [:]
        var previous: String?
        for _ in 0..<attributeCount {
            guard let name = text(), let value = text(), previous.map({ $0 < name }) ?? true else { return nil }
            attributes[name] = value
            previous = name
        }
        var reporting: Campaign.Reporting?
        var capped: [Int] = []
        if version == Self.versionWithReporting {
            switch byte() {
            case UInt8(ascii: "c"): reporting = .client
            case UInt8(ascii: "s"): reporting = .server
            case UInt8(ascii: "-"): reporting = nil
            default: return nil
            }
            guard let number = byte(), number <= Self.maxCapped else { return nil }
            for _ in 0..<number {
                guard let index = byte().map(Int.init), index < Self.maxCapped, capped.last.map({ $0 < index }) ?? true else { return nil }
                capped.append(index)
            }
            // One form per token: options that say nothing are written as version 3 or 4.
            guard reporting != nil || !capped.isEmpty else { return nil }
        }
        var title: String?
        if version == Self.versionWithTitle || (version == Self.versionWithReporting && remaining > 0) {
            guard let path = text() else { return nil }
            title = path
        }
        guard remaining == 0 else { return nil }
        return SessionToken(
            campaign: campaign,
            revision: revision,
            session: session,
            at: at,
            attributes: attributes,
            expires: expires,
            scope: scope,
            insertion: insertion,
            liveJoin: liveJoin,
            decided: decided,
            title: title,
            reporting: reporting,
            capped: capped
        )
    }

    /// A version 1 payload: JSON with one-letter keys.
    private struct Payload: Codable {
        var c: String
        var r: String
        var s: String
        var t: Int64
        var a: [String: String]
        var e: Int64
        var k: String
    }

    private static func json(_ payload: Data) -> SessionToken? {
        guard let json = try? JSONDecoder().decode(Payload.self, from: payload), let scope = Scope(rawValue: json.k) else { return nil }
        return SessionToken(campaign: json.c, revision: json.r, session: json.s, at: json.t, attributes: json.a, expires: json.e, scope: scope)
    }

    /// Base64url without padding (RFC 4648 §5).
    package static func base64URL(_ data: Data) -> String {
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
    package static func bytes(base64URL utf8: some Collection<UInt8>) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for character in utf8 {
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
        return bytes
    }
}
