import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import AdStitchServer

/// Which requests the session file door (`SessionFileDoor`) claims: every request the router
/// would have routed to `/v1/campaigns/{id}/sessions/{token}/{file}`, read as the router reads
/// it, and no other; paths the path rule refuses stay the router's, which answers them 400.
@Suite("Session file door: which requests")
struct SessionFileRequestTests {
    static func claimed(_ path: String, method: HTTPRequest.Method = .get) -> (campaign: Substring, token: Substring, file: Substring)? {
        let door = SessionFileDoor(
            sessions: SessionController(store: RouteTests.store, policy: SessionPolicy(secret: RouteTests.secret)),
            logger: .init(label: "t")
        )
        let claimed = door.claims(HTTPRequest(method: method, scheme: nil, authority: "127.0.0.1", path: path))
        let read = Routes.sessionFile(in: path)
        #expect(claimed == (read != nil), "\(path)")
        return read.map { ($0.id, $0.token, $0.file) }
    }

    @Test("the route's paths are read into campaign, token and file in every method; a query is ignored")
    func accepted() throws {
        let token = "AbC-_~.9zZ"
        for (path, campaign, file) in [
            ("/v1/campaigns/news/sessions/\(token)/v0.m3u8", "news", "v0.m3u8"),
            ("/v1/campaigns/a/sessions/\(token)/boundaries.json?x=1&y=/..", "a", "boundaries.json"),
            ("/v1/campaigns/two-hours/sessions/\(token)/a~b_c", "two-hours", "a~b_c"),
            ("/v1/campaigns/...x/sessions/\(token)/.v", "...x", ".v"),
            ("/v1/campaigns/n/sessions/\(token)/%2Em3u8", "n", "%2Em3u8"),
        ] {
            for method in [HTTPRequest.Method.get, .head, .options, .post, .delete] {
                let claim = try #require(Self.claimed(path, method: method), "\(method) \(path)")
                #expect(claim.campaign == campaign && claim.token == token && claim.file == file)
            }
        }
    }

    @Test("other routes, dot and empty segments go to the router")
    func refused() {
        for path in [
            "/v1/campaigns/n/sessions/t", "/v1/campaigns/n/sessions/t/", "/v1/campaigns/n/sessions/t/f/", "/v1/campaigns/n/sessions/t/f/g",
            "/v1/campaigns//sessions/t/f", "/v1/campaigns/n/sessions//f", "/v1/campaigns/./sessions/t/f",
            "/v1/campaigns/n/sessions/../f", "/v1/campaigns/n/sessions/t/..", "/v1/campaigns/n/sessions/t/%2E%2e",
            "/v1/campaigns/n/session/t/f", "/v1/campaigns/n/Sessions/t/f", "/V1/campaigns/n/sessions/t/f", "v1/campaigns/n/sessions/t/f",
            "//v1/campaigns/n/sessions/t/f", "/v1/campaigns/n/master.m3u8", "/preview/n/sessions/t/f", "", "/",
            "/v1/campaigns/n/sessions/t/beacons/1/a/s",
        ] {
            #expect(Self.claimed(path) == nil, "\(path)")
        }
    }

    /// Paths near the route: its segments, dots, escapes, empty segments, queries, a fragment.
    static func generated(count: Int) -> [String] {
        var generator = FrontDoorPaths(state: 7)
        let pieces = [
            "v1", "campaigns", "sessions", "n", "t", "f.m3u8", ".", "..", "", "%2E", "%2e%2E", "a%20b", "x+y", "~", "Sessions", "beacons",
            "-", "_", "f#x", "a;b", "%", "%zz", "é",
        ]
        let skeleton = ["v1", "campaigns", "n", "sessions", "t", "f.m3u8"]
        var paths: [String] = []
        for _ in 0..<count {
            var segments = skeleton
            for _ in 0..<Int.random(in: 0...2, using: &generator) {
                let index = Int.random(in: 0..<segments.count, using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: segments[index] = pieces.randomElement(using: &generator)!
                case 1: segments.insert(pieces.randomElement(using: &generator)!, at: index)
                case 2: segments.remove(at: index)
                default: segments[index] += pieces.randomElement(using: &generator)!
                }
                if segments.isEmpty { segments = skeleton }
            }
            let query = Int.random(in: 0..<4, using: &generator) == 0 ? "?q=/a/../b" : ""
            paths.append("/" + segments.joined(separator: "/") + query)
        }
        return paths
    }

    struct FrontDoorPaths: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            self.state = self.state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return self.state
        }
    }

    @Test("over 3,000 generated paths, the door claims exactly what Hummingbird's router routes to the session file pattern")
    func sameAsTheRouter() async throws {
        let router = Router(context: AdStitchRequestContext.self)
        router.add(middleware: HTTPSemanticsMiddleware())
        router.get("/v1/campaigns/:id/sessions/:token/:file") { _, context -> String in
            try "\(context.parameters.require("id"))|\(context.parameters.require("token"))|\(context.parameters.require("file"))"
        }
        let paths = Self.generated(count: 3_000)
        let claims = try await Application(router: router).test(.router) { client in
            var claims = 0
            for path in paths {
                let claim = Self.claimed(path)
                let routed = try await client.execute(uri: path, method: .get) { response in
                    response.status == .ok ? String(buffer: response.body) : nil
                }
                #expect(claim.map { "\($0.campaign)|\($0.token)|\($0.file)" } == routed, "\(path)")
                if claim != nil { claims += 1 }
            }
            return claims
        }
        #expect(claims > 300 && claims < 2_700, "the generated paths are both claimed and not: \(claims) claimed")
    }

    /// The door reads request headers with `HTTPFields.value(_:)` (issue 53): what HTTPFields'
    /// own getter answers, for every shape a client sends — absent, once, repeated (joined by
    /// ", ", RFC 9110 §5.3), empty, other names around, a name in another case.
    @Test("HTTPFields.value answers what HTTPFields' getter answers, field absent, once, repeated, empty or cased otherwise")
    func headerValues() {
        let names: [HTTPField.Name] = [.acceptEncoding, .range, .ifNoneMatch, .eTag, .contentLength]
        let values = ["gzip", "", "br, gzip;q=0.5", "bytes=0-99", "\"a\", W/\"b\"", "*"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            var fields = HTTPFields()
            for _ in 0..<Int.random(in: 0...6, using: &generator) {
                let name = names.randomElement(using: &generator)!
                let spelled = Bool.random(using: &generator) ? HTTPField.Name(name.rawName.uppercased())! : name
                fields.append(HTTPField(name: spelled, value: values.randomElement(using: &generator)!))
            }
            for name in names {
                #expect(fields.value(name) == fields[name], "\(name): \(fields)")
            }
        }
    }
}
