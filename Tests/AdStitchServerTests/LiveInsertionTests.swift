import AdCampaign
import Foundation
import Testing

@testable import AdStitchServer

/// How a live channel's session start picks its insertion mode (`SessionController.insertion`):
/// interstitials as asked or as `auto` resolves them, but only for a session that reports
/// client-side — `auto` gives a server-side one stitched, an explicit ask is refused.
@Suite("Live sessions: the insertion mode")
struct LiveInsertionTests {
    static let vod = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:2.000,\nx0.ts\n#EXT-X-ENDLIST\n"
    static let master = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS=\"avc1.42c01e,mp4a.40.2\",RESOLUTION=640x360\nv0.m3u8\n"

    static func live(_ lines: String) throws -> Campaign {
        let root = URL(fileURLWithPath: "/campaigns/live")
        let window =
            "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-PROGRAM-DATE-TIME:2027-01-15T08:00:00.000Z\n#EXTINF:2.000,\ns0.ts\n"
        let playlists = ["s/master.m3u8": Self.master, "s/v0.m3u8": Self.vod, "a/master.m3u8": Self.master, "a/v0.m3u8": Self.vod]
        return try CampaignLoader.load(
            yaml: """
                version: 1
                id: live
                program: { live: "https://origin.test/channel/master.m3u8" }
                marker_breaks: { duration: 8, pools: [prime] }
                slate: { playlist: s/master.m3u8 }
                pools: { prime: [ { id: alpha, playlist: a/master.m3u8 } ] }
                \(lines)
                """,
            file: root.appendingPathComponent("campaign.yaml"),
            source: .memory(playlists, root: root) { url, _ in (Data((url.lastPathComponent == "master.m3u8" ? Self.master : window).utf8), url) }
        )
    }

    @Test("interstitials as asked or as auto resolves them, for client-side reporting only; stitched otherwise, or 400 when asked")
    func insertion() throws {
        let hlsJs = "hls.js/1.6.15"
        let auto = try Self.live("insertion: auto\nreporting: client")
        let stitched = try Self.live("reporting: client")
        let server = try Self.live("")
        func mode(
            _ campaign: Campaign,
            asked: Insertion?,
            reporting: Campaign.Reporting? = nil,
            player: String? = nil,
            userAgent: String? = nil
        ) throws -> Insertion {
            try SessionController.insertion(campaign, asked: asked, reporting: reporting, userAgent: userAgent, player: player)
        }
        #expect(try mode(auto, asked: nil, player: hlsJs) == .interstitials)
        #expect(try mode(auto, asked: .auto, player: "hls.js") == .interstitials)
        #expect(try mode(auto, asked: nil) == .stitched, "a player not known to play interstitials")
        #expect(try mode(auto, asked: nil, player: "hls.js/1.5.20") == .stitched)
        // AVPlayer plays VOD interstitials, but whether it resolves QUERYPARAM is not known here.
        let avPlayer = "AppleCoreMedia/1.0.0.21A329 (iPhone; U; CPU OS 17_0 like Mac OS X; en_us)"
        let vod = try CampaignLoader.load(
            yaml: "version: 1\nid: vod\ninsertion: auto\nprogram: { islands: [ { id: a, playlist: a/master.m3u8 } ] }\n",
            file: URL(fileURLWithPath: "/campaigns/vod/campaign.yaml"),
            source: .memory(
                ["a/master.m3u8": Self.master, "a/v0.m3u8": Self.vod],
                root: URL(fileURLWithPath: "/campaigns/vod")
            )
        )
        #expect(try mode(vod, asked: nil, userAgent: avPlayer) == .interstitials)
        #expect(try mode(auto, asked: nil, userAgent: avPlayer) == .stitched)
        #expect(try mode(auto, asked: .interstitials, userAgent: avPlayer) == .interstitials, "asked for: as asked")
        #expect(try mode(auto, asked: nil, reporting: .server, player: hlsJs) == .stitched, "server-side reporting: stitched")
        #expect(try mode(stitched, asked: .interstitials) == .interstitials)
        #expect(try mode(server, asked: nil, player: hlsJs) == .stitched)
        #expect(try mode(server, asked: .interstitials, reporting: .client) == .interstitials)
        #expect(throws: Problem.self) { try mode(server, asked: .interstitials) }
        #expect(throws: Problem.self) { try mode(auto, asked: .interstitials, reporting: .server) }
        // The load refuses what no session could be: interstitials reporting server-side.
        #expect(throws: CampaignError.self) { try Self.live("insertion: interstitials") }
        #expect(throws: CampaignError.self) { try Self.live("insertion: auto\nreporting: server") }
    }
}
