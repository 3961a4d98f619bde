import AdCampaign
import Foundation
import HLSPlaylist
import Testing

/// A programme that marks 10,000 breaks in 20,000 segments loads (docs/reliability.md: it took minutes, and
/// the server never came up). Not a timed test — the benchmarks measure — but one that a
/// quadratic step in marker reading or cutting would make take minutes again.
@Suite("A programme with 10,000 markers")
struct ManyMarkersTests {
    static let root = URL(fileURLWithPath: "/campaigns/many-markers")

    /// `breaks` replacements, one before every odd segment of `2 × breaks` segments of 2 s: as
    /// `EXT-X-CUE-OUT:4` … `EXT-X-CUE-IN`, or as `EXT-X-DATERANGE` `SCTE35-OUT`/`-IN` pairs
    /// placed by their dates.
    static func programme(breaks: Int, dateRanges: Bool) -> String {
        let out = SpliceSection.hex(SpliceSection.insert(eventID: 1, outOfNetwork: true, breakDuration: SpliceSection.ticks(4)))
        let back = SpliceSection.hex(SpliceSection.insert(eventID: 1, outOfNetwork: false))
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-PROGRAM-DATE-TIME:2026-11-24T00:00:00.000Z\n"
        text.reserveCapacity(breaks * (dateRanges ? 400 : 80))
        for index in 0..<(2 * breaks) {
            guard index % 2 == 1 else {
                text += "#EXTINF:2.000,\ns\(index).ts\n"
                continue
            }
            if dateRanges {
                let (start, end) = (Self.date(2 * index), Self.date(2 * index + 2))
                text += "#EXT-X-DATERANGE:ID=\"b\(index)\",START-DATE=\"\(start)\",PLANNED-DURATION=4,SCTE35-OUT=\(out)\n"
                text += "#EXTINF:2.000,\ns\(index).ts\n"
                text += "#EXT-X-DATERANGE:ID=\"b\(index)\",START-DATE=\"\(start)\",END-DATE=\"\(end)\",SCTE35-IN=\(back)\n"
            } else {
                text += "#EXT-X-CUE-OUT:4\n#EXTINF:2.000,\ns\(index).ts\n#EXT-X-CUE-IN\n"
            }
        }
        return text + "#EXT-X-ENDLIST\n"
    }

    /// The date-time `seconds` after the programme's first (under a day).
    static func date(_ seconds: Int) -> String {
        "2026-11-24T" + String(format: "%02d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60) + ".000Z"
    }

    @Test("10,000 marked breaks in 20,000 segments: every break, every island between them", arguments: [false, true])
    func tenThousandMarkers(dateRanges: Bool) async throws {
        let master = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS=\"avc1.42c01e,mp4a.40.2\",RESOLUTION=640x360\nv0.m3u8\n"
        let ad = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:2.000,\nad0.ts\n#EXT-X-ENDLIST\n"
        let playlists = [
            "p/master.m3u8": master, "p/v0.m3u8": Self.programme(breaks: 10_000, dateRanges: dateRanges),
            "a/master.m3u8": master, "a/v0.m3u8": ad,
        ]
        let yaml = """
            version: 1
            id: many-markers
            pools: { prime: [ { id: alpha, playlist: a/master.m3u8 } ] }
            program: { playlist: p/master.m3u8, breaks: markers }
            marker_breaks: { pools: [prime] }
            """
        // Seconds of loading in a debug build: on a thread of its own, not one of Swift's
        // cooperative threads (two here), which every other test's waits run on.
        let file = Self.root.appendingPathComponent("campaign.yaml")
        let loaded = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Campaign, CampaignError>, Never>) in
            Thread.detachNewThread {
                continuation.resume(
                    returning: Result { () throws(CampaignError) in
                        try CampaignLoader.load(yaml: yaml, file: file, source: .memory(playlists, root: Self.root))
                    }
                )
            }
        }
        let campaign = try loaded.get()
        #expect(campaign.warnings.filter { $0.field == "marker" }.isEmpty)
        #expect(campaign.breaks.count == 10_000)
        #expect(campaign.islands.count == 10_000, "each kept segment is an island; the last break follows the last")
        #expect(campaign.islands.last?.asset.variants[0].playlist.segments.map(\.uri) == ["s19998.ts"])
        let last = try #require(campaign.breaks.last)
        #expect(last.placement?.cut == 39_998 && last.placement?.replaced == 2 && last.duration == 4)
    }
}
