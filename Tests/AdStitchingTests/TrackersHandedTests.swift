import AdCampaign
import AdDecision
import AdLive
import AdStitching
import Foundation
import HLSPlaylist
import Testing

/// Issue 52: a server-side session fires its ads' events itself, so nothing a player reads lists a
/// tracker it would fire again — Shaka's SVTA tracker and Bitmovin's fire what they find in an
/// interstitial's `X-AD-CREATIVE-SIGNALING`, and players read the boundary manifest's `tracking`.
/// A client-side session lists them all. Every file of every session kind is searched: its text,
/// every JSON string in it, and the base64 creative signalling decoded.
@Suite("Trackers handed to the player")
struct TrackersHandedTests {
    /// Every string a player could read in `rendered`: the text itself, every JSON string in it
    /// (a JSON file, or an attribute's base64 JSON), whole.
    static func strings(_ rendered: RenderedFile) throws -> [String] {
        let text = String(decoding: rendered.bytes, as: UTF8.self)
        var found = [text]
        if rendered.file.name.hasSuffix(".json") { found += Self.strings(in: try ExactJSON.parse(text)) }
        if case .playlist = rendered.file {
            for entry in try PlaylistParser().parseMediaPlaylist(text).dateRanges {
                guard let signaling = entry.dateRange.attributes.string("X-AD-CREATIVE-SIGNALING") else { continue }
                let data = try #require(Data(base64Encoded: signaling), "\(rendered.file.name): base64")
                found += Self.strings(in: try ExactJSON.parse(String(decoding: data, as: UTF8.self)))
            }
        }
        return found
    }

    static func strings(in json: ExactJSON) -> [String] {
        if let string = json.string { return [string] }
        if let items = json.items { return items.flatMap(Self.strings(in:)) }
        return (json.members ?? []).flatMap { [$0.key] + Self.strings(in: $0.value) }
    }

    /// `json` without any member named `key`, at any depth.
    static func without(_ key: String, _ json: ExactJSON) -> ExactJSON {
        if let items = json.items { return .array(items.map { Self.without(key, $0) }) }
        guard let members = json.members else { return json }
        return .object(members.filter { $0.key != key }.map { ExactJSON.Member(key: $0.key, value: Self.without(key, $0.value)) })
    }

    /// The tracking URLs of every ad `plan` plays (pool ads' and the decided creatives').
    static func trackers(_ plan: Plan) -> Set<String> {
        Set(plan.breaks.flatMap { $0.ads.flatMap { $0.tracking.values.flatMap { $0 } } })
    }

    @Test(
        "server-side: no file of a stitched or interstitial session (boundary manifest, primary playlist's SVTA signalling, asset lists) names a tracker; client-side: the manifest names every one and the SVTA signalling each break's",
        arguments: Demo.allCases
    )
    func vod(_ demo: Demo) throws {
        let campaign = try demo.campaign()
        let renderer = SessionRenderer(layout: try StitchLayout(campaign: campaign, uris: Demo.uris(for: campaign)))
        let first = try #require(campaign.breaks.first)
        var sessions = 0
        for context in variedViewers(8) {
            let decided = [first.id: [TrackingDocumentTests.creative("uaid-\(context.session)", like: try #require(campaign.ads.first))]]
            let plan = Planner().plan(campaign, for: context, decided: decided)
            let trackers = Self.trackers(plan)
            try #require(trackers.contains("https://t.example/impression?c=uaid-\(context.session)&cb=[CACHEBUSTING]"), "the creative plays")
            for insertion in [Insertion.stitched, .interstitials] {
                sessions += 1
                for rendered in try renderer.session(insertion, reporting: .server).renderAll(plan) {
                    let named = try Self.strings(rendered).filter { string in trackers.contains { string.contains($0) } }
                    #expect(named.isEmpty, "\(demo) \(context.session) \(insertion) server-side: \(rendered.file.name) names a tracker")
                }
                let client = try renderer.session(insertion, reporting: .client).renderAll(plan)
                let manifest = try #require(client.first { $0.file == .boundaries })
                #expect(trackers.isSubset(of: Set(try Self.strings(manifest))), "\(demo) \(context.session) \(insertion) client-side: the manifest")
                if insertion == .interstitials {
                    let signalled = Set(try client.filter { $0.file != .boundaries && $0.file != .tracking }.flatMap(Self.strings))
                    #expect(trackers.isSubset(of: signalled), "\(demo) \(context.session) client-side: the SVTA signalling")
                }
            }
        }
        #expect(sessions == 16)
    }

    @Test("a live session's boundary manifest: no ad's `tracking` server-side (its playlists carry beacon links), every one client-side")
    func live() throws {
        let tracked = LiveSessionTests.campaign.replacingOccurrences(
            of: "{ id: alpha, playlist: alpha/master.m3u8 }",
            with:
                "{ id: alpha, playlist: alpha/master.m3u8, tracking: { impression: [\"https://t.example/i\"], complete: [\"https://t.example/c\"] } }"
        ).replacingOccurrences(
            of: "{ id: bravo, playlist: bravo/master.m3u8 }",
            with: "{ id: bravo, playlist: bravo/master.m3u8, tracking: { impression: [\"https://t.example/b\"] } }"
        )
        let channel = LiveSessionTests.Channel(breaks: [(10, 4, 4), (20, 4, 4)])
        let campaign = try LiveSessionTests.load(tracked, channel: channel)
        let live = try #require(campaign.live)
        let renderer = SessionRenderer(layout: try StitchLayout(campaign: campaign, uris: .absolute))
        let plan = Planner().plan(
            campaign,
            for: ViewerContext(session: "live-trackers", milliseconds: Int64(LiveSessionTests.epoch) * 1000, attributes: [:])
        )
        var tracker = LiveBreakTracker(defaultDuration: live.defaultDuration)
        var listed = 0
        for last in 5...30 {
            let windows = try LiveSessionTests.windows(channel, last: last, tracker: &tracker)
            let channel = LiveSessionKind.Channel(windows: windows, breaks: tracker.breaks, joined: 6)
            let server = LiveSessionKind(renderer: renderer, reporting: .server, channel: channel)
            let client = LiveSessionKind(renderer: renderer, reporting: .client, channel: channel)
            let serverSide = try ExactJSON.parse(try server.render(.boundaries, plan).text)
            let clientSide = try ExactJSON.parse(try client.render(.boundaries, plan).text)
            for ad in (serverSide["breaks"]?.items ?? []).flatMap({ $0["ads"]?.items ?? [] }) {
                #expect(ad["tracking"] == nil, "poll \(last): \(ad["id"]?.string ?? "")")
            }
            #expect(!Self.strings(in: serverSide).contains { $0.hasPrefix("https://t.example/") }, "poll \(last)")
            for ad in (clientSide["breaks"]?.items ?? []).flatMap({ $0["ads"]?.items ?? [] }) where ad["slate"] == nil {
                let urls = Self.strings(in: ad["tracking"] ?? .null)
                #expect(
                    urls.contains { $0.hasPrefix("https://t.example/") },
                    "poll \(last): \(ad["id"]?.string ?? "") lists its trackers client-side"
                )
                listed += 1
            }
            // Apart from its trackers, the manifest is the same.
            #expect(Self.without("tracking", clientSide).isEqual(to: Self.without("tracking", serverSide)), "poll \(last)")
        }
        #expect(listed > 10, "ads were listed: \(listed)")
    }
}
