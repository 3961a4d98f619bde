import Crypto
import Foundation

/// The session in a URL: everything a replica needs to plan the session again — campaign,
/// revision, session id, decision time and viewer attributes — signed with HMAC-SHA256, so any
/// replica serves any request of the session and nobody edits their way out of an ad.
///
/// `base64url(JSON).base64url(HMAC-SHA256(secret, first part))`. The JSON has sorted keys, so a
/// context always gives the same token.
public struct SessionToken: Sendable, Hashable {
    public var campaign: String
    public var revision: String
    public var session: String
    /// The decision time, in milliseconds since the Unix epoch.
    public var at: Int64
    public var attributes: [String: String]

    public init(campaign: String, revision: String, session: String, at: Int64, attributes: [String: String]) {
        self.campaign = campaign
        self.revision = revision
        self.session = session
        self.at = at
        self.attributes = attributes
    }

    private struct Payload: Codable {
        var c: String
        var r: String
        var s: String
        var t: Int64
        var a: [String: String]
    }

    /// The signed token.
    public func encoded(secret: SymmetricKey) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let payload = (try? encoder.encode(Payload(c: self.campaign, r: self.revision, s: self.session, t: self.at, a: self.attributes))) ?? Data()
        let body = Self.base64URL(payload)
        let signature = HMAC<SHA256>.authenticationCode(for: Data(body.utf8), using: secret)
        return body + "." + Self.base64URL(Data(signature))
    }

    /// The token's contents, or nil when it is malformed or its signature does not match.
    public init?(decoding token: some StringProtocol, secret: SymmetricKey) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let signature = Self.data(base64URL: parts[1]),
            HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: Data(parts[0].utf8), using: secret),
            let json = Self.data(base64URL: parts[0]), let payload = try? JSONDecoder().decode(Payload.self, from: json)
        else { return nil }
        self.init(campaign: payload.c, revision: payload.r, session: payload.s, at: payload.t, attributes: payload.a)
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func data(base64URL text: some StringProtocol) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
