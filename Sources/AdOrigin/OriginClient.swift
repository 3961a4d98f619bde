import AdCampaign
import AsyncHTTPClient
import CoreMetrics
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

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
        case .truncated:
            return "\(self.url.absoluteString) closed the connection before the whole playlist arrived\(tries)"
        case .notHTTP:
            return "\(self.url.absoluteString) is not an http or https URL"
        }
    }
}

/// Fetches playlists from http(s) origins with async-http-client: the settings' timeouts,
/// redirect and size limits, tries with backoff on connection errors, timeouts and 5xx (never on
/// 4xx), conditional requests (ETag / Last-Modified) for polling. Every try is counted in
/// `adstitch_origin_requests_total{status}` and timed in `adstitch_origin_fetch_seconds`.
///
/// One HTTP client per connect timeout and redirect limit in use (async-http-client sets those
/// per client): one in practice, unless campaigns' `origin:` blocks choose others. They share
/// NIO's event loops and are shut down together.
public final class OriginClient: Sendable {
    /// Written into the User-Agent.
    public static let version = "0.11"

    /// What a request uses when a campaign says nothing else.
    public let settings: OriginSettings
    private let eventLoopGroup: any EventLoopGroup
    private let clients = Mutex([ClientKey: HTTPClient]())
    private let metrics: any MetricsFactory
    private let statusHandles = Mutex([String: CoreMetrics.Counter]())
    private let fetchTimer: CoreMetrics.Timer

    private struct ClientKey: Hashable {
        var connectTimeout: Duration
        var maxRedirects: Int
    }

    public init(
        settings: OriginSettings = OriginSettings(),
        eventLoopGroup: any EventLoopGroup = HTTPClient.defaultEventLoopGroup,
        metrics: any MetricsFactory = MetricsSystem.factory
    ) {
        self.settings = settings
        self.eventLoopGroup = eventLoopGroup
        self.metrics = metrics
        self.fetchTimer = CoreMetrics.Timer(label: "adstitch_origin_fetch_seconds", factory: metrics)
    }

    /// ``shutdown()`` for synchronous callers (the CLI), waiting on the calling thread.
    @available(*, noasync, message: "waits on the calling thread; use shutdown()")
    public func shutdownWaiting() throws {
        let clients = self.clients.withLock { clients in
            defer { clients = [:] }
            return Array(clients.values)
        }
        for client in clients { try client.syncShutdown() }
    }

    /// Closes every client's connections; call once, when done.
    public func shutdown() async throws {
        let clients = self.clients.withLock { clients in
            defer { clients = [:] }
            return Array(clients.values)
        }
        for client in clients { try await client.shutdown() }
    }

    /// The playlist at `url`, or `.notModified` when it still has `etag` / `lastModified`.
    /// `headers` go with the request as they are (an ad decision server's `X-Device-*`).
    public func fetch(
        _ url: URL,
        settings: OriginSettings? = nil,
        etag: String? = nil,
        lastModified: String? = nil,
        headers: [(name: String, value: String)] = []
    ) async throws(OriginError) -> FetchOutcome {
        do {
            return try await self.outcome(url, settings: settings ?? self.settings, etag: etag, lastModified: lastModified, headers: headers).get()
        } catch {
            throw Self.originError(error, url: url)
        }
    }

    /// ``fetch(_:settings:etag:lastModified:)`` for synchronous callers — the campaign loader, run
    /// by the CLI and on NIO's blocking thread pool — waiting on the calling thread for NIO's
    /// event loops alone (never for a Swift concurrency task, which a busy cooperative pool could
    /// hold up). Never call it on an event loop.
    public func fetchWaiting(
        _ url: URL,
        settings: OriginSettings? = nil,
        etag: String? = nil,
        lastModified: String? = nil
    ) throws(OriginError) -> FetchOutcome {
        do {
            return try self.outcome(url, settings: settings ?? self.settings, etag: etag, lastModified: lastModified).wait()
        } catch {
            throw Self.originError(error, url: url)
        }
    }

    /// A fetch started now and waited for later (``Started/wait()``), for synchronous callers
    /// that know which playlists they will ask for next: the media playlists of a multivariant
    /// playlist fetched together rather than one after another.
    public func start(_ url: URL, settings: OriginSettings? = nil) -> Started {
        Started(url: url, future: self.outcome(url, settings: settings ?? self.settings, etag: nil, lastModified: nil))
    }

    /// A fetch under way (``start(_:settings:)``).
    public struct Started: Sendable {
        let url: URL
        let future: EventLoopFuture<FetchOutcome>

        /// Its outcome, as ``fetchWaiting(_:settings:etag:lastModified:)`` gives it: waits on the
        /// calling thread; never call it on an event loop.
        public func wait() throws(OriginError) -> FetchOutcome {
            do {
                return try self.future.wait()
            } catch {
                throw OriginClient.originError(error, url: self.url)
            }
        }
    }

