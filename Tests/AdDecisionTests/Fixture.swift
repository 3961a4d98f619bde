import AdCampaign
import AdDecision
import Foundation
import HLSPlaylist
import Testing

/// The decision tests' campaigns, over assets held in memory (``Media``): the planner needs
/// their variants and durations, not media files.
enum Fixture {
    /// Where the campaigns "live": playlist paths resolve against it, in memory only.
    static let directory = URL(fileURLWithPath: "/adstitch-decision-fixtures", isDirectory: true)

    static func url(_ path: String) -> URL { Self.directory.appendingPathComponent(path) }

    static let source = PlaylistSource.memory(Media.playlists, root: Self.directory)

    /// `decision.yaml`: the demo campaign's shape over the fixture assets.
    static func decisionCampaign() throws -> Campaign {
        try Self.decisionCampaign(in: Self.directory)
    }

    /// The same campaign as if kept in another folder (every replica computes the same revision).
    static func decisionCampaign(in folder: URL) throws -> Campaign {
        let yaml = try String(contentsOf: Bundle.module.url(forResource: "Fixtures/decision", withExtension: "yaml")!, encoding: .utf8)
        return try CampaignLoader.load(
            yaml: yaml,
            file: folder.appendingPathComponent("decision.yaml"),
            source: .memory(Media.playlists, root: folder)
        )
    }

    /// A campaign from YAML, its playlist paths resolved against ``directory``.
    static func campaign(_ yaml: String) throws -> Campaign {
        try CampaignLoader.load(yaml: yaml, file: Self.url("inline.yaml"), source: Self.source)
    }

    /// The condition of a one-rule campaign whose rule says `when: <when>`.
    static func condition(_ when: String) throws -> Condition {
        let yaml = """
            version: 1
            id: conditions
            program:
              islands:
                - { id: act-1, playlist: media/program/act-1/master.m3u8 }
            breaks:
              - { id: mid, after: act-1, duration: 10, pools: [prime] }
            pools:
              prime:
                - { id: alpha, playlist: media/ads/alpha/master.m3u8 }
            rules:
              - name: under-test
                when: \(when)
                then: { boost: { alpha: 2 } }
            """
        return try self.campaign(yaml).rules[0].condition
    }
}

/// An ISO 8601 date-time as a `Date`.
func date(_ text: String) -> Date {
    guard let dateTime = DateTime(text) else { preconditionFailure("\(text) is not an ISO 8601 date-time") }
    return Date(timeIntervalSince1970: dateTime.secondsSinceEpoch.doubleValue)
}

/// A viewer: by default session s-1 on a Wednesday at noon UTC, when no time rule of the fixtures holds.
func viewer(_ attributes: [String: String] = [:], session: String = "s-1", at: String = "2026-11-25T12:00:00Z") -> ViewerContext {
    ViewerContext(session: session, at: date(at), attributes: attributes)
}

/// `text` as an `ExactDecimal`.
func decimal(_ text: String) -> ExactDecimal {
    guard let value = ExactDecimal(text) else { preconditionFailure("\(text) is not a decimal") }
    return value
}

extension Plan {
    /// The pieces as `id@start`, to compare plans as a whole.
    var signature: [String] { self.pieces.map { "\($0.id)@\($0.start)" } }

    func planned(_ breakID: String) -> PlannedBreak? { self.breaks.first { $0.adBreak.id == breakID } }
}

extension PlannedBreak {
    func candidate(_ adID: String) -> Candidate? { self.candidates.first { $0.ad.id == adID } }
}

