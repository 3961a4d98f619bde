import HLSPlaylist

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A loaded, validated campaign (docs/campaign-format.md): everything a plan needs, with
/// every playlist parsed once and every pattern compiled.
public struct Campaign: Sendable {
    /// `[a-z0-9-]+`, unique in the campaigns folder.
    public let id: String
    public let title: String
    /// The YAML file.
    public let file: URL
    /// How its remote playlists are fetched (`origin:`).
    public let origin: OriginOptions
    /// A digest of the YAML and every playlist it references: plans are seeded with it, so an
    /// edit changes the ads a session gets while an untouched campaign decides the same way on
    /// every replica.
    public let revision: String
    /// What plays between the ads: islands, one asset cut at its breaks, or a live channel.
    public let programme: Programme
    public let breaks: [AdBreak]
    /// ``breaks`` by where they play, each place's in campaign order: found once at load, since a
    /// programme cut at 10,000 markers has 10,000 islands to look up for every plan.
    public let breaksAt: [AdBreak.Position: [AdBreak]]
    public let slate: Asset?
    public let pools: [Pool]
    public let rules: [Rule]
    public let startup: [StartupRule]
    public let markers: Set<Marker>
    /// `markers_passthrough`: the programme's own ad-marker tags (CUE, SCTE-35 carrying tags,
    /// placement opportunities) are kept before the programme segments they stand before.
    public let markersPassthrough: Bool
    /// Viewer attributes a viewer could claim for themselves to dodge ads (`seen`): a public
    /// session start honours them only when an app backend signed it (`serve --start-key`).
    public let trustedAttributes: [String]
    /// The rule-driven rewriter (`rewrite:`), in campaign order.
    public let rewrites: [RewriteRule]
    /// How sessions get their ads by default (`insertion:`): stitched into the playlists, or as
    /// HLS Interstitials the player fetches (a session start's `insertion=` overrides it).
    public let insertion: Insertion
    /// The ad decision server its breaks ask first (`ad_server:`); nil: pools only, unless a
    /// rule chooses one of ``adServers``.
    public let adServer: AdServerSettings?
    /// Named ad decision servers a rule chooses among (`ad_servers:`, `then: { ad_server: NAME }`).
    public let adServers: [String: AdServerSettings]
    /// Where its ad servers' MP4 creatives are conditioned (`creatives:`); nil: they are skipped.
    public internal(set) var creatives: CreativeSettings? = nil
    /// Who fires its ads' impression and quartile URLs (`reporting:`, docs/campaign-format.md
    /// "Measurement"): AdStitch, as the viewer's player reaches them, or the player itself.
    public internal(set) var reporting: Reporting = .server
    /// `frequency_caps:`: impressions per viewer (the signed `viewer` attribute) each set of ads
    /// may have within a window.
    public internal(set) var frequencyCaps: [FrequencyCap] = []
    /// `startup: { experiment: … }`: two startup rule sets compared (then ``startup`` is empty).
    public internal(set) var startupExperiment: StartupExperiment? = nil
    /// `qoe:`: how long viewers' quality reports are kept (docs/campaign-format.md "Viewing quality").
    public internal(set) var quality = QualitySettings()
    /// The local files the campaign is made of (playlists, segments, keys, init sections).
    public let files: CampaignFiles
    /// Findings that do not stop the campaign from loading (`adstitch validate` prints them).
    public internal(set) var warnings: [CampaignIssue]
    /// A catalogue's template: its local assets (ads, slate) as it read them, for each title's
    /// load to reuse (``CampaignLoader/load(_:source:title:reusing:)``); nil for any other campaign.
    public internal(set) var knownAssets: KnownAssets? = nil

    /// `reporting:` — server-side or client-side ad measurement.
    public enum Reporting: String, Sendable, Hashable, CaseIterable {
        /// AdStitch fires each event once per viewer when the player fetches the segment where it
        /// falls (stitched sessions; the segment is listed on AdStitch's beacon route).
        case server
        /// The player fires them from the boundary manifest's tracking URLs.
        case client

        /// The modes as every message that refuses another names them (the campaign's field, a
        /// start's and the preview's `reporting=`).
        public static let choices = "server (AdStitch fires the ads' events) or client (the player does)"

        /// Whether what a player reads (boundary manifest, SVTA creative signalling) lists the ads'
        /// tracking URLs: only when the player fires them. A server-side session lists none —
        /// players that fire what they find (Shaka's SVTA tracker, Bitmovin's) would count every
        /// event twice.
        public var handsTrackersToPlayer: Bool { self == .client }
    }

    /// `trusted_attributes` when a campaign does not say.
    public static let defaultTrustedAttributes = ["seen"]

    public func pool(_ id: String) -> Pool? { self.pools.first { $0.id == id } }

    /// The programme's islands in play order: its own, or the stretches of the one programme
    /// asset between its breaks; none for a live channel.
    public var islands: [Island] {
        switch self.programme {
        case .islands(let islands), .asset(_, let islands): islands
        case .live, .catalogue: []
        }
    }

    /// The one programme asset (`program: { playlist: … }`) whole, as interstitial sessions play
    /// it (its replaced stretches left in, covered by `X-RESUME-OFFSET`); nil otherwise.
    public var programAsset: Asset? {
        if case .asset(let asset, _) = self.programme { asset } else { nil }
    }

    /// The live channel (`program: { live: URL }`); nil for a VOD programme.
    public var live: LiveProgram? {
        if case .live(let live) = self.programme { live } else { nil }
    }

    /// The asset whose multivariant playlist is every session's template: the live channel's, or
    /// the first island's.
    public var templateAsset: Asset? {
        switch self.programme {
        case .islands(let islands), .asset(_, let islands): islands.first?.asset
        case .live(let live): live.asset
        case .catalogue: nil
        }
    }

    /// The catalogue a template campaign stands for (`program: { catalogue: URL }`); nil otherwise.
    public var catalogue: Catalogue? {
        if case .catalogue(let catalogue) = self.programme { catalogue } else { nil }
    }

    /// Every ad in every pool, each once, in pool order.
    public var ads: [Ad] {
        var seen: Set<String> = []
        return self.pools.flatMap(\.ads).filter { seen.insert($0.id).inserted }
    }
}

/// How a session gets its ads (`insertion:`; docs/campaign-format.md "Insertion").
public enum Insertion: String, Sendable, Hashable, CaseIterable {
    /// Ads stitched into every media playlist between `EXT-X-DISCONTINUITY` tags.
    case stitched
    /// The programme alone, each break an HLS Interstitial (`EXT-X-DATERANGE`,
    /// `CLASS="com.apple.hls.interstitial"`) whose asset list names the viewer's ads.
    case interstitials
    /// Interstitials for players known to play them, stitched for every other.
    case auto
}

/// How stitched output marks breaks (docs/architecture.md invariant 11).
public enum Marker: String, Sendable, Hashable, CaseIterable {
    /// `EXT-X-DATERANGE` per break (with `EXT-X-PROGRAM-DATE-TIME`).
    case daterange
    /// `EXT-X-CUE-OUT` / `EXT-X-CUE-IN` around breaks.
    case cue
}
