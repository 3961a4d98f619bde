import Foundation
import HLSPlaylist
import Yams

/// The state of one load: the YAML reader, the asset loader and what validation found.
struct Loader {
    let file: URL
    var reader: YAMLReader
    var assets: AssetLoader
    var validationIssues: [CampaignIssue] = []
    var warnings: [CampaignIssue] = []
    /// Where each ad and break was declared, for validation messages.
    var adNodes: [String: (node: Node, field: String)] = [:]
    var breakNodes: [String: (node: Node, field: String)] = [:]
    var slateNode: Node?
    var declaredIslands: [String] = []
    /// One programme asset (`program: { playlist: … }`, docs/campaign-format.md "One programme asset"): cut into virtual islands at
    /// its breaks once they are all known.
    var singleProgram: SingleProgram?
    /// `program: { playlist: … }`, whether or not its playlists could be read (an asset that did
    /// not load has its error; what depends on it says nothing more).
    var isSingleProgram = false
    /// Breaks of a single programme asset: `at:` entries, and entries overriding a marker's.
    var timedBreaks: [TimedBreak] = []
    /// A live channel (`program: { live: URL }`), read before the pools its breaks fill from.
    var liveChannel: (asset: Asset, url: URL, node: Node)?
    /// `program: { live: … }`, whether or not its playlists could be read.
    var isLive = false
    /// The title of a catalogue to load (``CampaignLoader/load(_:source:title:)``); nil: the
    /// campaign itself (a catalogue then loads as a template, without a programme).
    var title: String?
    /// `program: { catalogue: … }` as read; `isCatalogue` whether or not it was valid.
    var catalogue: CatalogueSettings?
    var isCatalogue = false
    /// An ad being made, whose pool entries are not loaded (``CampaignLoader/load(_:source:title:reusing:leavingOut:)``).
    var leavingOut: String?

    init(file: URL, source: PlaylistSource) {
        self.file = file
        self.reader = YAMLReader(file: file.path)
        self.assets = AssetLoader(folder: file.deletingLastPathComponent(), source: source)
    }

    static let topLevelKeys = [
        "version", "id", "title", "origin", "program", "marker_breaks", "breaks", "slate", "pools", "rules", "startup", "markers",
        "markers_passthrough", "trusted_attributes", "rewrite", "insertion", "join_mid_break", "ad_server", "ad_servers", "creatives",
        "live_stall", "reporting", "schedule", "cache", "frequency_caps", "qoe",
    ]

