import AdCampaign
import Foundation
import HLSPlaylist
import Testing

/// Catalogue campaigns (docs/campaign-format.md "Catalogues"): the template without a title, each
/// title as a programme asset cut at its markers or by the schedule, and what is refused — one
/// test per shape of title and of bad input.
@Suite("Catalogues")
struct CatalogueLoadingTests {
    static let root = URL(fileURLWithPath: "/campaigns/library")
    static let prefix = "https://origin.test/vod/"
    static let master = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS=\"avc1.42c01e,mp4a.40.2\",RESOLUTION=640x360\nv0.m3u8\n"
    static let ad = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:4.000,\nad0.ts\n#EXT-X-ENDLIST\n"

    static func campaign(
        schedule: String = "{ preroll: 4, every: 60, mid_duration: 8, postroll: 4, min_tail: 30, pools: [prime] }"
    )
        -> String
    {
        """
        version: 1
        id: library
        pools: { prime: [ { id: alpha, playlist: a/master.m3u8 } ] }
        program: { catalogue: "\(Self.prefix)", breaks: markers }
        marker_breaks: { duration: 4, pools: [prime] }
        schedule: \(schedule)
        cache: { titles: 100, memory_mib: 64, ttl: 30 }
        """
    }

    /// A media playlist of `count` segments of `length` seconds, `markers[i]` before segment i.
    static func programme(count: Int, length: Int = 4, markers: [Int: String] = [:]) -> String {
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:\(length)\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        for index in 0..<count {
            if let marker = markers[index] { text += marker + "\n" }
            text += "#EXTINF:\(length).000,\ns\(index).ts\n"
        }
        return text + "#EXT-X-ENDLIST\n"
    }

    /// Loads `yaml` with the titles in `titles` (path below the prefix → media playlist) on the
    /// origin; `title` nil loads the template.
    static func load(
        _ yaml: String,
        titles: [String: String] = [:],
        title: String? = nil,
        reusing known: KnownAssets? = nil
    ) throws(CampaignError) -> Campaign {
        var remote: [String: String] = [:]
        for (path, media) in titles {
            let folder = path.split(separator: "/").dropLast().joined(separator: "/")
            remote[Self.prefix + path] = Self.master
            remote[Self.prefix + (folder.isEmpty ? "" : folder + "/") + "v0.m3u8"] = media
        }
        let fetched = remote
        // A second ad, and a slate whose variant is the first ad's media playlist (shared).
        let shared = Self.master.replacingOccurrences(of: "v0.m3u8", with: "../a/v0.m3u8")
        let files = ["a/master.m3u8": Self.master, "a/v0.m3u8": Self.ad, "b/master.m3u8": Self.master, "b/v0.m3u8": Self.ad, "s/master.m3u8": shared]
        let source = PlaylistSource.memory(files, root: Self.root) { url, _ in
            guard let text = fetched[url.absoluteString] else { throw NotOnOrigin(url: url) }
            return (Data(text.utf8), url)
        }
        return try CampaignLoader.load(
            yaml: yaml,
            file: Self.root.appendingPathComponent("campaign.yaml"),
            source: source,
            title: title,
            reusing: known
        )
    }

    /// Break id, cut time and position in the title, in play order.
    static func breaks(_ campaign: Campaign) -> [String] {
        campaign.breaks.map { "\($0.id)@\($0.placement?.cut.description ?? "?")+\($0.duration)" }
    }

    @Test("without a title the campaign is a template: its settings read, no programme, no fetch")
    func template() throws {
        let campaign = try Self.load(Self.campaign())
        let catalogue = try #require(campaign.catalogue)
        #expect(catalogue.prefix.absoluteString == Self.prefix)
        #expect(catalogue.readsMarkers)
        #expect(catalogue.cache == CatalogueCache(titles: 100, memoryMiB: 64, ttl: .seconds(30)))
        #expect(catalogue.schedule?.pools == ["prime"])
        #expect(campaign.islands.isEmpty && campaign.breaks.isEmpty && campaign.templateAsset == nil)
    }

