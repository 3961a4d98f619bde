import Foundation
import HLSPlaylist
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A media playlist of `count` 4 s segments named `<name>-<n>.<ts|m4s>` (fMP4 with an init
/// section when `fragmented`).
private func media(_ name: String, _ count: Int, fragmented: Bool = false) -> String {
    var text = "#EXTM3U\n#EXT-X-VERSION:\(fragmented ? 7 : 4)\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n"
    if fragmented { text += "#EXT-X-MAP:URI=\"\(name)-init.mp4\"\n" }
    for index in 0..<count { text += "#EXTINF:4.000,\n\(name)-\(index).\(fragmented ? "m4s" : "ts")\n" }
    return text + "#EXT-X-ENDLIST\n"
}

/// A campaign `id` of one island (`p/master.m3u8`) after a 4 s pre-roll filled from one pool:
/// ad `ad` at `folder/master.m3u8`.
private func campaign(_ id: String, ad: String = "alpha", folder: String = "a") -> String {
    """
    version: 1
    id: \(id)
    program: { islands: [ { id: act-1, playlist: p/master.m3u8 } ] }
    breaks: [ { id: pre, before: act-1, duration: 4, pools: [prime] } ]
    pools: { prime: [ { id: \(ad), playlist: \(folder)/master.m3u8 } ] }
    """
}

/// The segment URIs of a stitched media playlist, in order.
private func segmentURIs(_ text: String?) -> [String] {
    (text ?? "").split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
}

/// Audio is matched by format, not by language alone (an AAC stereo ad never fills an E-AC-3 5.1
/// group), and a picture never plays in an audio-only variant — through `adstitch stitch` and
/// `adstitch validate` as a user runs them, on a demuxed programme with a stereo AAC group, a 5.1
/// E-AC-3 group and an audio-only variant.
@Suite("Fidelity: audio by format, audio-only variants")
struct AudioFormatFidelityTests {
    /// The programme: two video variants (one per audio group) and an audio-only AAC variant.
    /// Ad `both` has both formats, its 5.1 rendition listed first and DEFAULT, named unlike the
    /// programme's (so neither order nor name picks the right one); ad `stereo` has AAC only.
    static func files(pool: String) -> [String: String] {
        let programme = """
            #EXTM3U
            #EXT-X-VERSION:4
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="stereo",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="aac.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="surround",NAME="English 5.1",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="6",URI="ec3.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=600000,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=640x360,AUDIO="stereo"
            v.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=900000,CODECS="avc1.42c01e,ec-3",RESOLUTION=640x360,AUDIO="surround"
            v.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=70000,CODECS="mp4a.40.2",AUDIO="stereo"
            aac.m3u8

            """
        let both = """
            #EXTM3U
            #EXT-X-VERSION:4
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="dd",NAME="Main 5.1",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="6",URI="ec3.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="Main",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="aac.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=850000,CODECS="avc1.42c01e,ec-3",RESOLUTION=640x360,AUDIO="dd"
            v.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=550000,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=640x360,AUDIO="aac"
            v.m3u8

            """
        let stereo = """
            #EXTM3U
            #EXT-X-VERSION:4
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="Main",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="aac.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=550000,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=640x360,AUDIO="aac"
            v.m3u8

            """
        var files = [
            "p/master.m3u8": programme, "both/master.m3u8": both, "stereo/master.m3u8": stereo,
            "campaign.yaml": campaign("audio-format", ad: pool, folder: pool),
        ]
        for (asset, count) in [("p", 3), ("both", 1), ("stereo", 1)] {
            for name in ["v", "aac", "ec3"] { files["\(asset)/\(name).m3u8"] = media("\(asset)-\(name)", count) }
        }
        return files
    }

    @Test("each audio group plays the ad's rendition of its own format; the audio-only variant plays the ad's AAC audio, not its video")
    func eachGroupGetsItsFormat() async throws {
        let (master, files) = try await CLITests.stitched(Self.files(pool: "both"))
        // Renditions a0 (stereo), a1 (surround); variants v0, v1 and the audio-only v2.
        #expect(segmentURIs(files["a0.m3u8"]).first?.hasSuffix("both/both-aac-0.ts") == true, "\(files["a0.m3u8"] ?? "")")
        #expect(segmentURIs(files["a1.m3u8"]).first?.hasSuffix("both/both-ec3-0.ts") == true, "\(files["a1.m3u8"] ?? "")")
        #expect(segmentURIs(files["v2.m3u8"]).first?.hasSuffix("both/both-aac-0.ts") == true, "\(files["v2.m3u8"] ?? "")")
        #expect(segmentURIs(files["v2.m3u8"]).dropFirst().allSatisfy { $0.contains("p-aac-") })
        // The audio-only variant stays audio-only: its CODECS gains no video format.
        let audioOnly = try #require(master.variants.first { $0.streamInf.resolution == nil })
        #expect(audioOnly.streamInf.codecs == ["mp4a.40.2"])
    }

    @Test("validate: an ad with no rendition of a group's format is an error at its campaign line, naming the group, the format and what it has")
    func missingFormatIsAnError() async throws {
        let files = Self.files(pool: "stereo")
        let result = try await CLITests.validated(files)
        #expect(result.status == 1, "\(result.output)")
        let line = try #require(files["campaign.yaml"]?.split(separator: "\n").firstIndex { $0.contains("id: stereo") }) + 1
        #expect(
            result.output.contains(
                "<folder>/campaign.yaml:\(line):19: error: pools.prime[0].playlist: ad \"stereo\" has no audio rendition to play in the "
                    + "programme's \"English 5.1\" (en, group surround), whose format is ec-3, 6 channels (it has \"Main\" aac, 2 channels)"
            ),
            "\(result.output)"
        )
        // Stitching refuses it too, and says why.
        let folder = try CLITests.folder(files)
        defer { try? FileManager.default.removeItem(at: folder) }
        let stitch = try await CLITests().adstitch(["stitch", folder.appendingPathComponent("campaign.yaml").path, "--out", folder.path + "/out"])
        #expect(stitch.status != 0 && stitch.output.contains("ec-3, 6 channels"), "\(stitch.output)")
    }

    @Test("validate: a muxed ad without an audio-only variant cannot play in the programme's audio-only one, and says so")
    func muxedAdWithoutAudioOnlyIsAnError() async throws {
        let master = """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=64000,CODECS="mp4a.40.2"
            audio.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=400000,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=640x360
            low.m3u8

            """
        let ad = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=400000,CODECS=\"avc1.42c01e,mp4a.40.2\",RESOLUTION=640x360\nlow.m3u8\n"
        let files = [
            "p/master.m3u8": master, "p/audio.m3u8": media("p-audio", 2), "p/low.m3u8": media("p-low", 2),
            "a/master.m3u8": ad, "a/low.m3u8": media("a-low", 1),
            "campaign.yaml": campaign("audio-only"),
        ]
        let result = try await CLITests.validated(files)
        #expect(result.status == 1, "\(result.output)")
        #expect(
            result.output.contains(
                "ad \"alpha\" has nothing to play in the programme's audio-only variant mp4a.40.2: no audio-only variant and no audio "
                    + "rendition of its format (aac); a picture never plays in an audio-only variant"
            ),
            "\(result.output)"
        )
    }
}

