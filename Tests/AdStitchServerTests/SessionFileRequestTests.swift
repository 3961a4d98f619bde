import HTTPTypes
import Testing

@testable import AdStitchServer

/// Which requests `SessionFileResponder` answers itself: exactly the session-file route's
/// `GET`s whose segments any router reads alike (the end-to-end comparison with the router is
/// `DirectAnswerTests`).
@Suite("Direct answers: which requests")
struct SessionFileRequestTests {
    static func parsed(_ path: String, method: HTTPRequest.Method = .get, headers: HTTPFields = [:]) -> SessionController.SessionFileRequest? {
        SessionFileResponder.sessionFileRequest(HTTPRequest(method: method, scheme: nil, authority: "127.0.0.1", path: path, headerFields: headers))
    }

    @Test("the route's GETs are read into campaign, token and file; a query is ignored; gzip from Accept-Encoding")
    func accepted() throws {
        let token = "AbC-_~.9zZ"
        for (path, campaign, file) in [
            ("/v1/campaigns/news/sessions/\(token)/v0.m3u8", "news", "v0.m3u8"),
            ("/v1/campaigns/a/sessions/\(token)/boundaries.json?x=1&y=/..", "a", "boundaries.json"),
            ("/v1/campaigns/two-hours/sessions/\(token)/a~b_c", "two-hours", "a~b_c"),
            ("/v1/campaigns/...x/sessions/\(token)/.v", "...x", ".v"),
        ] {
            let asked = try #require(Self.parsed(path), "\(path)")
            #expect(asked.campaign == campaign && asked.token == token && asked.file == file && !asked.gzip && asked.scope == .viewer)
        }
        #expect(Self.parsed("/v1/campaigns/n/sessions/t/f", headers: [.acceptEncoding: "gzip"])?.gzip == true)
        #expect(Self.parsed("/v1/campaigns/n/sessions/t/f", headers: [.contentLength: "0"]) != nil)
    }

    @Test("anything else goes to the router: other routes, methods, escapes, dot and empty segments, bodies")
    func refused() {
        for path in [
            "/v1/campaigns/n/sessions/t", "/v1/campaigns/n/sessions/t/", "/v1/campaigns/n/sessions/t/f/", "/v1/campaigns/n/sessions/t/f/g",
            "/v1/campaigns//sessions/t/f", "/v1/campaigns/n/sessions//f", "/v1/campaigns/./sessions/t/f",
            "/v1/campaigns/n/sessions/../f", "/v1/campaigns/n/sessions/t/..", "/v1/campaigns/n/sessions/t/%2Em3u8",
            "/v1/campaigns/n/session/t/f", "/v1/campaigns/n/Sessions/t/f", "/V1/campaigns/n/sessions/t/f", "v1/campaigns/n/sessions/t/f",
            "//v1/campaigns/n/sessions/t/f", "/v1/campaigns/n/sessions/t/f#x", "/v1/campaigns/n/sessions/t+/f", "/v1/campaigns/n/master.m3u8",
            "/preview/n/sessions/t/f", "/v1/campaigns/n/sessions/t/f%20", "", "/",
        ] {
            #expect(Self.parsed(path) == nil, "\(path)")
        }
        #expect(Self.parsed("/v1/campaigns/n/sessions/t/f", method: .head) == nil)
        #expect(Self.parsed("/v1/campaigns/n/sessions/t/f", method: .post) == nil)
        #expect(Self.parsed("/v1/campaigns/n/sessions/t/f", headers: [.contentLength: "4"]) == nil)
        #expect(Self.parsed("/v1/campaigns/n/sessions/t/f", headers: [.transferEncoding: "chunked"]) == nil)
    }
}
