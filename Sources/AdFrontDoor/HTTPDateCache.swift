import Foundation
import Synchronization

/// The `Date` header's value (RFC 9110 §5.6.7 IMF-fixdate), formatted once a second.
public final class HTTPDateCache: Sendable {
    private let cached = Mutex<(second: Int, text: String)>((-1, ""))

    public init() {}

    public var current: String {
        let now = time(nil)
        return self.cached.withLock { cached in
            if cached.second != now {
                cached = (now, Self.format(now))
            }
            return cached.text
        }
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT` for `seconds` since 1970.
    public static func format(_ seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
