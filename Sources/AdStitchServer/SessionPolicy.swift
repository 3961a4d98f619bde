import AdSessions
import Crypto
import Foundation
import HLSPlaylist

/// Who may start a session with which attributes, and how long its token plays: the rules that
/// keep a viewer from choosing their way out of ads (docs/http-api.md "Session security").
public struct SessionPolicy: Sendable {
    /// The HMAC keys of session tokens: the first signs, every one verifies, so a key rotates
    /// without ending the sessions signed with the one before (`serve --secret` several times).
    public var secrets: [Data] {
        didSet { self.verifyingKeys = Self.keys(self.secrets) }
    }
    /// The key an app backend signs session starts with (`serve --start-key`). With one, every
    /// session start must carry `exp` and `sig`; without, the campaign's trusted attributes are
    /// dropped from session starts.
    public var startKey: Data?
    /// How long a session token plays after its session started.
    public var sessionTTL: Duration = .seconds(86_400)
    /// Who may use the preview tool's routes (``PreviewAccess``): off unless asked for
    /// (`serve --preview`, `serve --preview-key`).
    public var preview = PreviewAccess.off
    /// An hls.js build (≥ 1.6) for the preview tool's players (`serve --hls-js`), served at
    /// `/preview/assets/hls.js`: they play fMP4 sessions Chromium cannot play natively, and
    /// interstitial sessions. Without one, the preview plays natively and says so.
    public var previewPlayer: URL?
    /// The clock (tests move it).
    public var now: @Sendable () -> Date = { Date() }

    public init(secrets: [Data], startKey: Data? = nil) {
        precondition(!secrets.isEmpty, "a session policy needs a secret to sign tokens with")
        self.secrets = secrets
        self.verifyingKeys = Self.keys(secrets)
        self.startKey = startKey
    }

    public init(secret: SymmetricKey, startKey: Data? = nil) {
        self.init(secrets: [secret.withUnsafeBytes { Data($0) }], startKey: startKey)
    }

    var signingKey: SymmetricKey { SymmetricKey(data: self.secrets[0]) }
    /// The secrets keyed for verifying, once (not per request).
    private(set) var verifyingKeys: SessionToken.VerifyingKeys

    private static func keys(_ secrets: [Data]) -> SessionToken.VerifyingKeys {
        SessionToken.VerifyingKeys(secrets.map { SymmetricKey(data: $0) })
    }

    /// Seconds since the epoch, now.
    var nowSeconds: Int64 { Int64(self.now().timeIntervalSince1970.rounded(.down)) }
    /// `now` in whole milliseconds since the epoch (a session's decision time, an impression's).
    var nowMilliseconds: Int64 { Int64((self.now().timeIntervalSince1970 * 1000).rounded(.down)) }

    /// The expiry of a token issued now.
    var expiryOfNewToken: Int64 {
        let (seconds, _) = self.sessionTTL.components
        return self.nowSeconds + seconds
    }

    // MARK: - Signed session starts

    /// The query parameters of a signed session start that are not viewer attributes.
    static let signatureParameters: Set<String> = ["exp", "sig"]

    /// Checks the signature of a session start's query (decoded name/value pairs): `exp` in the
    /// future and `sig` the hex HMAC-SHA256, under the start key, of ``canonicalQuery(_:)``.
    /// Throws a 403 problem that says how to sign.
    func checkStart(_ query: [(name: String, value: String)], startKey: Data) throws(Problem) {
        let how =
            "an app backend signs each session start: add exp=<unix seconds> and sig=<hex HMAC-SHA256(start key, the query without sig, "
            + "parameters sorted by name, each name=value percent-encoded as RFC 3986 unreserved, joined with &)>"
        guard let expText = query.last(where: { $0.name == "exp" })?.value, let exp = Int64(expText) else {
            throw Problem.forbidden("this server only starts signed sessions: \(how)")
        }
        guard let signature = query.last(where: { $0.name == "sig" })?.value else {
            throw Problem.forbidden("the session start has no sig: \(how)")
        }
        guard query.filter({ Self.signatureParameters.contains($0.name) }).count == 2 else {
            throw Problem.forbidden("give exp and sig once each: \(how)")
        }
        guard let given = Self.bytes(hex: signature), given.count == 32,
            HMAC<SHA256>.isValidAuthenticationCode(given, authenticating: Data(Self.canonicalQuery(query).utf8), using: SymmetricKey(data: startKey))
        else {
            throw Problem.forbidden("the session start's sig does not match its parameters: \(how)")
        }
        guard exp > self.nowSeconds else {
            throw Problem.forbidden("the session start expired at \(exp) (unix seconds); ask the app backend for a fresh one")
        }
    }

    /// What a session start's signature covers: every parameter but `sig`, sorted by name (then
    /// value), each `name=value` percent-encoded as RFC 3986 unreserved, joined with `&`.
    public static func canonicalQuery(_ query: [(name: String, value: String)]) -> String {
        query.filter { $0.name != "sig" }
            .sorted { ($0.name, $0.value) < ($1.name, $1.value) }
            .map { "\(Self.percentEncoded($0.name))=\(Self.percentEncoded($0.value))" }
            .joined(separator: "&")
    }

    /// The hex HMAC-SHA256 of a query under `key`: what an app backend appends as `sig`.
    public static func signature(of query: [(name: String, value: String)], key: Data) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Data(Self.canonicalQuery(query).utf8), using: SymmetricKey(data: key))
        return code.map { String(format: "%02x", $0) }.joined()
    }

    /// RFC 3986 §2.3: everything but `A–Z a–z 0–9 - . _ ~` as `%XX` (upper-case hex) of its UTF-8 bytes.
    static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            if URIBytes.isUnreserved(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    private static func bytes(hex: String) -> Data? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes = Data(capacity: digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = URIBytes.hexValue(digits[index]), let low = URIBytes.hexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}
