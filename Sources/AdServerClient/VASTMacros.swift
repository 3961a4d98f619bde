import Foundation
import HLSPlaylist

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

    /// The macros every beacon carries: `[TIMESTAMP]` (ISO 8601 in UTC with milliseconds,
    /// `2026-12-03T09:30:00.123Z`) and `[CACHEBUSTING]` (eight random digits), with `extra`
    /// (`ERRORCODE`, `UNIVERSALADID`…). Written without a formatter: a beacon fires per viewer and
    /// event, and a Foundation date formatter made per call was a third of the beacon route's CPU
    /// (docs/performance.md "Beacons under load").
    public static func values(at date: Date = Date(), _ extra: [String: String] = [:]) -> [String: String] {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let random = String(Int.random(in: 0...99_999_999))
        var values = [
            "TIMESTAMP": DateTime.iso8601(millisecondsSinceEpoch: milliseconds),
            "CACHEBUSTING": String(repeating: "0", count: 8 - random.count) + random,
        ]
        values.merge(extra) { _, new in new }
        return values
    }

    /// A time as VAST 4.3 §6.1 writes playheads (`[ADPLAYHEAD]`, `[CONTENTPLAYHEAD]`):
    /// `HH:MM:SS.mmm`, from whole milliseconds.
    public static func time(milliseconds: Int64) -> String {
        let value = max(0, milliseconds)
        let (seconds, millis) = value.quotientAndRemainder(dividingBy: 1000)
        let (minutes, second) = seconds.quotientAndRemainder(dividingBy: 60)
        let (hours, minute) = minutes.quotientAndRemainder(dividingBy: 60)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let three = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(two(hours)):\(two(minute)):\(two(second)).\(three)"
    }

    /// `uri` as it can be requested: every character RFC 3986 §3.3–3.5 does not allow after the
    /// authority (a macro left unfilled, `[CONTENTPLAYHEAD]`, as `%5BCONTENTPLAYHEAD%5D`; a space)
    /// percent-encoded, the escapes already there kept. Without it, Foundation escapes a whole URL
    /// that holds one bracket, `%` included, and every filled value arrives encoded twice.
    public static func requestable(_ uri: String) -> String {
        guard let scheme = uri.range(of: "://") else { return uri }
        let rest = uri[scheme.upperBound...]
        guard let start = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) else { return uri }
        let tail = rest[start...]
        guard tail.unicodeScalars.contains(where: { !Self.allowedAfterAuthority.contains($0) }) else { return uri }
        return String(uri[..<start]) + (tail.addingPercentEncoding(withAllowedCharacters: Self.allowedAfterAuthority) ?? String(tail))
    }

    /// What a path, query and fragment may hold as they are (RFC 3986 §3.3–3.5): unreserved,
    /// sub-delims, `:@/?#` and `%` (escapes already made).
    static let allowedAfterAuthority = Self.unreserved.union(CharacterSet(charactersIn: "!$&'()*+,;=:@/?#%"))

    /// RFC 3986's unreserved characters: everything else in a value is percent-encoded.
    public static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
