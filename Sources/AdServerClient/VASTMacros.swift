import Foundation

/// VAST 4.3 §6.1 macros in tracking and error URIs: `[NAME]` replaced by its value,
/// percent-encoded; a macro without a value here stays as written (the spec's advice: an ad
/// server may fill it, or know it was not filled).
public enum VASTMacros {
    /// `uri` with each `[NAME]` that `values` holds replaced by the value, percent-encoded.
    public static func fill(_ uri: String, _ values: [String: String]) -> String {
        guard uri.contains("[") else { return uri }
        var result = ""
        var rest = Substring(uri)
        while let open = rest.firstIndex(of: "[") {
            result += rest[..<open]
            let after = rest.index(after: open)
            guard let close = rest[after...].firstIndex(of: "]") else {
                rest = rest[open...]
                break
            }
            let name = String(rest[after..<close])
            if let value = values[name] {
                result += value.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? value
            } else {
                result += rest[open...close]
            }
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// The macros every beacon carries: `[TIMESTAMP]` (ISO 8601 with milliseconds and offset)
    /// and `[CACHEBUSTING]` (eight random digits), with `extra` (`ERRORCODE`, `UNIVERSALADID`…).
    public static func values(at date: Date = Date(), _ extra: [String: String] = [:]) -> [String: String] {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var values = ["TIMESTAMP": formatter.string(from: date), "CACHEBUSTING": String(format: "%08d", Int.random(in: 0...99_999_999))]
        values.merge(extra) { _, new in new }
        return values
    }

    /// RFC 3986's unreserved characters: everything else in a value is percent-encoded.
    public static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
