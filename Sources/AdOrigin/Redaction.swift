import Foundation

/// URLs as AdStitch shows and logs them: without what would let a reader use someone's account.
/// Creative sources, ad server requests, wrappers and trackers come from third parties and often
/// carry credentials — `user:password@` in the authority, a signed URL's signature and key in the
/// query — and reports, logs, `GET /v1/creatives` and the preview show where requests went, never
/// those. The one home of the rule: every place that shows a URL from outside calls it.
public enum Redaction {
    /// Query parameter names (any case) whose values are credentials when they contain one of
    /// these: API keys and tokens, passwords, signed URLs' signatures, policies and key ids
    /// (CloudFront `Signature`/`Policy`/`Key-Pair-Id`, S3 `X-Amz-Signature`/`X-Amz-Credential`,
    /// GCS `X-Goog-Signature`, Azure `sig`, Akamai `hdnts`).
    static let secretNames = ["key", "token", "secret", "sig", "auth", "pass", "credential", "policy", "hdnts", "hmac"]

    /// `url` with its userinfo written as `***@` and the values of its secret-looking query
    /// parameters as `***`; the text unchanged when it has neither (or is not a URL).
    public static func url(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return url }
        var changed = false
        if components.percentEncodedUser != nil || components.percentEncodedPassword != nil {
            components.percentEncodedUser = "***"
            components.percentEncodedPassword = nil
            changed = true
        }
        if let items = components.percentEncodedQueryItems, !items.isEmpty {
            components.percentEncodedQueryItems = items.map { item in
                let name = item.name.lowercased()
                guard item.value?.isEmpty == false, Self.secretNames.contains(where: { name.contains($0) }) else { return item }
                changed = true
                return URLQueryItem(name: item.name, value: "***")
            }
        }
        return changed ? (components.string ?? url) : url
    }
}
