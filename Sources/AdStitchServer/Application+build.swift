import AdCampaign
import AdCampaignStore
import AdDecision
import AdFrontDoor
import AdLiveRuntime
import AdMetrics
import AdOrigin
import AdQuality
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// How `adstitch serve` runs the endpoint.
public struct ServerConfiguration: Sendable {
    public var campaigns: URL
    public var host: String
    public var port: Int
    /// Session tokens, session starts and the preview (``SessionPolicy``); every replica must share its keys.
    public var policy: SessionPolicy
    /// How often the campaigns folder is checked for changes.
    public var reloadInterval: Duration = .seconds(2)
    /// How remote playlists are fetched and how often they are polled, where a campaign's
    /// `origin:` block does not say (`serve --origin-…`).
    public var origin = OriginSettings()
    /// The byte budget of the cache of token-scoped answers (0 turns it off).
    public var responseCacheBytes = Self.defaultResponseCacheBytes
    /// 4 MiB: some thirty two-hour media playlists (128 KiB buffers), plus their gzip forms. A
    /// stitched answer costs only some 50 µs more than a cached one (docs/performance.md), so
    /// the memory is worth more to a replica's peak RSS than to a bigger cache.
    public static let defaultResponseCacheBytes = 4 << 20
    /// A connection with no request in flight, or whose client has not read its answers, is
    /// closed after this long (``ConnectionDeadlinesHandler``).
    public var idleTimeout: Duration = .seconds(60)
    /// The first request head must arrive within this long of the connection opening, and every
    /// request whole within this long of its head: a client sending its headers or a body a byte
    /// at a time holds nothing for long (``ConnectionDeadlinesHandler``).
    public var headerTimeout: Duration = .seconds(10)
    /// At most this many connections at once; more wait in the listen backlog.
    public var maxConnections = 10_000
    /// Where requests, stitching and reloads are counted; served at `/metrics`.
    public var metrics = ServerMetrics()
    /// The PostgreSQL database of live channels' break history (`serve --database`,
    /// `postgres://user@host:port/db`), shared by the replicas; nil: each replica knows only the
    /// breaks it saw (docs/design-decisions.md "Live").
    public var database: String?
    /// Folders campaigns' local media may lie in through a symbolic link inside their folder
    /// (`serve --media-root`): one ad library, many campaigns. The media route still serves only
    /// files a loaded campaign references.
    public var mediaRoots: [URL] = []
    /// Creatives this replica conditions at once (`--conditioning-jobs`).
    public var conditioningJobs = 1
    /// Where absolute URIs point (`serve --public-url`, `--trust-forwarded`; ``PublicAddress``).
    public var publicAddress = PublicAddress()
    /// This replica's name in the server's view of sessions and `?by=replica` (`serve --replica`);
    /// nil: the host's name and the port.
    public var replica: String?

    public init(campaigns: URL, host: String = "127.0.0.1", port: Int = 8080, policy: SessionPolicy) {
        self.campaigns = campaigns
        self.host = host
        self.port = port
        self.policy = policy
    }
}

