import AdCampaign
import AdOrigin
import AdServerClient
import AdStitching
import Foundation
import HLSPlaylist
import Synchronization

/// The creatives of a campaign load's ad decision server, each loaded (its HLS playlists fetched
/// and checked against the programme, as a pool ad is) and laid out once per load, then shared by
/// every session that plays it — never per session: a session start costs the ad server's answer,
/// not that plus a fetch per playlist. One load per creative however many sessions ask for it at
/// once (they await the same task); a load outlives the session that started it, so a creative
/// too slow for one session's timeout plays in the sessions after it.
///
/// Keyed by identity (`UniversalAdId`, else the creative's id, else its media file URL) and URL:
/// an ad server that serves new playlists for a creative gives them a new URL. A loaded creative
/// is revalidated like the campaign's remote playlists: once it is older than the origin's poll
/// interval (`--origin-poll`), the next session that asks for it starts a load in the background
/// and plays the one loaded before; the new one replaces it when it loads (a failed reload keeps
/// the old one until the next interval). A failed load is kept ``failureLifetime``, then tried
/// again. At most ``capacity`` creatives and ``memoryBudget`` bytes of them (estimated:
/// ``estimatedBytes(_:)``); past either the oldest loads go first. A creative whose playlists
/// hold more than ``maxPlaylistBytes`` is refused: an ad runs at most an hour, and a creative of
/// 13.8 MiB each would otherwise let an ad server fill a replica's memory.
package final class CreativeCache: Sendable {
    let campaign: Campaign
    let layout: StitchLayout
    /// What asks the ad server (``AdServerDecisions/decide``) and fetches creatives' playlists.
    package let client: OriginClient
    let source: PlaylistSource
    /// How old a loaded creative is before it is loaded again: the origin's poll interval.
    let revalidateAfter: Duration

    package typealias Outcome = Result<StitchLayout.LaidOutCreative, AdServerDecisions.CreativeFailure>

    private struct Key: Hashable {
        var id: String
        var url: URL
    }

    private struct Entry {
        var task: Task<Outcome, Never>
        var started: ContinuousClock.Instant
        var failedAt: ContinuousClock.Instant?
        /// When its load (or its last revalidation) succeeded.
        var loadedAt: ContinuousClock.Instant?
        var revalidating = false
        /// What it holds once loaded (``estimatedBytes(_:)``); 0 before.
        var bytes = 0
    }

    private struct Entries {
        var byKey: [Key: Entry] = [:]
        var bytes = 0

        /// Drops the oldest loads but `kept` until `count` and `budget` hold.
        mutating func evict(toFit count: Int, budget: Int, except kept: Key? = nil) {
            while self.byKey.count > count || self.bytes > budget,
                let oldest = self.byKey.filter({ $0.key != kept }).min(by: { $0.value.started < $1.value.started })
            {
                self.bytes -= oldest.value.bytes
                self.byKey[oldest.key] = nil
            }
        }
    }

    private let entries = Mutex(Entries())

    static let capacity = 4_096
    /// The memory the creatives of one campaign load may hold, by ``estimatedBytes(_:)``.
    static let memoryBudget = 256 << 20
    /// The most playlist text one creative may have, all its playlists together.
    static let maxPlaylistBytes = 2 << 20
    static let failureLifetime = Duration.seconds(60)

    /// What a loaded creative holds, roughly: its playlists parsed (sixteen times their text, as
    /// a catalogue title's: ``CatalogueTitles/estimatedBytes(_:playlistBytes:)``) and its blocks.
    static func estimatedBytes(_ creative: StitchLayout.LaidOutCreative) -> Int {
        4_096 + 18 * Self.playlistBytes(creative.asset)
    }

    /// The text of every playlist of `asset`.
    static func playlistBytes(_ asset: Asset) -> Int {
        asset.variants.reduce(0) { $0 + $1.playlist.text.utf8.count }
            + asset.renditions.reduce(0) { $0 + ($1.playlist?.text.utf8.count ?? 0) }
    }

    /// Held now: creatives, and their estimated bytes.
    package var held: (creatives: Int, bytes: Int) { self.entries.withLock { ($0.byKey.count, $0.bytes) } }

    init(campaign: Campaign, layout: StitchLayout, client: OriginClient, source: PlaylistSource) {
        self.campaign = campaign
        self.layout = layout
        self.client = client
        self.source = source
        self.revalidateAfter = client.settings.poll
    }

    /// The creative at `url`, loaded now or earlier. Only http(s) URLs, and the campaign's own
    /// store of conditioned creatives: an ad server never gets to read this machine's files.
    package func creative(_ url: URL, id: String) async -> Outcome {
        let scheme = url.scheme?.lowercased()
        let conditioned = self.campaign.creatives.map {
            url.isFileURL && url.standardizedFileURL.path.hasPrefix($0.store.standardizedFileURL.path + "/")
        }
        guard scheme == "http" || scheme == "https" || conditioned == true else {
            return .failure(.init("its media file \(url.absoluteString) is not an http(s) URL"))
        }
        let key = Key(id: id, url: url)
        let now = ContinuousClock.now
        let (task, revalidate) = self.entries.withLock { entries -> (Task<Outcome, Never>, Bool) in
            if let entry = entries.byKey[key], entry.failedAt.map({ now - $0 < Self.failureLifetime }) ?? true {
                guard let loaded = entry.loadedAt, now - loaded >= self.revalidateAfter, !entry.revalidating else { return (entry.task, false) }
                entries.byKey[key]?.revalidating = true
                return (entry.task, true)
            }
            if let old = entries.byKey[key] { entries.bytes -= old.bytes }
            entries.evict(toFit: Self.capacity - 1, budget: Self.memoryBudget)
            let task = Task<Outcome, Never>.detached { [self] in await self.load(url, id: id) }
            entries.byKey[key] = Entry(task: task, started: now)
            return (task, false)
        }
        if revalidate {
            Task.detached { [self] in
                let outcome = await self.load(url, id: id)
                self.entries.withLock { entries in
                    guard entries.byKey[key] != nil else { return }
                    entries.byKey[key]?.revalidating = false
                    entries.byKey[key]?.loadedAt = .now
                    if case .success(let creative) = outcome {
                        entries.byKey[key]?.task = Task { outcome }
                        Self.account(creative, key, &entries)
                    }
                }
            }
        }
        let outcome = await task.value
        self.entries.withLock { entries in
            switch outcome {
            case .failure: if entries.byKey[key]?.failedAt == nil { entries.byKey[key]?.failedAt = .now }
            case .success(let creative):
                guard entries.byKey[key]?.loadedAt == nil else { break }
                entries.byKey[key]?.loadedAt = .now
                Self.account(creative, key, &entries)
            }
        }
        return outcome
    }

    /// Counts `creative`'s bytes for the entry at `key` (its last load's replaced), then evicts
    /// the oldest others past the budget — never the one just loaded.
    private static func account(_ creative: StitchLayout.LaidOutCreative, _ key: Key, _ entries: inout Entries) {
        guard let entry = entries.byKey[key] else { return }
        let bytes = Self.estimatedBytes(creative)
        entries.bytes += bytes - entry.bytes
        entries.byKey[key]?.bytes = bytes
        entries.evict(toFit: Self.capacity, budget: Self.memoryBudget, except: key)
    }

    /// Loads the creative's playlists and lays them out; refused past ``maxPlaylistBytes``.
    private func load(_ url: URL, id: String) async -> Outcome {
        switch await AdServerDecisions.loadCreative(url, id: id, for: self.campaign, source: self.source, on: self.client.blocking) {
        case .success(let asset):
            let size = Self.playlistBytes(asset)
            guard size <= Self.maxPlaylistBytes else {
                return .failure(
                    .init("its playlists hold \(size) bytes, more than the \(Self.maxPlaylistBytes) a creative may (an ad runs at most an hour)")
                )
            }
            do {
                return .success(try self.layout.layOut(creative: asset, id: id))
            } catch {
                return .failure(.init(error.message))
            }
        case .failure(let failure):
            return .failure(failure)
        }
    }
}