    mutating func campaign(_ root: Node) -> Campaign? {
        let fields = self.reader.mapping(root, "", allowed: Self.topLevelKeys)
        if let version = self.reader.integer(fields["version"], "version") {
            if version != 1 { self.reader.issue(fields["version"], "version", "only version 1 is supported") }
        } else if fields["version"] == nil {
            self.reader.issue(root, "version", "is required (version: 1)")
        }
        let id = self.reader.string(fields["id"], "id", required: true, parent: root) ?? ""
        if !id.isEmpty, !id.utf8.allSatisfy({ ($0 &- 97 < 26) || ($0 &- 48 < 10) || $0 == UInt8(ascii: "-") }) {
            self.reader.issue(fields["id"], "id", "may contain only a-z, 0-9 and '-' (it appears in URLs)")
        }
        let title = self.reader.string(fields["title"], "title") ?? id
        // Before any playlist: remote ones are fetched as the block says.
        let origin = self.origin(fields["origin"])
        self.assets.origin = origin
        var islands = self.islands(fields["program"], parent: root)
        let pools = self.pools(fields["pools"])
        let slate = self.slate(fields["slate"])
        let catalogue = self.catalogueSettings(fields, pools: pools.map(\.id))
        // Every island declared, loaded or not: a break after an island whose playlist failed is
        // not also "after an island that does not exist".
        let islandIDs = self.declaredIslands
        var breaks = self.breaks(fields["breaks"], islands: islandIDs, pools: pools.map(\.id))
        var live: LiveProgram?
        if let channel = self.liveChannel {
            live = self.liveProgram(channel, fields: fields, pools: pools.map(\.id), hasSlate: slate != nil)
        } else if !self.isLive {
            for key in ["join_mid_break", "live_stall"] where fields[key] != nil {
                self.reader.issue(fields[key], key, "is for live programmes: program: { live: URL }")
            }
        }
        if let program = self.singleProgram {
            (islands, breaks) = self.cut(program, markerBreaks: fields["marker_breaks"], pools: pools.map(\.id))
        } else if self.isLive || self.isSingleProgram || self.isCatalogue {
            // Read with the live programme above, or the programme asset did not load (its error says why).
        } else if let markerBreaks = fields["marker_breaks"] {
            self.reader.issue(
                markerBreaks,
                "marker_breaks",
                "is for a single programme asset with markers: program: { playlist: …, breaks: markers }"
            )
        }
        let adServer = self.adServer(fields["ad_server"], pools: pools.map(\.id))
        let adServers = self.adServers(fields["ad_servers"], pools: pools.map(\.id))
        let rules = self.rules(fields["rules"], breaks: breaks.map(\.id), pools: pools.map(\.id), adServers: Set(adServers.keys))
        let startup = self.startup(fields["startup"])
        let markers = self.markers(fields["markers"])
        var trusted = fields["trusted_attributes"].map { self.reader.strings($0, "trusted_attributes") } ?? Campaign.defaultTrustedAttributes
        let caps = self.frequencyCaps(fields["frequency_caps"])
        // A cap counts per viewer: the viewer must come from a signed start, never an unsigned query.
        if !caps.isEmpty, !trusted.contains("viewer") { trusted.append("viewer") }
        let startupRules = startup.rules + (startup.experiment.map { $0.a + $0.b } ?? [])
        let named = rules.flatMap(\.condition.attributeNames) + startupRules.flatMap(\.condition.attributeNames) + trusted
        let rewrites = self.rewrites(fields["rewrite"], attributes: Set(named))
        var insertion = Insertion.stitched
        if let node = fields["insertion"], let name = self.reader.string(node, "insertion") {
            if let value = Insertion(rawValue: name) {
                insertion = value
            } else {
                self.reader.issue(node, "insertion", "\"\(name)\" is not an insertion mode; use stitched, interstitials or auto")
            }
        }
        if self.isLive { self.checkLiveLimits(fields, insertion: insertion, reporting: self.peekReporting(fields["reporting"])) }
        // A live channel has no schedule for a VMAP answer to map onto: each break is asked for
        // when it opens (docs/campaign-format.md "Ad decision servers").
        if self.isLive {
            for (field, settings) in [("ad_server", adServer)] + adServers.sorted(by: { $0.key < $1.key }).map({ ("ad_servers.\($0.key)", $0.value) })
            {
                guard let settings, case .vmap = settings.request else { continue }
                let node = field == "ad_server" ? fields["ad_server"] : fields["ad_servers"]
                self.reader.issue(
                    node,
                    field,
                    "asks for a VMAP schedule, but a live channel's breaks are not known ahead; give vast: a request per break, made when the break opens"
                )
            }
        }
        guard self.reader.issues.isEmpty, self.assets.issues.isEmpty else { return nil }
        let programme: Programme
        if let live {
            programme = .live(live)
        } else if let catalogue, self.title == nil {
            programme = .catalogue(catalogue)
        } else if let program = self.singleProgram {
            programme = .asset(program.asset, cuts: islands)
        } else {
            programme = .islands(islands)
        }
        var campaign = Campaign(
            id: id,
            title: title,
            file: self.file,
            origin: origin,
            revision: self.assets.digest.hex,
            programme: programme,
            breaks: breaks,
            breaksAt: Dictionary(grouping: breaks, by: \.position),
            slate: slate,
            pools: pools,
            rules: rules,
            startup: startup.rules,
            markers: markers,
            markersPassthrough: self.reader.bool(fields["markers_passthrough"], "markers_passthrough") ?? false,
            trustedAttributes: trusted,
            rewrites: rewrites,
            insertion: insertion,
            adServer: adServer,
            adServers: adServers,
            files: self.assets.files,
            warnings: []
        )
        campaign.creatives = self.creatives(fields["creatives"])
        campaign.frequencyCaps = caps
        if self.assets.recordsAssets { campaign.knownAssets = self.assets.knownAssets }
        if let node = fields["reporting"], let value = self.reader.string(node, "reporting") {
            if let reporting = Campaign.Reporting(rawValue: value) {
                campaign.reporting = reporting
            } else {
                self.reader.issue(
                    node,
                    "reporting",
                    "\"\(value)\" is not a choice; use \(Campaign.Reporting.choices)"
                )
            }
        }
        campaign.startupExperiment = startup.experiment
        if let node = fields["qoe"] { campaign.quality = self.quality(node) }
        guard self.reader.issues.isEmpty else { return nil }
        self.validate(campaign)
        campaign.warnings = self.warnings
        return campaign
    }

