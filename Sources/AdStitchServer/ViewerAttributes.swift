import Foundation

/// Viewer attributes a session start did not give, read from its request headers.
enum ViewerAttributes {
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
