import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// Who may use the campaign preview tool (docs/http-api.md "Preview access"). A preview session
/// honours any `at` and any trusted attribute (`seen` every ad), so on a public replica it would
/// be a door to ad-free streams: the tool is off unless the operator asks for it.
///
/// - ``off`` (the default): no `/preview` route answers but with 404.
/// - ``open`` (`serve --preview`): anyone who reaches the server — for a developer's machine.
/// - ``key(_:)`` (`serve --preview-key KEY`): every preview request, its pages, assets, masters
///   and session files, carries the key, in the header `AdStitch-Preview-Key` or the cookie
///   `adstitch-preview`; `GET /preview?key=KEY` sets that cookie for a browser and redirects to
///   `/preview`, so the pages' players carry it too.
public enum PreviewAccess: Sendable, Equatable {
    case off
    case open
    case key(Data)

    /// The cookie a browser keeps the key in.
    static let cookie = "adstitch-preview"

    /// Throws a 403 problem unless the request may use the preview.
    func check(_ request: Request) throws(Problem) {
        guard case .key(let key) = self else { return }
        let given = request.headers[.previewKey] ?? Self.cookieValue(request.headers[values: .cookie])
        guard let given, Self.equal(Data(given.utf8), key) else {
            throw Problem.forbidden(
                "the preview needs its key (serve --preview-key): send the AdStitch-Preview-Key header, or open /preview?key=KEY once in a browser"
            )
        }
    }

    /// `GET /preview?key=KEY`: the cookie that carries the key, when it is the key.
    func login(_ request: Request) -> Response? {
        guard case .key(let key) = self, let given = request.uri.queryParameters["key"].map(String.init), Self.equal(Data(given.utf8), key)
        else { return nil }
        var response = Response(status: .seeOther, headers: [.location: "/preview", .cacheControl: "no-store"])
        response.headers[.setCookie] = "\(Self.cookie)=\(Self.cookieSafe(given)); Path=/preview; HttpOnly; SameSite=Strict"
        return response
    }

    /// The value of the `adstitch-preview` cookie among a request's Cookie headers.
    static func cookieValue(_ headers: [String]) -> String? {
        for header in headers {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == Self.cookie else { continue }
                return String(parts[1]).removingPercentEncoding
            }
        }
        return nil
    }

    /// A cookie value (RFC 6265 §4.1.1 cookie-octets): the key percent-encoded.
    static func cookieSafe(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }

    /// Whether `given` is `key`, compared without leaking where they differ: their HMACs under
    /// the key, compared in constant time by swift-crypto.
    static func equal(_ given: Data, _ key: Data) -> Bool {
        let hmacKey = SymmetricKey(data: key)
        return HMAC<SHA256>.isValidAuthenticationCode(
            HMAC<SHA256>.authenticationCode(for: given, using: hmacKey),
            authenticating: key,
            using: hmacKey
        )
    }
}

extension HTTPField.Name {
    /// The preview key (``PreviewAccess/key(_:)``).
    static let previewKey = Self("AdStitch-Preview-Key")!
}