/// Containers are read per variant: AVC in MPEG-TS beside HEVC in fMP4 stitches, each rung
/// playing the ad's rung of its own container; HEVC in MPEG-TS is refused (seed 001, Apple's HLS
/// authoring specification).
@Suite("Fidelity: containers per variant, HEVC in fMP4")
struct ContainerFidelityTests {
    static func files(hevcFragmented: Bool) -> [String: String] {
        let master = """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-STREAM-INF:BANDWIDTH=900000,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=1280x720
            avc.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=700000,CODECS="hvc1.1.6.L93.B0,mp4a.40.2",RESOLUTION=1280x720
            hevc.m3u8

            """
        var files = [
            "p/master.m3u8": master, "a/master.m3u8": master,
            "campaign.yaml": campaign("containers"),
        ]
        for (asset, count) in [("p", 2), ("a", 1)] {
            files["\(asset)/avc.m3u8"] = media("\(asset)-avc", count)
            files["\(asset)/hevc.m3u8"] = media("\(asset)-hevc", count, fragmented: hevcFragmented)
        }
        return files
    }

    @Test("AVC in MPEG-TS and HEVC in fMP4 in one ladder: each stitched rung plays the ad's rung of its container, init section and all")
    func mixedContainersStitch() async throws {
        let validation = try await CLITests.validated(Self.files(hevcFragmented: true))
        #expect(validation.status == 0, "\(validation.output)")
        let (_, files) = try await CLITests.stitched(Self.files(hevcFragmented: true))
        let avc = try #require(files["v0.m3u8"])
        let hevc = try #require(files["v1.m3u8"])
        #expect(!avc.contains("#EXT-X-MAP") && segmentURIs(avc).first?.hasSuffix("a/a-avc-0.ts") == true, "\(avc)")
        #expect(hevc.contains("a-hevc-init.mp4") && hevc.contains("p-hevc-init.mp4"), "\(hevc)")
        #expect(segmentURIs(hevc).allSatisfy { $0.hasSuffix(".m4s") }, "\(hevc)")
    }

