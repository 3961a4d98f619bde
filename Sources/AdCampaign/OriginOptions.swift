import HLSPlaylist

/// How a campaign's remote playlists are fetched: its `origin:` block (docs/campaign-format.md).
/// A field left out takes the server's setting (`serve --origin-…`) or the default.
public struct OriginOptions: Sendable, Hashable {
    /// Time to establish a connection.
    public var connectTimeout: Duration?
    /// Time for a whole request, redirects included.
    public var timeout: Duration?
    /// Time between conditional re-fetches while serving.
    public var poll: Duration?
    /// Redirects followed before giving up.
    public var maxRedirects: Int?
    /// The most bytes a playlist may have.
    public var maxBytes: Int?
    /// Tries in all (connection errors, timeouts and 5xx are tried again; 4xx never).
    public var attempts: Int?

    public init() {}

    /// The campaign keys, as the loader reads them.
    static let keys = ["connect_timeout", "timeout", "poll", "max_redirects", "max_bytes", "attempts"]
}

extension Duration {
    /// An exact decimal number of seconds (`0.25`) as a duration: ExactDecimal counts
    /// attoseconds, as Duration does.
    init(_ seconds: ExactDecimal) {
        let unit = Int128(1_000_000_000_000_000_000)
        self.init(
            secondsComponent: Int64(seconds.scaledValue / unit),
            attosecondsComponent: Int64(seconds.scaledValue % unit)
        )
    }
}