    mutating func asset(_ node: Node?, _ field: String, parent: Node) -> Asset? {
        guard let path = self.reader.string(node, field, required: true, parent: parent) else { return nil }
        guard !path.trimmingCharacters(in: .whitespaces).isEmpty, !path.contains("\0") else {
            self.reader.issue(
                node,
                field,
                path.contains("\0")
                    ? "contains a NUL byte; write the path of the asset's multivariant playlist, relative to the campaign file"
                    : "is empty; write the path of the asset's multivariant playlist, relative to the campaign file (media/ad/master.m3u8)"
            )
            return nil
        }
        let url =
            URL(string: path).flatMap { $0.scheme == "http" || $0.scheme == "https" ? $0 : nil }
            ?? URL(fileURLWithPath: path, relativeTo: self.file.deletingLastPathComponent()).standardizedFileURL
        let mark = node?.mark
        return self.assets.asset(at: url, field: field, campaignFile: self.file.path, line: mark?.line ?? 0, column: mark?.column ?? 0)
    }

    private mutating func islands(_ node: Node?, parent: Node) -> [Island] {
        guard let node else {
            self.reader.issue(parent, "program", "is required: program: { islands: [ { id, playlist } ] }")
            return []
        }
        let program = self.reader.mapping(node, "program", allowed: ["islands", "playlist", "breaks", "live", "catalogue"])
        if let catalogue = program["catalogue"] {
            self.catalogueProgram(catalogue, program: program, node: node)
            return []
        }
        if let live = program["live"] {
            self.isLive = true
            self.liveChannel(live, program: program, node: node)
            return []
        }
        if program["playlist"] != nil || program["breaks"] != nil {
            self.singleProgram(program, node: node)
            return []
        }
        let list = self.reader.sequence(program["islands"], "program.islands")
        if list.isEmpty { self.reader.issue(program["islands"] ?? node, "program.islands", "needs at least one island") }
        var seen: Set<String> = []
        var islands: [Island] = []
        for (index, item) in list.enumerated() {
            let field = "program.islands[\(index)]"
            let fields = self.reader.mapping(item, field, allowed: ["id", "playlist"])
            guard let id = self.reader.identifier(fields["id"], "\(field).id", required: true, parent: item) else { continue }
            guard seen.insert(id).inserted else {
                self.reader.issue(fields["id"], "\(field).id", "island \"\(id)\" is defined twice; island ids must be unique")
                continue
            }
            self.declaredIslands.append(id)
            if let asset = self.asset(fields["playlist"], "\(field).playlist", parent: item) {
                islands.append(Island(id: id, asset: asset, contentStart: nil))
            }
        }
        return islands
    }

    private mutating func slate(_ node: Node?) -> Asset? {
        guard let node else { return nil }
        self.slateNode = node
        let fields = self.reader.mapping(node, "slate", allowed: ["playlist"])
        return self.asset(fields["playlist"], "slate.playlist", parent: node)
    }