    @Test("validate: HEVC in MPEG-TS segments is an error naming the variants and how to repackage")
    func hevcInTransportStreamIsAnError() async throws {
        let result = try await CLITests.validated(Self.files(hevcFragmented: false))
        #expect(result.status == 1, "\(result.output)")
        #expect(
            result.output.contains(
                "<folder>/campaign.yaml: error: program: the programme carries HEVC in MPEG-TS segments (hevc.m3u8 in 1280x720 hvc1.1.6.L93.B0,mp4a.40.2)"
            ),
            "\(result.output)"
        )
        #expect(result.output.contains("ad \"alpha\" carries HEVC in MPEG-TS segments"), "\(result.output)")
    }
}

/// What plays behind a variant never asks more of the player than the variant declares, or
/// `validate` says so: a rung above the variant's BANDWIDTH (carried into the stitched
/// BANDWIDTH), an ad needing a higher HDCP level, a programme with no variant a display without
/// HDCP can play.
@Suite("Fidelity: ladder and HDCP findings")
struct LadderFidelityTests {
    static var files: [String: String] {
        var files = [
            "p/master.m3u8": """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=400000,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=640x360,HDCP-LEVEL=TYPE-0
            low.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2000000,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=1280x720,HDCP-LEVEL=TYPE-0
            high.m3u8

            """,
            "a/master.m3u8": """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=900000,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=1280x720,HDCP-LEVEL=TYPE-1
            high.m3u8

            """,
            "campaign.yaml": campaign("ladder"),
        ]
        for (asset, count) in [("p", 2), ("a", 1)] {
            files["\(asset)/low.m3u8"] = media("\(asset)-low", count)
            files["\(asset)/high.m3u8"] = media("\(asset)-high", count)
        }
        return files
    }

    @Test("validate warns of the missing low rung, the higher HDCP level and the missing HDCP-free variant, and the campaign stays valid")
    func warnings() async throws {
        let result = try await CLITests.validated(Self.files)
        #expect(result.status == 0, "\(result.output)")
        let warnings = result.output.split(separator: "\n").filter { $0.contains(": warning: ") }
        #expect(warnings.count == 4, "\(result.output)")
        #expect(
            result.output.contains(
                "ad \"alpha\" has no rung at or below the programme's variant 640x360 avc1.42c01e,mp4a.40.2 (BANDWIDTH=400000): it plays its "
                    + "1280x720 avc1.42c01e,mp4a.40.2 rung (BANDWIDTH=900000) there"
            ),
            "\(result.output)"
        )
        #expect(result.output.contains("ad \"alpha\"'s 1280x720 avc1.42c01e,mp4a.40.2 rung needs HDCP-LEVEL=TYPE-1"), "\(result.output)")
        #expect(result.output.contains("every variant of the programme needs HDCP (HDCP-LEVEL=TYPE-0 or above)"), "\(result.output)")
    }

    @Test("the stitched low variant declares the ad's real peak, and keeps the programme's HDCP-LEVEL")
    func peakIsCarried() async throws {
        let master = try await CLITests.stitchedMaster(Self.files)
        let low = try #require(master.variants.first { $0.streamInf.resolution?.description == "640x360" })
        #expect(low.streamInf.bandwidth == 900_000)
        #expect(master.variants.allSatisfy { $0.streamInf.hdcpLevel == "TYPE-0" })
    }
}

