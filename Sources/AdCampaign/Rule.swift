import Foundation
import HLSPlaylist

/// A rule: when its condition holds for a viewer, its action applies. Every matching rule
/// applies, in order.
public struct Rule: Sendable {
    public let name: String
    public let condition: Condition
    public let action: Action
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
    /// The ad decision server the viewer's breaks ask: a name of `ad_servers:`, or `none` (the
    /// pools alone); the last matching rule that names one wins.
    public var adServer: String?

    public init() {}
}
