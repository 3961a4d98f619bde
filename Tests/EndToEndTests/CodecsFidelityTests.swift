import Foundation
import HLSPlaylist
import Testing

/// The stitched multivariant playlist's CODECS lists every format any piece behind a variant may
/// carry (RFC 8216bis §4.4.6.2), through `adstitch stitch` as a user runs it, on campaigns made for
/// each shape: an ad of another AVC profile, an ad of the same formats written in other case, a
/// slate with another audio codec, an I-frame variant, a programme variant without CODECS.
@Suite("Fidelity: CODECS of stitched variants")
struct CodecsFidelityTests {
    /// A campaign's files: a programme (two variants and an I-frame variant), ads `profile` (High
    /// profile AVC, `avc1.64001f`), `upper` (the programme's formats, the profile in upper-case hex) and a slate
    /// with AC-3 audio; `programCodecs` is the programme variants' CODECS attribute (nil: none).
    /// A break of `breakDuration` s, filled by a 4 s ad of `pool`, then the 4 s slate where it is longer.
    static func files(pool: String, breakDuration: Int = 4, programCodecs: String? = "avc1.42c01e,mp4a.40.2") -> [String: String] {
        func master(_ codecs: String?, iFrameCodecs: String?) -> String {
            let attribute = codecs.map { ",CODECS=\"\($0)\"" } ?? ""
            var text = "#EXTM3U\n#EXT-X-VERSION:4\n"
            text += "#EXT-X-STREAM-INF:BANDWIDTH=400000\(attribute),RESOLUTION=640x360,FRAME-RATE=25.000\nlow.m3u8\n"
            text += "#EXT-X-STREAM-INF:BANDWIDTH=900000\(attribute),RESOLUTION=1280x720,FRAME-RATE=25.000\nhigh.m3u8\n"
            if let iFrameCodecs {
                text += "#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=90000,CODECS=\"\(iFrameCodecs)\",RESOLUTION=640x360,URI=\"iframes.m3u8\"\n"
            }
            return text
        }
        func media(_ count: Int, iFrames: Bool = false) -> String {
            var text = "#EXTM3U\n#EXT-X-VERSION:4\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n"
            if iFrames { text += "#EXT-X-I-FRAMES-ONLY\n" }
            for index in 0..<count {
                text += iFrames ? "#EXTINF:4.000,\n#EXT-X-BYTERANGE:1000@0\ns\(index).ts\n" : "#EXTINF:4.000,\ns\(index).ts\n"
            }
            return text + "#EXT-X-ENDLIST\n"
        }
        var files = [
            "p/master.m3u8": master(programCodecs, iFrameCodecs: programCodecs == nil ? nil : "avc1.42c01e"),
            "profile/master.m3u8": master("avc1.64001f,mp4a.40.2", iFrameCodecs: "avc1.64001f"),
            "upper/master.m3u8": master("avc1.42C01E,mp4a.40.2", iFrameCodecs: "avc1.42C01E"),
            "slate/master.m3u8": master("avc1.42c01e,ac-3", iFrameCodecs: nil),
            "campaign.yaml": """
            version: 1
            id: codecs
            program: { islands: [ { id: act-1, playlist: p/master.m3u8 } ] }
            breaks: [ { id: pre, before: act-1, duration: \(breakDuration), pools: [\(pool)] } ]
            slate: { playlist: slate/master.m3u8 }
            pools:
              profile: [ { id: profile, playlist: profile/master.m3u8 } ]
              upper: [ { id: upper, playlist: upper/master.m3u8 } ]
            """,
        ]
        for asset in ["p", "profile", "upper", "slate"] {
            files["\(asset)/low.m3u8"] = media(asset == "p" ? 4 : 1)
            files["\(asset)/high.m3u8"] = media(asset == "p" ? 4 : 1)
            files["\(asset)/iframes.m3u8"] = media(asset == "p" ? 4 : 1, iFrames: true)
        }
        return files
    }

