import HLSPlaylist
import Yams

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A catalogue (`program: { catalogue: URL }`, docs/campaign-format.md "Catalogues"): without a
/// title the campaign loads as a template (its pools, rules and settings checked, no programme);
/// with one, the title's multivariant playlist below the prefix is the programme asset, cut at its
/// markers or by `schedule:` exactly as `program: { playlist: … }` is.
extension Loader {
    mutating func catalogueProgram(_ node: Node, program: [String: Node], node parent: Node) {
        self.isCatalogue = true
        for key in ["islands", "playlist", "live"] where program[key] != nil {
            self.reader.issue(program[key], "program.\(key)", "a programme is a catalogue, live, one playlist or islands — not two")
        }
        let readsMarkers = self.readsMarkers(program["breaks"], of: "each title's")
        guard let text = self.reader.string(node, "program.catalogue", required: true, parent: parent) else { return }
        guard let prefix = URL(string: text), prefix.scheme == "http" || prefix.scheme == "https", prefix.host != nil,
            prefix.query == nil, prefix.fragment == nil, text.hasSuffix("/")
        else {
            self.reader.issue(
                node,
                "program.catalogue",
                "\"\(text)\" is not an http(s) URL ending in /; program.catalogue is the origin folder every title lies below (https://origin.example/vod/)"
            )
            return
        }
        self.catalogue = CatalogueSettings(prefix: prefix, readsMarkers: readsMarkers, node: node)
        guard let title = self.title else {
            // The template: its ads and slate, read next, are kept for its titles' loads.
            self.assets.recordsAssets = true
            return
        }
        let catalogue = Catalogue(prefix: prefix, readsMarkers: readsMarkers, schedule: nil, cache: CatalogueCache())
        guard let url = catalogue.url(of: title) else {
            self.reader.issue(node, "program.catalogue", "\"\(title)\" is not a title path below the catalogue (a relative path ending in .m3u8)")
            return
        }
        // The title's path counts in its revision: two titles with the same bytes (relative
        // segment URIs) play different segments.
        self.assets.feed(Array("\u{0}title\u{0}\(title)".utf8))
        self.isSingleProgram = true
        let mark = node.mark
        guard
            let asset = self.assets.asset(
                at: url,
                field: "program.catalogue",
                campaignFile: self.file.path,
                line: mark?.line ?? 0,
                column: mark?.column ?? 0
            )
        else { return }
        self.singleProgram = SingleProgram(asset: asset, readsMarkers: readsMarkers, node: node)
    }

    /// `schedule:` and `cache:`, which only a catalogue has; for a title without markers, the
    /// schedule's breaks are added as breaks at programme times.
    mutating func catalogueSettings(_ fields: [String: Node], pools: [String]) -> Catalogue? {
        guard let settings = self.catalogue else {
            for key in ["schedule", "cache"] where fields[key] != nil {
                self.reader.issue(fields[key], key, "is for catalogues: program: { catalogue: URL }")
            }
            return nil
        }
        let schedule = fields["schedule"].flatMap { self.schedule($0, pools: pools) }
        let cache = fields["cache"].map { self.cache($0) } ?? CatalogueCache()
        if let program = self.singleProgram, let schedule {
            let markers = program.readsMarkers ? program.asset.variants.first.map { MarkerReader($0.playlist).breaks.count } ?? 0 : 0
            if markers == 0 {
                var used: Set<Int> = []
                let node = fields["schedule"] ?? settings.node
                for entry in schedule.breaks(duration: program.asset.duration) {
                    // Two scheduled times in one segment cut at one boundary: the first keeps it.
                    let boundary = program.asset.boundary(atOrBefore: entry.at).segment
                    guard used.insert(boundary).inserted else { continue }
                    self.timedBreaks.append(
                        TimedBreak(
                            id: entry.id,
                            at: entry.at,
                            settings: BreakSettings(duration: entry.duration, pools: schedule.pools, restrict: [], once: nil),
                            node: node,
                            field: "schedule",
                            scheduled: true
                        )
                    )
                }
            }
        }
        return Catalogue(prefix: settings.prefix, readsMarkers: settings.readsMarkers, schedule: schedule, cache: cache)
    }

