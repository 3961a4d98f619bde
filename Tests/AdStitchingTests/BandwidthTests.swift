import AdCampaign
import AdDecision
import AdStitching
import Foundation
import HLSPlaylist
import Testing

/// docs/architecture.md invariant 9, in integers: AVERAGE-BANDWIDTH is the duration-weighted mean rounded up,
/// and never above BANDWIDTH (a `Double` mean once wrote `BANDWIDTH=235400,…,AVERAGE-BANDWIDTH=235401`).
@Suite("Bandwidth")
struct BandwidthTests {
    /// A folder whose programme (33.468 s) and ad (3.782 s, before and after it) run at one
    /// BANDWIDTH: lengths whose `Double` mean comes out at 235400.0000000001.
    static func campaign() throws -> Campaign {
        let master = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=235400,CODECS=\"avc1.42c01e,mp4a.40.2\",RESOLUTION=426x240,FRAME-RATE=25.000\nv.m3u8\n"
        func media(_ durations: [String]) -> String {
            "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n"
                + durations.enumerated().map { "#EXTINF:\($1),\ns\($0).ts\n" }.joined() + "#EXT-X-ENDLIST\n"
        }
        let files = [
            "p/master.m3u8": master, "p/v.m3u8": media(["4", "4", "4", "4", "4", "4", "4", "4", "1.468"]),
            "a/master.m3u8": master, "a/v.m3u8": media(["3.782"]),
            "campaign.yaml": """
            version: 1
            id: bandwidth
            program: { islands: [ { id: act-1, playlist: p/master.m3u8 } ] }
            breaks: [ { id: pre, before: act-1, duration: 5, pools: [prime] }, { id: post, after: act-1, duration: 5, pools: [prime] } ]
            pools: { prime: [ { id: alpha, playlist: a/master.m3u8 } ] }
            """,
        ]
        return try Self.load(files)
    }

    /// The campaign `files` make (paths relative to its folder; `campaign.yaml` among them).
    static func load(_ files: [String: String]) throws -> Campaign {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bandwidth-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: folder) }
        for (path, text) in files {
            let url = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        return try CampaignLoader.load(folder.appendingPathComponent("campaign.yaml"))
    }

    @Test("a programme and ads at one BANDWIDTH average exactly that, never one above")
    func averageNeverAbovePeak() throws {
        let campaign = try Self.campaign()
        let renderer = SessionRenderer(layout: try StitchLayout(campaign: campaign, uris: .absolute))
        for index in 0..<20 {
            let plan = Planner().plan(campaign, for: viewer(session: "bw-\(index)"))
            let master = try PlaylistParser().parseMultivariantPlaylist(
                try renderer.multivariant(plan, playlistURI: { "\($0.id).m3u8" }, boundariesURI: "boundaries.json")
            )
            let variant = try #require(master.variants.first?.streamInf)
            #expect(variant.bandwidth == 235_400)
            #expect(variant.averageBandwidth == 235_400)
        }
    }

    /// RFC 8216bis §4.4.6.2: a variant's CODECS names every format of every segment it plays.
    @Test("CODECS: the programme's list, then each format an ad adds, once (compared without case), in play order; repeats add nothing")
    func codecsOfEveryPiece() throws {
        func master(_ codecs: String) -> String {
            "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=235400,CODECS=\"\(codecs)\",RESOLUTION=426x240,FRAME-RATE=25.000\nv.m3u8\n"
        }
        func media(_ count: Int) -> String {
            "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n"
                + (0..<count).map { "#EXTINF:4.000,\ns\($0).ts\n" }.joined() + "#EXT-X-ENDLIST\n"
        }
        let files = [
            "p/master.m3u8": master("avc1.42c01e,mp4a.40.2"), "p/v.m3u8": media(4),
            "a/master.m3u8": master("avc1.42C01E,mp4a.40.5"), "a/v.m3u8": media(1),
            "b/master.m3u8": master("avc1.4d401e,mp4a.40.2"), "b/v.m3u8": media(1),
            "campaign.yaml": """
            version: 1
            id: codecs
            program: { islands: [ { id: act-1, playlist: p/master.m3u8 }, { id: act-2, playlist: p/master.m3u8 } ] }
            breaks:
              - { id: pre, before: act-1, duration: 4, pools: [alpha] }
              - { id: mid, after: act-1, duration: 4, pools: [alpha] }
              - { id: post, after: act-2, duration: 4, pools: [bravo] }
            pools: { alpha: [ { id: alpha, playlist: a/master.m3u8 } ], bravo: [ { id: bravo, playlist: b/master.m3u8 } ] }
            """,
        ]
        let campaign = try Self.load(files)
        let renderer = SessionRenderer(layout: try StitchLayout(campaign: campaign, uris: .absolute))
        let plan = Planner().plan(campaign, for: viewer(session: "codecs"))
        let master = try PlaylistParser().parseMultivariantPlaylist(
            try renderer.multivariant(plan, playlistURI: { "\($0.id).m3u8" }, boundariesURI: "boundaries.json")
        )
        #expect(master.variants.first?.streamInf.codecs == ["avc1.42c01e", "mp4a.40.2", "mp4a.40.5", "avc1.4d401e"])
    }
}