    @Test("a title with markers gets its breaks from them; the schedule stays out")
    func markedTitle() throws {
        let media = Self.programme(count: 60, markers: [10: "#EXT-X-CUE-OUT:DURATION=8", 12: "#EXT-X-CUE-IN"])
        let campaign = try Self.load(Self.campaign(), titles: ["show/one/master.m3u8": media], title: "show/one/master.m3u8")
        #expect(campaign.catalogue == nil, "a title is a campaign of its own")
        #expect(campaign.programAsset?.url.absoluteString == Self.prefix + "show/one/master.m3u8")
        #expect(Self.breaks(campaign).count == 1)
        #expect(campaign.breaks.first?.placement?.cut == 40 && campaign.breaks.first?.placement?.replaced == 8)
    }

    @Test("a title without markers gets the schedule: pre-roll, mid-rolls at exact multiples cut at the boundary before, none in the tail, post-roll")
    func scheduledTitle() throws {
        // 240 s of 4 s segments; every 60 s while at least 30 s remain after: 60, 120, 180.
        let campaign = try Self.load(Self.campaign(), titles: ["film.m3u8": Self.programme(count: 60)], title: "film.m3u8")
        #expect(Self.breaks(campaign) == ["preroll@0+4", "mid-1@60+8", "mid-2@120+8", "mid-3@180+8", "postroll@240+4"])
        // 7 s segments: 60 s falls inside a segment, cut at the boundary at or before it (56 s).
        let odd = try Self.load(Self.campaign(), titles: ["odd.m3u8": Self.programme(count: 20, length: 7)], title: "odd.m3u8")
        #expect(Self.breaks(odd) == ["preroll@0+4", "mid-1@56+8", "postroll@140+4"])
        // Segments longer than the interval: two times in one segment cut once, the first keeping it.
        let long = try Self.load(
            Self.campaign(schedule: "{ every: 10, mid_duration: 4, pools: [prime] }"),
            titles: ["long.m3u8": Self.programme(count: 3, length: 25)],
            title: "long.m3u8"
        )
        #expect(Self.breaks(long) == ["mid-1@0+4", "mid-3@25+4", "mid-5@50+4"])
    }

    @Test(
        "a title's load reuses the template's ads and slate as read (the same instances), and ends with the revision, files and plan inputs of a load from scratch — a media playlist two assets share included"
    )
    func reusedAssets() throws {
        let yaml = Self.campaign().replacingOccurrences(
            of: "pools: { prime: [ { id: alpha, playlist: a/master.m3u8 } ] }",
            with:
                "pools: { prime: [ { id: alpha, playlist: a/master.m3u8 }, { id: bravo, playlist: b/master.m3u8 } ] }\nslate: { playlist: s/master.m3u8 }"
        )
        let template = try Self.load(yaml)
        let known = try #require(template.knownAssets, "a catalogue's template keeps its local assets")
        #expect(known.urls == Set(["a", "b", "s"].map { Self.root.appendingPathComponent("\($0)/master.m3u8") }))
        let titles = ["show/master.m3u8": Self.programme(count: 60)]
        let fresh = try Self.load(yaml, titles: titles, title: "show/master.m3u8")
        let reused = try Self.load(yaml, titles: titles, title: "show/master.m3u8", reusing: known)
        #expect(fresh.knownAssets == nil && reused.knownAssets == nil, "a title keeps no readings of its own")
        #expect(reused.revision == fresh.revision)
        #expect(reused.files == fresh.files && reused.files.playlists.count == 5)
        #expect(Self.breaks(reused) == Self.breaks(fresh))
        let templateAds = template.ads.map { ObjectIdentifier($0.asset) }
        #expect(reused.ads.map { ObjectIdentifier($0.asset) } == templateAds, "the title plays the template's ad assets, not copies")
        let freshAds = fresh.ads.map { ObjectIdentifier($0.asset) }
        #expect(Set(freshAds).isDisjoint(with: templateAds), "a load without the template reads its own")
        #expect(reused.slate === template.slate && reused.slate?.variants.first?.url == Self.root.appendingPathComponent("a/v0.m3u8"))
        // The title's own programme is still read from the origin, not from the template.
        #expect(reused.programAsset?.url.absoluteString == Self.prefix + "show/master.m3u8")
    }

