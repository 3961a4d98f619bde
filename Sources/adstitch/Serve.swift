import AdStitchServer
import ArgumentParser
import CoreMetrics
import Foundation
import Hummingbird
import Logging

/// `adstitch serve`: the per-viewer HTTP endpoint over a folder of campaigns.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the campaigns of a folder over HTTP (the API of docs/http-api.md).",
        discussion: """
            Session tokens are signed with --secret (or the ADSTITCH_SECRET environment variable). Every replica \\
            behind one load balancer must share it; without one, a random secret is made and sessions survive only \\
            as long as this process and only on it.
            """
    )

    @Option(help: "The folder of campaigns (each */campaign.yaml, or *.yaml).")
    var campaigns = "Campaigns"

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on.")
    var port = 8080

    @Option(help: "The HMAC secret of session tokens (default: $ADSTITCH_SECRET).")
    var secret: String?

    @Option(help: "Memory for recent token-scoped playlists and manifests, served again without stitching (0: off).")
    var responseCacheMib = 8

    func validate() throws {
        guard (1...65_535).contains(self.port) else { throw ValidationError("--port must be between 1 and 65535") }
        guard (0...4096).contains(self.responseCacheMib) else { throw ValidationError("--response-cache-mib must be between 0 and 4096") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: self.campaigns, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("--campaigns \(self.campaigns) is not a folder")
        }
    }

    func run() async throws {
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        var logger = Logger(label: "adstitch")
        logger.logLevel = .info
        var secret = self.secret ?? ProcessInfo.processInfo.environment["ADSTITCH_SECRET"]
        if secret?.isEmpty ?? true {
            secret = (0..<4).map { _ in UUID().uuidString }.joined()
            logger.warning("no --secret or ADSTITCH_SECRET: using a random one; sessions will not survive a restart or work across replicas")
        }
        var configuration = ServerConfiguration(
            campaigns: URL(fileURLWithPath: self.campaigns, isDirectory: true), host: self.host, port: self.port, secret: secret ?? "")
        configuration.responseCacheBytes = self.responseCacheMib << 20
        // The one process-wide bootstrap: anything in the process using swift-metrics reports to
        // the registry /metrics serves. (The server itself writes to it explicitly.)
        MetricsSystem.bootstrap(configuration.metrics.factory)
        let app = buildApplication(configuration, logger: logger)
        let base = "http://\(self.host):\(self.port)"
        print("AdStitch serving \(self.campaigns) on \(base)")
        print("  campaigns:  \(base)/v1/campaigns")
        print("  metrics:    \(base)/metrics")
        print("  preview:    \(base)/preview               (campaign preview tool: plan, reasons, player)")
        print("  play demo:  \(base)/play/evening-news   (open in Chromium or Safari)")
        print("  master:     \(base)/v1/campaigns/evening-news/master.m3u8?locale=es-ES")
        try await app.runService()
    }
}
