import Foundation

/// A single programme asset that marks many breaks (issue 26), held in memory: `2 × breaks`
/// segments of 2 s in two variants, a replacement break before every odd segment — as
/// `EXT-X-CUE-OUT:4` … `EXT-X-CUE-IN`, or as `EXT-X-DATERANGE` `SCTE35-OUT`/`-IN` pairs (a
/// `splice_insert` out with a 4 s `break_duration`, and back in) placed by their dates — and one
/// 2 s ad. `LoadingBenchmarks` loads it with `PlaylistSource.memory(_:root:)`.
public enum MarkedProgramme {
    public static let root = URL(fileURLWithPath: "/campaigns/marked-programme")

    public static let campaign = """
        version: 1
        id: marked-programme
        pools: { prime: [ { id: alpha, playlist: a/master.m3u8 } ] }
        program: { playlist: p/master.m3u8, breaks: markers }
        marker_breaks: { pools: [prime] }
        """

    /// SCTE-35 sections (SCTE 35 §9.7.3; the CRC_32 is checked by the loader): splice_insert of
    /// event 42 out of the network with a 4 s break_duration, and back in.
    static let out = "0xFC302500000000000000FFF014050000002A7FEFFE001B7740FE00057E40000100000000066F8151"
    static let back = "0xFC302000000000000000FFF00F050000002A7F4FFE001B7740000100000000B8C67A81"

    /// The playlists by path under ``root``.
    public static func playlists(breaks: Int, dateRanges: Bool) -> [String: String] {
        let master =
            "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS=\"avc1.42c01e,mp4a.40.2\",RESOLUTION=640x360\nv0.m3u8\n"
            + "#EXT-X-STREAM-INF:BANDWIDTH=400000,CODECS=\"avc1.42c01e,mp4a.40.2\",RESOLUTION=320x180\nv1.m3u8\n"
        let ad = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:2.000,\nad0.ts\n#EXT-X-ENDLIST\n"
        let programme = Self.programme(breaks: breaks, dateRanges: dateRanges)
        return [
            "p/master.m3u8": master, "p/v0.m3u8": programme, "p/v1.m3u8": programme,
            "a/master.m3u8": master, "a/v0.m3u8": ad, "a/v1.m3u8": ad,
        ]
    }

    static func programme(breaks: Int, dateRanges: Bool) -> String {
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-PROGRAM-DATE-TIME:2026-11-24T00:00:00.000Z\n"
        for index in 0..<(2 * breaks) {
            guard index % 2 == 1 else {
                text += "#EXTINF:2.000,\ns\(index).ts\n"
                continue
            }
            if dateRanges {
                let (start, end) = (Self.date(2 * index), Self.date(2 * index + 2))
                text += "#EXT-X-DATERANGE:ID=\"b\(index)\",START-DATE=\"\(start)\",PLANNED-DURATION=4,SCTE35-OUT=\(Self.out)\n"
                text += "#EXTINF:2.000,\ns\(index).ts\n"
                text += "#EXT-X-DATERANGE:ID=\"b\(index)\",START-DATE=\"\(start)\",END-DATE=\"\(end)\",SCTE35-IN=\(Self.back)\n"
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
}
