#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension CampaignLoader {
    /// An ad decision server's creative — an HLS multivariant playlist, local or on an origin —
    /// loaded for `campaign` with the checks every pool ad gets (limits, lint, the programme's
    /// containers, codec families, audio and subtitle formats: ``RenditionMatcher``). Throws the
    /// issues that keep it from playing, with its URL as the file.
    public static func creative(at url: URL, id: String, for campaign: Campaign, source: PlaylistSource) throws(CampaignError) -> Asset {
        try Self.checkedCreative(at: url, id: id, for: campaign, source: source).asset
    }

    /// ``creative(at:id:for:source:)`` with the warnings a pool ad of the same playlists would
    /// get (no rung at or below a variant, HDCP): what `adstitch condition` promises to leave none
    /// of. `folder`: where local playlists may lie (default: the campaign's folder).
    public static func checkedCreative(
        at url: URL,
        id: String,
        for campaign: Campaign,
        source: PlaylistSource,
        field: String? = nil,
        folder: URL? = nil
    ) throws(CampaignError) -> (asset: Asset, warnings: [CampaignIssue]) {
        // Local playlists are read inside `folder` (a conditioned creative's), else the campaign's.
        var loader = Loader(file: folder.map { $0.appendingPathComponent("creative") } ?? campaign.file, source: source)
        loader.assets.origin = campaign.origin
        let field = field ?? "ad_server (creative \(id))"
        let asset = loader.assets.asset(at: url, field: field, campaignFile: url.absoluteString, line: 0, column: 0)
        guard let asset, loader.assets.issues.isEmpty else { throw CampaignError(loader.assets.issues) }
        guard let programme = campaign.templateAsset else { return (asset, []) }
        loader.checkHEVCInFragmentedMP4(asset, what: "creative \"\(id)\"", node: nil, field: field)
        loader.checkCompatible(asset, with: programme, what: "creative \"\(id)\"", node: nil, field: field)
        guard loader.validationIssues.isEmpty else { throw CampaignError(loader.validationIssues) }
        return (asset, loader.warnings)
    }
}

extension Campaign {
    /// The campaign with `ads` in a pool of their own (`id`, named by no break): an ad decision
    /// server's creatives, laid out beside the campaign's own ads. Same revision: the session's
    /// draws from the pools stay what they were.
    public func adding(_ ads: [Ad], inPool id: String) -> Campaign {
        var campaign = Campaign(
            id: self.id,
            title: self.title,
            file: self.file,
            origin: self.origin,
            revision: self.revision,
            programme: self.programme,
            breaks: self.breaks,
            breaksAt: self.breaksAt,
            slate: self.slate,
            pools: self.pools + [Pool(id: id, ads: ads)],
            rules: self.rules,
            startup: self.startup,
            markers: self.markers,
            markersPassthrough: self.markersPassthrough,
            trustedAttributes: self.trustedAttributes,
            rewrites: self.rewrites,
            insertion: self.insertion,
            adServer: self.adServer,
            adServers: self.adServers,
            files: self.files,
            warnings: self.warnings
        )
        // What a load sets after the initializer, kept too: a decided session's plan must honour
        // its caps, experiment and reporting as any other session's.
        campaign.creatives = self.creatives
        campaign.reporting = self.reporting
        campaign.frequencyCaps = self.frequencyCaps
        campaign.startupExperiment = self.startupExperiment
        campaign.quality = self.quality
        campaign.knownAssets = self.knownAssets
        return campaign
    }
}
