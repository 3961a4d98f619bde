import Foundation
import Testing

@testable import HLSPlaylist

/// The plain resolution (a segment line joined to its playlist's directory as text) against
/// Foundation's general one, over references and bases of every shape playlists hold.
@Suite("URI resolution: the plain path agrees with the general one")
struct URIResolutionTests {
    static let bases = [
        "http://origin.test/vod/title/v0/index.m3u8", "https://origin.test:8443/a/b/c/index.m3u8?token=x&y=1",
        "https://origin.test/index.m3u8", "http://origin.test/dir/", "http://origin.test", "http://origin.test?x=1",
        "https://origin.test/a/./b/index.m3u8", "https://origin.test/a/../b/index.m3u8", "https://origin.test/a%20b/index.m3u8#frag",
        "HTTP://Origin.Test/Vod/index.m3u8", "https://user:pw@origin.test/v/index.m3u8", "http://[::1]:8080/v/index.m3u8",
        "https://origin.test/a&b+c/master.m3u8", "https://origin.test/a//b/index.m3u8", "ftp://origin.test/a/index.m3u8",
    ]

    static let fileBases = ["/tmp/campaign/media/v0/index.m3u8", "/tmp/with space/v0/index.m3u8", "/tmp/é/index.m3u8"]

    static let references = [
        "segment_0.ts", "v1/segment_12.m4s", "seg.ts?st=abc&exp=1", "seg.ts?x=/y:z?w", "seg.ts?", "a/b/c/d.ts", "a/", "a//b.ts",
        "!$&'()*+,;=@.ts", "~user/seg.ts", "-_.ts", "..ts", "...", "a..b/c.ts", ".hidden.ts", "./seg.ts", "../seg.ts", "a/./b.ts",
        "a/../b.ts", ".", "..", "a/.", "a/..", "/abs/seg.ts", "//cdn.test/seg.ts", "https://cdn.test/seg.ts", "file:///etc/passwd",
        "x:y.ts", "seg.ts#frag", "%41.ts", "a%2Fb.ts", "a b.ts", "é.ts", "seg\".ts", "seg{1}.ts", "?only", "#only", "", "a?b#c",
        "seg.ts?q=a b", "seg.ts?q=%20", "a:b/c.ts", "C:/media/seg.ts", "seg|1.ts", "seg^1.ts", "seg`1.ts", "seg\\1.ts",
    ]

    /// Same absolute string, same kind (file or not), same path: the plain result is the general one.
    static func check(_ uri: String, _ base: URL) -> Bool? {
        let general = URIResolution.generalResolution(uri, against: base)
        // The text form (segment lines of remote playlists, written without a URL) is the general one's text.
        if let text = URIResolution.directory(of: base).flatMap({ URIResolution.plainText(Substring(uri), directory: $0) }) {
            #expect(text == general?.absoluteString, "\(uri) against \(base.absoluteString) as text")
            #expect(URIResolution.plainResolution(uri, against: base) != nil, "\(uri) against \(base.absoluteString) as text")
        }
        guard let plain = URIResolution.plainResolution(uri, against: base) else { return nil }
        #expect(plain.absoluteString == general?.absoluteString, "\(uri) against \(base.absoluteString)")
        #expect(plain.isFileURL == general?.isFileURL && plain.path == general?.path, "\(uri) against \(base.absoluteString)")
        #expect(plain.standardizedFileURL.path == general?.standardizedFileURL.path, "\(uri) against \(base.absoluteString)")
        return true
    }

    @Test("every listed reference against every listed base, http(s) and file")
    func listed() throws {
        let bases = try Self.bases.map { try #require(URL(string: $0)) } + Self.fileBases.map { URL(fileURLWithPath: $0) }
        var plain = 0
        for base in bases {
            for uri in Self.references where Self.check(uri, base) != nil { plain += 1 }
        }
        // The common shapes take the plain path (else this test would compare nothing).
        #expect(plain >= 150, "\(plain) resolved by the plain path")
        let base = try #require(URL(string: Self.bases[0]))
        for uri in ["segment_0.ts", "v1/segment_12.m4s", "seg.ts?st=abc&exp=1", "a&b+c.ts"] {
            #expect(URIResolution.plainResolution(uri, against: base) != nil, "\(uri)")
            #expect(
                URIResolution.plainText(Substring(uri), directory: try #require(URIResolution.directory(of: base))) == Self.bases[0].dropLast(10)
                    + uri
            )
        }
        // Text only for lowercase http(s): a file base, or a scheme Foundation rewrites, makes a URL.
        for other in [URL(fileURLWithPath: Self.fileBases[0]), try #require(URL(string: "HTTP://Origin.Test/Vod/index.m3u8"))] {
            #expect(URIResolution.directory(of: other).flatMap { URIResolution.plainText("a.ts"[...], directory: $0) } == nil)
        }
        for uri in ["../seg.ts", "./seg.ts", "/abs.ts", "//cdn.test/a.ts", "https://cdn.test/a.ts", "%41.ts", "a b.ts", "seg.ts#f", ""] {
            #expect(URIResolution.plainResolution(uri, against: base) == nil, "\(uri)")
        }
        #expect(URIResolution.plainResolution("seg.ts", against: try #require(URL(string: "https://origin.test/a/../b/index.m3u8"))) == nil)
    }

    @Test("random references over an alphabet of every kind of character agree")
    func random() throws {
        let alphabet = Array("ab09-._~!$&'()*+,;=@/?:#% é\"<>{}|\\^`[]")
        var generator = SystemRandomNumberGenerator()
        var seed = UInt64.random(in: 0...UInt64.max, using: &generator)
        func next() -> UInt64 {
            // SplitMix64: seeded once, printed on failure.
            seed &+= 0x9E37_79B9_7F4A_7C15
            var z = seed
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let first = seed
        let bases = try Self.bases.map { try #require(URL(string: $0)) } + Self.fileBases.map { URL(fileURLWithPath: $0) }
        var plain = 0
        for _ in 0..<20_000 {
            let length = Int(next() % 12) + 1
            // Mostly plain characters, so the plain path is taken often.
            let uri = String((0..<length).map { _ in next() % 3 == 0 ? alphabet[Int(next() % UInt64(alphabet.count))] : alphabet[Int(next() % 12)] })
            let base = bases[Int(next() % UInt64(bases.count))]
            if Self.check(uri, base) != nil { plain += 1 }
        }
        #expect(plain >= 2_000, "seed \(first): \(plain) resolved by the plain path")
    }
}