/// Subtitles by format: an ad without subtitles gets the empty filler of the group's format —
/// WebVTT, or IMSC in fMP4 (`stpp`) — and a WebVTT ad rendition never lands in an IMSC group.
@Suite("Fidelity: subtitle formats")
struct SubtitleFormatFidelityTests {
    static func files(imsc: Bool, adSubtitles: Bool) -> [String: String] {
        func master(subtitles: Bool) -> String {
            var text = "#EXTM3U\n#EXT-X-VERSION:7\n"
            if subtitles {
                text +=
                    "#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"subs\",NAME=\"English\",LANGUAGE=\"en\",DEFAULT=YES,AUTOSELECT=YES,URI=\"subs.m3u8\"\n"
            }
            let codecs = subtitles && imsc ? "avc1.42c01e,mp4a.40.2,stpp.ttml.im1t" : "avc1.42c01e,mp4a.40.2"
            return text
                + "#EXT-X-STREAM-INF:BANDWIDTH=400000,CODECS=\"\(codecs)\",RESOLUTION=640x360\(subtitles ? ",SUBTITLES=\"subs\"" : "")\nv.m3u8\n"
        }
        return [
            "p/master.m3u8": master(subtitles: true), "p/v.m3u8": media("p-v", 2, fragmented: true),
            "p/subs.m3u8": media("p-subs", 2, fragmented: imsc).replacingOccurrences(of: ".ts\n", with: ".vtt\n"),
            "a/master.m3u8": master(subtitles: adSubtitles), "a/v.m3u8": media("a-v", 1, fragmented: true),
            // The ad's subtitles are WebVTT whatever the programme's.
            "a/subs.m3u8": media("a-subs", 1).replacingOccurrences(of: ".ts\n", with: ".vtt\n"),
            "campaign.yaml": campaign("subtitles"),
        ]
    }

    @Test("a WebVTT group: an ad without subtitles plays the empty WebVTT filler")
    func webVTTGroupIsFilled() async throws {
        let (_, files) = try await CLITests.stitched(Self.files(imsc: false, adSubtitles: false))
        #expect(segmentURIs(files["s0.m3u8"]).first == "empty.vtt", "\(files.keys.sorted())")
    }

    @Test("an IMSC group: an ad without subtitles, or with WebVTT ones (a warning), plays the empty IMSC filler, which ffprobe reads")
    func imscGroupIsFilledWithIMSC() async throws {
        for adSubtitles in [false, true] {
            let result = try await CLITests.validated(Self.files(imsc: true, adSubtitles: adSubtitles))
            #expect(result.status == 0, "\(result.output)")
            let warning =
                "ad \"alpha\"'s subtitles (\"English\" WebVTT) cannot play in the programme's \"English\" (en, group subs), "
                + "whose format is IMSC (fMP4): the empty IMSC (fMP4) filler plays there"
            #expect(result.output.contains(warning) == adSubtitles, "\(result.output)")

            let folder = try CLITests.folder(Self.files(imsc: true, adSubtitles: adSubtitles), segments: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let out = folder.appendingPathComponent("out")
            let stitched = try await CLITests().adstitch(
                ["stitch", folder.appendingPathComponent("campaign.yaml").path, "--out", out.path, "--session", "s"]
            )
            #expect(stitched.status == 0, "\(stitched.output)")
            let playlist = try String(contentsOf: out.appendingPathComponent("s0.m3u8"), encoding: .utf8)
            let parsed = try PlaylistParser().parseMediaPlaylist(playlist, url: out.appendingPathComponent("s0.m3u8"))
            let filler = parsed.segments.filter { $0.uri == "empty-imsc.mp4" }
            #expect(filler.count == 1 && !playlist.contains(".vtt"), "the ad's one segment, never WebVTT:\n\(playlist)")
            let file = out.appendingPathComponent("empty-imsc.mp4")
            let bytes = try Data(contentsOf: file)
            var mapLength = 0
            for segment in filler {
                let map = try #require(segment.map)
                #expect(map.uri == "empty-imsc.mp4" && map.byteRange?.offset == 0)
                let range = try #require(segment.byteRange)
                mapLength = range.offset ?? 0
                #expect(map.byteRange.map { $0.length } == range.offset && (range.offset ?? 0) + range.length == bytes.count, "\(playlist)")
            }
            #expect(PlaylistLinter().lint(parsed).filter { $0.severity == .error }.isEmpty, "\(playlist)")
            // ffprobe reads it as one IMSC track with one sample.
            let probe = try await Tool.run(
                "ffprobe",
                ["-v", "error", "-count_packets", "-show_entries", "stream=codec_tag_string,nb_read_packets", "-of", "csv=p=0", file.path]
            )
            #expect(probe.status == 0 && probe.output.contains("stpp,1"), "\(probe.output)")

            // `serve` answers the same file beside the session's playlists.
            let server = try await RealClients.HardeningEndToEndTests.Server(campaigns: folder)
            defer { kill(server.process.pid, SIGKILL) }
            let master = try server.get("/v1/campaigns/subtitles/master.m3u8?session=s")
            let uri = try #require(master.body.firstMatch(of: /URI="([^"]*\/s0\.m3u8)"/)?.1, "\(master.body)")
            let served = try server.get("/v1/campaigns/subtitles/" + uri)
            #expect(served.body.contains("#EXT-X-MAP:URI=\"empty-imsc.mp4\""), "\(served.body)")
            let filePath = "/v1/campaigns/subtitles/" + String(uri.dropLast("s0.m3u8".count)) + "empty-imsc.mp4"
            let answer = try LoopbackHTTP.exchange("GET", port: server.port, path: filePath)
            #expect(answer.status == 200 && answer.body == bytes, "\(answer.head)")
            #expect(answer.head.lowercased().contains("content-type: application/mp4"), "\(answer.head)")
            // Players ask for the fragment by the range the playlist names.
            let fragment = try LoopbackHTTP.exchange("GET", port: server.port, path: filePath, headers: [("Range", "bytes=\(mapLength)-")])
            #expect(fragment.status == 206 && fragment.body == bytes.dropFirst(mapLength), "\(fragment.head)")
        }
    }
}

