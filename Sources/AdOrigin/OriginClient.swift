import AdCampaign
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// How remote playlists are fetched (issue 11; DESIGN.md `origin:`): the defaults a campaign's
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

    public init() {}
}

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
        case notHTTP
    }

    public var url: URL
    public var reason: Reason
    /// Tries made.
    public var attempts: Int

    public var description: String {
        let tries = self.attempts > 1 ? " (after \(self.attempts) tries)" : ""
        switch self.reason {
        case .status(let code):
            return "\(self.url.absoluteString) answered HTTP \(code)\(tries)"
        case .timeout:
            return "\(self.url.absoluteString) did not answer in time\(tries); raise origin.timeout if the origin is slow"
        case .connection(let detail):
            return "cannot connect to \(self.url.absoluteString)\(tries): \(detail)"
        case .tooLarge(let limit):
            return "\(self.url.absoluteString) is larger than \(limit) bytes, the most a playlist may have"
        case .tooManyRedirects(let limit):
            return "\(self.url.absoluteString) redirects more than \(limit) times (or in a loop)"
        case .notHTTP:
            return "\(self.url.absoluteString) is not an http or https URL"
        }
    }
}

/// Fetches playlists from http(s) origins with async-http-client: one shared client, the
/// settings' timeouts, redirect and size limits, tries with backoff on connection errors and 5xx
/// (never on 4xx), conditional requests (ETag / Last-Modified) for polling.
public final class OriginClient: Sendable {
    /// Written into the User-Agent.
    public static let version = "0.11"

    public let settings: OriginSettings
    private let client: HTTPClient

    public init(settings: OriginSettings = OriginSettings(), eventLoopGroup: any EventLoopGroup = HTTPClient.defaultEventLoopGroup) {
        self.settings = settings
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .follow(max: settings.maxRedirects, allowCycles: false),
            timeout: .init(connect: TimeAmount(settings.connectTimeout))
        )
        configuration.decompression = .disabled
        self.client = HTTPClient(eventLoopGroupProvider: .shared(eventLoopGroup), configuration: configuration)
    }

    /// Closes the client's connections; call once, when done.
    public func shutdown() async throws {
        try await self.client.shutdown()
    }

    /// The playlist at `url`, or `.notModified` when it still has `etag` / `lastModified`.
    public func fetch(_ url: URL, etag: String? = nil, lastModified: String? = nil) async throws(OriginError) -> FetchOutcome {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw OriginError(url: url, reason: .notHTTP, attempts: 0)
        }
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "User-Agent", value: self.settings.userAgent)
        if let etag { request.headers.add(name: "If-None-Match", value: etag) }
        if let lastModified { request.headers.add(name: "If-Modified-Since", value: lastModified) }
        var attempt = 0
        while true {
            attempt += 1
            let reason: OriginError.Reason
            do {
                let response = try await self.client.execute(request, timeout: TimeAmount(self.settings.timeout))
                switch response.status.code {
                case 200..<300:
                    let body = try await response.body.collect(upTo: self.settings.maxBytes)
                    return .fetched(
                        FetchedPlaylist(
                            bytes: Array(body.readableBytesView),
                            url: response.url ?? url,
                            etag: response.headers.first(name: "ETag"),
                            lastModified: response.headers.first(name: "Last-Modified")
                        )
                    )
                case 304 where etag != nil || lastModified != nil:
                    return .notModified
                case 500..<600:
                    reason = .status(Int(response.status.code))
                default:
                    throw OriginError(url: url, reason: .status(Int(response.status.code)), attempts: attempt)
                }
            } catch let error as OriginError {
                throw error
            } catch let error as NIOTooManyBytesError {
                _ = error
                throw OriginError(url: url, reason: .tooLarge(limit: self.settings.maxBytes), attempts: attempt)
            } catch let error as HTTPClientError {
                switch error {
                case .redirectLimitReached, .redirectCycleDetected:
                    throw OriginError(url: url, reason: .tooManyRedirects(limit: self.settings.maxRedirects), attempts: attempt)
                case .deadlineExceeded, .readTimeout, .connectTimeout:
                    reason = .timeout
                default:
                    reason = .connection("\(error)")
                }
            } catch {
                reason = .connection("\(error)")
            }
            guard attempt < self.settings.attempts else { throw OriginError(url: url, reason: reason, attempts: attempt) }
            // Backoff: 200 ms, 400 ms, … between tries.
            try? await Task.sleep(for: self.settings.backoff * (1 << (attempt - 1)))
        }
    }
}

extension OriginClient {
    /// ``fetch(_:etag:lastModified:)`` for synchronous callers — the campaign loader, run by the
    /// CLI and on NIO's blocking thread pool — waiting on the calling thread. Never call it on an
    /// event loop or from a task on Swift's cooperative pool that the fetch itself needs.
    public func fetchWaiting(_ url: URL) throws(OriginError) -> FetchedPlaylist {
        let result = Mutex<Result<FetchOutcome, OriginError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            let outcome: Result<FetchOutcome, OriginError>
            do throws(OriginError) {
                outcome = .success(try await self.fetch(url))
            } catch {
                outcome = .failure(error)
            }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        switch result.withLock({ $0 }) {
        case .success(.fetched(let playlist))?: return playlist
        case .failure(let error)?: throw error
        // Without validators there is no 304; and the task always sets a result.
        case .success(.notModified)?, nil: throw OriginError(url: url, reason: .status(304), attempts: 1)
        }
    }

    /// Local files, and http(s) playlists fetched through this client (``fetchWaiting(_:)``).
    public var playlistSource: PlaylistSource {
        PlaylistSource.files { url in
            let playlist = try self.fetchWaiting(url)
            return (Data(playlist.bytes), playlist.url)
        }
    }
}