    private mutating func pools(_ node: Node?) -> [Pool] {
        guard let node else { return [] }
        guard case .mapping(let mapping) = node else {
            self.reader.issue(node, "pools", "expected a mapping of pool names to lists of ads")
            return []
        }
        var pools: [Pool] = []
        var adPlaylists: [String: String] = [:]
        for (key, value) in mapping {
            guard let poolID = self.reader.identifier(key, "pools") else { continue }  // a pool defined twice is a repeated key: Yams refuses it
            var ads: [Ad] = []
            for (index, item) in self.reader.sequence(value, "pools.\(poolID)").enumerated() {
                let field = "pools.\(poolID)[\(index)]"
                let fields = self.reader.mapping(item, field, allowed: ["id", "playlist", "weight", "tracking", "verifications"])
                guard let id = self.reader.identifier(fields["id"], "\(field).id", required: true, parent: item),
                    id != self.leavingOut,
                    let playlist = self.reader.string(fields["playlist"], "\(field).playlist", required: true, parent: item)
                else { continue }
                if ads.contains(where: { $0.id == id }) {
                    self.reader.issue(
                        fields["id"],
                        "\(field).id",
                        "ad \"\(id)\" appears twice in pool \"\(poolID)\"; list it once (raise its weight to play it more often)"
                    )
                    continue
                }
                if let other = adPlaylists[id], other != playlist {
                    self.reader.issue(fields["id"], "\(field).id", "ad id \"\(id)\" is already used for \(other); give this ad another id")
                    continue
                }
                adPlaylists[id] = playlist
                let weight = self.reader.number(fields["weight"], "\(field).weight") ?? 1
                if weight <= 0 || weight > CampaignLimits.maxWeight {
                    self.reader.issue(
                        fields["weight"],
                        "\(field).weight",
                        "must be above 0 and at most \(Int(CampaignLimits.maxWeight)) (weights are relative: 2 plays twice as often as 1)"
                    )
                }
                let tracking = self.tracking(fields["tracking"], "\(field).tracking")
                let verifications = self.verifications(fields["verifications"], "\(field).verifications")
                if self.adNodes[id] == nil { self.adNodes[id] = (item, field) }
                if let asset = self.asset(fields["playlist"], "\(field).playlist", parent: item) {
                    ads.append(Ad(id: id, asset: asset, weight: weight, tracking: tracking, verifications: verifications))
                }
            }
            pools.append(Pool(id: poolID, ads: ads))
        }
        return pools
    }

    /// An ad's `verifications:`: `{ vendor, javascript | executable: URL, api_framework, type,
    /// browser_optional, parameters, tracking }` each (VAST 4.3 §3.16's `<Verification>`).
    private mutating func verifications(_ node: Node?, _ field: String) -> [AdVerification] {
        var verifications: [AdVerification] = []
        for (index, item) in self.reader.sequence(node, field).enumerated() {
            let path = "\(field)[\(index)]"
            let fields = self.reader.mapping(
                item,
                path,
                allowed: ["vendor", "javascript", "executable", "api_framework", "type", "browser_optional", "parameters", "tracking"]
            )
            let kinds = ["javascript", "executable"].filter { fields[$0] != nil }
            guard kinds.count == 1, let kind = kinds.first else {
                self.reader.issue(item, path, "give the script as javascript: URL or as executable: URL (one of them)")
                continue
            }
            guard let uri = self.reader.string(fields[kind], "\(path).\(kind)") else { continue }
            guard let url = URL(string: uri), url.scheme == "https" || url.scheme == "http", url.host != nil else {
                self.reader.issue(fields[kind], "\(path).\(kind)", "\"\(uri)\" is not an http(s) URL: the player loads the script from it")
                continue
            }
            verifications.append(
                AdVerification(
                    vendor: self.reader.string(fields["vendor"], "\(path).vendor"),
                    resources: [
                        .init(
                            kind: kind,
                            uri: uri,
                            apiFramework: self.reader.string(fields["api_framework"], "\(path).api_framework"),
                            type: self.reader.string(fields["type"], "\(path).type"),
                            browserOptional: self.reader.bool(fields["browser_optional"], "\(path).browser_optional")
                        )
                    ],
                    parameters: self.reader.string(fields["parameters"], "\(path).parameters"),
                    tracking: self.tracking(fields["tracking"], "\(path).tracking")
                )
            )
        }
        return verifications
    }

    private mutating func tracking(_ node: Node?, _ field: String) -> [String: [String]] {
        guard let node else { return [:] }
        guard case .mapping(let mapping) = node else {
            self.reader.issue(node, field, "expected a mapping of events to URL lists, e.g. impression: [\"https://…\"]")
            return [:]
        }
        var result: [String: [String]] = [:]
        for (key, value) in mapping {
            guard let event = key.string else { continue }
            result[event] = self.reader.strings(value, "\(field).\(event)")
        }
        return result
    }

