import Foundation
import HLSPlaylist
import Testing

/// RFC 8216bis §4.1 (URIs resolve against the playlist's URI, RFC 3986 §5) and §4.3 / §4.4.2.3
/// (variable substitution).
@Suite("URIs and variables")
struct URIAndVariableTests {
    // MARK: - URI resolution

    static let httpBase = URL(string: "https://cdn.example.com/live/channel1/720p/index.m3u8?token=abc")!
    static let fileBase = URL(fileURLWithPath: "/var/media/show/index.m3u8")

    @Test(
        "URIs resolve against an http playlist URL as RFC 3986 says",
        arguments: [
            ("seg_1.ts", "https://cdn.example.com/live/channel1/720p/seg_1.ts"),
            ("seg_1.ts?st=1700000000&e=1700003600", "https://cdn.example.com/live/channel1/720p/seg_1.ts?st=1700000000&e=1700003600"),
            ("seg%201.ts", "https://cdn.example.com/live/channel1/720p/seg%201.ts"),
            ("seg 1.ts", "https://cdn.example.com/live/channel1/720p/seg%201.ts"),
            ("../audio/en.m3u8", "https://cdn.example.com/live/channel1/audio/en.m3u8"),
            ("../../other/index.m3u8", "https://cdn.example.com/live/other/index.m3u8"),
            ("/keys/k1.bin", "https://cdn.example.com/keys/k1.bin"),
            ("//ads.example.net/creative/seg.ts", "https://ads.example.net/creative/seg.ts"),
            ("http://origin.example.org/a/b.ts?x=%2F", "http://origin.example.org/a/b.ts?x=%2F"),
            ("skd://fps.example.com/asset/1", "skd://fps.example.com/asset/1"),
        ]
    )
    func resolvesAgainstHTTPBase(uri: String, expected: String) throws {
        let resolved = try #require(URIResolution.resolve(uri, against: Self.httpBase))
        #expect(resolved.absoluteString == expected)
    }

    @Test(
        "URIs resolve against a file playlist URL",
        arguments: [
            ("seg_1.ts", "file:///var/media/show/seg_1.ts"),
            ("seg_1.ts?v=2", "file:///var/media/show/seg_1.ts?v=2"),
            ("../ads/spot%20a.ts", "file:///var/media/ads/spot%20a.ts"),
            ("/srv/hls/abs.ts", "file:///srv/hls/abs.ts"),
            ("https://cdn.example.com/x.ts", "https://cdn.example.com/x.ts"),
        ]
    )
    func resolvesAgainstFileBase(uri: String, expected: String) throws {
        let resolved = try #require(URIResolution.resolve(uri, against: Self.fileBase))
        #expect(resolved.absoluteString == expected)
    }

