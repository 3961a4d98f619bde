import AdMetrics
import AdStitchServer
import ArgumentParser
import CoreMetrics
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix

/// `adstitch serve`: the per-viewer HTTP endpoint over a folder of campaigns.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the campaigns of a folder over HTTP (the API of docs/http-api.md).",
        discussion: """
            Session tokens are signed with --secret (or the ADSTITCH_SECRET environment variable). Every replica \\
            behind one load balancer must share it; without one, a random secret is made and sessions survive only \\
            as long as this process and only on it. With --start-key, session starts must be signed by an app \\
            backend (exp and sig query parameters), and only then are trusted attributes such as seen honoured.
            """
    )

    @Option(help: "The folder of campaigns (each */campaign.yaml, or *.yaml).")
    var campaigns = "Campaigns"

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on.")
    var port = 8080

    @Option(
        name: .customLong("secret"),
        help: ArgumentHelp(
            "An HMAC secret of session tokens (default: $ADSTITCH_SECRET). Give several to rotate keys: the first signs, all verify.",
            valueName: "secret"
        )
    )
    var secrets: [String] = []

    @Option(help: "The key app backends sign session starts with (default: $ADSTITCH_START_KEY); see docs/http-api.md \"Session security\".")
    var startKey: String?

    @Option(help: "Seconds a session token plays after its session started.")
    var sessionTtl = 86_400

    @Flag(
        inversion: .prefixedNo,
        help: "Serve the campaign preview tool (/preview) to anyone who reaches the server: for a developer's machine. Off by default."
    )
    var preview = false

    @Option(
        help: ArgumentHelp(
            "Serve the preview tool only to requests carrying this key (AdStitch-Preview-Key header, or the cookie /preview?key=KEY sets; default: $ADSTITCH_PREVIEW_KEY).",
            valueName: "key"
        )
    )
    var previewKey: String?

    @Option(
        help:
            "An hls.js build (1.6 or later) for the preview's players: fMP4 and interstitial sessions (make run gives the one scripts/hlsjs.py extracts)."
    )
    var hlsJs: String?

    @Option(
        help: ArgumentHelp(
            "The server's public base URL (https://ads.example.com): interstitial asset lists name ads there, whatever Host a request sends, and may be cached by shared caches.",
            valueName: "url"
        )
    )
    var publicUrl: String?

    @Flag(help: "Believe X-Forwarded-Proto and X-Forwarded-Host: only behind a proxy that sets them and drops the client's.")
    var trustForwarded = false

    @Option(help: "Memory for recent token-scoped playlists and manifests, served again without stitching (0: off).")
    var responseCacheMib = 4

    @Option(help: "Seconds a connection may idle between requests, or leave its answers unread, before it is closed.")
    var idleTimeout = 60

    @Option(help: "Seconds a new connection has to send its first request head, and every request to arrive whole (head, body, end).")
    var headerTimeout = 10

    @Option(help: "Connections served at once; more wait in the listen backlog.")
    var maxConnections = 10_000

    @OptionGroup(title: "Origins")
    var origin: OriginFlags

    @Option(
        help: ArgumentHelp(
            "PostgreSQL for live channels' break history, shared by replicas (postgres://user[:password]@host[:port]/database; default: $ADSTITCH_DATABASE_URL; none: each replica knows the breaks it saw).",
            valueName: "url"
        )
    )
    var database: String?

    @Option(
        help: ArgumentHelp(
            "Creatives this replica conditions at once (campaigns with creatives:; 0: none here, jobs queued for other replicas). The queue is shared through --database.",
            valueName: "n"
        )
    )
    var conditioningJobs = 1

    @Option(
        help: ArgumentHelp(
            "This replica's name in the server's view of sessions and the viewing-quality KPIs by replica (default: the host's name and the port).",
            valueName: "name"
        )
    )
    var replica: String?

    @Option(help: "Log level: trace, debug (a line per request), info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .info

    func validate() throws {
        guard (1...65_535).contains(self.port) else { throw ValidationError("--port must be between 1 and 65535") }
        guard (0...64).contains(self.conditioningJobs) else { throw ValidationError("--conditioning-jobs must be from 0 to 64") }
        if let replica = self.replica, replica.isEmpty || replica.count > 64 {
            throw ValidationError("--replica must be 1 to 64 characters")
        }
        guard (0...4096).contains(self.responseCacheMib) else { throw ValidationError("--response-cache-mib must be between 0 and 4096") }
        guard (60...31_536_000).contains(self.sessionTtl) else { throw ValidationError("--session-ttl must be from 60 s to a year (31536000)") }
        guard (1...3600).contains(self.idleTimeout) else { throw ValidationError("--idle-timeout must be from 1 to 3600 seconds") }
        guard (1...600).contains(self.headerTimeout) else { throw ValidationError("--header-timeout must be from 1 to 600 seconds") }
        guard (1...1_000_000).contains(self.maxConnections) else { throw ValidationError("--max-connections must be from 1 to 1000000") }
        if let hlsJs, (try? String(contentsOfFile: hlsJs, encoding: .utf8))?.contains("Hls") != true {
            throw ValidationError("--hls-js \(hlsJs) is not a readable hls.js build; make hlsjs extracts one to .build-hlsjs/hls.js")
        }
        guard !self.secrets.contains(where: \.isEmpty) else { throw ValidationError("--secret must not be empty") }
        if self.previewKey?.isEmpty == true { throw ValidationError("--preview-key must not be empty") }
        if let publicUrl, !PublicAddress.isValidBase(publicUrl) {
            throw ValidationError("--public-url \(publicUrl) is not an http(s)://host[:port] base URL (no path, query, user or fragment)")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: self.campaigns, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("--campaigns \(self.campaigns) is not a folder")
        }
    }

    func run() async throws {
        // Swift concurrency's jobs run on NIO's event loops, which also do the socket I/O: a
        // request's handler runs where its bytes arrived, with no hop to another thread pool and
        // back (docs/performance.md). Blocking work — campaign reloads — goes to NIO's thread pool.
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        Self.keepLargeBlocksInTheHeap()
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        var logger = Logger(label: "adstitch")
        logger.logLevel = self.logLevel
        let environment = ProcessInfo.processInfo.environment
        var secrets = self.secrets
        if secrets.isEmpty, let secret = environment["ADSTITCH_SECRET"], !secret.isEmpty { secrets = [secret] }
        if secrets.isEmpty {
            secrets = [(0..<4).map { _ in UUID().uuidString }.joined()]
            logger.warning("no --secret or ADSTITCH_SECRET: using a random one; sessions will not survive a restart or work across replicas")
        }
        let startKey = (self.startKey ?? environment["ADSTITCH_START_KEY"]).flatMap { $0.isEmpty ? nil : $0 }
        if startKey == nil {
            logger.notice("no --start-key: session starts are unsigned, so the campaigns' trusted attributes (seen) are ignored on them")
        }
        var policy = SessionPolicy(secrets: secrets.map { Data($0.utf8) }, startKey: startKey.map { Data($0.utf8) })
        policy.sessionTTL = .seconds(self.sessionTtl)
        let previewKey = (self.previewKey ?? environment["ADSTITCH_PREVIEW_KEY"]).flatMap { $0.isEmpty ? nil : $0 }
        policy.preview = previewKey.map { .key(Data($0.utf8)) } ?? (self.preview ? .open : .off)
        switch policy.preview {
        case .off: logger.notice("the preview tool is off; --preview-key KEY serves it to those who have the key (--preview: to anyone)")
        case .open:
            logger.warning(
                "the preview tool is open to anyone who reaches this server: preview sessions choose their time and attributes, so they can play without ads; use --preview-key on a shared or public server"
            )
        case .key: logger.notice("the preview tool is served to requests with the preview key (open /preview?key=KEY in a browser)")
        }
        policy.previewPlayer = self.hlsJs.map { URL(fileURLWithPath: $0) }
        var configuration = ServerConfiguration(
            campaigns: URL(fileURLWithPath: self.campaigns, isDirectory: true),
            host: self.host,
            port: self.port,
            policy: policy
        )
        configuration.responseCacheBytes = self.responseCacheMib << 20
        configuration.idleTimeout = .seconds(self.idleTimeout)
        configuration.headerTimeout = .seconds(self.headerTimeout)
        configuration.maxConnections = self.maxConnections
        configuration.origin = self.origin.settings
        configuration.mediaRoots = self.origin.mediaRootURLs
        configuration.publicAddress = PublicAddress(base: self.publicUrl, trustsForwardedHeaders: self.trustForwarded)
        if self.publicUrl == nil {
            logger.notice("no --public-url: interstitial asset lists name the Host each request sends, and are answered private")
        }
        configuration.database = self.database ?? ProcessInfo.processInfo.environment["ADSTITCH_DATABASE_URL"]
        configuration.conditioningJobs = self.conditioningJobs
        configuration.replica = self.replica
        // The one process-wide bootstrap: anything in the process using swift-metrics reports to
        // the registry /metrics serves. (The server itself writes to it explicitly.)
        MetricsSystem.bootstrap(configuration.metrics.factory)
        let app = try await buildApplication(configuration, logger: logger)
        let base = "http://\(self.host):\(self.port)"
        print("AdStitch serving \(self.campaigns) on \(base)")
        print("  campaigns:  \(base)/v1/campaigns")
        print("  metrics:    \(base)/metrics")
        switch policy.preview {
        case .off: print("  preview:    off (serve --preview, or --preview-key KEY)")
        case .open: print("  preview:    \(base)/preview               (campaign preview tool: plan, reasons, player; open to anyone)")
        case .key: print("  preview:    \(base)/preview?key=…         (campaign preview tool, with the preview key)")
        }
        print("  play demo:  \(base)/play/evening-news   (open in Chromium or Safari; /play/ad-server-news: ads from an ad server)")
        print("  master:     \(base)/v1/campaigns/evening-news/master.m3u8?locale=es-ES")
        try await app.runService()
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

extension Serve {
    /// glibc hands blocks of 128 KiB and more back to the kernel when they are freed (its mmap and
    /// trim thresholds), so every 100 KB playlist answer would fault in fresh zeroed pages; this
    /// keeps them in the heap: 10–12 % less CPU per stitched answer at the same peak RSS
    /// (docs/performance.md). `mallopt` is looked up at run time: Swift's Glibc module does not
    /// import malloc.h, and other C libraries have no such knob.
    static func keepLargeBlocksInTheHeap() {
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        _ = mallopt(-3, 4 << 20)  // M_MMAP_THRESHOLD: blocks below 4 MiB come from the heap
        _ = mallopt(-1, 2 << 20)  // M_TRIM_THRESHOLD: the heap keeps up to 2 MiB free at its top
    }
}