    /// The fetch as NIO futures, tries and backoff included: one implementation for both the
    /// async and the waiting form.
    private func outcome(
        _ url: URL,
        settings: OriginSettings,
        etag: String?,
        lastModified: String?,
        headers: [(name: String, value: String)] = []
    ) -> EventLoopFuture<FetchOutcome> {
        let loop = self.eventLoopGroup.any()
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return loop.makeFailedFuture(OriginError(url: url, reason: .notHTTP, attempts: 0))
        }
        @Sendable func attempt(_ number: Int) -> EventLoopFuture<FetchOutcome> {
            let started = ContinuousClock.now
            return self.request(url, settings: settings, etag: etag, lastModified: lastModified, headers: headers)
                .hop(to: loop)
                .map { self.classify($0, url: url, attempt: number, started: started) }
                .recover { self.classify($0, url: url, settings: settings, attempt: number, started: started) }
                .flatMap { step in
                    switch step {
                    case .done(let outcome):
                        return loop.makeSucceededFuture(outcome)
                    case .fail(let error):
                        return loop.makeFailedFuture(error)
                    case .retry(let error):
                        guard number < settings.attempts else { return loop.makeFailedFuture(error) }
                        return loop.scheduleTask(in: TimeAmount(Self.backoff(settings, after: number))) {}.futureResult
                            .flatMap { attempt(number + 1) }
                    }
                }
        }
        return attempt(1)
    }

    /// What identifies the bytes at `url` now, from a `HEAD` (one try, within `timeout`): its
    /// `ETag`, `Last-Modified` and `Content-Length`, as one string (empty parts when not sent);
    /// nil when the server does not answer 2xx. A creative's source changes when this does.
    public func validators(_ url: URL, timeout: Duration) async -> String? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        let client = self.client(for: self.settings)
        do {
            let request = try HTTPClient.Request(url: url, method: .HEAD, headers: HTTPHeaders([("User-Agent", self.settings.userAgent)]))
            let response = try await client.execute(request: request, deadline: .now() + TimeAmount(timeout)).get()
            guard (200..<300).contains(Int(response.status.code)) else { return nil }
            return ["ETag", "Last-Modified", "Content-Length"].map { response.headers.first(name: $0) ?? "" }.joined(separator: "|")
        } catch {
            return nil
        }
    }

    /// A tracking request: one `GET` of `url` with `headers`, its body dropped, within `timeout`;
    /// the answer's status, or nil when none came. Not counted with the origins' requests.
    public func ping(_ url: URL, headers: [(name: String, value: String)], timeout: Duration) async -> Int? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        let client = self.client(for: self.settings)
        do {
            var fields = HTTPHeaders([("User-Agent", self.settings.userAgent)])
            for (name, value) in headers { fields.add(name: name, value: value) }
            let request = try HTTPClient.Request(url: url, method: .GET, headers: fields)
            let response = try await client.execute(request: request, deadline: .now() + TimeAmount(timeout)).get()
            return Int(response.status.code)
        } catch {
            return nil
        }
    }

    /// An error out of the futures as an ``OriginError`` (they fail with nothing else).
    private static func originError(_ error: any Error, url: URL) -> OriginError {
        error as? OriginError ?? OriginError(url: url, reason: .connection("\(error)"), attempts: 1)
    }

    /// Connections kept per host (async-http-client's soft limit; past it requests wait).
    public static let connectionsPerHost = 256

    /// The client for these settings' connect timeout and redirect limit, made on first use.
    private func client(for settings: OriginSettings) -> HTTPClient {
        let key = ClientKey(connectTimeout: settings.connectTimeout, maxRedirects: settings.maxRedirects)
        return self.clients.withLock { clients in
            if let client = clients[key] { return client }
            var configuration = HTTPClient.Configuration(
                redirectConfiguration: .follow(max: settings.maxRedirects, allowCycles: false),
                timeout: .init(connect: TimeAmount(settings.connectTimeout))
            )
            configuration.decompression = .disabled
            // async-http-client keeps 8 connections per host by default: an ad decision server
            // asked for every break of every session start, each answer tens of milliseconds
            // away, would queue behind them (measured: 50 session starts/s at most against a
            // 50 ms ad server, whatever the load). Origins get few requests; the limit is for them.
            configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: Self.connectionsPerHost)
            let client = HTTPClient(eventLoopGroupProvider: .shared(self.eventLoopGroup), configuration: configuration)
            clients[key] = client
            return client
        }
    }

    /// One request, its body collected up to the size limit, within the whole-request timeout.
    private func request(
        _ url: URL,
        settings: OriginSettings,
        etag: String?,
        lastModified: String?,
        headers extra: [(name: String, value: String)]
    ) -> EventLoopFuture<HTTPClient.Response> {
        let client = self.client(for: settings)
        do {
            var headers = HTTPHeaders([("User-Agent", settings.userAgent)])
            for (name, value) in extra { headers.add(name: name, value: value) }
            if let etag { headers.add(name: "If-None-Match", value: etag) }
            if let lastModified { headers.add(name: "If-Modified-Since", value: lastModified) }
            let request = try HTTPClient.Request(url: url, method: .GET, headers: headers)
            let accumulator = ResponseAccumulator(request: request, maxBodySize: settings.maxBytes)
            return client.execute(request: request, delegate: accumulator, deadline: .now() + TimeAmount(settings.timeout)).futureResult
        } catch {
            return client.eventLoopGroup.any().makeFailedFuture(error)
        }
    }

    /// What a try's answer means: done, failed for good (4xx, limits), or worth another try (5xx,
    /// connection errors, timeouts).
    private enum Step {
        case done(FetchOutcome)
        case fail(OriginError)
        case retry(OriginError)
    }

    private func classify(_ response: HTTPClient.Response, url: URL, attempt: Int, started: ContinuousClock.Instant) -> Step {
        let code = Int(response.status.code)
        self.count(String(code), since: started)
        switch code {
        case 200..<300:
            return .done(
                .fetched(
                    FetchedPlaylist(
                        bytes: response.body.map { Array($0.readableBytesView) } ?? [],
                        url: response.url ?? url,
                        etag: response.headers.first(name: "ETag"),
                        lastModified: response.headers.first(name: "Last-Modified")
                    )
                )
            )
        case 304:
            return .done(.notModified)
        case 500..<600:
            return .retry(OriginError(url: url, reason: .status(code), attempts: attempt))
        default:
            return .fail(OriginError(url: url, reason: .status(code), attempts: attempt))
        }
    }

    private func classify(_ error: any Error, url: URL, settings: OriginSettings, attempt: Int, started: ContinuousClock.Instant) -> Step {
        let step: Step
        if error is ResponseAccumulator.ResponseTooBigError {
            step = .fail(OriginError(url: url, reason: .tooLarge(limit: settings.maxBytes), attempts: attempt))
        } else if let error = error as? HTTPClientError, error == .redirectLimitReached || error == .redirectCycleDetected {
            step = .fail(OriginError(url: url, reason: .tooManyRedirects(limit: settings.maxRedirects), attempts: attempt))
        } else if let error = error as? HTTPClientError, error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
            step = .retry(OriginError(url: url, reason: .timeout, attempts: attempt))
        } else if (error as? HTTPClientError) == .remoteConnectionClosed || error is HTTPParserError {
            step = .retry(OriginError(url: url, reason: .truncated, attempts: attempt))
        } else {
            step = .retry(OriginError(url: url, reason: .connection("\(error)"), attempts: attempt))
        }
        let label: String
        switch step {
        case .fail(let failure), .retry(let failure):
            switch failure.reason {
            case .timeout: label = "timeout"
            case .tooLarge: label = "too_large"
            case .tooManyRedirects: label = "redirects"
            case .truncated: label = "truncated"
            default: label = "error"
            }
        case .done: label = "error"
        }
        self.count(label, since: started)
        return step
    }

    /// One try in the metrics: its status (or `timeout`, `error`, `too_large`, `redirects`) and time.
    private func count(_ status: String, since started: ContinuousClock.Instant) {
        let counter = self.statusHandles.withLock { handles in
            if let counter = handles[status] { return counter }
            let counter = CoreMetrics.Counter(label: "adstitch_origin_requests_total", dimensions: [("status", status)], factory: self.metrics)
            handles[status] = counter
            return counter
        }
        counter.increment()
        let (seconds, attoseconds) = (ContinuousClock.now - started).components
        self.fetchTimer.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    /// The pause after try `attempt`: ``OriginSettings/backoff``, doubled for each try after the first.
    private static func backoff(_ settings: OriginSettings, after attempt: Int) -> Duration {
        settings.backoff * (1 << (attempt - 1))
    }
}

extension OriginClient {
    /// Local files, and http(s) playlists fetched through this client (``fetchWaiting(_:settings:etag:lastModified:)``)
    /// as each campaign's `origin:` block says.
    public var playlistSource: PlaylistSource {
        PlaylistSource.files { url, options in
            // Without validators there is no 304.
            guard case .fetched(let playlist) = try self.fetchWaiting(url, settings: self.settings.applying(options)) else {
                throw OriginError(url: url, reason: .status(304), attempts: 1)
            }
            return (Data(playlist.bytes), playlist.url)
        }
    }
}
