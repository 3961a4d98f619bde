import HTTPTypes
import Hummingbird

/// Where the server's absolute URIs point. Interstitial asset lists name the ads' playlists
/// absolutely (hls.js 1.6 resolves a relative asset URI against the page, not the list), and a
/// request's `Host` is whatever the client sent: taken as it is, `evil.example` (or userinfo, or a
/// fragment) became the ads' URIs of a list a caching proxy then served to everyone else.
///
/// - With ``base`` (`serve --public-url URL`) every absolute URI starts with it, whatever the
///   request says, and asset lists are shared-cacheable.
/// - Without it, the request's `Host` — only a host name or address and a port — is used, and the
///   answer is `private`: no shared cache keeps one client's host for another.
/// - `X-Forwarded-Proto` / `X-Forwarded-Host` are believed only with ``trustsForwardedHeaders``
///   (`serve --trust-forwarded`, for a proxy in front that sets them and drops the client's).
public struct PublicAddress: Sendable, Equatable {
    /// `scheme://host[:port]`, without a trailing slash; nil: from the request.
    public var base: String?
    public var trustsForwardedHeaders = false

    public init(base: String? = nil, trustsForwardedHeaders: Bool = false) {
        self.base = base.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.trustsForwardedHeaders = trustsForwardedHeaders
    }

    /// Whether `text` is an `http(s)://host[:port]` base URL with nothing after the authority.
    public static func isValidBase(_ text: String) -> Bool {
        let trimmed = text.hasSuffix("/") ? String(text.dropLast()) : text
        for scheme in ["http://", "https://"] where trimmed.hasPrefix(scheme) {
            return Self.isAuthority(trimmed.dropFirst(scheme.count))
        }
        return false
    }

    /// The base for absolute URIs in the answer to `request`, and whether that answer may be kept
    /// by shared caches; nil when the request names no usable host.
    func base(for request: Request) -> (base: String, shared: Bool)? {
        if let base = self.base { return (base, true) }
        let forwardedHost = self.trustsForwardedHeaders ? request.headers[.forwardedHost] : nil
        guard let host = forwardedHost ?? request.head.authority, Self.isAuthority(Substring(host)) else { return nil }
        let https = self.trustsForwardedHeaders && request.headers[.forwardedProto]?.lowercased() == "https"
        return ((https ? "https://" : "http://") + host, false)
    }

    /// `host[:port]`: a name or IPv4 address of letters, digits, `-` and `.`, or a bracketed IPv6
    /// address, then an optional port of digits — no userinfo, path, query or fragment.
    static func isAuthority(_ text: Substring) -> Bool {
        var host = text
        var port: Substring = ""
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return false }
            let inside = text[text.index(after: text.startIndex)..<close]
            guard !inside.isEmpty, inside.utf8.allSatisfy({ Self.isHex($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }) else {
                return false
            }
            host = text[...close]
            port = text[text.index(after: close)...]
            guard port.isEmpty || port.hasPrefix(":") else { return false }
        } else if let colon = text.firstIndex(of: ":") {
            host = text[..<colon]
            port = text[colon...]
            guard !host.isEmpty, host.utf8.allSatisfy(Self.isHostByte) else { return false }
        } else {
            guard !host.isEmpty, host.utf8.allSatisfy(Self.isHostByte) else { return false }
        }
        if !port.isEmpty {
            let digits = port.dropFirst()
            guard !digits.isEmpty, digits.count <= 5, digits.utf8.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }) else { return false }
        }
        return text.utf8.count <= 255
    }

    private static func isHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."):
            true
        default: false
        }
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: false
        }
    }
}

extension HTTPField.Name {
    /// The scheme a proxy in front received the request on.
    static let forwardedProto = Self("X-Forwarded-Proto")!
    /// The host a proxy in front received the request for.
    static let forwardedHost = Self("X-Forwarded-Host")!
}
