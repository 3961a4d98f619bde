import AdCampaign
import AdDecision
import AdOrigin
import AdServerClient
import Foundation
import Synchronization

/// What `stitch` and `preview` get of a campaign's ad decision server for one viewer: the
/// decisions (``AdServerDecisions``, shared with `serve`), and the campaign with their creatives
/// laid out beside its own ads (a pool of their own).
struct CLIAdServerDecisions {
    var campaign: Campaign
    var decided: [String: [Ad]]
    var reports: [AdServerDecisions.BreakReport]

    /// Asks the campaign's ad server for every break of `context`'s session, waiting on this
    /// thread; a campaign without one decides nothing.
    static func decide(_ campaign: Campaign, for context: ViewerContext, origin: OriginFlags) -> CLIAdServerDecisions {
        guard let settings = campaign.adServer(for: context) else { return CLIAdServerDecisions(campaign: campaign, decided: [:], reports: []) }
        let client = OriginClient(settings: origin.settings)
        defer { try? client.shutdownWaiting() }
        let addresses = campaign.adServerAddresses
        let source = client.playlistSource { $0.forAdServerLinks(addresses) }.allowingLinks(into: origin.mediaRootURLs)
        let box = Mutex<AdServerDecisions?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let decisions = await AdServerDecisions.decide(campaign, settings: settings, for: context, client: client) { url, id in
                await AdServerDecisions.loadCreative(url, id: id, for: campaign, source: source, on: client.blocking)
            }
            box.withLock { $0 = decisions }
            done.signal()
        }
        done.wait()
        let decisions = box.withLock { $0 } ?? AdServerDecisions(decided: [:], reports: [])
        let creatives = decisions.creatives
        return CLIAdServerDecisions(
            campaign: creatives.isEmpty ? campaign : campaign.adding(creatives, inPool: "ad-server"),
            decided: decisions.decided,
            reports: decisions.reports
        )
    }
}