    private mutating func schedule(_ node: Node, pools: [String]) -> BreakSchedule? {
        let fields = self.reader.mapping(node, "schedule", allowed: ["preroll", "every", "mid_duration", "postroll", "min_tail", "pools"])
        func length(_ key: String) -> ExactDecimal? {
            guard let value = self.reader.decimal(fields[key], "schedule.\(key)") else { return nil }
            guard value >= .zero, value <= CampaignLimits.maxBreakDuration else {
                self.reader.issue(fields[key], "schedule.\(key)", "must be 0 (none) to \(CampaignLimits.maxBreakDuration) seconds")
                return nil
            }
            return value > .zero ? value : nil
        }
        let preroll = length("preroll")
        let postroll = length("postroll")
        let midDuration = length("mid_duration")
        var every = self.reader.decimal(fields["every"], "schedule.every")
        if let value = every, value < ExactDecimal(10) || value > CampaignLimits.maxProgramDuration {
            if value != .zero {
                self.reader.issue(fields["every"], "schedule.every", "must be 0 (no mid-rolls) or at least 10 seconds of programme")
            }
            every = nil
        }
        if every != nil, midDuration == nil {
            self.reader.issue(fields["mid_duration"] ?? node, "schedule.mid_duration", "is required with every: the length of each mid-roll")
        }
        let minTail = self.reader.decimal(fields["min_tail"], "schedule.min_tail") ?? .zero
        if minTail < .zero { self.reader.issue(fields["min_tail"], "schedule.min_tail", "must be 0 or more seconds") }
        let names = self.reader.strings(fields["pools"], "schedule.pools")
        if names.isEmpty { self.reader.issue(fields["pools"] ?? node, "schedule.pools", "is required: the pools that fill scheduled breaks") }
        for name in names where !pools.contains(name) {
            self.reader.issue(
                fields["pools"],
                "schedule.pools",
                "names pool \"\(name)\", which does not exist; pools are \(pools.joined(separator: ", "))"
            )
        }
        guard preroll != nil || postroll != nil || every != nil else {
            self.reader.issue(node, "schedule", "places no break: give preroll, every (with mid_duration) or postroll")
            return nil
        }
        return BreakSchedule(preroll: preroll, every: every, midDuration: midDuration, postroll: postroll, minTail: max(minTail, .zero), pools: names)
    }

    private mutating func cache(_ node: Node) -> CatalogueCache {
        let fields = self.reader.mapping(node, "cache", allowed: ["titles", "memory_mib", "ttl"])
        var cache = CatalogueCache()
        if let titles = self.reader.integer(fields["titles"], "cache.titles") {
            if (1...1_000_000).contains(titles) {
                cache.titles = titles
            } else {
                self.reader.issue(fields["titles"], "cache.titles", "must be 1 to 1000000 titles")
            }
        }
        if let memory = self.reader.integer(fields["memory_mib"], "cache.memory_mib") {
            if (1...1_048_576).contains(memory) {
                cache.memoryMiB = memory
            } else {
                self.reader.issue(fields["memory_mib"], "cache.memory_mib", "must be 1 to 1048576 MiB")
            }
        }
        if let ttl = self.reader.decimal(fields["ttl"], "cache.ttl") {
            if ttl >= 1, ttl <= 86_400 {
                cache.ttl = Duration(ttl)
            } else {
                self.reader.issue(fields["ttl"], "cache.ttl", "must be 1 to 86400 seconds")
            }
        }
        return cache
    }
}

/// `program: { catalogue: URL, breaks: markers }` as read, before `schedule:` and `cache:`.
struct CatalogueSettings {
    var prefix: URL
    var readsMarkers: Bool
    var node: Node
}
