import Foundation

/// The viewer attributes of a session start: the limits on its query, and what its request
/// headers say when the query does not.
enum ViewerAttributes {
    /// At most this many query parameters, names of 1 to 64 and values up to 1,024 characters.
    static let maxParameters = 64
    static let maxNameLength = 64
    static let maxValueLength = 1024
    static let limitsText = "query parameters must have names of 1 to 64 and values up to 1024 characters"

    /// Whether a query parameter is within the limits.
    static func fits(name: String, value: String) -> Bool {
        !name.isEmpty && name.count <= Self.maxNameLength && value.count <= Self.maxValueLength
    }

    /// The first language of an Accept-Language header (`es-ES,es;q=0.9` → `es-ES`).
    static func preferredLanguage(_ header: String) -> String {
        String(header.split(separator: ",").first?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces) ?? "")
    }

    /// A coarse device class from a User-Agent.
    static func device(_ agent: String) -> String {
        let lower = agent.lowercased()
        if ["smart-tv", "smarttv", "appletv", "tizen", "webos", "roku", "crkey", " tv"].contains(where: lower.contains) { return "tv" }
        if lower.contains("mobile") || lower.contains("iphone") || lower.contains("android") { return "mobile" }
        return "desktop"
    }
}