    @Test("two titles with the same bytes under different paths have different revisions; the same title the same one")
    func revisions() throws {
        let media = Self.programme(count: 30)
        let titles = ["a/master.m3u8": media, "b/master.m3u8": media]
        let first = try Self.load(Self.campaign(), titles: titles, title: "a/master.m3u8")
        let again = try Self.load(Self.campaign(), titles: titles, title: "a/master.m3u8")
        let other = try Self.load(Self.campaign(), titles: titles, title: "b/master.m3u8")
        #expect(first.revision == again.revision)
        #expect(first.revision != other.revision)
    }

    @Test(
        "title paths that could leave the prefix or name no playlist are refused",
        arguments: [
            "", "../x.m3u8", "a/../../x.m3u8", "./x.m3u8", "a//x.m3u8", "/x.m3u8", "x.m3u8/", "%2e%2e/x.m3u8", "a%2Fb.m3u8",
            "x.m3u8?y=1", "x.m3u8#f", "evil:x.m3u8", "mailto:x.m3u8", "a b.m3u8", "x.mp4", "a\\b.m3u8", "https://evil.test/x.m3u8",
            String(repeating: "a/", count: 600) + "x.m3u8",
            // Encoded: what an origin would decode into a way out, or a second spelling.
            "%2E%2E/x.m3u8", "a%2fb/x.m3u8", "a%5Cb/x.m3u8", "a%255C/x.m3u8", "a%00/x.m3u8", "a%0A/x.m3u8", "a%7F/x.m3u8",
            "%41/x.m3u8", "a%7E/x.m3u8", "a%2/x.m3u8", "a%/x.m3u8", "a%G0/x.m3u8", "x.m3u8%", "x%2Em3u8",
            // Octets that are no UTF-8: overlong '.' and '/' (lenient decoders take them for one),
            // a lone continuation byte, a cut sequence, a surrogate, beyond U+10FFFF.
            "%c0%ae%c0%ae/x.m3u8", "%C0%AE/x.m3u8", "a%c0%af/x.m3u8", "%e0%80%ae/x.m3u8", "a%80/x.m3u8", "a%C3/x.m3u8",
            "a%ed%a0%80/x.m3u8", "a%f4%90%80%80/x.m3u8", "a%ff/x.m3u8",
        ]
    )
    func refusedPaths(path: String) throws {
        let catalogue = try #require(try Self.load(Self.campaign()).catalogue)
        #expect(catalogue.url(of: path) == nil, "\(path)")
    }

    @Test("plain and percent-encoded title paths resolve below the prefix, as written")
    func acceptedPaths() throws {
        let catalogue = try #require(try Self.load(Self.campaign()).catalogue)
        for path in [
            "x.m3u8", "show/season-1/ep_01/master.m3u8", "a~b/c,d=e.m3u8",
            // A space, letters beyond ASCII (UTF-8, either hex case), an encoded '?' and '#'.
            "Le%20Bureau/%C3%89pisode%201/master.m3u8", "caf%c3%a9/x.m3u8", "what%3F/no%23.m3u8",
            // Four-byte UTF-8 (an emoji), and every kind of encoded octet in one segment.
            "%F0%9F%8E%AC/x.m3u8", "a%20%C3%A9%E2%82%AC%F0%9F%8E%AC%3F/x.m3u8",
        ] {
            #expect(catalogue.url(of: path)?.absoluteString == Self.prefix + path)
        }
    }

    @Test("a title on the origin that names local files (segment, key or map; file: in any case) is refused with the line; other URIs load")
    func localFilesRefused() throws {
        let named = [
            ("#EXTINF:4.000,\nfile:///etc/passwd", 6), ("#EXTINF:4.000,\nFILE:///etc/passwd", 6),
            // A key's or map's line is its segment's EXTINF, as for local files.
            ("#EXT-X-KEY:METHOD=AES-128,URI=\"File:///etc/shadow\"\n#EXTINF:4.000,\ns0.ts", 6),
            ("#EXT-X-MAP:URI=\"fIlE:/etc/init.mp4\"\n#EXTINF:4.000,\ns0.m4s", 6),
            // Inside the campaign's folder too: ffprobe would read it for the origin's playlist.
            ("#EXTINF:4.000,\nfile:///campaigns/library/a/etc/ad0.ts", 6),
        ]
        for (lines, line) in named {
            let media =
                "#EXTM3U\n#EXT-X-VERSION:6\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n\(lines)\n"
                + Self.programme(count: 40).split(separator: "\n").dropFirst(4).joined(separator: "\n") + "\n"
            do {
                _ = try Self.load(Self.campaign(), titles: ["t/master.m3u8": media], title: "t/master.m3u8")
                Issue.record("\(lines): loaded")
            } catch {
                #expect(error.issues.contains { $0.field == "uri" && $0.line == line && $0.message.contains("/etc/") }, "\(lines): \(error)")
            }
        }
        // Absolute http(s) URIs, absolute paths and ../ stay on the origin (a word ending in "file:" too).
        let remote = Self.programme(count: 40).replacingOccurrences(of: "s1.ts", with: "https://cdn.test/s1.ts")
            .replacingOccurrences(of: "s2.ts", with: "/abs/s2.ts").replacingOccurrences(of: "s3.ts", with: "../up/s3.ts?profile:x")
        let campaign = try Self.load(Self.campaign(), titles: ["t/master.m3u8": remote], title: "t/master.m3u8")
        #expect(campaign.programAsset?.variants.first?.playlist.segments.count == 40)
    }

