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
/// an ad server that serves new playlists for a creative gives them a new URL. A failed load is
/// kept ``failureLifetime``, then tried again. At most ``capacity`` creatives; past it the oldest
/// loads go first.
final class CreativeCache: Sendable {
    let campaign: Campaign
    let layout: StitchLayout
    /// What asks the ad server (``AdServerDecisions/decide``) and fetches creatives' playlists.
    let client: OriginClient
    let source: PlaylistSource

    typealias Outcome = Result<StitchLayout.LaidOutCreative, AdServerDecisions.CreativeFailure>

    private struct Key: Hashable {
        var id: String
        var url: URL
    }

    private struct Entry {
        var task: Task<Outcome, Never>
        var started: ContinuousClock.Instant
        var failedAt: ContinuousClock.Instant?
    }

    private let entries = Mutex([Key: Entry]())

    static let capacity = 4_096
    static let failureLifetime = Duration.seconds(60)

    init(campaign: Campaign, layout: StitchLayout, client: OriginClient, source: PlaylistSource) {
        self.campaign = campaign
        self.layout = layout
        self.client = client
        self.source = source
    }

    /// The creative at `url`, loaded now or earlier. Only http(s) URLs: an ad server never gets
    /// to read this machine's files.
    func creative(_ url: URL, id: String) async -> Outcome {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return .failure(.init("its media file \(url.absoluteString) is not an http(s) URL"))
        }
        let key = Key(id: id, url: url)
        let now = ContinuousClock.now
        let task = self.entries.withLock { entries -> Task<Outcome, Never> in
            if let entry = entries[key], entry.failedAt.map({ now - $0 < Self.failureLifetime }) ?? true { return entry.task }
            if entries.count >= Self.capacity, let oldest = entries.min(by: { $0.value.started < $1.value.started })?.key {
                entries[oldest] = nil
            }
            let (campaign, layout, source) = (self.campaign, self.layout, self.source)
            let task = Task<Outcome, Never>.detached {
                switch await AdServerDecisions.loadCreative(url, id: id, for: campaign, source: source) {
                case .success(let asset):
                    do {
                        return .success(try layout.layOut(creative: asset, id: id))
                    } catch let error as StitchError {
                        return .failure(.init(error.message))
                    } catch {
                        return .failure(.init("\(error)"))
                    }
                case .failure(let failure):
                    return .failure(failure)
                }
            }
            entries[key] = Entry(task: task, started: now)
            return task
        }
        let outcome = await task.value
        if case .failure = outcome {
            self.entries.withLock { entries in
                if entries[key]?.failedAt == nil { entries[key]?.failedAt = .now }
            }
        }
        return outcome
    }
}
