import Foundation

/// The benchmark campaign (YAML and playlists; no media): a two-hour programme in three
/// 40-minute islands with a pre-roll and two mid-rolls, six variants, 6 s segments (1,200 per
/// variant), five ads and a slate. `StitchingBenchmarks` loads it; `make bench-http` serves it.
public enum TwoHourCampaign {
    static let ladder = [
        (416, 234, 145_000), (640, 360, 365_000), (768, 432, 730_000), (960, 540, 2_000_000), (1280, 720, 3_000_000), (1920, 1080, 6_000_000),
    ]

    /// A new folder for a copy of the campaign, under one folder per benchmark process that is
    /// removed when the process exits (each `make bench` left ~1 MB per campaign in /tmp before).
    public static func temporaryFolder() -> URL {
        Self.processFolder.appendingPathComponent(String(UUID().uuidString.prefix(8)))
    }

    private static let processFolder: URL = {
        atexit { try? FileManager.default.removeItem(at: TwoHourCampaign.processFolder) }
        return FileManager.default.temporaryDirectory.appendingPathComponent("adstitch-bench-\(getpid())")
    }()

    /// `rewrite:` rules for the campaign: a CDN host chosen by market, a per-session token on
    /// every segment URI (the issue 11 benchmark).
    public static let cdnByMarket = """
        rewrite:
          - name: cdn-eu
            when: { attributes: { market: '^eu$' } }
            match: '^file://.*?/(program|ads|slate)/(.*)$'
            replace: 'https://eu.cdn.example/$1/$2?st={session}'
          - name: cdn-us
            when: { attributes: { market: '^us$' } }
            match: '^file://.*?/(program|ads|slate)/(.*)$'
            replace: 'https://us.cdn.example/$1/$2?st={session}'
        """

    /// Writes the campaign into `root` (created as needed), with `extra` YAML at its end, and
    /// returns its `campaign.yaml`.
    @discardableResult
    public static func write(into root: URL, extra: String = "") -> URL {
        for island in 1...3 { self.asset(root, "program/act-\(island)", segments: 400, length: "6.000000", scale: 1.0) }
        for (index, ad) in ["alpha", "bravo", "charlie", "delta", "echo"].enumerated() {
            self.asset(root, "ads/\(ad)", segments: index % 2 == 0 ? 5 : 3, length: "5.000000", scale: 0.9)
        }
        self.asset(root, "slate", segments: 1, length: "2.000000", scale: 0.8)
        let yaml = """
            version: 1
            id: two-hours
            program:
              islands:
                - { id: act-1, playlist: program/act-1/master.m3u8 }
                - { id: act-2, playlist: program/act-2/master.m3u8 }
                - { id: act-3, playlist: program/act-3/master.m3u8 }
            breaks:
              - { id: preroll, before: act-1, duration: 30, pools: [all] }
              - { id: mid-1, after: act-1, duration: 60, pools: [all] }
              - { id: mid-2, after: act-2, duration: 60, pools: [all] }
            \(Self.adsAndSlate)
            rules:
              - { name: uk, when: { attributes: { locale: '^en-GB$' } }, then: { boost: { bravo: 2 } } }
            startup:
              - pick: { max_bandwidth: 2000000 }
            markers: [daterange]
            """
        try! Data((yaml + "\n" + extra).utf8).write(to: root.appendingPathComponent("campaign.yaml"))
        return root.appendingPathComponent("campaign.yaml")
    }

    private static func asset(_ root: URL, _ path: String, segments: Int, length: String, scale: Double) {
        let directory = root.appendingPathComponent(path)
        var master = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-INDEPENDENT-SEGMENTS\n"
        for (index, (width, height, bandwidth)) in self.ladder.enumerated() {
            let variant = directory.appendingPathComponent("v\(index)")
            try! FileManager.default.createDirectory(at: variant, withIntermediateDirectories: true)
            var playlist = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:6\n#EXT-X-PLAYLIST-TYPE:VOD\n"
            for segment in 0..<segments {
                playlist += "#EXTINF:\(length),\nsegment_\(segment).ts\n"
                // An empty stand-in: `adstitch serve` refuses a campaign whose playlists name missing files.
                _ = FileManager.default.createFile(atPath: variant.appendingPathComponent("segment_\(segment).ts").path, contents: Data())
            }
            playlist += "#EXT-X-ENDLIST\n"
            try! Data(playlist.utf8).write(to: variant.appendingPathComponent("index.m3u8"))
            master +=
                "#EXT-X-STREAM-INF:BANDWIDTH=\(Int(Double(bandwidth) * scale)),CODECS=\"avc1.640028,mp4a.40.2\",RESOLUTION=\(width)x\(height)\nv\(index)/index.m3u8\n"
        }
        try! Data(master.utf8).write(to: directory.appendingPathComponent("master.m3u8"))
    }

    /// The slate and the pool of five ads both campaigns fill their breaks from (flow style, one line).
    static let adsAndSlate =
        "slate: { playlist: slate/master.m3u8 }\npools: { all: [ "
        + "{ id: alpha, playlist: ads/alpha/master.m3u8, weight: 2 }, { id: bravo, playlist: ads/bravo/master.m3u8 }, "
        + "{ id: charlie, playlist: ads/charlie/master.m3u8 }, { id: delta, playlist: ads/delta/master.m3u8 }, "
        + "{ id: echo, playlist: ads/echo/master.m3u8 } ] }"

    /// A live campaign over the same ads and slate (issue 14): a channel of the same six
    /// variants on `https://origin.bench/` (served by ``liveWindow(variant:last:)`` through a
    /// remote fetch), a 60 s break every 20 six-second segments.
    public static let liveYAML = """
        version: 1
        id: live
        program: { live: "https://origin.bench/master.m3u8" }
        marker_breaks: { duration: 60, pools: [all] }
        \(Self.adsAndSlate)
        markers: [daterange]
        """

    /// The live channel's multivariant playlist.
    public static var liveMaster: String {
        var master = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-INDEPENDENT-SEGMENTS\n"
        for (index, (width, height, bandwidth)) in self.ladder.enumerated() {
            master +=
                "#EXT-X-STREAM-INF:BANDWIDTH=\(bandwidth),CODECS=\"avc1.640028,mp4a.40.2\",RESOLUTION=\(width)x\(height)\nv\(index)/index.m3u8\n"
        }
        return master
    }

    /// Variant `variant`'s window of ten 6 s segments ending at segment `last`, dated from
    /// 2026-11-24T06:00:00Z; a break (CUE-OUT, 60 s) every 20 segments from segment 5.
    public static func liveWindow(variant: Int, last: Int) -> String {
        let first = max(0, last - 9)
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:6\n#EXT-X-MEDIA-SEQUENCE:\(first)\n"
        for sequence in first...last {
            if sequence >= 5, (sequence - 5) % 20 == 0 { text += "#EXT-X-CUE-OUT:DURATION=60\n" }
            if sequence >= 15, (sequence - 15) % 20 == 0 { text += "#EXT-X-CUE-IN\n" }
            let seconds = 1_795_932_000 + 6 * sequence
            text += "#EXT-X-PROGRAM-DATE-TIME:\(Self.iso(seconds))\n#EXTINF:6.000,\nhttps://origin.bench/v\(variant)/s\(sequence).ts\n"
        }
        return text
    }

    private static func iso(_ seconds: Int) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