/// The fixture assets: small TS assets cut in 1.92 s segments (two variants each) and a ladder of
/// eight variants, by path under `media/`. Written byte for byte as the files they replace, so
/// the campaigns' revisions — which seed every draw — are what the tests were written against.
enum Media {
    static let assets: [(path: String, segments: Int, variants: [(name: String, streamInf: String)])] = [
        (
            "ads/alpha", segments: 3,
            variants: [
                ("180p", #"BANDWIDTH=296000,AVERAGE-BANDWIDTH=292000,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=320x180,FRAME-RATE=25.000"#),
                ("360p", #"BANDWIDTH=655000,AVERAGE-BANDWIDTH=646000,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=640x360,FRAME-RATE=25.000"#),
            ]
        ),
        (
            "ads/bravo", segments: 2,
            variants: [
                ("180p", #"BANDWIDTH=288000,AVERAGE-BANDWIDTH=284000,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=320x180,FRAME-RATE=25.000"#),
                ("360p", #"BANDWIDTH=641000,AVERAGE-BANDWIDTH=632000,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=640x360,FRAME-RATE=25.000"#),
            ]
        ),
        (
            "ads/charlie", segments: 1,
            variants: [
                ("180p", #"BANDWIDTH=281000,AVERAGE-BANDWIDTH=277000,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=320x180,FRAME-RATE=25.000"#),
                ("360p", #"BANDWIDTH=612000,AVERAGE-BANDWIDTH=603000,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=640x360,FRAME-RATE=25.000"#),
            ]
        ),
        (
            "ads/delta", segments: 1,
            variants: [
                ("180p", #"BANDWIDTH=283000,AVERAGE-BANDWIDTH=279000,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=320x180,FRAME-RATE=25.000"#),
                ("360p", #"BANDWIDTH=618000,AVERAGE-BANDWIDTH=609000,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=640x360,FRAME-RATE=25.000"#),
            ]
        ),
        (
            "ads/echo", segments: 1,
            variants: [
                ("180p", #"BANDWIDTH=284000,AVERAGE-BANDWIDTH=280000,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=320x180,FRAME-RATE=25.000"#),
                ("360p", #"BANDWIDTH=619000,AVERAGE-BANDWIDTH=610000,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=640x360,FRAME-RATE=25.000"#),
            ]
        ),
        (
            "ads/long", segments: 4,
            variants: [
                ("180p", #"BANDWIDTH=299000,AVERAGE-BANDWIDTH=295000,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=320x180,FRAME-RATE=25.000"#),
                ("360p", #"BANDWIDTH=660000,AVERAGE-BANDWIDTH=651000,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=640x360,FRAME-RATE=25.000"#),
            ]
        ),
        (
            "ladder", segments: 2,
            variants: [
                ("1080p-avc", #"BANDWIDTH=5000000,AVERAGE-BANDWIDTH=4500000,CODECS="avc1.640028,mp4a.40.2",RESOLUTION=1920x1080,FRAME-RATE=25.000"#),
                ("180p-avc", #"BANDWIDTH=300000,AVERAGE-BANDWIDTH=270000,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=320x180,FRAME-RATE=25.000"#),
                ("360p-avc", #"BANDWIDTH=800000,AVERAGE-BANDWIDTH=720000,CODECS="avc1.4d401e,mp4a.40.2",RESOLUTION=640x360,FRAME-RATE=25.000"#),
                ("720p-avc", #"BANDWIDTH=2000000,AVERAGE-BANDWIDTH=1800000,CODECS="avc1.4d401f,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=25.000"#),
                (
                    "720p-hevc-pq",
                    #"BANDWIDTH=1600000,AVERAGE-BANDWIDTH=1440000,CODECS="hvc1.2.4.L93.B0,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=25.000,VIDEO-RANGE=PQ"#
                ),
                (
                    "1080p-hevc-pq",
                    #"BANDWIDTH=3500000,AVERAGE-BANDWIDTH=3150000,CODECS="hvc1.2.4.L123.B0,mp4a.40.2",RESOLUTION=1920x1080,FRAME-RATE=25.000,VIDEO-RANGE=PQ"#
                ),
                (
                    "1080p-dolby-vision",
                    #"BANDWIDTH=3400000,AVERAGE-BANDWIDTH=3060000,CODECS="dvh1.05.06,mp4a.40.2",RESOLUTION=1920x1080,FRAME-RATE=25.000,VIDEO-RANGE=PQ"#
                ),
                (
                    "720p-hevc",
                    #"BANDWIDTH=1500000,AVERAGE-BANDWIDTH=1350000,CODECS="hvc1.1.6.L93.B0,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=25.000,VIDEO-RANGE=SDR"#
                ),
            ]
        ),
        (
            "program/act-1", segments: 4,
            variants: [
                ("180p", #"BANDWIDTH=310000,AVERAGE-BANDWIDTH=306000,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=320x180,FRAME-RATE=25.000"#),
                ("360p", #"BANDWIDTH=690000,AVERAGE-BANDWIDTH=681000,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=640x360,FRAME-RATE=25.000"#),
            ]
        ),
        (
            "program/act-2", segments: 3,
            variants: [
                ("180p", #"BANDWIDTH=305000,AVERAGE-BANDWIDTH=301000,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=320x180,FRAME-RATE=25.000"#),
                ("360p", #"BANDWIDTH=702000,AVERAGE-BANDWIDTH=693000,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=640x360,FRAME-RATE=25.000"#),
            ]
        ),
        (
            "slate", segments: 1,
            variants: [
                ("180p", #"BANDWIDTH=177034,AVERAGE-BANDWIDTH=173034,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=320x180,FRAME-RATE=25.000"#),
                ("360p", #"BANDWIDTH=241267,AVERAGE-BANDWIDTH=232267,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=640x360,FRAME-RATE=25.000"#),
            ]
        ),
    ]

    /// Every multivariant and media playlist, by path relative to the campaigns' folder.
    static let playlists: [String: String] = {
        var playlists: [String: String] = [:]
        for asset in Self.assets {
            var master = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-INDEPENDENT-SEGMENTS\n"
            for variant in asset.variants {
                master += "#EXT-X-STREAM-INF:\(variant.streamInf)\n\(variant.name)/index.m3u8\n"
                // HEVC (and Dolby Vision) in fMP4, as HLS requires; AVC in MPEG-TS.
                let fragmented = variant.name.contains("hevc") || variant.name.contains("dolby")
                var media =
                    "#EXTM3U\n#EXT-X-VERSION:\(fragmented ? 7 : 3)\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-PLAYLIST-TYPE:VOD\n"
                if fragmented { media += "#EXT-X-MAP:URI=\"init.mp4\"\n" }
                for segment in 0..<asset.segments {
                    media += "#EXTINF:1.920000,\n" + String(format: fragmented ? "seg_%03d.m4s\n" : "seg_%03d.ts\n", segment)
                }
                playlists["media/\(asset.path)/\(variant.name)/index.m3u8"] = media + "#EXT-X-ENDLIST\n"
            }
            playlists["media/\(asset.path)/master.m3u8"] = master
        }
        return playlists
    }()
}
