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
    /// The local files the campaign is made of (playlists, segments, keys, init sections).
    public let files: CampaignFiles
    /// Findings that do not stop the campaign from loading (`adstitch validate` prints them).
    public internal(set) var warnings: [CampaignIssue]

    /// `trusted_attributes` when a campaign does not say.
    public static let defaultTrustedAttributes = ["seen"]

    public func pool(_ id: String) -> Pool? { self.pools.first { $0.id == id } }

    /// The programme's islands in play order: its own, or the stretches of the one programme
    /// asset between its breaks; none for a live channel.
    public var islands: [Island] {
        switch self.programme {
        case .islands(let islands), .asset(_, let islands): islands
        case .live: []
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
        }
    }

    /// Every ad in every pool, each once, in pool order.
    public var ads: [Ad] {
        var seen: Set<String> = []
        return self.pools.flatMap(\.ads).filter { seen.insert($0.id).inserted }
    }
}

/// What a campaign plays between its ads (`program:`, docs/campaign-format.md): exactly one of
/// three shapes, so no code has to know which fields exclude which.
public enum Programme: Sendable {
    /// Islands of their own, each its own HLS asset, in play order (`program: { islands: … }`).
    case islands([Island])
    /// One programme asset and the virtual islands its breaks cut it into (`program: { playlist: … }`).
    case asset(Asset, cuts: [Island])
    /// A live channel, whose breaks come from its markers as they appear (`program: { live: URL }`).
    case live(LiveProgram)
}

/// A stretch of the programme between breaks: its own HLS asset, or a stretch of the one
/// programme asset AdStitch cut at the breaks (a virtual island, `program: { playlist: … }`).
public struct Island: Sendable {
    public let id: String
    public let asset: Asset
    /// A virtual island: where it starts in the programme asset (replaced stretches before it
    /// count). Nil for islands of their own, which follow one another.
    public let contentStart: ExactDecimal?
}

/// An ad break: where it sits, how long it may run, which pools fill it, and the UI policy the
/// player must enforce while it plays (`restrict: [skip, jump]`, carried into the boundary manifest).
public struct AdBreak: Sendable {
    public enum Position: Sendable, Hashable {
        case before(island: String)
        case after(island: String)
        /// A break of a live channel, placed by its markers (``LiveProgram/adBreak(id:duration:)``).
        case live
    }

    public let id: String
    public let position: Position
    /// The nominal duration: ads and slate fill at most this much.
    public let duration: ExactDecimal
    public let pools: [String]
    public let restrict: Restriction
    /// `once: true`: the break plays once per session; a viewer who seeks back over it does not
    /// see it again (HLS Interstitials `CUE="ONCE"`; `"once": true` in the boundary manifest).
    public let once: Bool
    /// For a break in one programme asset (`at:` or a marker): where it was asked for and where
    /// it cuts. Nil for a break before or after an island of its own.
    public let placement: Placement?

    /// Where a break of a single programme asset sits.
    public struct Placement: Sendable, Hashable {
        /// The programme time asked for (`at:`); nil for a marker, which stands on a boundary.
        public let requested: ExactDecimal?
        /// The programme time of the cut: the segment boundary at or before the requested time.
        public let cut: ExactDecimal
        /// Replacement: the programme time the ads replace (whole segments); nil: an insertion point.
        public let replaced: ExactDecimal?
        /// The marker's line in the programme's first variant playlist; nil for `at:`.
        public let markerLine: Int?
    }
}

