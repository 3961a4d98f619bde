import AdCampaign
import AdOrigin
import AdServerClient
import AdStitching
import Foundation
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
/// again. At most ``capacity`` creatives; past it the oldest loads go first.
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
    }

    private let entries = Mutex([Key: Entry]())

    static let capacity = 4_096
    static let failureLifetime = Duration.seconds(60)

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
            if let entry = entries[key], entry.failedAt.map({ now - $0 < Self.failureLifetime }) ?? true {
                guard let loaded = entry.loadedAt, now - loaded >= self.revalidateAfter, !entry.revalidating else { return (entry.task, false) }
                entries[key]?.revalidating = true
                return (entry.task, true)
            }
            if entries.count >= Self.capacity, let oldest = entries.min(by: { $0.value.started < $1.value.started })?.key {
                entries[oldest] = nil
            }
            let task = Task<Outcome, Never>.detached { [self] in await self.load(url, id: id) }
            entries[key] = Entry(task: task, started: now)
            return (task, false)
        }
        if revalidate {
            Task.detached { [self] in
                let outcome = await self.load(url, id: id)
                self.entries.withLock { entries in
                    guard entries[key] != nil else { return }
                    entries[key]?.revalidating = false
                    entries[key]?.loadedAt = .now
                    if case .success = outcome { entries[key]?.task = Task { outcome } }
                }
            }
        }
        let outcome = await task.value
        self.entries.withLock { entries in
            switch outcome {
            case .failure: if entries[key]?.failedAt == nil { entries[key]?.failedAt = .now }
            case .success: if entries[key]?.loadedAt == nil { entries[key]?.loadedAt = .now }
            }
        }
        return outcome
    }

    /// Loads the creative's playlists and lays them out.
    private func load(_ url: URL, id: String) async -> Outcome {
        switch await AdServerDecisions.loadCreative(url, id: id, for: self.campaign, source: self.source) {
        case .success(let asset):
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
