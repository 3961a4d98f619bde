import Foundation

/// A playlist as the origin sent it.
public struct FetchedPlaylist: Sendable, Hashable {
    public var bytes: [UInt8]
    /// The URL after redirects: relative URIs inside the playlist resolve against it.
    public var url: URL
    /// Validators for the next, conditional request.
    public var etag: String?
    public var lastModified: String?
}

/// What a (conditional) fetch found.
public enum FetchOutcome: Sendable, Hashable {
    case fetched(FetchedPlaylist)
    /// 304: the playlist is what the validators named.
    case notModified
}

/// Why a fetch failed, with the URL: what the campaign error and `/v1/campaigns` show.
public struct OriginError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: Sendable, Hashable {
        /// The origin answered this status (after the tries 5xx gets).
        case status(Int)
        case timeout
        /// No connection (refused, unreachable, DNS, TLS).
        case connection(String)
        case tooLarge(limit: Int)
        case tooManyRedirects(limit: Int)
        /// The connection closed before the whole body (its Content-Length) arrived.
        case truncated
        case notHTTP
        /// The address policy refused it (``AddressPolicy``): why.
        case refused(String)
        /// The caller stopped waiting (its deadline passed).
        case cancelled
    }

    public var url: URL
    public var reason: Reason
    /// Tries made.
    public var attempts: Int

    public var description: String {
        let tries = self.attempts > 1 ? " (after \(self.attempts) tries)" : ""
        let url = Redaction.url(self.url.absoluteString)
        switch self.reason {
        case .status(let code):
            return "\(url) answered HTTP \(code)\(tries)"
        case .timeout:
            return "\(url) did not answer in time\(tries); raise origin.timeout if the origin is slow"
        case .connection(let detail):
            return "cannot connect to \(url)\(tries): \(detail)"
        case .tooLarge(let limit):
            return "\(url) is larger than \(limit) bytes, the most a playlist may have"
        case .tooManyRedirects(let limit):
            return "\(url) redirects more than \(limit) times (or in a loop)"
        case .truncated:
            return "\(url) closed the connection before the whole playlist arrived\(tries)"
        case .notHTTP:
            return "\(url) is not an http or https URL"
        case .refused(let reason):
            return "\(url) is not fetched: \(reason)"
        case .cancelled:
            return "\(url): the request was cancelled"
        }
    }
}