/// A live programme (`program: { live: URL }`, docs/campaign-format.md "Live"): a channel whose
/// origin serves a sliding window without `EXT-X-ENDLIST`. Its breaks are not known at load: they
/// come from the channel's markers as the poller reads them, with what the markers do not say
/// from `marker_breaks`.
public struct LiveProgram: Sendable {
    /// The channel's multivariant playlist on its origin.
    public let url: URL
    /// The multivariant playlist with one window of each media playlist as read at load: it tells
    /// the channel's renditions, container and target duration. Only the multivariant playlist
    /// counts in the revision — the windows change every few seconds.
    public let asset: Asset
    /// What a viewer who joins while a break plays gets of its rest (`join_mid_break`).
    public let joinMidBreak: JoinMidBreak
    /// A break's nominal duration when its marker gives none (`marker_breaks.duration`).
    public let defaultDuration: ExactDecimal?
    /// The pools that fill every break (`marker_breaks.pools`).
    public let pools: [String]
    /// The player policy while a break plays (`marker_breaks.restrict`).
    public let restrict: Restriction
    /// What viewers get while the channel's origin stands still (`live_stall`); nil: the last
    /// window keeps serving, frozen.
    public let stall: LiveStall?

    /// `join_mid_break`: the rest of a break a viewer joins in the middle of.
    public enum JoinMidBreak: String, Sendable, Hashable, CaseIterable {
        /// The slate, until the programme returns: no ad starts part-way.
        case slate
        /// The channel's own programme (its ad as broadcast).
        case program
    }

    /// The break a live marker opens, for the planner: the marker's id and duration (else
    /// `marker_breaks.duration`), filled from `marker_breaks.pools`.
    public func adBreak(id: String, duration: ExactDecimal) -> AdBreak {
        AdBreak(id: id, position: .live, duration: duration, pools: self.pools, restrict: self.restrict, once: false, placement: nil)
    }
}

/// `live_stall: { after, fill }` (docs/campaign-format.md "A stalled origin"): once a live
/// channel's newest segment has ended `after` target durations ago, viewers' windows go on with
/// the slate (or `EXT-X-GAP` segments timed like it) on the channel's clock until the origin moves
/// again.
public struct LiveStall: Sendable, Hashable {
    /// Target durations of standstill before the fill begins (2–100).
    public let after: Int
    public let fill: Fill

    public enum Fill: String, Sendable, Hashable, CaseIterable {
        /// The campaign's slate, decoded by the player.
        case slate
        /// `EXT-X-GAP` segments timed as the slate's (RFC 8216bis §4.4.4.7): the player fetches nothing.
        case gap
    }

    /// The bounds of `after`: past the two target durations a viewer's window is held back by
    /// (a fill that began sooner would list time an advancing origin may still publish), and at
    /// most 100.
    public static let afterRange = 2...100

    public init(after: Int = 3, fill: Fill = .slate) {
        self.after = after
        self.fill = fill
    }
}

/// An ad pool.
public struct Pool: Sendable {
    public let id: String
    public let ads: [Ad]
}

/// An ad creative: an HLS asset with a weight and tracking URLs.
public struct Ad: Sendable {
    public let id: String
    public let asset: Asset
    /// Relative likelihood of being chosen (default 1).
    public let weight: Double
    /// Tracking URLs by event (`impression`, `start`, `complete`…), carried into the boundary manifest.
    public let tracking: [String: [String]]

    /// An ad of no pool: one an ad decision server chose (its creative's identity and asset).
    public init(id: String, asset: Asset, weight: Double = 1, tracking: [String: [String]] = [:]) {
        self.id = id
        self.asset = asset
        self.weight = weight
        self.tracking = tracking
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

/// What the player UI must not let a viewer do while a break plays (`restrict: [skip, jump]`),
/// carried into the boundary manifest.
public struct Restriction: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Skip the break (or the ad) playing.
    public static let skip = Restriction(rawValue: 1 << 0)
    /// Seek past the break without playing it.
    public static let jump = Restriction(rawValue: 1 << 1)

    /// Each policy with its campaign (and boundary manifest) name, in that order.
    public static let named: [(name: String, restriction: Restriction)] = [("skip", .skip), ("jump", .jump)]

    /// The policy called `name` in a campaign, or nil.
    public init?(name: String) {
        guard let match = Self.named.first(where: { $0.name == name }) else { return nil }
        self = match.restriction
    }

    /// The names of the policies in force, in canonical order (`["skip", "jump"]`).
    public var names: [String] { Self.named.filter { self.contains($0.restriction) }.map(\.name) }
}
