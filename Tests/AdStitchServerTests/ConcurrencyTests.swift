import AdCampaignStore
import AdMetrics
import AdStitchServer
import Foundation
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// Many sessions at once stay consistent: each session's playlists agree with its boundary
/// manifest, and asking again gives the same bytes.
@Suite("Concurrent sessions")
struct ConcurrencyTests {
    @Test("64 sessions in parallel, each consistent with itself and with its manifest")
    func manySessions() async throws {
        let route = RouteTests()
        // No response cache: "again" is planned and rendered again, so the test fails if
        // rendering stops being deterministic.
        let app = buildApplication(store: RouteTests.store, policy: SessionPolicy(secret: RouteTests.secret), responseCacheBytes: 0)
        try await app.test(.live) { client in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<64 {
                    group.addTask {
                        let locale = ["es-ES", "en-GB", "fr-FR", "de-DE"][index % 4]
                        let (_, prefix) = try await route.startSession(client, query: "session=c-\(index)&locale=\(locale)")
                        let first = try await client.execute(uri: prefix + "v1.m3u8", method: .get) { String(buffer: $0.body) }
                        let again = try await client.execute(uri: prefix + "v1.m3u8", method: .get) { String(buffer: $0.body) }
                        #expect(first == again)
                        let playlist = try PlaylistParser().parseMediaPlaylist(first)
                        let manifest = try await client.execute(uri: prefix + "boundaries.json", method: .get) { response in
                            try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]
                        }
                        #expect(manifest?["session"] as? String == "c-\(index)")
                        #expect(ExactDecimal("\(manifest?["duration"] ?? "")") == playlist.duration)
                        // Every boundary is where a piece starts: after a discontinuity, or 0.
                        let starts = Set([ExactDecimal.zero] + playlist.segments.filter(\.isDiscontinuity).map(\.startTime))
                        let boundaries = try #require(manifest?["boundaries"] as? [Any])
                        #expect(boundaries.count >= 3, "a session of the demo has breaks")
                        for boundary in boundaries {
                            #expect(starts.contains(try #require(ExactDecimal("\(boundary)"))))
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
    }
}

/// The cache of token-scoped answers: a repeated request gets the same bytes and headers
/// without stitching; it holds no more than its budget; a budget of zero turns it off.
@Suite("Response cache")
struct ResponseCacheTests {
    func fetch(_ client: some TestClientProtocol, _ uri: String, gzip: Bool = false) async throws -> (headers: String, body: Data) {
        try await client.execute(uri: uri, method: .get, headers: gzip ? [.acceptEncoding: "gzip"] : [:]) { response in
            #expect(response.status == .ok)
            let headers = [
                response.headers[.eTag], response.headers[.contentLength], response.headers[.contentEncoding], response.headers[.cacheControl],
            ]
            return ("\(headers)", Data(response.body.readableBytesView))
        }
    }

    /// How many media playlists were stitched, from `/metrics`.
    func stitched(_ client: some TestClientProtocol) async throws -> Int {
        let samples = try await client.execute(uri: "/metrics", method: .get) { MetricsTests.samples(String(buffer: $0.body)) }
        return Int(samples[#"adstitch_stitch_duration_seconds_count{kind="media"}"#] ?? 0)
    }

    @Test("a repeated request is answered from the cache with identical bytes and headers, per encoding")
    func hits() async throws {
        let store = CampaignStore(folder: RouteTests.campaigns, logger: Logger(label: "test"), metrics: ServerMetrics())
        let app = buildApplication(store: store, policy: SessionPolicy(secret: RouteTests.secret))
        try await app.test(.live) { client in
            let (_, prefix) = try await RouteTests().startSession(client)
            let first = try await self.fetch(client, prefix + "v0.m3u8")
            let again = try await self.fetch(client, prefix + "v0.m3u8")
            #expect(first.headers == again.headers && first.body == again.body)
            #expect(try await self.stitched(client) == 1)
            let gzipped = try await self.fetch(client, prefix + "v0.m3u8", gzip: true)
            #expect(gzipped.headers.contains("gzip") && gzipped.body != first.body)
            #expect(try await self.fetch(client, prefix + "v0.m3u8", gzip: true).body == gzipped.body)
            #expect(try await self.stitched(client) == 2)
        }
    }

    @Test("the cache never answers one token with another's bytes: each session gets what a cacheless server renders for it")
    func keyedByToken() async throws {
        let cached = buildApplication(store: RouteTests.store, policy: SessionPolicy(secret: RouteTests.secret))
        let uncached = buildApplication(store: RouteTests.store, policy: SessionPolicy(secret: RouteTests.secret), responseCacheBytes: 0)
        // Two sessions whose ads differ (a Spanish viewer never gets bravo).
        let prefixes = try await cached.test(.live) { client in
            [
                try await RouteTests().startSession(client, query: "session=key-1&locale=es-ES").prefix,
                try await RouteTests().startSession(client, query: "session=key-2&locale=en-GB").prefix,
            ]
        }
        let expected = try await uncached.test(.live) { client in
            [try await self.fetch(client, prefixes[0] + "v0.m3u8").body, try await self.fetch(client, prefixes[1] + "v0.m3u8").body]
        }
        #expect(expected[0] != expected[1])
        try await cached.test(.live) { client in
            for _ in 0..<2 {
                for (prefix, body) in zip(prefixes, expected) {
                    let plain = try await self.fetch(client, prefix + "v0.m3u8")
                    let gzipped = try await self.fetch(client, prefix + "v0.m3u8", gzip: true)
                    #expect(plain.body == body)
                    #expect(gzipped.body != body)
                }
            }
        }
    }

    @Test("the cache holds no more than its budget, and with none every request stitches")
    func budget() async throws {
        for budget in [0, 20 << 10] {
            let store = CampaignStore(folder: RouteTests.campaigns, logger: Logger(label: "test"), metrics: ServerMetrics())
            let app = buildApplication(store: store, policy: SessionPolicy(secret: RouteTests.secret), responseCacheBytes: budget)
            try await app.test(.live) { client in
                var prefixes: [String] = []
                for index in 0..<12 {
                    prefixes.append(try await RouteTests().startSession(client, query: "session=budget-\(index)").prefix)
                }
                var bodies: [Data] = []
                for prefix in prefixes { bodies.append(try await self.fetch(client, prefix + "v1.m3u8").body) }
                // Again, newest first: the newest few are still held, the oldest were evicted.
                for (prefix, body) in zip(prefixes, bodies).reversed() { #expect(try await self.fetch(client, prefix + "v1.m3u8").body == body) }
                let stitched = try await self.stitched(client)
                if budget == 0 {
                    #expect(stitched == 24)
                } else {
                    #expect(
                        bodies.allSatisfy { $0.count + 600 < budget / 4 } && bodies.map(\.count).reduce(0, +) > budget * 3 / 2,
                        "the playlists do not fit the test"
                    )
                    #expect((14...21).contains(stitched), "\(stitched) stitched")
                }
            }
        }
    }
}
