import AdCampaign
import AdDecision
import AdLiveRuntime
import AdOrigin
import AdServerClient
import AdStitching
import Foundation
import Synchronization

/// A campaign ready to serve: loaded, laid out for stitching with its local media's URIs as the
/// store's `mediaURIs` writes them (the server's: under `/v1/campaigns/{id}/media/`).
/// Immutable, and held by one reference: every answer passes it on, and copying it as a struct
/// retained each of its references (its campaign's among them) per copy — 0.7 % of the CPU of a
/// load of first answers (issue 53, docs/performance.md).
public final class ServedCampaign: Sendable {
    public let campaign: Campaign
    public let folder: URL
    public let renderer: SessionRenderer
    /// The layout's segment blocks deflated at load, for gzip answers.
    package let body: StitchedBody
    /// Which load of the process this is (a campaign reloaded unchanged keeps its revision but
    /// gets new assets, so a plan is rendered only by the load it was made on).
    package let load: Int
    /// The local playlists of ads and slate: interstitial sessions' asset lists point players at
    /// them, so the media route serves them (never the programme's: its sessions are stitched or
    /// primary playlists).
    package let adPlaylists: Set<URL>
    /// A live campaign's channel poller (``LiveChannels``); nil for VOD.
    package let channel: LiveChannel?
    /// The creatives of the campaign's ad decision server, loaded once per load; nil without one,
    /// or on a server without an origin client.
    package let creatives: CreativeCache?
    /// A live campaign's ad server decisions per session and break, as this replica knows them.
    package let liveDecisions: LiveAdDecisions?
    /// Where what its ad servers' answers name may be fetched from (``Campaign/adServerAddresses``),
    /// worked out once per load: every tracker fired checks against it.
    package let adServerAddresses: AddressPolicy

    init(
        campaign: Campaign,
        folder: URL,
        renderer: SessionRenderer,
        channel: LiveChannel? = nil,
        origin: OriginClient? = nil,
        mediaRoots: [URL] = []
    ) throws {
        self.campaign = campaign
        self.channel = channel
        self.liveDecisions = campaign.asksAdServers && campaign.live != nil && origin != nil ? LiveAdDecisions() : nil
        let addresses = campaign.adServerAddresses
        self.adServerAddresses = addresses
        if campaign.asksAdServers, let origin {
            self.creatives = CreativeCache(
                campaign: campaign,
                layout: renderer.layout,
                client: origin,
                source: origin.playlistSource { $0.forAdServerLinks(addresses) }.allowingLinks(into: mediaRoots)
            )
        } else {
            self.creatives = nil
        }
        self.folder = folder
        self.renderer = renderer
        self.adPlaylists = Self.adPlaylists(of: campaign)
        self.body = try StitchedBody(renderer.layout)
        self.load = Self.loads.add(1, ordering: .relaxed).newValue
    }

    private static let loads = Atomic<Int>(0)

    /// The local playlists of `campaign`'s ads and slate (``adPlaylists``).
    static func adPlaylists(of campaign: Campaign) -> Set<URL> {
        var adPlaylists: Set<URL> = []
        for asset in campaign.ads.map(\.asset) + (campaign.slate.map { [$0] } ?? []) {
            let urls = [asset.url] + asset.variants.map(\.url) + asset.iFrameVariants.map(\.url) + asset.renditions.compactMap(\.url)
            adPlaylists.formUnion(urls.filter(\.isFileURL).map(\.standardizedFileURL))
        }
        return adPlaylists
    }

    /// The plan explained, with the rewrite rules that wrote each piece's URIs.
    package func report(_ plan: Plan) -> PlanReport {
        PlanReport(plan) { self.renderer.layout.appliedRewrites($0, rewrites: plan.rewrites) }
    }
}

/// The load status of one campaign file, as `GET /v1/campaigns` shows it.
public struct CampaignStatus: Sendable {
    public let file: String
    public let id: String?
    /// The revision of the last successful load: what new sessions get, even after a failed reload.
    public let serving: String?
    /// Nil when the last load succeeded; else every issue, one per line.
    public let error: String?
}
