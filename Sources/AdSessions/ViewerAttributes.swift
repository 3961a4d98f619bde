import Foundation

/// The viewer attributes of a session start: the limits on its query, and what its request
/// headers say when the query does not.
package enum ViewerAttributes {
    /// At most this many query parameters, names of 1 to 64 and values up to 1,024 characters.
    package static let maxParameters = 64
    package static let maxNameLength = 64
    package static let maxValueLength = 1024
    package static let limitsText = "query parameters must have names of 1 to 64 and values up to 1024 characters"

    /// Whether a query parameter is within the limits.
    package static func fits(name: String, value: String) -> Bool {
        !name.isEmpty && name.count <= Self.maxNameLength && value.count <= Self.maxValueLength
    }

    /// A language tag from a header is at most this long (RFC 5646 §4.4.1 advises 35 characters
    /// for the tags that matter; longer ones carry private-use parts no rule matches).
    package static let maxLanguageLength = 35

    /// The first language of an Accept-Language header (`es-ES,es;q=0.9` → `es-ES`); nil when
    /// empty or longer than ``maxLanguageLength`` (a 70 KB header must not become a token the
    /// server then refuses).
    package static func preferredLanguage(_ header: String) -> String? {
        let tag = header.split(separator: ",", maxSplits: 1).first?.split(separator: ";", maxSplits: 1).first?.trimmingCharacters(in: .whitespaces)
        guard let tag, !tag.isEmpty, tag.utf8.count <= Self.maxLanguageLength else { return nil }
        return tag
    }

    /// A coarse device class from a User-Agent.
    package static func device(_ agent: String) -> String {
        let lower = agent.lowercased()
        if ["smart-tv", "smarttv", "appletv", "tizen", "webos", "roku", "crkey", " tv"].contains(where: lower.contains) { return "tv" }
        if lower.contains("mobile") || lower.contains("iphone") || lower.contains("android") { return "mobile" }
        return "desktop"
    }
}
