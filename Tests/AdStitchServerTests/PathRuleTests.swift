import Testing

@testable import AdStitchServer

/// The one rule for request paths (`HTTPSemanticsMiddleware.pathProblem`): its one-pass check of
/// plain paths must never let through a path its full reading refuses.
@Suite("Path rule")
struct PathRuleTests {
    @Test("the path rule's one-pass check vouches only for paths its full reading accepts")
    func plainPathsKeepThePathRule() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["a", "v1", ".", "..", "...", ".a", "a.", "", "%2e", "%2E%2e", "%41", "é", "~"]
        var plain = 0
        for _ in 0..<20_000 {
            let path =
                "/" + (0..<Int.random(in: 1...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined(separator: "/")
            guard path != "/" else { continue }  // the root, allowed before any reading
            let vouched = HTTPSemanticsMiddleware.isPlain(path)
            if vouched {
                plain += 1
                #expect(HTTPSemanticsMiddleware.segmentProblem(path) == nil, "\(path)")
            }
            #expect((HTTPSemanticsMiddleware.pathProblem(path) == nil) == (HTTPSemanticsMiddleware.segmentProblem(path) == nil), "\(path)")
        }
        #expect(plain > 1_000)
        for path in ["/a//b", "/a/./b", "/a/../b", "/a/", "/a/.", "/a/..", "/.", "/%2e"] {
            #expect(!HTTPSemanticsMiddleware.isPlain(path) && HTTPSemanticsMiddleware.pathProblem(path) != nil, "\(path)")
        }
        for path in ["/a/...", "/.a/a./b", "/v1/campaigns/n/sessions/t/v0.m3u8"] {
            #expect(HTTPSemanticsMiddleware.isPlain(path), "\(path)")
        }
    }
}
