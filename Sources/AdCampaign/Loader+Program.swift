import HLSPlaylist
import Yams

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Loader {
    mutating func singleProgram(_ program: [String: Node], node: Node) {
        if program["islands"] != nil {
            self.reader.issue(program["islands"], "program.islands", "a programme has islands or one playlist, not both")
        }
        let readsMarkers = self.readsMarkers(program["breaks"], of: "the programme's")
        self.isSingleProgram = true
        guard let asset = self.asset(program["playlist"], "program.playlist", parent: node) else { return }
        self.singleProgram = SingleProgram(asset: asset, readsMarkers: readsMarkers, node: node)
    }

    /// `program.breaks`: `markers` (breaks from `whose` own ad markers), or absent.
    mutating func readsMarkers(_ node: Node?, of whose: String) -> Bool {
        guard let node else { return false }
        guard self.reader.string(node, "program.breaks") == "markers" else {
            self.reader.issue(node, "program.breaks", "the only value is markers (breaks from \(whose) own ad markers)")
            return false
        }
        return true
    }

    mutating func timedBreak(id: String, fields: [String: Node], item: Node, field: String, pools: [String]) {
        guard self.singleProgram != nil else {
            // A programme asset that did not load has its own error: at: is not the problem.
            guard !self.isSingleProgram else { return }
            self.reader.issue(
                fields["at"],
                "\(field).at",
                "at: is a time in one programme asset (program: { playlist: … }); with islands, place breaks before: or after: an island"
            )
            return
        }
        for key in ["before", "after"] where fields[key] != nil {
            self.reader.issue(
                fields[key],
                "\(field).\(key)",
                "a single programme asset has no islands to name; give the break's programme time with at:"
            )
        }
        let at = self.reader.decimal(fields["at"], "\(field).at")
        if let at, at < .zero { self.reader.issue(fields["at"], "\(field).at", "must be 0 or more: seconds of programme time") }
        // An entry without at: sets a marker break's duration, pools and restrict by its id.
        let settings = self.breakSettings(fields, item: item, field: field, pools: pools, required: at != nil)
        self.timedBreaks.append(TimedBreak(id: id, at: at, settings: settings, node: item, field: field))
    }

    /// The programme cut at every break (those `at:` a time and those its markers give) into
    /// virtual islands `part-1`, `part-2`…, and the breaks placed before the island after them.
    mutating func cut(_ program: SingleProgram, markerBreaks: Node?, pools: [String]) -> ([Island], [AdBreak]) {
        let asset = program.asset
        let playlistName = asset.variants.first?.playlist.url.map(AssetLoader.name) ?? AssetLoader.name(asset.url)
        struct Cut {
            var id: String
            var segment: Int
            var end: Int?
            var requested: ExactDecimal?
            var duration: ExactDecimal?
            var pools: [String]
            var restrict: Restriction
            var once: Bool
            var skip: SkipControl?
            var markerLine: Int?
            var node: Node
            var field: String
        }
        var cuts: [Cut] = []
        // What markers do not say.
        var defaults = BreakSettings(duration: nil, pools: [], restrict: [], once: nil)
        if let markerBreaks {
            let fields = self.reader.mapping(markerBreaks, "marker_breaks", allowed: ["duration", "pools", "restrict", "once", "skip"])
            defaults = self.breakSettings(fields, item: markerBreaks, field: "marker_breaks", pools: pools, required: false)
        }
        let overrides = Dictionary(self.timedBreaks.filter { $0.at == nil }.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var used: Set<String> = []
        if program.readsMarkers, let playlist = asset.variants.first?.playlist {
            let markers = MarkerReader(playlist)
            // Each message says what becomes of the marker (skipped, or the break it left open abandoned).
            for problem in markers.problems {
                self.warnings.append(CampaignIssue(file: playlistName, line: problem.line, column: 0, field: "marker", problem.message))
            }
            for marker in markers.breaks {
                let override = overrides[marker.id]?.settings
                if override != nil { used.insert(marker.id) }
                let node = overrides[marker.id]?.node ?? program.node
                let field = overrides[marker.id]?.field ?? "program.breaks"
                cuts.append(
                    Cut(
                        id: marker.id,
                        segment: marker.segment,
                        end: marker.end,
                        requested: nil,
                        // A replacement's own duration wins; then the breaks: entry; then marker_breaks.
                        duration: (marker.end != nil ? marker.duration : nil) ?? override?.duration ?? marker.duration ?? defaults.duration,
                        pools: override.map { $0.pools.isEmpty ? defaults.pools : $0.pools } ?? defaults.pools,
                        restrict: override.map { $0.restrict.isEmpty ? defaults.restrict : $0.restrict } ?? defaults.restrict,
                        once: override?.once ?? defaults.once ?? false,
                        skip: override?.skip ?? defaults.skip,
                        markerLine: marker.line,
                        node: node,
                        field: field
                    )
                )
            }
        } else if let markerBreaks {
            self.reader.issue(markerBreaks, "marker_breaks", "applies to breaks from markers; add breaks: markers to program")
        }
        // A programme may mark thousands of breaks: the message names the first few.
        let markerIDs = cuts.prefix(20).map(\.id).joined(separator: ", ") + (cuts.count > 20 ? ", … (\(cuts.count) in all)" : "")
        for entry in self.timedBreaks where entry.at == nil && !used.contains(entry.id) {
            self.reader.issue(
                entry.node,
                "\(entry.field).at",
                "break \"\(entry.id)\" has no at: and no marker of the programme has that id; marker breaks are \(markerIDs)"
            )
        }
        for entry in self.timedBreaks {
            guard let at = entry.at else { continue }
            guard at <= asset.duration else {
                self.reader.issue(entry.node, "\(entry.field).at", "\(at) s is past the programme's end (\(asset.duration) s)")
                continue
            }
            let boundary = asset.boundary(atOrBefore: at)
            cuts.append(
                Cut(
                    id: entry.id,
                    segment: boundary.segment,
                    end: nil,
                    requested: at,
                    duration: entry.settings.duration,
                    pools: entry.settings.pools,
                    restrict: entry.settings.restrict,
                    once: entry.settings.once ?? false,
                    skip: entry.settings.skip,
                    markerLine: nil,
                    node: entry.node,
                    field: entry.field
                )
            )
            if boundary.time != at, !entry.scheduled {
                self.warnings.append(
                    CampaignIssue(
                        file: self.file.path,
                        line: entry.node.mark?.line ?? 0,
                        column: entry.node.mark?.column ?? 0,
                        field: "\(entry.field).at",
                        "break \"\(entry.id)\" asked for at \(at) s cuts at \(boundary.time) s, the segment boundary at or before it"
                    )
                )
            }
        }
        cuts.sort { ($0.segment, $0.end ?? $0.segment) < ($1.segment, $1.end ?? $1.segment) }
        // No break inside another's replaced stretch, none at the same point as another.
        var kept: [Cut] = []
        for cut in cuts {
            if let previous = kept.last, cut.segment < (previous.end ?? previous.segment + 1) {
                self.reader.issue(
                    cut.node,
                    cut.field,
                    "break \"\(cut.id)\" overlaps break \"\(previous.id)\" (they cut the programme at the same place or inside its replaced stretch); keep one"
                )
                continue
            }
            guard let duration = cut.duration else {
                self.reader.issue(
                    cut.node,
                    cut.field,
                    "break \"\(cut.id)\" needs a duration: give marker_breaks: { duration: … } or a breaks: entry with its id"
                )
                continue
            }
            guard !cut.pools.isEmpty else {
                self.reader.issue(
                    cut.node,
                    cut.field,
                    "break \"\(cut.id)\" needs pools: give marker_breaks: { pools: […] } or a breaks: entry with its id"
                )
                continue
            }
            var checked = cut
            checked.duration = duration
            kept.append(checked)
        }

        // The islands between the cuts; each break goes before the island after it (or after the last).
        let cutter = AssetCutter(asset)
        let segmentCount = cutter.video.times.count - 1
        func time(_ segment: Int) -> ExactDecimal { cutter.video.times[min(segment, segmentCount)] }
        var islands: [Island] = []
        var pending: [Cut] = []
        var placed: [(Cut, AdBreak.Position)] = []
        var resume = 0
        var skews: [(playlist: String, cut: ExactDecimal, skew: ExactDecimal)] = []
        func island(to end: Int) {
            guard end > resume else { return }
            let id = "part-\(islands.count + 1)"
            self.declaredIslands.append(id)
            islands.append(Island(id: id, asset: cutter.slice(from: time(resume), to: time(end), skews: &skews), contentStart: time(resume)))
            placed += pending.map { ($0, .before(island: id)) }
            pending = []
        }
        for cut in kept {
            island(to: cut.segment)
            pending.append(cut)
            resume = cut.end ?? cut.segment
        }
        island(to: segmentCount)
        guard let last = islands.last else {
            self.reader.issue(program.node, "program", "the breaks replace the whole programme; nothing of it is left to play")
            return ([], [])
        }
        placed += pending.map { ($0, .after(island: last.id)) }
        for (playlist, cut, skew) in skews {
            self.warnings.append(
                CampaignIssue(
                    file: playlist,
                    line: 0,
                    column: 0,
                    field: "cut",
                    "cut \(skew > .zero ? "\(skew) s after" : "\(skew.magnitude) s before") the video cut at \(cut) s: its segment boundaries differ from the first variant's"
                )
            )
        }
        let breaks = placed.map { cut, position in
            AdBreak(
                id: cut.id,
                position: position,
                duration: cut.duration ?? .zero,
                pools: cut.pools,
                restrict: cut.restrict,
                once: cut.once,
                placement: AdBreak.Placement(
                    requested: cut.requested,
                    cut: time(cut.segment),
                    replaced: cut.end.map { time($0) - time(cut.segment) },
                    markerLine: cut.markerLine
                ),
                skip: cut.skip
            )
        }
        for adBreak in breaks where self.breakNodes[adBreak.id] == nil { self.breakNodes[adBreak.id] = (program.node, "program.breaks") }
        return (islands, breaks)
    }

    /// A break's (or `marker_breaks`') `duration`, `pools`, `restrict` and `once` (nil: not
    /// given); `required`: the duration and pools must be given.
    mutating func breakSettings(
        _ fields: [String: Node],
        item: Node,
        field: String,
        pools: [String],
        required: Bool
    ) -> BreakSettings {
        let duration = self.reader.decimal(fields["duration"], "\(field).duration", required: required, parent: item)
        if let duration, duration <= .zero { self.reader.issue(fields["duration"], "\(field).duration", "must be above 0") }
        if let duration, duration > CampaignLimits.maxBreakDuration {
            self.reader.issue(
                fields["duration"],
                "\(field).duration",
                "\(duration) s is longer than a break may run (\(CampaignLimits.maxBreakDuration) s); split it into several breaks"
            )
        }
        let breakPools = self.reader.strings(fields["pools"], "\(field).pools")
        if required, breakPools.isEmpty, fields["pools"] == nil {
            self.reader.issue(item, "\(field).pools", "is required: the pools that fill this break")
        }
        for pool in breakPools where !pools.contains(pool) {
            self.reader.issue(
                fields["pools"],
                "\(field).pools",
                "names pool \"\(pool)\", which does not exist; pools are \(pools.joined(separator: ", "))"
            )
        }
        var restrict: Restriction = []
        for value in self.reader.strings(fields["restrict"], "\(field).restrict") {
            guard let restriction = Restriction(name: value) else {
                self.reader.issue(fields["restrict"], "\(field).restrict", "\"\(value)\" is not a policy; use skip and/or jump")
                continue
            }
            restrict.insert(restriction)
        }
        return BreakSettings(
            duration: duration,
            pools: breakPools,
            restrict: restrict,
            once: self.reader.bool(fields["once"], "\(field).once"),
            skip: self.skipControl(fields["skip"], field: "\(field).skip", duration: duration, restrict: restrict)
        )
    }

    /// `skip: { after: S, for: S, label: ID }`: after at least 0 and within the break, for above 0,
    /// label an id; refused beside `restrict: [skip]`, which forbids what it offers.
    mutating func skipControl(_ node: Node?, field: String, duration: ExactDecimal?, restrict: Restriction) -> SkipControl? {
        guard let node else { return nil }
        let fields = self.reader.mapping(node, field, allowed: ["after", "for", "label"])
        guard let after = self.reader.decimal(fields["after"], "\(field).after", required: true, parent: node) else { return nil }
        var valid = true
        if after < .zero || duration.map({ after >= $0 }) == true {
            self.reader.issue(
                fields["after"],
                "\(field).after",
                "must be from 0 to less than the break's duration\(duration.map { " (\($0) s)" } ?? ""): seconds into the break when the player offers to skip it"
            )
            valid = false
        }
        let seconds = self.reader.decimal(fields["for"], "\(field).for")
        if let seconds, seconds <= .zero || seconds > CampaignLimits.maxBreakDuration {
            self.reader.issue(
                fields["for"],
                "\(field).for",
                "must be above 0 and at most \(CampaignLimits.maxBreakDuration) s: how long the skip control stays"
            )
            valid = false
        }
        let label = fields["label"].flatMap { self.reader.identifier($0, "\(field).label") }
        if fields["label"] != nil, label == nil { valid = false }
        if restrict.contains(.skip) {
            self.reader.issue(node, field, "a break that restricts skip cannot offer a skip control; drop skip from restrict, or this skip:")
            valid = false
        }
        return valid ? SkipControl(after: after, duration: seconds, label: label) : nil
    }
}
