import AdCampaign
import Foundation

/// Who is watching, and when: what rules decide on (docs/architecture.md "Data flow").
public struct ViewerContext: Sendable, Hashable {
    /// The session id: with the campaign revision and a break id it seeds every choice, so one
    /// session gets the same ads on every request and every replica.
    public var session: String
    /// When the decision is made (time-of-day, day and flight rules).
    public var at: Date
    /// Free attributes: `locale`, `device`, `market`, `seen`, `bandwidth`, …
    public var attributes: [String: String]
    /// The campaign's frequency caps (indexes into ``Campaign/frequencyCaps``, ascending) the
    /// viewer had reached when the session started: the ads they match are not played.
    public var capped: [Int]

    public init(session: String, at: Date, attributes: [String: String] = [:], capped: [Int] = []) {
        self.session = session
        self.at = at
        self.attributes = attributes
        self.capped = capped
    }

    /// A decision time in whole milliseconds since the epoch, as a session token carries it:
    /// the `Date` made from it gives back the same milliseconds (``milliseconds``).
    public init(session: String, milliseconds: Int64, attributes: [String: String] = [:], capped: [Int] = []) {
        self.init(session: session, at: Date(timeIntervalSince1970: Double(milliseconds) / 1000), attributes: attributes, capped: capped)
    }

    /// The decision time in whole milliseconds since the epoch (rounded: a `Date` holds binary
    /// seconds, and rounding down would write some programme date-times 1 ms early).
    public var milliseconds: Int64 {
        let value = (self.at.timeIntervalSince1970 * 1000).rounded()
        guard value.isFinite else { return 0 }
        return Int64(min(max(value, -9.0e15), 9.0e15))
    }

    /// The ad ids the viewer has seen (`seen=alpha,bravo`).
    public var seen: [String] {
        self.attributes["seen"].map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } } ?? []
    }

    /// The bandwidth the client measured last time, in bits/s: a whole number from 1 to 2⁵³ − 1
    /// (``CampaignLimits/maxBandwidth``), else nil — no value a viewer sends can overflow a
    /// startup decision.
    public var bandwidth: Int? {
        self.attributes["bandwidth"].flatMap { Int($0) }.flatMap { (1...CampaignLimits.maxBandwidth).contains($0) ? $0 : nil }
    }
}
