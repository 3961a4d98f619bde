import Foundation
import HLSPlaylist
import Testing

@testable import AdCampaign

/// Cutting one programme asset (docs/campaign-format.md "One programme asset"): every playlist is cut at its own segment boundary
/// nearest the video cut, the skew reported; slices keep their segments' media sequence numbers.
@Suite("Asset slices")
struct AssetSliceTests {
    static func media(_ durations: [String], url: String, key: Bool = false) throws -> MediaPlaylist {
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:4\n#EXT-X-MEDIA-SEQUENCE:100\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        if key { text += "#EXT-X-KEY:METHOD=AES-128,URI=\"k.key\"\n" }
        for (index, duration) in durations.enumerated() { text += "#EXTINF:\(duration),\ns\(index).ts\n" }
        return try PlaylistParser().parseMediaPlaylist(text + "#EXT-X-ENDLIST\n", url: URL(string: "https://o.test/\(url)"))
    }

    static func asset() throws -> Asset {
        let master = try PlaylistParser().parseMultivariantPlaylist(
            "#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"en\",URI=\"audio.m3u8\"\n"
                + "#EXT-X-STREAM-INF:BANDWIDTH=1000,AUDIO=\"a\"\nvideo.m3u8\n",
            url: URL(string: "https://o.test/master.m3u8")
        )
        // Video: ten 4 s segments. Audio: 3 s segments (boundaries 0, 3, 6 … 39, 40).
        let video = try Self.media(Array(repeating: "4.000", count: 10), url: "video.m3u8", key: true)
        let audio = try Self.media(Array(repeating: "3.000", count: 13) + ["1.000"], url: "audio.m3u8")
        return Asset(
            url: URL(string: "https://o.test/master.m3u8")!,
            multivariant: master,
            variants: [.init(streamInf: master.variants[0].streamInf, url: URL(string: "https://o.test/video.m3u8")!, playlist: video)],
            iFrameVariants: [],
            renditions: [.init(media: master.renditions[0].value, url: URL(string: "https://o.test/audio.m3u8")!, playlist: audio)]
        )
    }

    @Test("audio is cut at its boundary nearest the video cut, and the skew is reported")
    func skew() throws {
        let asset = try Self.asset()
        var skews: [(playlist: String, cut: ExactDecimal, skew: ExactDecimal)] = []
        let slice = asset.slice(from: 8, to: 20, skews: &skews)
        #expect(slice.duration == 12)
        // Nearest to 8: 9 (1 s after; 6 is 2 s before). Nearest to 20: 21 (1 s after; 18 is 2 s before).
        let audio = try #require(slice.renditions.first?.playlist)
        #expect(audio.segments.first?.startTime == 9 && audio.duration == 12)
        #expect(skews.map(\.playlist) == ["https://o.test/audio.m3u8", "https://o.test/audio.m3u8"])
        #expect(skews.map(\.cut) == [8, 20] && skews.map(\.skew) == [1, 1])
        // Slices keep their segments' numbers, and so their implicit IVs, and the key in force.
        let video = try #require(slice.variants.first?.playlist)
        #expect(video.segments.map(\.mediaSequenceNumber) == [102, 103, 104])
        #expect(video.segments.allSatisfy { $0.keys.first?.uri == "k.key" })
    }

    @Test("a cut snaps to the video boundary at or before a time")
    func boundary() throws {
        let asset = try Self.asset()
        #expect(asset.boundary(atOrBefore: ExactDecimal(significand: 95, exponent: 1)) == (2, 8))
        #expect(asset.boundary(atOrBefore: 8) == (2, 8))
        #expect(asset.boundary(atOrBefore: 0) == (0, 0))
        #expect(asset.boundary(atOrBefore: 40) == (10, 40))
    }
}