    private mutating func breaks(_ node: Node?, islands: [String], pools: [String]) -> [AdBreak] {
        var breaks: [AdBreak] = []
        if let node, self.isLive {
            self.reader.issue(
                node,
                "breaks",
                "a live programme's breaks come from the channel's markers as they air; say what the markers do not in marker_breaks"
            )
            return []
        }
        if let node, self.isCatalogue {
            self.reader.issue(
                node,
                "breaks",
                "a catalogue's breaks come from each title's markers (say what they do not in marker_breaks) or from schedule:"
            )
            return []
        }
        for (index, item) in self.reader.sequence(node, "breaks").enumerated() {
            let field = "breaks[\(index)]"
            let fields = self.reader.mapping(item, field, allowed: ["id", "before", "after", "at", "duration", "pools", "restrict", "once", "skip"])
            guard let id = self.reader.identifier(fields["id"], "\(field).id", required: true, parent: item) else { continue }
            if breaks.contains(where: { $0.id == id }) || self.timedBreaks.contains(where: { $0.id == id }) {
                self.reader.issue(fields["id"], "\(field).id", "break \"\(id)\" is defined twice; break ids must be unique")
                continue
            }
            self.breakNodes[id] = (item, field)
            if self.singleProgram != nil || fields["at"] != nil {
                self.timedBreak(id: id, fields: fields, item: item, field: field, pools: pools)
                continue
            }
            let before = self.reader.string(fields["before"], "\(field).before")
            let after = self.reader.string(fields["after"], "\(field).after")
            var position: AdBreak.Position?
            switch (before, after) {
            case (let island?, nil): position = .before(island: island)
            case (nil, let island?): position = .after(island: island)
            default:
                self.reader.issue(item, field, "needs exactly one of before: ISLAND or after: ISLAND")
            }
            for (key, island) in [("before", before), ("after", after)] {
                if let island, !islands.contains(island) {
                    self.reader.issue(
                        fields[key],
                        "\(field).\(key)",
                        "names island \"\(island)\", which does not exist; islands are \(islands.joined(separator: ", "))"
                    )
                    position = nil
                }
            }
            let settings = self.breakSettings(fields, item: item, field: field, pools: pools, required: true)
            guard let position, let duration = settings.duration else { continue }
            breaks.append(
                AdBreak(
                    id: id,
                    position: position,
                    duration: duration,
                    pools: settings.pools,
                    restrict: settings.restrict,
                    once: settings.once ?? false,
                    placement: nil,
                    skip: settings.skip
                )
            )
        }
        return breaks
    }

    /// The `origin:` block: timeouts and the poll in seconds (decimals allowed), limits as whole numbers.
    private mutating func origin(_ node: Node?) -> OriginOptions {
        var options = OriginOptions()
        guard let node else { return options }
        let fields = self.reader.mapping(node, "origin", allowed: OriginOptions.keys)
        func seconds(_ key: String, _ minimum: ExactDecimal, _ maximum: ExactDecimal) -> Duration? {
            guard let value = self.reader.decimal(fields[key], "origin.\(key)") else { return nil }
            guard value >= minimum, value <= maximum else {
                self.reader.issue(fields[key], "origin.\(key)", "must be between \(minimum) and \(maximum) seconds")
                return nil
            }
            return Duration(value)
        }
        func count(_ key: String, _ range: ClosedRange<Int>) -> Int? {
            guard let value = self.reader.integer(fields[key], "origin.\(key)") else { return nil }
            guard range.contains(value) else {
                self.reader.issue(fields[key], "origin.\(key)", "must be between \(range.lowerBound) and \(range.upperBound)")
                return nil
            }
            return value
        }
        options.connectTimeout = seconds("connect_timeout", ExactDecimal(significand: 1, exponent: 1), 60)
        options.timeout = seconds("timeout", ExactDecimal(significand: 1, exponent: 1), 300)
        options.poll = seconds("poll", 1, 86_400)
        options.maxRedirects = count("max_redirects", 0...20)
        options.maxBytes = count("max_bytes", 1_024...CampaignLimits.maxPlaylistBytes)
        options.attempts = count("attempts", 1...10)
        return options
    }

    private mutating func markers(_ node: Node?) -> Set<Marker> {
        var markers: Set<Marker> = []
        for (index, name) in self.reader.strings(node, "markers").enumerated() {
            guard let marker = Marker(rawValue: name) else {
                self.reader.issue(node, "markers[\(index)]", "\"\(name)\" is not a marker kind; use daterange and/or cue")
                continue
            }
            markers.insert(marker)
        }
        return markers
    }
}