/// The stitched master keeps what the programme's promises beyond the ladder: content steering
/// (its SERVER-URI still reaching the programme's steering manifest), the variants' PATHWAY-IDs,
/// session data, SCORE, SUPPLEMENTAL-CODECS, HDCP-LEVEL, ALLOWED-CPC, REQ-VIDEO-LAYOUT and
/// STABLE-VARIANT-ID — on a programme served from two pathways.
@Suite("Fidelity: kept master attributes")
struct KeptMasterAttributesTests {
    static let variantAttributes = [
        #"SCORE=1.5,HDCP-LEVEL=NONE,ALLOWED-CPC="com.example.drm1:SMART-TV/PC",REQ-VIDEO-LAYOUT="CH-MONO",STABLE-VARIANT-ID="hd""#,
        #"SUPPLEMENTAL-CODECS="dvh1.08.07/db4h",VIDEO-RANGE=PQ"#,
    ]

    @Test("content steering, pathways, session data and every variant attribute but BANDWIDTH and CODECS are the programme's")
    func attributesAreKept() async throws {
        var programme = """
            #EXTM3U
            #EXT-X-VERSION:12
            #EXT-X-CONTENT-STEERING:SERVER-URI="steering/manifest.json",PATHWAY-ID="cdn-a"
            #EXT-X-SESSION-DATA:DATA-ID="com.example.title",VALUE="Evening"

            """
        for pathway in ["cdn-a", "cdn-b"] {
            programme += """
                #EXT-X-STREAM-INF:BANDWIDTH=900000,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=1280x720,\(Self.variantAttributes[0]),PATHWAY-ID="\(pathway)"
                \(pathway)/hd.m3u8
                #EXT-X-STREAM-INF:BANDWIDTH=1900000,CODECS="hvc1.2.4.L123.B0,mp4a.40.2",RESOLUTION=1920x1080,\(Self.variantAttributes[1]),PATHWAY-ID="\(pathway)"
                \(pathway)/hdr.m3u8

                """
        }
        let ad = """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=1280x720
            hd.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=1500000,CODECS="hvc1.2.4.L123.B0,mp4a.40.2",RESOLUTION=1920x1080,VIDEO-RANGE=PQ
            hdr.m3u8

            """
        var files = [
            "p/master.m3u8": programme, "a/master.m3u8": ad,
            "campaign.yaml": campaign("kept"),
            "a/hd.m3u8": media("a-hd", 1), "a/hdr.m3u8": media("a-hdr", 1, fragmented: true),
        ]
        for pathway in ["cdn-a", "cdn-b"] {
            files["p/\(pathway)/hd.m3u8"] = media("p-hd", 2)
            files["p/\(pathway)/hdr.m3u8"] = media("p-hdr", 2, fragmented: true)
        }
        let (master, written) = try await CLITests.stitched(files)
        let text = try #require(written["master.m3u8"])
        let steering = try #require(master.contentSteering?.value, "\(text)")
        #expect(steering.pathwayID == "cdn-a")
        #expect(steering.serverURI == "../p/steering/manifest.json", "\(text)")
        #expect(master.sessionData.map(\.value.dataID).contains("com.example.title"))
        let original = try PlaylistParser().parseMultivariantPlaylist(programme)
        #expect(master.variants.count == original.variants.count)
        for variant in master.variants {
            // Each stitched variant is one of the programme's: the same attributes, BANDWIDTH and CODECS aside.
            var attributes = variant.streamInf.attributes
            for name in ["BANDWIDTH", "AVERAGE-BANDWIDTH", "CODECS"] { attributes.set(name, rawValue: nil) }
            let matches = original.variants.filter { candidate in
                var expected = candidate.streamInf.attributes
                for name in ["BANDWIDTH", "AVERAGE-BANDWIDTH", "CODECS"] { expected.set(name, rawValue: nil) }
                return expected.serialized == attributes.serialized
            }
            #expect(matches.count == 1, "\(variant.streamInf.attributes.serialized)")
        }
        #expect(Set(master.variants.compactMap(\.streamInf.pathwayID)) == ["cdn-a", "cdn-b"])
    }
}