/// Builds the HTTP application: the campaigns of the folder, the routes of the API.
public func buildApplication(_ configuration: ServerConfiguration, logger: Logger) async throws -> some ApplicationProtocol {
    // Remote playlists (docs/campaign-format.md `origin:`) through one origin client, shut down with the app.
    // The first load runs on NIO's blocking thread pool, like every reload: it waits for fetches,
    // and the caller may be an event loop. Campaigns are loaded when the server starts.
    let origin = OriginClient(settings: configuration.origin, metrics: configuration.metrics.factory)
    var history: PostgresBreakHistory?
    if let database = configuration.database {
        guard let connected = PostgresBreakHistory(url: database, logger: logger) else {
            try? await origin.shutdown()
            throw ServerConfigurationError("--database \(database) is not a postgres://user[:password]@host[:port]/database URL")
        }
        history = connected
    }
    let live = LiveChannels(
        client: origin,
        history: history,
        historyWindow: configuration.policy.sessionTTL,
        logger: logger
    )
    let store = CampaignStore(
        folder: configuration.campaigns,
        logger: logger,
        metrics: configuration.metrics,
        remote: RemotePlaylists(client: origin),
        live: live,
        mediaRoots: configuration.mediaRoots,
        revisionRetention: configuration.policy.sessionTTL,
        loadNow: false
    )
    do {
        _ = try await NIOThreadPool.singleton.runIfActive { store.reload(logger: logger, settle: false) }
    } catch {
        try? await origin.shutdown()
        throw error
    }
    // Sessions' ad decisions: in PostgreSQL beside the live break history when there is one,
    // else in this replica's memory — said at start when a campaign asks an ad server.
    let decisions: any AdDecisionStore = history.map { PostgresAdDecisionStore(client: $0.client, logger: logger) } ?? MemoryAdDecisionStore()
    if store.statuses.contains(where: { $0.id.flatMap(store.campaign)?.campaign.asksAdServers == true }) {
        logger.notice("\(decisions.summary)")
    }
    // Each ad event fired once per viewer: the ledger beside the decisions.
    let ledger: any BeaconLedger = history.map { PostgresBeaconLedger(client: $0.client, logger: logger) } ?? MemoryBeaconLedger()
    if store.statuses.contains(where: {
        ($0.id.flatMap(store.campaign)?.campaign).map { $0.reporting == .server && $0.ads.contains { !$0.tracking.isEmpty } } == true
    }) {
        logger.notice("\(ledger.summary)")
    }
    // Frequency caps: viewers' impressions beside the ledger.
    let impressions: any ImpressionStore = history.map { PostgresImpressionStore(client: $0.client, logger: logger) } ?? MemoryImpressionStore()
    if store.statuses.contains(where: { $0.id.flatMap(store.campaign)?.campaign.frequencyCaps.isEmpty == false }) {
        logger.notice("\(impressions.summary)")
        if configuration.policy.startKey == nil {
            logger.warning(
                "a campaign has frequency_caps but serve has no --start-key: the viewer attribute is trusted, so unsigned starts drop it and no cap applies; sign session starts"
            )
        }
    }
    // Conditioning of ad server creatives: its queue beside the decisions.
    let jobs: any ConditioningJobStore = history.map { PostgresConditioningJobs(client: $0.client, logger: logger) } ?? MemoryConditioningJobs()
    let conditioning = CreativeConditioning(
        jobs: jobs,
        campaigns: store,
        origin: origin,
        mediaRoots: configuration.mediaRoots,
        metrics: configuration.metrics,
        logger: logger,
        workers: configuration.conditioningJobs
    )
    if store.statuses.contains(where: { $0.id.flatMap(store.campaign)?.campaign.creatives?.conditions == true }) {
        logger.notice("\(jobs.summary); this replica conditions \(configuration.conditioningJobs) at a time")
    }
    let sessions = SessionController(
        store: store,
        policy: configuration.policy,
        cacheBytes: configuration.responseCacheBytes,
        publicAddress: configuration.publicAddress,
        decisions: decisions,
        conditioning: conditioning,
        beacons: BeaconFirer(origin: origin, metrics: configuration.metrics, logger: logger),
        ledger: ledger,
        impressions: impressions
    )
    // Players' viewing-quality reports: beside the ledger.
    let quality: any QualityStore = history.map { PostgresQualityStore(client: $0.client, logger: logger) } ?? MemoryQualityStore()
    logger.info("\(quality.summary)")
    // The server's own view of each session, written beside the reports.
    let views = ServerViews(
        sessions: sessions,
        store: quality,
        replica: configuration.replica ?? "\(ProcessInfo.processInfo.hostName):\(configuration.port)"
    )
    var app = buildApplication(
        router: buildRouter(store: store, policy: configuration.policy, sessions: sessions, views: views),
        sessions: sessions,
        address: .hostname(configuration.host, port: configuration.port),
        idleTimeout: configuration.idleTimeout,
        headerTimeout: configuration.headerTimeout,
        maxConnections: configuration.maxConnections,
        logger: logger
    )
    app.addServices(
        CampaignReloader(store: store, interval: configuration.reloadInterval, logger: logger),
        LiveChannelsService(channels: live),
        OriginClientService(client: origin),
        ServerViewsService(views: views)
    )
    if let shared = decisions as? PostgresAdDecisionStore {
        app.addServices(AdDecisionsService(store: shared, logger: logger))
    }
    if configuration.conditioningJobs > 0 {
        app.addServices(ConditioningWorkers(conditioning: conditioning))
    }
    return app
}

