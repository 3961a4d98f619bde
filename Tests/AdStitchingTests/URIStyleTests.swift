import AdStitching
import Foundation
import Testing

/// `URIStyle.rebased` (the media route's URIs for local files): its fast paths — a path without
/// dot segments taken as it is, one needing no percent-encoding written as it is — write what
/// the plain rule writes: the standardised path below the root, percent-encoded as a URL path.
@Suite("URI styles")
struct URIStyleTests {
    static let root = URL(fileURLWithPath: "/srv/campaigns/news/", isDirectory: true)
    static let base = URL(string: "https://cdn.test/v1/campaigns/news/media/")!

    /// The rule written the plain way: what the style wrote before its fast paths.
    static func expected(_ url: URL) -> String {
        guard url.isFileURL else { return url.absoluteString }
        let path = url.standardizedFileURL.path
        guard path.hasPrefix(Self.root.path + "/") else { return url.absoluteString }
        let relative = String(path.dropFirst(Self.root.path.count + 1))
        return Self.base.absoluteString + (relative.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? relative)
    }

    @Test(
        "local files rebased onto the media route as the plain rule writes them: plain, dot segments, //, spaces, non-ASCII, reserved characters, outside the root, remote",
        arguments: [
            "/srv/campaigns/news/media/ads/alpha/s0.ts", "/srv/campaigns/news/media/./ads/s0.ts", "/srv/campaigns/news/x/../media/s0.ts",
            "/srv/campaigns/news//media/s0.ts", "/srv/campaigns/news/media/my ad/s 0.ts", "/srv/campaigns/news/media/café/é.ts",
            "/srv/campaigns/news/media/a;b=c/d@e:f~g!h$i&j'k(l)m*n+o,p.ts", "/srv/campaigns/news/media/100%/a#b?c.ts",
            "/srv/campaigns/news/media/.hidden/...ts", "/srv/campaigns/other/s0.ts", "/srv/campaigns/news/../other/s0.ts",
        ]
    )
    func rebased(path: String) {
        let style = URIStyle.rebased(root: Self.root, onto: Self.base)
        let url = URL(fileURLWithPath: path)
        #expect(style.rewrite(url) == Self.expected(url), "\(path)")
    }

    @Test("remote URLs are written as they are")
    func remote() {
        let style = URIStyle.rebased(root: Self.root, onto: Self.base)
        #expect(style.rewrite(URL(string: "https://origin.test/a/b.ts?x=1")!) == "https://origin.test/a/b.ts?x=1")
    }
}
