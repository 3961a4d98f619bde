import Foundation
import HLSPlaylist
import Testing

/// The programme's `EXT-X-START` is kept in the stitched master, its TIME-OFFSET moved onto the
/// session's timeline (RFC 8216bis §4.4.2.2) — through `adstitch stitch`, on campaigns made for
/// each shape: islands with a pre-roll and a mid-roll, offsets from the start and from the end,
/// before the start and at an island's start (the break standing there plays), one programme
/// asset with a replaced stretch (a start inside it starts at its break).
@Suite("Fidelity: EXT-X-START of stitched sessions")
struct StartOffsetFidelityTests {
    static func media(_ count: Int, markers: [Int: String] = [:]) -> String {
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        for index in 0..<count {
            if let marker = markers[index] { text += marker + "\n" }
            text += "#EXTINF:4.000,\ns\(index).ts\n"
        }
        return text + "#EXT-X-ENDLIST\n"
    }

    static func master(start: String?) -> String {
        "#EXTM3U\n#EXT-X-VERSION:3\n" + (start.map { "#EXT-X-START:\($0)\n" } ?? "")
            + "#EXT-X-STREAM-INF:BANDWIDTH=400000,CODECS=\"avc1.42c01e,mp4a.40.2\",RESOLUTION=640x360\nv.m3u8\n"
    }

    /// `files` stitched by `adstitch stitch`: the stitched master's EXT-X-START.
    static func stitchedStart(_ files: [String: String]) async throws -> Start? {
        try await CLITests.stitchedMaster(files).start
    }

    /// Islands act-1 and act-2 (16 s each), a 4 s pre-roll and a 4 s mid-roll between them.
    static func islands(start: String?) -> [String: String] {
        [
            "a1/master.m3u8": Self.master(start: start), "a1/v.m3u8": Self.media(4),
            "a2/master.m3u8": Self.master(start: nil), "a2/v.m3u8": Self.media(4),
            "ad/master.m3u8": Self.master(start: nil), "ad/v.m3u8": Self.media(1),
            "campaign.yaml": """
            version: 1
            id: start
            program: { islands: [ { id: act-1, playlist: a1/master.m3u8 }, { id: act-2, playlist: a2/master.m3u8 } ] }
            breaks:
              - { id: pre, before: act-1, duration: 4, pools: [prime] }
              - { id: mid, after: act-1, duration: 4, pools: [prime] }
            pools: { prime: [ { id: alpha, playlist: ad/master.m3u8 } ] }
            """,
        ]
    }

    @Test("islands: a programme offset moves by the ads before it; a negative one counts from the programme's end; PRECISE kept")
    func islandsMoveTheOffset() async throws {
        let forward = try #require(try await Self.stitchedStart(Self.islands(start: "TIME-OFFSET=20,PRECISE=YES")))
        #expect(forward.timeOffset == 28 && forward.isPrecise, "programme 20 s = act-2 + 4 s, after 4 + 16 + 4 s")
        let backward = try #require(try await Self.stitchedStart(Self.islands(start: "TIME-OFFSET=-4")))
        #expect(backward.timeOffset == 36 && !backward.isPrecise, "programme 28 s of 32 = act-2 + 12 s")
        let beyond = try #require(try await Self.stitchedStart(Self.islands(start: "TIME-OFFSET=-100")))
        #expect(beyond.timeOffset == 0, "before the programme's start: the session's start, the pre-roll with it")
        let atBoundary = try #require(try await Self.stitchedStart(Self.islands(start: "TIME-OFFSET=16")))
        #expect(atBoundary.timeOffset == 20, "act-2's start: the mid-roll before it, not after")
        #expect(try await Self.stitchedStart(Self.islands(start: nil)) == nil)
    }

    @Test("one programme asset: an offset after a replaced stretch moves by the ads less the stretch; one inside it starts at its break")
    func replacedStretch() async throws {
        func files(_ start: String) -> [String: String] {
            [
                "p/master.m3u8": Self.master(start: start),
                "p/v.m3u8": Self.media(8, markers: [2: "#EXT-X-CUE-OUT:8", 4: "#EXT-X-CUE-IN"]),
                "ad/master.m3u8": Self.master(start: nil), "ad/v.m3u8": Self.media(1),
                "campaign.yaml": """
                version: 1
                id: start
                program: { playlist: p/master.m3u8, breaks: markers }
                marker_breaks: { duration: 8, pools: [prime] }
                pools: { prime: [ { id: alpha, playlist: ad/master.m3u8 } ] }
                """,
            ]
        }
        let after = try #require(try await Self.stitchedStart(files("TIME-OFFSET=20")))
        #expect(after.timeOffset == 16, "programme 20 s: part-2 (from 16 s) + 4 s, part-2 starting at 8 + 4 s of ad")
        let inside = try #require(try await Self.stitchedStart(files("TIME-OFFSET=10")))
        #expect(inside.timeOffset == 8, "programme 10 s was replaced: the break's start")
    }
}
