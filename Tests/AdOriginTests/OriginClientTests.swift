import AdOrigin
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

/// The origin client against a real HTTP server on loopback: what it returns, what it sends,
/// when it tries again and how it fails.
@Suite("Origin client")
struct OriginClientTests {
    static let playlist = "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\ns0.ts\n#EXT-X-ENDLIST\n"

    /// Requests per path, as the origin saw them.
    final class Hits: Sendable {
        private let counts = Mutex([String: Int]())
        func hit(_ path: String) { self.counts.withLock { $0[path, default: 0] += 1 } }
        func count(_ path: String) -> Int { self.counts.withLock { $0[path] ?? 0 } }
    }

    static func origin(_ hits: Hits) -> some ApplicationProtocol {
        let router = Router()
        router.middlewares.add(
            HitCounter(hits: hits)
        )
        router.get("/show/master.m3u8") { request, _ -> Response in
            if request.headers[.ifNoneMatch] == "\"v1\"" { return Response(status: .notModified) }
            return Response(
                status: .ok,
                headers: [.eTag: "\"v1\"", .lastModified: "Tue, 24 Nov 2026 10:00:00 GMT", .contentType: "application/vnd.apple.mpegurl"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: Self.playlist))
            )
        }
        router.get("/moved.m3u8") { _, _ in Response(status: .found, headers: [.location: "/show/master.m3u8"]) }
        router.get("/loop.m3u8") { _, _ in Response(status: .found, headers: [.location: "/loop.m3u8"]) }
        router.get("/missing.m3u8") { _, _ in Response(status: .notFound) }
        router.get("/busy.m3u8") { _, _ in Response(status: .serviceUnavailable) }
        router.get("/slow.m3u8") { _, _ -> String in
            try await Task.sleep(for: .seconds(1))
            return Self.playlist
        }
        router.get("/big.m3u8") { _, _ in String(repeating: "#EXT-X-DISCONTINUITY\n", count: 100) }
        router.get("/agent") { request, _ in request.headers[.userAgent] ?? "" }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    struct HitCounter: RouterMiddleware {
        let hits: Hits
        func handle(
            _ request: Request,
            context: BasicRequestContext,
            next: (Request, BasicRequestContext) async throws -> Response
        ) async throws -> Response {
            self.hits.hit(request.uri.path)
            return try await next(request, context)
        }
    }

    /// Runs `body` with a client for the origin's base URL (`http://127.0.0.1:PORT`).
    static func withOrigin(
        _ settings: OriginSettings = OriginSettings(),
        _ body: @Sendable (OriginClient, String, Hits) async throws -> Void
    ) async throws {
        let hits = Hits()
        try await Self.origin(hits).test(.live) { testClient in
            let client = OriginClient(settings: settings)
            do {
                try await body(client, "http://127.0.0.1:\(try #require(testClient.port))", hits)
                try await client.shutdown()
            } catch {
                try? await client.shutdown()
                throw error
            }
        }
    }

    @Test("a playlist comes back with its bytes, its final URL after redirects, its validators; then 304 is .notModified")
    func fetches() async throws {
        try await Self.withOrigin { client, base, _ in
            guard case .fetched(let fetched) = try await client.fetch(URL(string: base + "/moved.m3u8")!) else {
                Issue.record("not fetched")
                return
            }
            #expect(String(decoding: fetched.bytes, as: UTF8.self) == Self.playlist)
            #expect(fetched.url.absoluteString == base + "/show/master.m3u8")
            #expect(fetched.etag == "\"v1\"")
            #expect(fetched.lastModified == "Tue, 24 Nov 2026 10:00:00 GMT")
            #expect(try await client.fetch(URL(string: base + "/show/master.m3u8")!, etag: fetched.etag) == .notModified)
        }
    }

    @Test("it says who it is")
    func userAgent() async throws {
        try await Self.withOrigin { client, base, _ in
            guard case .fetched(let fetched) = try await client.fetch(URL(string: base + "/agent")!) else {
                Issue.record("not fetched")
                return
            }
            #expect(String(decoding: fetched.bytes, as: UTF8.self) == "AdStitch/\(OriginClient.version)")
        }
    }

    @Test("a 4xx fails at once, naming the URL and status; a 5xx is tried three times")
    func statuses() async throws {
        var settings = OriginSettings()
        settings.backoff = .milliseconds(10)
        try await Self.withOrigin(settings) { client, base, hits in
            let missing = await #expect(throws: OriginError.self) { try await client.fetch(URL(string: base + "/missing.m3u8")!) }
            #expect(missing?.reason == .status(404))
            #expect(missing?.description.contains(base + "/missing.m3u8 answered HTTP 404") == true)
            #expect(hits.count("/missing.m3u8") == 1)
            let busy = await #expect(throws: OriginError.self) { try await client.fetch(URL(string: base + "/busy.m3u8")!) }
            #expect(busy?.reason == .status(503))
            #expect(busy?.attempts == 3)
            #expect(hits.count("/busy.m3u8") == 3)
        }
    }

    @Test("a slow origin times out, a large playlist and a redirect loop are refused, a refused connection is tried again")
    func limits() async throws {
        var settings = OriginSettings()
        settings.timeout = .milliseconds(300)
        settings.attempts = 1
        settings.maxBytes = 1_000
        try await Self.withOrigin(settings) { client, base, _ in
            let slow = await #expect(throws: OriginError.self) { try await client.fetch(URL(string: base + "/slow.m3u8")!) }
            #expect(slow?.reason == .timeout)
            let big = await #expect(throws: OriginError.self) { try await client.fetch(URL(string: base + "/big.m3u8")!) }
            #expect(big?.reason == .tooLarge(limit: 1_000))
            let loop = await #expect(throws: OriginError.self) { try await client.fetch(URL(string: base + "/loop.m3u8")!) }
            #expect(loop?.reason == .tooManyRedirects(limit: 5))
            let file = await #expect(throws: OriginError.self) { try await client.fetch(URL(fileURLWithPath: "/tmp/x.m3u8")) }
            #expect(file?.reason == .notHTTP)
        }
        var retrying = OriginSettings()
        retrying.backoff = .milliseconds(10)
        retrying.connectTimeout = .milliseconds(300)
        let client = OriginClient(settings: retrying)
        // Port 1 on loopback: nothing listens.
        let refused = await #expect(throws: OriginError.self) { try await client.fetch(URL(string: "http://127.0.0.1:1/x.m3u8")!) }
        try await client.shutdown()
        if case .connection? = refused?.reason {} else { Issue.record("\(String(describing: refused))") }
        #expect(refused?.attempts == 3)
    }
}