    @Test("a media playlist resolves its segment and key URIs against its own URL")
    func mediaPlaylistResolvesAgainstItsURL() throws {
        let playlist = try #require(
            try PlaylistParser().parse(try Fixture.text("aes128-key-rotation.m3u8"), url: Self.httpBase).media
        )
        let segment = playlist.segments[0]
        #expect(
            playlist.resolve(segment.uri)?.absoluteString
                == "https://cdn.example.com/live/channel1/720p/segment_2680.ts?token=st%3D1795420800%7Eexp%3D1795424400"
        )
        #expect(
            playlist.resolve(segment.keys[0].uri ?? "")?.absoluteString == "https://keys.example.com/v1/key?assetId=8f14e45f&rotation=446"
        )
        let fromFile = try #require(try Fixture.parse("ffmpeg-ts-vod.m3u8").media)
        #expect(fromFile.resolve(fromFile.segments[0].uri)?.absoluteString == Fixture.url("stream0.ts").absoluteString)
    }

    @Test("a multivariant playlist resolves variant and rendition URIs against its own URL")
    func multivariantResolvesAgainstItsURL() throws {
        let base = URL(string: "https://cdn.example.com/vod/bbb/master.m3u8")!
        let playlist = try #require(
            try PlaylistParser().parse(try Fixture.text("apple-multivariant-audio-subs-cc.m3u8"), url: base).multivariant
        )
        #expect(playlist.resolve(playlist.variants[0].uri)?.absoluteString == "https://cdn.example.com/vod/bbb/video/360p/prog_index.m3u8")
        #expect(
            playlist.resolve(playlist.renditions[0].value.uri ?? "")?.absoluteString == "https://cdn.example.com/vod/bbb/audio/en/aac_128k.m3u8"
        )
    }

    // MARK: - Variables

    @Test("{$var} references in URI lines and quoted attributes are replaced")
    func variablesAreReplaced() throws {
        let playlist = try #require(try Fixture.parse("variables-media.m3u8").media)
        // Unresolved, the text is as written.
        #expect(playlist.segments[0].uri == "{$cdn}/seg_1.m4s?{$token}")
        let resolved = try playlist.resolvingVariables()
        let token = "hdnts=exp%3D1795424400%7Eacl%3D%2Fvod%2Fbbb%2F*%7Ehmac%3D3f9a0c77e1"
        #expect(resolved.segments.map(\.uri) == (1...4).map { "https://cdn-a.example.com/vod/bbb/720p/seg_\($0).m4s?\(token)" })
        #expect(resolved.segments[0].map?.uri == "https://cdn-a.example.com/vod/bbb/720p/init.mp4?\(token)")
        #expect(resolved.duration == playlist.duration)
        // Only the lines with references are rewritten.
        let before = PlaylistWriter().write(playlist).split(separator: "\n")
        let after = PlaylistWriter().write(resolved).split(separator: "\n")
        let changed = zip(before, after).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
        #expect(changed == [7, 9, 11, 13, 15])
        #expect(after[7] == "#EXT-X-MAP:URI=\"https://cdn-a.example.com/vod/bbb/720p/init.mp4?\(token)\"")
    }

    @Test("variables in a multivariant playlist replace variant and rendition URIs")
    func multivariantVariables() throws {
        let playlist = try #require(try Fixture.parse("variables-multivariant.m3u8").multivariant)
        let resolved = try playlist.resolvingVariables()
        #expect(resolved.variants.map(\.uri) == ["https://cdn-a.example.com/vod/bbb/480p.m3u8", "https://cdn-a.example.com/vod/bbb/720p.m3u8"])
        #expect(resolved.renditions[0].value.uri == "https://cdn-a.example.com/vod/bbb/audio/en.m3u8")
        #expect(try playlist.variables() == ["host": "https://cdn-a.example.com", "asset": "bbb", "audio-group": "aac"])
    }

    @Test("a quoted-string KEY URI is substituted; a replacement is not substituted again")
    func keyAttributesAndNoRecursion() throws {
        let playlist = try parseMedia(
            """
            #EXTM3U
            #EXT-X-VERSION:8
            #EXT-X-TARGETDURATION:10
            #EXT-X-DEFINE:NAME="keys",VALUE="https://keys.example.com"
            #EXT-X-DEFINE:NAME="literal",VALUE="{$keys}"
            #EXT-X-KEY:METHOD=AES-128,URI="{$keys}/k?id=7",IV=0x0000000000000000000000000000000A
            #EXTINF:10,
            {$literal}/a.ts
            """
        )
        let resolved = try playlist.resolvingVariables()
        #expect(resolved.segments[0].keys[0].uri == "https://keys.example.com/k?id=7")
        #expect(resolved.segments[0].keys[0].iv == "0x0000000000000000000000000000000A")
        #expect(resolved.segments[0].uri == "{$keys}/a.ts")
    }

    @Test("a {$var} in a hexadecimal-sequence attribute (IV, SCTE35-OUT) is substituted (RFC 8216bis §4.3)")
    func hexadecimalAttributesAreSubstituted() throws {
        let playlist = try parseMedia(
            """
            #EXTM3U
            #EXT-X-VERSION:8
            #EXT-X-TARGETDURATION:10
            #EXT-X-DEFINE:NAME="iv",VALUE="0x00000000000000000000000000000A78"
            #EXT-X-DEFINE:NAME="cue",VALUE="FC302000"
            #EXT-X-PROGRAM-DATE-TIME:2026-11-23T06:00:00.000Z
            #EXT-X-DATERANGE:ID="ad",START-DATE="2026-11-23T06:00:00.000Z",SCTE35-OUT=0x{$cue}
            #EXT-X-KEY:METHOD=AES-128,URI="k.bin",IV={$iv}
            #EXTINF:10,
            a.ts
            """
        )
        #expect(playlist.segments[0].keys[0].iv == "{$iv}")
        let resolved = try playlist.resolvingVariables()
        #expect(resolved.segments[0].keys[0].iv == "0x00000000000000000000000000000A78")
        #expect(resolved.dateRanges[0].dateRange.attributes["SCTE35-OUT"]?.rawValue == "0xFC302000")
        #expect(try lint(PlaylistWriter().write(resolved)).errors.isEmpty)
    }

    @Test("a hexadecimal attribute that is not hexadecimal once substituted is an error")
    func hexadecimalSubstitutionIsChecked() throws {
        let playlist = try parseMedia(
            canonical(
                "#EXTM3U",
                "#EXT-X-VERSION:8",
                "#EXT-X-TARGETDURATION:10",
                "#EXT-X-DEFINE:NAME=\"iv\",VALUE=\"not-hex\"",
                "#EXT-X-KEY:METHOD=AES-128,URI=\"k.bin\",IV={$iv}",
                "#EXTINF:10,",
                "a.ts"
            )
        )
        let error = try #require(Self.error { () throws(PlaylistError) in _ = try playlist.resolvingVariables() })
        #expect(error.code == .invalidAttributeValue)
        #expect(error.line == 5)
        // Without a reference, a hexadecimal attribute is still checked when it is parsed.
        let literal = canonical("#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXT-X-KEY:METHOD=AES-128,URI=\"k\",IV=0xZZ", "#EXTINF:10,", "a.ts")
        #expect(parseError(literal)?.code == .invalidAttributeValue)
    }

    @Test("an undefined variable is an error on the line that uses it")
    func undefinedVariable() throws {
        let playlist = try parseMedia(
            """
            #EXTM3U
            #EXT-X-VERSION:8
            #EXT-X-TARGETDURATION:10
            #EXT-X-DEFINE:NAME="cdn",VALUE="https://cdn.example.com"
            #EXTINF:10,
            {$cdn}/a.ts
            #EXTINF:10,
            {$cnd}/b.ts
            """
        )
        let error = try #require(Self.error { () throws(PlaylistError) in _ = try playlist.resolvingVariables() })
        #expect(error.code == .undefinedVariable)
        #expect(error.line == 8)
        #expect(error.message.contains("cnd"))
        // The linter reports it too.
        let findings = PlaylistLinter().lint(playlist).rule("variables")
        #expect(findings.map(\.line) == [8])
    }

    @Test("a variable used before its EXT-X-DEFINE is undefined there")
    func variableUsedBeforeDefinition() throws {
        let playlist = try parseMedia(
            """
            #EXTM3U
            #EXT-X-VERSION:8
            #EXT-X-TARGETDURATION:10
            #EXT-X-MAP:URI="{$cdn}/init.mp4"
            #EXT-X-DEFINE:NAME="cdn",VALUE="https://cdn.example.com"
            #EXTINF:10,
            {$cdn}/a.m4s
            """
        )
        let error = try #require(Self.error { () throws(PlaylistError) in _ = try playlist.resolvingVariables() })
        #expect(error.code == .undefinedVariable)
        #expect(error.line == 4)
    }

    @Test("two EXT-X-DEFINEs of one name are an error on the second")
    func duplicateVariable() throws {
        let playlist = try parseMedia(
            """
            #EXTM3U
            #EXT-X-VERSION:8
            #EXT-X-TARGETDURATION:10
            #EXT-X-DEFINE:NAME="cdn",VALUE="https://a.example.com"
            #EXT-X-DEFINE:NAME="cdn",VALUE="https://b.example.com"
            #EXTINF:10,
            {$cdn}/a.ts
            """
        )
        let error = try #require(Self.error { () throws(PlaylistError) in _ = try playlist.resolvingVariables() })
        #expect(error.code == .duplicateVariable)
        #expect(error.line == 5)
    }

    @Test("IMPORT takes a variable from the multivariant playlist")
    func importFromMultivariant() throws {
        let multivariant = try #require(try Fixture.parse("variables-multivariant.m3u8").multivariant)
        let media = try parseMedia(
            """
            #EXTM3U
            #EXT-X-VERSION:8
            #EXT-X-TARGETDURATION:10
            #EXT-X-DEFINE:IMPORT="host"
            #EXT-X-DEFINE:IMPORT="asset"
            #EXTINF:10,
            {$host}/vod/{$asset}/480p/seg_0.ts
            """
        )
        let resolved = try media.resolvingVariables(importingFrom: multivariant)
        #expect(resolved.segments[0].uri == "https://cdn-a.example.com/vod/bbb/480p/seg_0.ts")
    }

    @Test("IMPORT of a name the multivariant playlist does not define is an error")
    func importOfUnknownName() throws {
        let multivariant = try #require(try Fixture.parse("variables-multivariant.m3u8").multivariant)
        let media = try parseMedia(
            canonical("#EXTM3U", "#EXT-X-VERSION:8", "#EXT-X-TARGETDURATION:10", "#EXT-X-DEFINE:IMPORT=\"region\"", "#EXTINF:10,", "a.ts")
        )
        let error = try #require(Self.error { () throws(PlaylistError) in _ = try media.resolvingVariables(importingFrom: multivariant) })
        #expect(error.code == .undefinedVariable)
        #expect(error.line == 4)
    }

    @Test("IMPORT without a multivariant playlist is an error")
    func importWithoutMultivariant() throws {
        let media = try parseMedia(
            canonical("#EXTM3U", "#EXT-X-VERSION:8", "#EXT-X-TARGETDURATION:10", "#EXT-X-DEFINE:IMPORT=\"host\"", "#EXTINF:10,", "{$host}/a.ts")
        )
        let error = try #require(Self.error { () throws(PlaylistError) in _ = try media.resolvingVariables() })
        #expect(error.code == .undefinedVariable)
        #expect(error.line == 4)
        // The linter cannot know the multivariant playlist, so it does not report the IMPORT.
        #expect(PlaylistLinter().lint(media).rule("variables").isEmpty)
    }

    @Test("IMPORT in a multivariant playlist is an error")
    func importInMultivariant() throws {
        let playlist = try parseMultivariant(
            canonical("#EXTM3U", "#EXT-X-VERSION:8", "#EXT-X-DEFINE:IMPORT=\"host\"", "#EXT-X-STREAM-INF:BANDWIDTH=1", "v.m3u8")
        )
        let error = try #require(Self.error { () throws(PlaylistError) in _ = try playlist.resolvingVariables() })
        #expect(error.code == .invalidVariableDefinition)
        #expect(error.line == 3)
    }

    @Test("QUERYPARAM takes the percent-decoded value of the playlist URL's query parameter")
    func queryParameterFromURL() throws {
        let media = try parseMedia(
            """
            #EXTM3U
            #EXT-X-VERSION:11
            #EXT-X-TARGETDURATION:10
            #EXT-X-DEFINE:QUERYPARAM="token"
            #EXT-X-DEFINE:QUERYPARAM="region"
            #EXTINF:10,
            a.ts?token={$token}&r={$region}
            """
        )
        let url = URL(string: "https://cdn.example.com/live/index.m3u8?region=eu-west&token=a%20b%2Fc%3D%C3%A9")!
        let resolved = try media.resolvingVariables(playlistURL: url)
        #expect(resolved.segments[0].uri == "a.ts?token=a b/c=é&r=eu-west")
        // The playlist's own URL is used when none is given.
        let loaded = try parseMedia(PlaylistWriter().write(media), url: url)
        #expect(try loaded.resolvingVariables().segments[0].uri == "a.ts?token=a b/c=é&r=eu-west")
    }

    @Test("QUERYPARAM naming a parameter the URL lacks is an error")
    func queryParameterMissing() throws {
        let media = try parseMedia(
            canonical("#EXTM3U", "#EXT-X-VERSION:11", "#EXT-X-TARGETDURATION:10", "#EXT-X-DEFINE:QUERYPARAM=\"token\"", "#EXTINF:10,", "a.ts")
        )
        let url = URL(string: "https://cdn.example.com/live/index.m3u8?other=1")!
        let error = try #require(Self.error { () throws(PlaylistError) in _ = try media.resolvingVariables(playlistURL: url) })
        #expect(error.code == .undefinedVariable)
        #expect(error.line == 4)
    }

    @Test("an EXT-X-DEFINE with two of NAME, IMPORT and QUERYPARAM is an invalid definition")
    func defineWithTwoSources() throws {
        let media = try parseMedia(
            canonical(
                "#EXTM3U",
                "#EXT-X-VERSION:11",
                "#EXT-X-TARGETDURATION:10",
                "#EXT-X-DEFINE:NAME=\"a\",VALUE=\"1\",QUERYPARAM=\"a\"",
                "#EXTINF:10,",
                "x.ts"
            )
        )
        let error = try #require(Self.error { () throws(PlaylistError) in _ = try media.resolvingVariables() })
        #expect(error.code == .invalidVariableDefinition)
        #expect(error.line == 4)
    }

    @Test("a playlist without variables resolves to itself")
    func noVariablesIsIdentity() throws {
        let playlist = try #require(try Fixture.parse("ffmpeg-ts-vod.m3u8").media)
        let resolved = try playlist.resolvingVariables()
        #expect(Array(resolved.lines) == Array(playlist.lines))
    }

    /// The error `body` throws, or nil.
    static func error(_ body: () throws(PlaylistError) -> Void) -> PlaylistError? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    @Test(
        "a multivariant playlist's media playlists: variants, I-frame streams and renditions with a URI, resolved (variables substituted), each once"
    )
    func mediaPlaylistURLs() throws {
        let text = """
            #EXTM3U
            #EXT-X-VERSION:8
            #EXT-X-DEFINE:NAME="v",VALUE="hd"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="en",DEFAULT=YES,URI="../audio/en.m3u8"
            #EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="en",INSTREAM-ID="CC1"
            #EXT-X-STREAM-INF:BANDWIDTH=1000000,AUDIO="a",CLOSED-CAPTIONS="cc"
            low/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=3000000,AUDIO="a",CLOSED-CAPTIONS="cc"
            {$v}/index.m3u8?t=1
            #EXT-X-STREAM-INF:BANDWIDTH=3100000,AUDIO="a",CLOSED-CAPTIONS="cc"
            hd/index.m3u8?t=1
            #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=200000,URI="https://other.example/iframes.m3u8"

            """
        let playlist = try PlaylistParser().parseMultivariantPlaylist(text, url: Self.httpBase).resolvingVariables()
        #expect(
            playlist.mediaPlaylistURLs.map(\.absoluteString) == [
                "https://cdn.example.com/live/channel1/720p/low/index.m3u8",
                "https://cdn.example.com/live/channel1/720p/hd/index.m3u8?t=1",
                "https://other.example/iframes.m3u8",
                "https://cdn.example.com/live/channel1/audio/en.m3u8",
            ]
        )
    }

    @Test(
        "a variable reference is found wherever it stands (the first URI byte, the text's last bytes, after other `$`); `$` or `{` alone is none",
        arguments: [
            ("{$x}a.ts", true), ("a.ts?v={$x}", true), ("$$${$x}.ts", true), ("a{b}${$x}", true),
            ("a$.ts", false), ("{a}$.ts", false), ("{ $x}.ts", false), ("${x}.ts", false), ("$", false),
        ]
    )
    func variableReferenceFound(uri: String, isReference: Bool) throws {
        // The URI last, without a newline: the reference may end the text.
        let text = "#EXTM3U\n#EXT-X-VERSION:8\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\n" + uri
        let playlist = try PlaylistParser().parseMediaPlaylist(text, url: Self.httpBase)
        // An undefined variable is an error once the reference is seen (RFC 8216bis §4.3).
        if isReference {
            #expect(throws: PlaylistError.self) { try playlist.resolvingVariables() }
        } else {
            #expect(try playlist.resolvingVariables().segments.first.map { String($0.uri) } == uri)
        }
    }
}
