import Foundation
import HLSPlaylist

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