    @Test("a missing title is an issue naming its URL")
    func missingTitle() {
        #expect(throws: CampaignError.self) { try Self.load(Self.campaign(), title: "gone/master.m3u8") }
        do {
            _ = try Self.load(Self.campaign(), title: "gone/master.m3u8")
        } catch {
            #expect(error.issues.contains { $0.field == "program.catalogue" && $0.message.contains(Self.prefix + "gone/master.m3u8") }, "\(error)")
        }
    }

    @Test(
        "bad catalogue settings are refused with their field",
        arguments: [
            ("program: { catalogue: \"https://origin.test/vod\" }", "program.catalogue"),
            ("program: { catalogue: \"ftp://origin.test/vod/\" }", "program.catalogue"),
            ("program: { catalogue: \"https://origin.test/vod/?a=1\" }", "program.catalogue"),
            ("program: { catalogue: \"https://origin.test/vod/\", playlist: p/master.m3u8 }", "program.playlist"),
            ("program: { catalogue: \"https://origin.test/vod/\" }\nbreaks: [ { id: x, at: 10, duration: 4, pools: [prime] } ]", "breaks"),
            ("program: { catalogue: \"https://origin.test/vod/\" }\nschedule: { every: 5, mid_duration: 4, pools: [prime] }", "schedule.every"),
            ("program: { catalogue: \"https://origin.test/vod/\" }\nschedule: { every: 60, pools: [prime] }", "schedule.mid_duration"),
            ("program: { catalogue: \"https://origin.test/vod/\" }\nschedule: { preroll: 4 }", "schedule.pools"),
            ("program: { catalogue: \"https://origin.test/vod/\" }\nschedule: { preroll: 4, pools: [nope] }", "schedule.pools"),
            ("program: { catalogue: \"https://origin.test/vod/\" }\nschedule: { min_tail: 4, pools: [prime] }", "schedule"),
            ("program: { catalogue: \"https://origin.test/vod/\" }\nschedule: { preroll: 99999, pools: [prime] }", "schedule.preroll"),
            ("program: { catalogue: \"https://origin.test/vod/\" }\ncache: { titles: 0 }", "cache.titles"),
            ("program: { catalogue: \"https://origin.test/vod/\" }\ncache: { ttl: 0.5 }", "cache.ttl"),
            ("program: { catalogue: \"https://origin.test/vod/\" }\ncache: { memory_mib: -1 }", "cache.memory_mib"),
            ("program: { playlist: p/master.m3u8 }\nschedule: { preroll: 4, pools: [prime] }", "schedule"),
            ("program: { playlist: p/master.m3u8 }\ncache: { titles: 4 }", "cache"),
        ]
    )
    func refusedSettings(yaml: String, field: String) throws {
        let text = "version: 1\nid: library\npools: { prime: [ { id: alpha, playlist: a/master.m3u8 } ] }\n" + yaml
        do {
            _ = try Self.load(text, titles: [:])
            Issue.record("\(yaml) loaded")
        } catch {
            #expect(error.issues.contains { $0.field == field }, "\(yaml): \(error)")
        }
    }
}

/// What the test origin answers for a path it does not have.
private struct NotOnOrigin: Error, CustomStringConvertible {
    var url: URL
    var description: String { "\(self.url.absoluteString) answered HTTP 404" }
}
