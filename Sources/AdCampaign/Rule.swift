import Foundation
import HLSPlaylist

/// A rule: when its condition holds for a viewer, its action applies. Every matching rule
/// applies, in order.
public struct Rule: Sendable {
    public let name: String
    public let condition: Condition
    public let action: Action
}

/// When a rule applies. Every part given must hold; an empty condition always holds.
public struct Condition: Sendable {
    /// Viewer attributes (`locale`, `device`, …) and the pattern each must match. A missing
    /// attribute never matches.
    public var attributes: [(name: String, pattern: Pattern)] = []
    public var time: TimeWindow?
    /// Days of the week, evaluated in the time window's zone (UTC without one).
    public var days: Set<Weekday>?
    public var flight: Flight?
    /// A pattern that must match at least one id the viewer has seen.
    public var seen: Pattern?

    public init() {}

    public var isEmpty: Bool {
        self.attributes.isEmpty && self.time == nil && self.days == nil && self.flight == nil && self.seen == nil
    }
}

/// A daily window `from`–`to` (minutes since midnight) in an IANA zone; a window whose end is
/// before its start runs across midnight (`22:00`–`02:00`).
public struct TimeWindow: Sendable, Hashable {
    public let from: Int
    public let to: Int
    /// An IANA zone identifier, checked at load.
    public let zone: String
    /// The calendar the window and the rule's days are read in: Gregorian in ``zone``, built once
    /// at load (a `TimeZone` and a `Calendar` per evaluation cost more than the rest of a plan).
    public let calendar: Calendar

    public init?(from: Int, to: Int, zone: String) {
        guard let timeZone = TimeZone(identifier: zone) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        self.from = from
        self.to = to
        self.zone = zone
        self.calendar = calendar
    }

    /// Gregorian in UTC: where `days` are read without a time window.
    public static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        return calendar
    }()

    /// Whether `minute` (since midnight, local) falls in the window; `from` inclusive, `to` exclusive.
    public func contains(minute: Int) -> Bool {
        self.from <= self.to ? (self.from <= minute && minute < self.to) : (minute >= self.from || minute < self.to)
    }
}

public enum Weekday: String, Sendable, Hashable, CaseIterable {
    case sun, mon, tue, wed, thu, fri, sat

    /// Gregorian weekday number (1 = Sunday).
    public init?(number: Int) {
        guard (1...7).contains(number) else { return nil }
        self = Self.allCases[number - 1]
    }
}

/// A flight: the period a rule is live, `from` inclusive to `until` exclusive, as exact seconds
/// since the Unix epoch.
public struct Flight: Sendable, Hashable {
    public let from: ExactDecimal?
    public let until: ExactDecimal?
}

/// What a rule does.
public struct Action: Sendable {
    /// Ads whose id matches any of these are not chosen.
    public var exclude: [Pattern] = []
    /// Ads the viewer has seen (`seen=`) are not chosen.
    public var excludeSeen = false
    /// Weight multipliers by ad id.
    public var boost: [String: Double] = [:]
    /// Per-break pool override: the breaks named fill from these pools instead.
    public var pools: [String: [String]] = [:]

    public init() {}
}

/// One entry of `startup`: the first whose condition holds picks the startup variant.
public struct StartupRule: Sendable {
    public let condition: Condition
    public let pick: StartupPick
}

/// How to pick the startup variant (seed 002: start at a variant the network can sustain, then
/// adapt). Constraints narrow the candidates; `lowest` then takes the lowest BANDWIDTH, otherwise
/// the highest. With no candidate left, the lowest variant overall.
public struct StartupPick: Sendable, Hashable {
    public var lowest = false
    /// BANDWIDTH at most this.
    public var maxBandwidth: Int?
    /// RESOLUTION within this.
    public var maxResolution: Resolution?
    /// A codec family the variant's CODECS must include (`avc1`, `hvc1`, `dvh1`, `av01`…, by prefix).
    public var codecs: String?
    /// VIDEO-RANGE (`SDR`, `PQ`, `HLG`).
    public var videoRange: String?
    /// Use the viewer's `bandwidth` attribute (bits/s measured last time) times this factor as
    /// the BANDWIDTH ceiling, when the viewer sends one.
    public var bandwidthSafety: Double?

    public init() {}
}