/// A server setting that cannot work, said so a person can fix it.
public struct ServerConfigurationError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// Shuts the origin client down when the application stops.
struct OriginClientService: Service {
    let client: OriginClient

    func run() async throws {
        try? await gracefulShutdown()
        try await self.client.shutdown()
    }
}

/// Forgets expired sessions' ad decisions every hour. The PostgreSQL client itself runs with the
/// live channels (``LiveChannelsService``).
struct AdDecisionsService: Service {
    let store: PostgresAdDecisionStore
    let logger: Logger

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await self.store.prune(now: Int64(Date().timeIntervalSince1970))
                } catch {
                    self.logger.warning("cannot forget expired ad decisions in PostgreSQL", metadata: ["error": "\(error)"])
                }
                try await Task.sleep(for: .seconds(3_600))
            }
        }
    }
}

/// The application over a campaign store, as `serve` answers requests (its router and the
/// session file door, ``SessionFileDoor``) but without its services, on an ephemeral loopback
/// port: tests build it directly, and serve it with HummingbirdTesting's `.live` framework.
public func buildApplication(
    store: CampaignStore,
    policy: SessionPolicy,
    responseCacheBytes: Int = ServerConfiguration.defaultResponseCacheBytes,
    publicAddress: PublicAddress = PublicAddress()
) -> some ApplicationProtocol {
    let sessions = SessionController(store: store, policy: policy, cacheBytes: responseCacheBytes, publicAddress: publicAddress)
    return buildApplication(store: store, policy: policy, sessions: sessions)
}

/// ``buildApplication(store:policy:responseCacheBytes:publicAddress:)`` with a session controller of the caller's.
func buildApplication(store: CampaignStore, policy: SessionPolicy, sessions: SessionController) -> some ApplicationProtocol {
    buildApplication(
        router: buildRouter(store: store, policy: policy, sessions: sessions),
        sessions: sessions,
        address: .hostname("127.0.0.1", port: 0),
        idleTimeout: .seconds(60),
        headerTimeout: .seconds(10),
        maxConnections: 1_000,
        logger: Logger(label: "adstitch-test")
    )
}

/// The HTTP application: `router`, and in each connection's pipeline the door of `sessions`'
/// files (``SessionFileDoor``), with the deadlines and the HTTP/1.0 rule of
/// ``KeepAliveRespectingHTTP1Channel``.
func buildApplication(
    router: Router<AdStitchRequestContext>,
    sessions: SessionController,
    address: BindAddress,
    idleTimeout: Duration,
    headerTimeout: Duration,
    maxConnections: Int,
    logger: Logger
) -> Application<RouterResponder<AdStitchRequestContext>> {
    let serverName = "AdStitch"
    let dates = HTTPDateCache()
    let door = SessionFileDoor(sessions: sessions, logger: logger)
    return Application(
        router: router,
        server: HTTPServerBuilder { responder in
            KeepAliveRespectingHTTP1Channel(
                base: HTTP1Channel(
                    responder: responder,
                    configuration: .init(
                        additionalChannelHandlers: [
                            ConnectionDeadlinesHandler(requestTimeout: TimeAmount(headerTimeout), readTimeout: TimeAmount(idleTimeout))
                        ],
                        idleTimeout: TimeAmount(idleTimeout)
                    )
                ),
                door: { FrontDoorHandler(service: door, serverName: serverName, dates: dates) }
            )
        },
        configuration: .init(
            address: address,
            serverName: serverName,
            availableConnectionsDelegate: MaximumAvailableConnections(maxConnections, logger: logger)
        ),
        logger: logger
    )
}

