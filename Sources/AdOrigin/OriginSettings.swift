import AdCampaign
import Foundation

/// How remote playlists are fetched (docs/campaign-format.md `origin:`): the defaults a campaign's
/// `origin:` block and `serve` flags override.
public struct OriginSettings: Sendable, Hashable {
    /// Time to establish a connection.
    public var connectTimeout: Duration = .seconds(2)
    /// Time for a whole request, redirects included.
    public var timeout: Duration = .seconds(5)
    /// Redirects followed before giving up.
    public var maxRedirects = 5
    /// The most bytes a playlist may have.
    public var maxBytes = 16 << 20
    /// Tries in all: connection errors and 5xx are tried again, 4xx never.
    public var attempts = 3
    /// The pause before the second try; it doubles for each one after.
    public var backoff: Duration = .milliseconds(200)
    public var userAgent = "AdStitch/\(OriginClient.version)"
    /// Time between conditional re-fetches while serving.
    public var poll: Duration = .seconds(30)
    /// Which addresses a request may reach, checked on every hop (``AddressPolicy``; redirects are
    /// then followed one at a time); nil: any — the origins a campaign names itself. What an ad
    /// server's answer names is fetched with one.
    public var addresses: AddressPolicy?
    /// The connections the request shares (``OriginPool``).
    public var pool: OriginPool = .origins

    public init() {}

    /// These settings with what a campaign's `origin:` block says instead.
    public func applying(_ options: OriginOptions) -> OriginSettings {
        var settings = self
        if let value = options.connectTimeout { settings.connectTimeout = value }
        if let value = options.timeout { settings.timeout = value }
        if let value = options.poll { settings.poll = value }
        if let value = options.maxRedirects { settings.maxRedirects = value }
        if let value = options.maxBytes { settings.maxBytes = value }
        if let value = options.attempts { settings.attempts = value }
        return settings
    }
}

/// Which connections a request shares: each pool has its own connections per host, so a burst of
/// one kind (an ad server answer's wrappers, a tracking server that hangs) never holds the
/// connections another kind needs.
public enum OriginPool: Sendable, Hashable {
    /// Programme playlists and catalogue titles.
    case origins
    /// The ad decision servers a campaign names (`ad_server:`).
    case adServers
    /// What ad servers' answers name: wrappers, creatives' playlists and files.
    case adServerLinks
    /// Tracking and error pixels.
    case trackers
}
