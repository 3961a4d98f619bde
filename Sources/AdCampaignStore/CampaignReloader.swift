import Logging
import NIOPosix
import ServiceLifecycle

/// Polls the campaigns folder and reloads what changed (see ``CampaignStore/reload(logger:)``),
/// on NIO's blocking-work thread pool: a poll reads thousands of file times and a reload parses
/// playlists, and neither may hold up an event loop (`adstitch serve` runs Swift concurrency's
/// jobs on them).
package struct CampaignReloader: Service {
    let store: CampaignStore
    let interval: Duration
    let logger: Logger

    package init(store: CampaignStore, interval: Duration, logger: Logger) {
        self.store = store
        self.interval = interval
        self.logger = logger
    }

    package func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: self.interval)
                // A slow origin answers in the background; local edits are not held up by it.
                _ = try await NIOThreadPool.singleton.runIfActive { self.store.reload(logger: self.logger, originWait: .seconds(1)) }
            }
        }
    }
}