/// The routes, over a campaign store (tests build it directly); metrics go to the store's.
/// Session files are not among them: ``buildApplication(store:policy:responseCacheBytes:publicAddress:)``.
public func buildRouter(
    store: CampaignStore,
    policy: SessionPolicy,
    responseCacheBytes: Int = ServerConfiguration.defaultResponseCacheBytes,
    publicAddress: PublicAddress = PublicAddress()
) -> Router<AdStitchRequestContext> {
    let sessions = SessionController(store: store, policy: policy, cacheBytes: responseCacheBytes, publicAddress: publicAddress)
    return buildRouter(store: store, policy: policy, sessions: sessions)
}

/// The routes, with the session controller the server's ``SessionFileDoor`` shares and the
/// server's view of sessions beside the store of viewing-quality reports (by default in memory,
/// flushed only before a quality read: ``ServerViewsService`` flushes a server's).
func buildRouter(
    store: CampaignStore,
    policy: SessionPolicy,
    sessions: SessionController,
    views: ServerViews? = nil
) -> Router<AdStitchRequestContext> {
    let views = views ?? ServerViews(sessions: sessions, store: MemoryQualityStore(), replica: "local")
    let router = Router(context: AdStitchRequestContext.self)
    // One structured line per request at debug level (`serve --log-level debug`): a replica
    // behind a load balancer or CDN has its access log there, and writing a line per request
    // costs more than answering a cached one. Hummingbird puts the request id (hb.request.id)
    // in the metadata of every line logged through the request's context.
    router.add(middleware: LogRequestsMiddleware(.debug))
    // Outside the others, so it counts the final status (problems, 304s).
    router.add(middleware: RequestMetricsMiddleware(metrics: store.metrics))
    router.add(middleware: HTTPSemanticsMiddleware())
    router.add(middleware: ProblemMiddleware())
    router.getAndHead(Routes.healthz) { _, _ -> String in "ok\n" }
    // Ready once some campaign serves: a replica with none should not get traffic. Nor one whose
    // live channels' windows it has read but does not yet hold a whole viewer's window of (an
    // origin with a short window: its viewers' windows would start later than other replicas').
    router.getAndHead(Routes.readyz) { _, _ -> Response in
        let serving = store.statuses.filter { $0.serving != nil }
        guard !serving.isEmpty else {
            throw Problem(status: .serviceUnavailable, title: "Not ready", detail: "no campaign is loaded; see GET /v1/campaigns")
        }
        let warming = serving.compactMap { $0.id }.filter { id in
            guard let channel = store.campaign(id)?.channel else { return false }
            return channel.prepared(0) != nil && !channel.isWarm
        }
        guard warming.isEmpty else {
            throw Problem(
                status: .serviceUnavailable,
                title: "Not ready",
                detail: "live channels still being read: \(warming.joined(separator: ", ")); ready once each holds a viewer's window"
            )
        }
        return .tagged("ready: \(serving.count) campaigns\n", contentType: "text/plain", cache: "no-store")
    }
    router.getAndHead(Routes.metrics) { _, _ -> Response in
        Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: store.metrics.exposition())
        )
    }
    // The hls.js build the player page and the preview's players use, read once.
    let hlsJS = policy.previewPlayer.flatMap { try? String(contentsOf: $0, encoding: .utf8) }
    CatalogueController(store: store, conditioning: sessions.conditioning, preview: policy.preview, hlsJS: hlsJS).register(on: router)
    sessions.register(on: router)
    QualityController(sessions: sessions, store: views.store, views: views).register(on: router)
    if policy.preview != .off {
        PreviewController(store: store, sessions: sessions, player: hlsJS, views: views).register(on: router)
    }
    MediaController(store: store, observer: sessions.observer, policy: policy).register(on: router)
    return router
}