    @Test("an ad of another AVC profile adds its codec to every variant and the I-frame variant; the programme's stay first")
    func anotherProfileIsListed() async throws {
        let master = try await CLITests.stitchedMaster(Self.files(pool: "profile"))
        #expect(master.variants.count == 2)
        for variant in master.variants {
            #expect(variant.streamInf.codecs == ["avc1.42c01e", "mp4a.40.2", "avc1.64001f"])
        }
        #expect(master.iFrameVariants.map(\.value.codecs) == [["avc1.42c01e", "avc1.64001f"]])
    }

    @Test("an ad whose formats are the programme's, its profile in upper-case hex, adds nothing")
    func sameFormatsAddNothing() async throws {
        let master = try await CLITests.stitchedMaster(Self.files(pool: "upper"))
        #expect(master.variants.map(\.streamInf.codecs) == Array(repeating: ["avc1.42c01e", "mp4a.40.2"], count: 2))
    }

    @Test("a break the slate fills the rest of adds the slate's audio codec")
    func slateAudioIsListed() async throws {
        let master = try await CLITests.stitchedMaster(Self.files(pool: "upper", breakDuration: 8))
        #expect(master.variants.map(\.streamInf.codecs) == Array(repeating: ["avc1.42c01e", "mp4a.40.2", "ac-3"], count: 2))
    }

    @Test("a programme variant without CODECS stays without: the ads' formats alone would deny the programme's")
    func noProgrammeCodecsStaysAbsent() async throws {
        let master = try await CLITests.stitchedMaster(Self.files(pool: "profile", programCodecs: nil))
        #expect(master.variants.count == 2 && master.variants.allSatisfy { $0.streamInf.attributes.string("CODECS") == nil })
    }
}

/// An audio-only variant (AAC alone, no RESOLUTION) is never the startup variant a stitched
/// master lists first, whatever the viewer's bandwidth, unless a startup rule's `codecs` asks for
/// it — through `adstitch stitch`, on a ladder whose lowest rung is audio-only.
@Suite("Fidelity: audio-only variants and the startup variant")
struct AudioOnlyStartupTests {
    static func files(startup: String) -> [String: String] {
        let master = """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-STREAM-INF:BANDWIDTH=64000,CODECS="mp4a.40.2"
            audio.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=96000,CODECS="ec-3"
            surround.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=400000,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=640x360
            low.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=900000,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=1280x720
            high.m3u8

            """
        func media(_ count: Int) -> String {
            "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n"
                + (0..<count).map { "#EXTINF:4.000,\ns\($0).ts\n" }.joined() + "#EXT-X-ENDLIST\n"
        }
        var files = [
            "p/master.m3u8": master, "a/master.m3u8": master,
            "campaign.yaml": """
            version: 1
            id: audio-only
            program: { islands: [ { id: act-1, playlist: p/master.m3u8 } ] }
            breaks: [ { id: pre, before: act-1, duration: 4, pools: [prime] } ]
            pools: { prime: [ { id: alpha, playlist: a/master.m3u8 } ] }
            \(startup)
            """,
        ]
        for (asset, count) in [("p", 3), ("a", 1)] {
            for name in ["audio", "surround", "low", "high"] { files["\(asset)/\(name).m3u8"] = media(count) }
        }
        return files
    }

    /// The first variant of the stitched master's, by its CODECS and BANDWIDTH.
    static func startupVariant(startup: String) async throws -> (codecs: [String], bandwidth: Int?) {
        let first = try #require(try await CLITests.stitchedMaster(Self.files(startup: startup)).variants.first?.streamInf)
        return (first.codecs, first.bandwidth)
    }

    @Test("without a startup rule: the lowest variant with a picture, not the lower audio-only ones")
    func defaultSkipsAudioOnly() async throws {
        let first = try await Self.startupVariant(startup: "")
        #expect(first.codecs == ["avc1.42c01e", "mp4a.40.2"] && first.bandwidth == 400_000)
    }

