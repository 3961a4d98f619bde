import Foundation

/// `frequency_caps:` — at most ``max`` impressions of the ads ``ads`` matches per viewer within
/// ``per`` (docs/campaign-format.md "Frequency caps"). The viewer is the signed `viewer`
/// attribute; a viewer who reached a cap gets other ads. Impressions are counted across every
/// ad the pattern matches (a line item's creatives share one cap), when a session that plays
/// them starts.
public struct FrequencyCap: Sendable {
    /// Ad ids it counts and caps: pool ads' ids, ad server creatives' identities.
    public let ads: Pattern
    /// Impressions allowed within ``per``: 1 to ``FrequencyCap/maxImpressions``.
    public let max: Int
    /// The window, in seconds: 1 to ``FrequencyCap/maxWindow``.
    public let per: Int
    /// How the campaign wrote it (`24h`), for reports.
    public let perText: String

    /// The longest window a cap may have: 400 days.
    public static let maxWindow = 400 * 86400
    public static let maxImpressions = 10_000
    /// Caps a campaign may hold: a session's token carries the indexes of those it reached, a byte each.
    public static let maxCaps = 64

    /// `90s`, `30m`, `24h`, `7d`, or a whole number of seconds: the seconds, or nil.
    public static func seconds(_ text: String) -> Int? {
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let last = trimmed.last else { return nil }
        let (digits, unit) = units[last].map { (trimmed.dropLast(), $0) } ?? (Substring(trimmed), 1)
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let count = Int(digits), (0...Self.maxWindow).contains(count),
            count * unit <= Self.maxWindow
        else { return nil }
        return count * unit
    }
}
