import AdCampaign
import AdLive
import AdOrigin
import AdStitching
import Foundation
import HLSPlaylist
import Logging
import ServiceLifecycle
import Synchronization

/// The live channels the loaded campaigns watch (docs/design-decisions.md "Live"): one
/// ``LiveChannel`` poller per channel and replica, shared by every campaign and revision that
/// names it, started when the first of them loads and polling until the server stops. A channel
/// is its multivariant playlist's URL and the break duration its campaigns assume
/// (`marker_breaks.duration`, which closes a break whose marker announces none).
public final class LiveChannels: Sendable {
    let client: OriginClient
    let history: PostgresBreakHistory?
    let logger: Logger
    /// How far back a starting poller reads the break history: the oldest session still playing.
    let historyWindow: Duration
    private let channels = Mutex<[String: LiveChannel]>([:])
    private let added: AsyncStream<LiveChannel>.Continuation
    private let stream: AsyncStream<LiveChannel>

    public init(client: OriginClient, history: PostgresBreakHistory?, historyWindow: Duration, logger: Logger) {
        self.client = client
        self.history = history
        self.historyWindow = historyWindow
        self.logger = logger
        (self.stream, self.added) = AsyncStream.makeStream()
    }

    /// The poller of `campaign`'s channel, started on first use; nil for a VOD campaign. Its
    /// renditions are the layout's, in order.
    public func channel(for campaign: Campaign, layout: StitchLayout) -> LiveChannel? {
        guard let live = campaign.live else { return nil }
        // Each setting that changes the channel's breaks keys its own history.
        let key =
            live.url.absoluteString + (live.defaultDuration.map { "#duration=\($0)" } ?? "") + (live.stall.map { "#stall=\($0.after)" } ?? "")
        let renditions: [URL] = layout.renditions.compactMap { rendition in
            switch rendition.kind {
            case .video(let index): live.asset.variants[index].url
            case .audio(let index), .subtitles(let index): live.asset.renditions[index].url
            case .iFrame: nil
            }
        }
        return self.channels.withLock { channels in
            if let existing = channels[key] {
                if existing.renditions == renditions { return existing }
                // The channel's multivariant playlist changed its renditions: a new poller replaces it.
                existing.stop()
            }
            let channel = LiveChannel(
                key: key,
                renditions: renditions,
                client: self.client,
                history: self.history,
                defaultDuration: live.defaultDuration,
                logger: self.logger,
                retention: self.historyWindow,
                stallFill: live.stall?.after
            )
            channels[key] = channel
            self.added.yield(channel)
            return channel
        }
    }

    /// How long the history's table may take to be made at start.
    static let migrationDeadline = Duration.seconds(5)

    /// Runs every channel's poller, those added later too, until cancelled: each first reads the
    /// break history of the sessions still playing, then polls.
    public func run() async {
        await withDiscardingTaskGroup { group in
            // The table made beside the pollers, never before them: with PostgreSQL down at start
            // this waited for ever, and no channel was polled (every live start answered 503 for
            // the whole outage). A failed migration is made again by the history's next call.
            if let history = self.history {
                group.addTask {
                    do {
                        try await Deadline.run(within: Self.migrationDeadline) { try await history.migrate() }
                    } catch {
                        self.logger.error(
                            "cannot prepare the live break history in PostgreSQL; channels poll without it, and it is made once it answers",
                            metadata: ["error": "\(error)"]
                        )
                    }
                    // What no session can need any more (older than the session TTL), every ten minutes.
                    while !Task.isCancelled {
                        let window = self.historyWindow
                        _ = try? await Deadline.run(within: .seconds(30)) { try await history.prune(olderThan: window) }
                        try? await Task.sleep(for: .seconds(600))
                    }
                }
            }
            for await channel in self.stream {
                group.addTask {
                    let since = ExactDecimal(Int(Date().timeIntervalSince1970)) - ExactDecimal(Int(self.historyWindow.components.seconds))
                    do {
                        try await channel.loadHistory(since: since)
                    } catch {
                        // Never waited for longer than the history's deadline: sessions start from
                        // what this replica sees, and the poller reads the history once it answers.
                        self.logger.error(
                            "cannot read the live break history; polling starts from what the origin shows, the history is read once it answers",
                            metadata: ["channel": "\(channel.key)", "error": "\(error)"]
                        )
                    }
                    await channel.run(historySince: since)
                }
            }
        }
    }
}

/// Runs the live channels' pollers (and the PostgreSQL client of their history) with the server;
/// a graceful shutdown cancels them.
public struct LiveChannelsService: Service {
    let channels: LiveChannels

    public init(channels: LiveChannels) { self.channels = channels }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                if let history = self.channels.history {
                    group.addTask { await history.run() }
                }
                group.addTask { await self.channels.run() }
            }
        }
    }
}