    @Test("a ceiling only the audio-only variants fit under: the lowest variant with a picture")
    func ceilingSkipsAudioOnly() async throws {
        let first = try await Self.startupVariant(startup: "startup: [ { pick: { max_bandwidth: 100000 } } ]")
        #expect(first.codecs == ["avc1.42c01e", "mp4a.40.2"] && first.bandwidth == 400_000)
    }

    @Test("a rule whose codecs match audio-only variants alone starts there")
    func codecsAskForAudioOnly() async throws {
        let first = try await Self.startupVariant(startup: "startup: [ { pick: { codecs: ec-3 } } ]")
        #expect(first.codecs == ["ec-3"] && first.bandwidth == 96_000)
    }
}

/// The stitched master declares every key the session's pieces are encrypted with, once each
/// (`EXT-X-SESSION-KEY`, RFC 8216bis §4.4.6.5: not METHOD=NONE, no per-segment IV) — through
/// `adstitch stitch`, on islands with two keys and explicit IVs, a SAMPLE-AES ad with a key format
/// of its own, and a clear slate.
@Suite("Fidelity: session keys")
struct SessionKeyTests {
    static func media(_ count: Int, keys: [Int: String]) -> String {
        var text = "#EXTM3U\n#EXT-X-VERSION:5\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        for index in 0..<count {
            if let key = keys[index] { text += key + "\n" }
            text += "#EXTINF:4.000,\ns\(index).ts\n"
        }
        return text + "#EXT-X-ENDLIST\n"
    }

    @Test("every key of every piece played, once each, without IVs; a clear piece adds none")
    func everyKeyOnce() async throws {
        let master = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=400000,CODECS=\"avc1.42c01e,mp4a.40.2\",RESOLUTION=640x360\nv.m3u8\n"
        let iv = { (n: Int) in "IV=0x\(String(repeating: "0", count: 31))\(n)" }
        let files = [
            "a1/master.m3u8": master,
            "a1/v.m3u8": Self.media(
                3,
                keys: [
                    0: "#EXT-X-KEY:METHOD=AES-128,URI=\"k/one.key\",\(iv(1))", 1: "#EXT-X-KEY:METHOD=AES-128,URI=\"k/one.key\",\(iv(2))",
                    2: "#EXT-X-KEY:METHOD=AES-128,URI=\"k/two.key\",\(iv(3))",
                ]
            ),
            "a2/master.m3u8": master, "a2/v.m3u8": Self.media(2, keys: [0: "#EXT-X-KEY:METHOD=AES-128,URI=\"../a1/k/two.key\""]),
            "ad/master.m3u8": master,
            "ad/v.m3u8": Self.media(
                1,
                keys: [0: "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"skd://ad-key\",KEYFORMAT=\"com.apple.streamingkeydelivery\",KEYFORMATVERSIONS=\"1\""]
            ),
            "slate/master.m3u8": master, "slate/v.m3u8": Self.media(1, keys: [:]),
            "campaign.yaml": """
            version: 1
            id: keys
            program: { islands: [ { id: act-1, playlist: a1/master.m3u8 }, { id: act-2, playlist: a2/master.m3u8 } ] }
            breaks: [ { id: mid, after: act-1, duration: 8, pools: [prime] } ]
            slate: { playlist: slate/master.m3u8 }
            pools: { prime: [ { id: alpha, playlist: ad/master.m3u8 } ] }
            """,
        ]
        let stitched = try await CLITests.stitchedMaster(files)
        let keys = stitched.sessionKeys.map(\.value)
        #expect(keys.count == 3, "\(keys.map(\.attributes.serialized))")
        #expect(keys.allSatisfy { $0.method != .noEncryption && $0.iv == nil })
        #expect(keys.map(\.method) == [.aes128, .aes128, .sampleAES])
        #expect(keys[0].uri?.hasSuffix("a1/k/one.key") == true && keys[1].uri?.hasSuffix("a1/k/two.key") == true, "the shared key once")
        #expect(keys[2].uri == "skd://ad-key" && keys[2].keyFormat == "com.apple.streamingkeydelivery" && keys[2].keyFormatVersions == "1")
    }
}
