import AdCampaign
import AdDecision
import AdStitching
import Foundation
import Testing

/// Bytes a playlist may not hold. The campaign fuzzer found a segment URI `seg\0:1.ts` trapping
/// the renderer once blocks could carry slots for a viewer's values (a NUL is their marker):
/// such a playlist is now refused at load (RFC 8216bis §4.1), and only blocks the rewriter wrote
/// are read for markers.
@Suite("Control characters in playlists")
struct ControlCharacterTests {
    static let root = URL(fileURLWithPath: "/campaigns/odd")

    static func load(segment: String, rewrite: String = "") throws(CampaignError) -> Campaign {
        let yaml = """
            version: 1
            id: odd
            program: { islands: [ { id: act-1, playlist: p/master.m3u8 } ] }
            breaks: [ { id: pre, before: act-1, duration: 4, pools: [prime] } ]
            pools: { prime: [ { id: alpha, playlist: a/master.m3u8 } ] }
            \(rewrite)
            """
        let master = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS=\"avc1.42c01e,mp4a.40.2\",RESOLUTION=640x360\nv.m3u8\n"
        let media = { (uris: [String]) in
            "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n"
                + uris.map { "#EXTINF:4.000,\n\($0)\n" }.joined() + "#EXT-X-ENDLIST\n"
        }
        let playlists = ["p/master.m3u8": master, "p/v.m3u8": media(["seg0.ts", segment]), "a/master.m3u8": master, "a/v.m3u8": media(["ad0.ts"])]
        return try CampaignLoader.load(
            yaml: yaml,
            file: Self.root.appendingPathComponent("campaign.yaml"),
            source: .memory(playlists, root: Self.root)
        )
    }

    @Test(
        "a NUL (or any C0 control character but a tab) in a playlist is a load error at its file and line",
        arguments: ["\u{0}", "\u{1}", "\u{1F}", "\u{7F}"]
    )
    func refused(_ character: String) throws {
        let error = #expect(throws: CampaignError.self) { try Self.load(segment: "seg\(character):1.ts") }
        let issue = try #require(error?.issues.first)
        #expect(issue.file == "/campaigns/odd/p/v.m3u8" && issue.line == 8 && issue.field == "control-character", "\(String(describing: error))")
        #expect(issue.message.contains("RFC 8216bis §4.1"))
    }

    @Test("with a per-session rule, every URI gets its token and no marker byte is left in the playlist")
    func rewritten() throws {
        let campaign = try Self.load(
            segment: "seg 1.ts",
            rewrite: "rewrite: [ { name: t, match: '^(p/.*)$', replace: 'https://cdn.test/$1?t={session}' } ]"
        )
        let layout = try StitchLayout(campaign: campaign, uris: .relative(to: Self.root))
        let plan = Planner().plan(campaign, for: ViewerContext(session: "s 1", at: Date(timeIntervalSince1970: 1_795_800_000)))
        let bytes = try SessionRenderer(layout: layout).mediaPlaylistBytes(plan, rendition: layout.renditions[0])
        #expect(bytes.bytes.count == bytes.count, "the length announced is the length written")
        let text = bytes.text
        #expect(!text.utf8.contains(0), "\(text.debugDescription)")
        #expect(text.contains("\nhttps://cdn.test/p/seg0.ts?t=s%201\n") && text.contains("\nhttps://cdn.test/p/seg%201.ts?t=s%201\n"), "\(text)")
        #expect(text.contains("\na/ad0.ts\n"), "the ad, not matched, as it is")
    }
}
