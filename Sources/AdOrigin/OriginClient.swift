import AdCampaign
import AsyncHTTPClient
import CoreMetrics
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

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
    /// The HTTP clients made so far; nil once shut down (a request after that fails at once, and
    /// no client is made that nobody would shut down).
    private let clients = Mutex<[ClientKey: HTTPClient]?>([:])
    /// Where blocking loads that wait on origins run (catalogue titles, creatives): threads of
    /// their own, a few per origin (``BlockingWork``).
    public let blocking = BlockingWork()
    /// Where host names are resolved for an address policy's check: threads of its own, never
    /// the global queue or NIO's shared pool, which blocking loads can hold (``AddressPolicy``).
    let resolver: NIOThreadPool
    private let metrics: any MetricsFactory
    private let statusHandles = Mutex([String: CoreMetrics.Counter]())
    private let fetchTimer: CoreMetrics.Timer

    private struct ClientKey: Hashable {
        var connectTimeout: Duration
        /// Nil: redirects are followed by ``outcome(_:settings:etag:lastModified:headers:inFlight:)``, each hop checked.
        var maxRedirects: Int?
        var pool: OriginPool
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
        self.resolver = NIOThreadPool(numberOfThreads: 2)
        self.resolver.start()
    }

    /// ``shutdown()`` for synchronous callers (the CLI), waiting on the calling thread.
    @available(*, noasync, message: "waits on the calling thread; use shutdown()")
    public func shutdownWaiting() throws {
        let clients = self.clients.withLock { clients in
            defer { clients = nil }
            return Array(clients?.values ?? [:].values)
        }
        for client in clients { try client.syncShutdown() }
        try self.resolver.syncShutdownGracefully()
    }

    /// Closes every client's connections; call once, when done.
    public func shutdown() async throws {
        let clients = self.clients.withLock { clients in
            defer { clients = nil }
            return Array(clients?.values ?? [:].values)
        }
        for client in clients { try await client.shutdown() }
        try await self.resolver.shutdownGracefully()
    }

    /// What a request made after ``shutdown()`` fails with.
    struct ShutDown: Error, CustomStringConvertible {
        var description: String { "the origin client is shut down" }
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
        // A caller that stops waiting (a break's deadline) cancels the request under way: an
        // abandoned fetch must not hold a connection of its host's pool until its own timeout.
        let inFlight = InFlight()
        do {
            return try await withTaskCancellationHandler {
                try await self.outcome(
                    url,
                    settings: settings ?? self.settings,
                    etag: etag,
                    lastModified: lastModified,
                    headers: headers,
                    inFlight: inFlight
                )
                .get()
            } onCancel: {
                inFlight.cancel()
            }
        } catch {
            throw Self.originError(error, url: url)
        }
    }

    /// The request a fetch has under way, cancelled with its caller.
    private final class InFlight: Sendable {
        private let state = Mutex<(task: HTTPClient.Task<HTTPClient.Response>?, cancelled: Bool)>((nil, false))

        var isCancelled: Bool { self.state.withLock { $0.cancelled } }

        func started(_ task: HTTPClient.Task<HTTPClient.Response>) {
            let cancelled = self.state.withLock { state in
                state.task = task
                return state.cancelled
            }
            if cancelled { task.cancel() }
        }

        func cancel() {
            self.state.withLock { state in
                state.cancelled = true
                return state.task
            }?.cancel()
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
        headers: [(name: String, value: String)] = [],
        inFlight: InFlight? = nil
    ) -> EventLoopFuture<FetchOutcome> {
        let loop = self.eventLoopGroup.any()
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return loop.makeFailedFuture(OriginError(url: url, reason: .notHTTP, attempts: 0))
        }
        // `hop` is the URL of this redirect hop (the request's own at first): with an address
        // policy, each is checked before it is asked, and redirects come back here one by one.
        @Sendable func attempt(_ number: Int, _ hop: URL, redirects: Int) -> EventLoopFuture<FetchOutcome> {
            if inFlight?.isCancelled == true { return loop.makeFailedFuture(OriginError(url: hop, reason: .cancelled, attempts: number)) }
            let started = ContinuousClock.now
            return self.checked(hop, settings.addresses, on: loop)
                .flatMap { checked in
                    self.request(
                        hop,
                        checked: checked,
                        settings: settings,
                        etag: etag,
                        lastModified: lastModified,
                        headers: headers,
                        inFlight: inFlight
                    )
                    .hop(to: loop)
                    .map { self.classify($0, url: hop, settings: settings, redirects: redirects, attempt: number, started: started) }
                    .recover { self.classify($0, url: hop, settings: settings, attempt: number, started: started) }
                }
                .flatMap { step in
                    switch step {
                    case .done(let outcome):
                        return loop.makeSucceededFuture(outcome)
                    case .redirect(let next):
                        return attempt(number, next, redirects: redirects + 1)
                    case .fail(let error):
                        return loop.makeFailedFuture(error)
                    case .retry(let error):
                        guard number < settings.attempts, inFlight?.isCancelled != true else { return loop.makeFailedFuture(error) }
                        return loop.scheduleTask(in: TimeAmount(Self.backoff(settings, after: number))) {}.futureResult
                            .flatMap { attempt(number + 1, url, redirects: 0) }
                    }
                }
        }
        return attempt(1, url, redirects: 0)
    }

    /// `url` checked against `policy` off the event loop (it may resolve the host); as it is
    /// without one.
    private func checked(_ url: URL, _ policy: AddressPolicy?, on loop: any EventLoop) -> EventLoopFuture<AddressPolicy.Checked> {
        guard let policy else { return loop.makeSucceededFuture(AddressPolicy.Checked(connect: url, host: nil)) }
        let check: (Result<AddressPolicy.Checked, AddressPolicy.Refusal>) -> EventLoopFuture<AddressPolicy.Checked> = { result in
            switch result {
            case .success(let checked): loop.makeSucceededFuture(checked)
            case .failure(let refusal): loop.makeFailedFuture(OriginError(url: url, reason: .refused(refusal.reason), attempts: 1))
            }
        }
        // A trusted host or an address literal needs no lookup; a name is resolved on the
        // resolver's own threads.
        if let decided = policy.checkWithoutResolving(url) { return check(decided) }
        return self.resolver.runIfActive(eventLoop: loop) { policy.check(url) }.flatMap(check)
    }

    /// `url` checked against `policy` (off any event loop), or nil when it is not an http(s) URL
    /// or the policy refuses it: a `HEAD` or a tracking request has no error to report.
    func checked(_ url: URL, _ policy: AddressPolicy?) async -> AddressPolicy.Checked? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        guard let policy else { return AddressPolicy.Checked(connect: url, host: nil) }
        if let decided = policy.checkWithoutResolving(url) { return try? decided.get() }
        return try? await self.resolver.runIfActive { policy.check(url) }.get()
    }

    /// An error out of the futures as an ``OriginError`` (they fail with nothing else).
    private static func originError(_ error: any Error, url: URL) -> OriginError {
        error as? OriginError ?? OriginError(url: url, reason: .connection("\(error)"), attempts: 1)
    }

    /// Connections kept per host (async-http-client's soft limit; past it requests wait).
    public static let connectionsPerHost = 256

    /// The client for these settings' connect timeout and redirect limit, made on first use.
    func client(for settings: OriginSettings) -> HTTPClient? {
        let key = ClientKey(
            connectTimeout: settings.connectTimeout,
            maxRedirects: settings.addresses == nil ? settings.maxRedirects : nil,
            pool: settings.pool
        )
        return self.clients.withLock { clients in
            guard clients != nil else { return nil }
            if let client = clients?[key] { return client }
            var configuration = HTTPClient.Configuration(
                redirectConfiguration: key.maxRedirects.map { .follow(max: $0, allowCycles: false) } ?? .disallow,
                timeout: .init(connect: TimeAmount(settings.connectTimeout))
            )
            configuration.decompression = .disabled
            // async-http-client keeps 8 connections per host by default: an ad decision server
            // asked for every break of every session start, each answer tens of milliseconds
            // away, would queue behind them (measured: 50 session starts/s at most against a
            // 50 ms ad server, whatever the load). Origins get few requests; the limit is for them.
            configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: Self.connectionsPerHost)
            let client = HTTPClient(eventLoopGroupProvider: .shared(self.eventLoopGroup), configuration: configuration)
            clients?[key] = client
            return client
        }
    }

    /// One request, its body collected up to the size limit, within the whole-request timeout;
    /// to the address `checked` names, with its `Host`.
    private func request(
        _ url: URL,
        checked: AddressPolicy.Checked,
        settings: OriginSettings,
        etag: String?,
        lastModified: String?,
        headers extra: [(name: String, value: String)],
        inFlight: InFlight?
    ) -> EventLoopFuture<HTTPClient.Response> {
        guard let client = self.client(for: settings) else {
            return self.eventLoopGroup.any().makeFailedFuture(OriginError(url: url, reason: .connection("\(ShutDown())"), attempts: 1))
        }
        do {
            var headers = HTTPHeaders([("User-Agent", settings.userAgent)])
            for (name, value) in extra { headers.add(name: name, value: value) }
            if let host = checked.host { headers.replaceOrAdd(name: "Host", value: host) }
            if let etag { headers.add(name: "If-None-Match", value: etag) }
            if let lastModified { headers.add(name: "If-Modified-Since", value: lastModified) }
            let request = try HTTPClient.Request(url: checked.connect, method: .GET, headers: headers)
            let accumulator = ResponseAccumulator(request: request, maxBodySize: settings.maxBytes)
            let task = client.execute(request: request, delegate: accumulator, deadline: .now() + TimeAmount(settings.timeout))
            inFlight?.started(task)
            return task.futureResult
        } catch {
            return client.eventLoopGroup.any().makeFailedFuture(error)
        }
    }

    /// What a try's answer means: done, failed for good (4xx, limits), or worth another try (5xx,
    /// connection errors, timeouts).
    private enum Step {
        case done(FetchOutcome)
        /// A redirect the caller follows itself (requests under an address policy).
        case redirect(URL)
        case fail(OriginError)
        case retry(OriginError)
    }

    private func classify(
        _ response: HTTPClient.Response,
        url: URL,
        settings: OriginSettings,
        redirects: Int,
        attempt: Int,
        started: ContinuousClock.Instant
    ) -> Step {
        let code = Int(response.status.code)
        self.count(String(code), since: started)
        // Under an address policy the client follows no redirect: each hop is checked here first.
        if settings.addresses != nil, [301, 302, 303, 307, 308].contains(code), let location = response.headers.first(name: "Location") {
            guard redirects < settings.maxRedirects, let next = URL(string: location, relativeTo: url)?.absoluteURL else {
                return .fail(OriginError(url: url, reason: .tooManyRedirects(limit: settings.maxRedirects), attempts: attempt))
            }
            return .redirect(next)
        }
        switch code {
        case 200..<300:
            return .done(
                .fetched(
                    FetchedPlaylist(
                        bytes: response.body.map { Array($0.readableBytesView) } ?? [],
                        // The URL asked for, not the address connected to: relative URIs resolve against it.
                        url: settings.addresses == nil ? (response.url ?? url) : url,
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
        if let error = error as? OriginError {
            step = .fail(error)
        } else if (error as? HTTPClientError) == .cancelled {
            step = .fail(OriginError(url: url, reason: .cancelled, attempts: attempt))
        } else if error is ResponseAccumulator.ResponseTooBigError {
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
            case .refused: label = "refused"
            case .cancelled: label = "cancelled"
            default: label = "error"
            }
        case .done, .redirect: label = "error"
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
    public var playlistSource: PlaylistSource { self.playlistSource { $0 } }

    /// ``playlistSource`` with `adjust` applied to each remote fetch's settings: an ad server's
    /// creatives are fetched under the campaign's address policy.
    public func playlistSource(adjusting adjust: @escaping @Sendable (OriginSettings) -> OriginSettings) -> PlaylistSource {
        PlaylistSource.files { url, options in
            // Without validators there is no 304.
            guard case .fetched(let playlist) = try self.fetchWaiting(url, settings: adjust(self.settings.applying(options))) else {
                throw OriginError(url: url, reason: .status(304), attempts: 1)
            }
            return (Data(playlist.bytes), playlist.url)
        }
    }
}
