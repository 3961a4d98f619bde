import HLSPlaylist
import Yams

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A live programme (`program: { live: URL }`, docs/campaign-format.md "A live programme"): the channel's multivariant playlist
/// and one window of each of its media playlists, `marker_breaks` for what the channel's markers
/// do not say, `join_mid_break`.
extension Loader {
    mutating func liveChannel(_ node: Node, program: [String: Node], node parent: Node) {
        for key in ["islands", "playlist", "breaks"] where program[key] != nil {
            self.reader.issue(
                program[key],
                "program.\(key)",
                key == "breaks"
                    ? "a live programme's breaks always come from its markers; remove program.breaks"
                    : "a programme is live, one playlist or islands — not both"
            )
        }
        guard let text = self.reader.string(node, "program.live", required: true, parent: parent) else { return }
        guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            self.reader.issue(
                node,
                "program.live",
                "\"\(text)\" is not an http(s) URL; program.live is the URL of the channel's multivariant playlist on its origin"
            )
            return
        }
        let mark = node.mark
        guard
            let asset = self.assets.liveAsset(
                at: url,
                field: "program.live",
                campaignFile: self.file.path,
                line: mark?.line ?? 0,
                column: mark?.column ?? 0
            )
        else { return }
        self.liveChannel = (asset, url, node)
    }

    mutating func liveProgram(
        _ channel: (asset: Asset, url: URL, node: Node),
        fields: [String: Node],
        pools: [String],
        hasSlate: Bool
    )
        -> LiveProgram?
    {
        var join = LiveProgram.JoinMidBreak.slate
        if let node = fields["join_mid_break"], let value = self.reader.string(node, "join_mid_break") {
            if let mode = LiveProgram.JoinMidBreak(rawValue: value) {
                join = mode
            } else {
                self.reader.issue(node, "join_mid_break", "\"\(value)\" is not a choice; use slate or program")
            }
        }
        guard let markerBreaks = fields["marker_breaks"] else {
            self.reader.issue(
                channel.node,
                "marker_breaks",
                "is required for a live programme: marker_breaks: { pools: [...] } names the pools that fill the channel's breaks"
            )
            return nil
        }
        let settingFields = self.reader.mapping(markerBreaks, "marker_breaks", allowed: ["duration", "pools", "restrict"])
        let settings = self.breakSettings(settingFields, item: markerBreaks, field: "marker_breaks", pools: pools, required: false)
        if settings.duration == nil, settingFields["duration"] == nil {
            self.reader.issue(
                markerBreaks,
                "marker_breaks.duration",
                "is required for a live programme, even when the channel's markers announce their durations today: a marker "
                    + "without one (EXT-X-CUE-OUT with no duration, SCTE-35 without break_duration, a DATERANGE with no DURATION) "
                    + "needs a length to plan the viewer's ads for, and ends the break if no CUE-IN follows; "
                    + "set it to the channel's usual break length, e.g. marker_breaks: { duration: 120, pools: [...] }"
            )
        }
        if settings.pools.isEmpty, settingFields["pools"] == nil {
            self.reader.issue(markerBreaks, "marker_breaks.pools", "is required: the pools that fill the channel's breaks")
        }
        if !hasSlate {
            self.reader.issue(
                channel.node,
                "slate",
                "is required for a live programme: a break runs as long as the channel's markers say, and the slate fills what the ads leave"
            )
        }
        return LiveProgram(
            url: channel.url,
            asset: channel.asset,
            joinMidBreak: join,
            defaultDuration: settings.duration,
            pools: settings.pools,
            restrict: settings.restrict,
            stall: fields["live_stall"].flatMap { self.liveStall($0) }
        )
    }

    /// `live_stall: { after: 3, fill: slate | gap }`; `live_stall: {}` takes both defaults.
    mutating func liveStall(_ node: Node) -> LiveStall? {
        let fields = self.reader.mapping(node, "live_stall", allowed: ["after", "fill"])
        var after = 3
        if let value = self.reader.integer(fields["after"], "live_stall.after") {
            guard LiveStall.afterRange.contains(value) else {
                self.reader.issue(
                    fields["after"],
                    "live_stall.after",
                    "\(value) is outside \(LiveStall.afterRange.lowerBound)–\(LiveStall.afterRange.upperBound): it counts target durations "
                        + "of standstill, and viewers' windows already trail the origin by two; use 3 (the default) or more"
                )
                return nil
            }
            after = value
        }
        var fill = LiveStall.Fill.slate
        if let node = fields["fill"], let value = self.reader.string(node, "live_stall.fill") {
            guard let choice = LiveStall.Fill(rawValue: value) else {
                self.reader.issue(node, "live_stall.fill", "\"\(value)\" is not a choice; use slate or gap")
                return nil
            }
            fill = choice
        }
        return LiveStall(after: after, fill: fill)
    }

    /// `reporting:` as written, for a check made before the field is read (whose reading says
    /// what is wrong with it): the default where it names no mode.
    func peekReporting(_ node: Node?) -> Campaign.Reporting {
        node?.scalar.flatMap { Campaign.Reporting(rawValue: $0.string) } ?? Campaign.Reporting.server
    }

    /// What live programmes do not support yet, refused at load with the field named: HLS
    /// Interstitials (`insertion: interstitials | auto`) report client-side only so far — AdStitch
    /// does not fire a live asset list's ads' events — so they need `reporting: client`.
    mutating func checkLiveLimits(_ fields: [String: Node], insertion: Insertion, reporting: Campaign.Reporting) {
        if insertion != .stitched, reporting == .server {
            self.reader.issue(
                fields["insertion"],
                "insertion",
                "a live channel's interstitial sessions report client-side (the player fires the ads' events from the asset lists' creative signalling; AdStitch does not fire them yet): add reporting: client, or leave insertion out for stitched sessions"
            )
        }
        if let rewrite = fields["rewrite"] {
            self.reader.issue(
                rewrite,
                "rewrite",
                "rewrite rules do not apply to live programmes yet: the channel's URIs are written as its origin gives them; remove rewrite:"
            )
        }
    }
}
