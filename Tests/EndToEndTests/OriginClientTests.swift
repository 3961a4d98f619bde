import AdOrigin
import Foundation
import Testing

/// The origin client against a real HTTP origin on loopback, in a process of its own
/// (scripts/test-origin.py, faults injected by path): what it returns, what it sends, when it
/// tries again and how it fails.
@Suite("Origin client")
struct OriginClientTests {
    static let playlist = "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\ns0.ts\n#EXT-X-ENDLIST\n"

    /// An origin over a folder holding `show/master.m3u8` and a 2 KB `big.m3u8`.
    static func origin() async throws -> (StaticServer, URL) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("origin-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("show"), withIntermediateDirectories: true)
        try Data(Self.playlist.utf8).write(to: root.appendingPathComponent("show/master.m3u8"))
        try Data(String(repeating: "#EXT-X-DISCONTINUITY\n", count: 100).utf8).write(to: root.appendingPathComponent("big.m3u8"))
        return (try await StaticServer(root: root), root)
    }

    static func withClient(_ settings: OriginSettings = OriginSettings(), _ body: (OriginClient) async throws -> Void) async throws {
        let client = OriginClient(settings: settings)
        do {
            try await body(client)
            try await client.shutdown()
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    @Test("a playlist comes back with its bytes, its final URL after redirects, its validators; then 304 is .notModified")
    func fetches() async throws {
        let (origin, root) = try await Self.origin()
        defer { try? FileManager.default.removeItem(at: root) }
        try await Self.withClient { client in
            guard case .fetched(let fetched) = try await client.fetch(origin.url("_/redirect/3/show/master.m3u8")) else {
                Issue.record("not fetched")
                return
            }
            #expect(String(decoding: fetched.bytes, as: UTF8.self) == Self.playlist)
            #expect(fetched.url == origin.url("show/master.m3u8"))
            let etag = try #require(fetched.etag)
            let lastModified = try #require(fetched.lastModified)
            #expect(try await client.fetch(origin.url("show/master.m3u8"), etag: etag) == .notModified)
            #expect(try await client.fetch(origin.url("show/master.m3u8"), lastModified: lastModified) == .notModified)
            // The waiting form, for the loader, gives the same.
            #expect(try client.fetchWaiting(origin.url("show/master.m3u8"), etag: etag) == .notModified)
            #expect(try client.fetchWaiting(origin.url("show/master.m3u8")) == .fetched(fetched))
        }
    }

    @Test("it says who it is")
    func userAgent() async throws {
        let (origin, root) = try await Self.origin()
        defer { try? FileManager.default.removeItem(at: root) }
        try await Self.withClient { client in
            guard case .fetched(let fetched) = try await client.fetch(origin.url("_/agent")) else {
                Issue.record("not fetched")
                return
            }
            #expect(String(decoding: fetched.bytes, as: UTF8.self) == "AdStitch/\(OriginClient.version)")
        }
    }

    @Test("a 4xx fails at once, naming the URL and status; a 5xx is tried three times; 500 then 200 succeeds")
    func statuses() async throws {
        let (origin, root) = try await Self.origin()
        defer { try? FileManager.default.removeItem(at: root) }
        var settings = OriginSettings()
        settings.backoff = .milliseconds(10)
        try await Self.withClient(settings) { client in
            let missing = #expect(throws: OriginError.self) { try client.fetchWaiting(origin.url("_/status/404/show/master.m3u8")) }
            #expect(missing?.reason == .status(404))
            #expect(missing?.description.contains(origin.url("_/status/404/show/master.m3u8").absoluteString + " answered HTTP 404") == true)
            #expect(try origin.hits()["/_/status/404/show/master.m3u8"] == 1)
            let busy = #expect(throws: OriginError.self) { try client.fetchWaiting(origin.url("_/status/503/show/master.m3u8")) }
            #expect(busy?.reason == .status(503))
            #expect(busy?.attempts == 3)
            #expect(busy?.description.contains("answered HTTP 503 (after 3 tries)") == true, "\(String(describing: busy))")
            #expect(try origin.hits()["/_/status/503/show/master.m3u8"] == 3)
            // Two 500s, then the playlist: within three tries.
            guard case .fetched(let recovered) = try client.fetchWaiting(origin.url("_/fail/2/flaky/show/master.m3u8")) else {
                Issue.record("not fetched")
                return
            }
            #expect(String(decoding: recovered.bytes, as: UTF8.self) == Self.playlist)
            #expect(try origin.hits()["/_/fail/2/flaky/show/master.m3u8"] == 3)
        }
    }

    @Test("a slow origin times out; a truncated body, a large playlist and a redirect loop are refused; a refused connection is tried again")
    func limits() async throws {
        let (origin, root) = try await Self.origin()
        defer { try? FileManager.default.removeItem(at: root) }
        var settings = OriginSettings()
        settings.attempts = 1
        settings.maxBytes = 1_000
        settings.timeout = .milliseconds(500)
        try await Self.withClient(settings) { client in
            let slow = #expect(throws: OriginError.self) { try client.fetchWaiting(origin.url("_/slow/2000/show/master.m3u8")) }
            #expect(slow?.reason == .timeout)
            #expect(slow?.description.contains("did not answer in time") == true)
            let truncated = #expect(throws: OriginError.self) { try client.fetchWaiting(origin.url("_/truncate/show/master.m3u8")) }
            #expect(truncated?.reason == .truncated, "\(String(describing: truncated))")
            let big = #expect(throws: OriginError.self) { try client.fetchWaiting(origin.url("big.m3u8")) }
            #expect(big?.reason == .tooLarge(limit: 1_000))
            let loop = #expect(throws: OriginError.self) { try client.fetchWaiting(origin.url("_/loop/show/master.m3u8")) }
            #expect(loop?.reason == .tooManyRedirects(limit: 5))
            let long = #expect(throws: OriginError.self) { try client.fetchWaiting(origin.url("_/redirect/6/show/master.m3u8")) }
            #expect(long?.reason == .tooManyRedirects(limit: 5))
            let file = #expect(throws: OriginError.self) { try client.fetchWaiting(URL(fileURLWithPath: "/tmp/x.m3u8")) }
            #expect(file?.reason == .notHTTP)
        }
        var retrying = OriginSettings()
        retrying.backoff = .milliseconds(10)
        retrying.connectTimeout = .milliseconds(300)
        try await Self.withClient(retrying) { client in
            // Port 1 on loopback: nothing listens.
            let refused = #expect(throws: OriginError.self) { try client.fetchWaiting(URL(string: "http://127.0.0.1:1/x.m3u8")!) }
            if case .connection? = refused?.reason {} else { Issue.record("\(String(describing: refused))") }
            #expect(refused?.attempts == 3)
        }
    }
}

/// What conditioning reads of a creative's source, and what an ad server's links may reach:
/// downloads bounded in bytes and time, each redirect hop checked, a caller that stops waiting
/// freeing its connection.
@Suite("Origin client, bounded")
struct BoundedOriginTests {
    @Test(
        "a download stops at its byte limit (however the answer announces itself), at its time limit on an origin that crawls, and follows redirects; nothing is left on disk after a failure"
    )
    func downloads() async throws {
        let (origin, root) = try await OriginClientTests.origin()
        defer { try? FileManager.default.removeItem(at: root) }
        try Data(count: 64 << 10).write(to: root.appendingPathComponent("source.mp4"))
        let file = root.appendingPathComponent("downloaded").path
        try await OriginClientTests.withClient { client in
            var settings = client.settings
            settings.timeout = .seconds(3)
            settings.maxBytes = 1 << 20
            let whole = try await client.download(origin.url("_/redirect/2/source.mp4"), to: file, settings: settings)
            #expect(whole == 64 << 10 && (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) == 64 << 10)
            settings.maxBytes = 16 << 10
            await #expect {
                try await client.download(origin.url("source.mp4"), to: file, settings: settings)
            } throws: { ($0 as? OriginError).map { if case .tooLarge = $0.reason { true } else { false } } ?? false }
            #expect(!FileManager.default.fileExists(atPath: file))
            // 100 bytes a second: the 64 KiB would take 11 minutes; stopped at the timeout.
            settings.maxBytes = 1 << 20
            settings.timeout = .seconds(2)
            let started = ContinuousClock.now
            await #expect {
                try await client.download(origin.url("_/drip/100/source.mp4"), to: file, settings: settings)
            } throws: { ($0 as? OriginError).map { if case .timeout = $0.reason { true } else { false } } ?? false }
            #expect(ContinuousClock.now - started < .seconds(4))
            #expect(!FileManager.default.fileExists(atPath: file))
        }
    }

    @Test("under an address policy every redirect hop is checked: a trusted host's redirect to an untrusted one is refused, never asked")
    func redirectHops() async throws {
        let (origin, root) = try await OriginClientTests.origin()
        defer { try? FileManager.default.removeItem(at: root) }
        try await OriginClientTests.withClient { client in
            var settings = client.settings
            settings.addresses = AddressPolicy(trustedHosts: ["localhost"])
            settings.attempts = 1
            let port = origin.base.port ?? 0
            // localhost (trusted) redirects three times, relatively: every hop stays on localhost.
            guard
                case .fetched(let fetched) = try await client.fetch(
                    URL(string: "http://localhost:\(port)/_/redirect/3/show/master.m3u8")!,
                    settings: settings
                )
            else {
                Issue.record("not fetched")
                return
            }
            #expect(fetched.url.absoluteString == "http://localhost:\(port)/show/master.m3u8")
            // 127.0.0.1 is not trusted by name, and loopback is not public.
            await #expect {
                try await client.fetch(URL(string: "http://127.0.0.1:\(port)/show/master.m3u8")!, settings: settings)
            } throws: { ($0 as? OriginError).map { if case .refused = $0.reason { true } else { false } } ?? false }
            #expect(try origin.hits()["/show/master.m3u8"] == 1, "the refused request was never made")
        }
    }

    @Test("a fetch whose caller stops waiting is cancelled at once, not left to run to its own timeout")
    func cancelledFetch() async throws {
        let (origin, root) = try await OriginClientTests.origin()
        defer { try? FileManager.default.removeItem(at: root) }
        try await OriginClientTests.withClient { client in
            var settings = client.settings
            settings.timeout = .seconds(30)
            settings.attempts = 1
            let task = Task { try await client.fetch(origin.url("_/slow/20000/show/master.m3u8"), settings: settings) }
            try await Task.sleep(for: .milliseconds(300))
            let started = ContinuousClock.now
            task.cancel()
            let result = await task.result
            #expect(ContinuousClock.now - started < .seconds(2))
            guard case .failure(let error) = result, let origin = error as? OriginError, case .cancelled = origin.reason else {
                Issue.record("not cancelled: \(result)")
                return
            }
        }
    }
}

@Suite("Origin client, validators under a policy")
struct ValidatorsUnderPolicyTests {
    @Test("a HEAD under an address policy answers the validators")
    func head() async throws {
        let (origin, root) = try await OriginClientTests.origin()
        defer { try? FileManager.default.removeItem(at: root) }
        try await OriginClientTests.withClient { client in
            var settings = client.settings
            settings.addresses = AddressPolicy(trustedHosts: ["127.0.0.1"])
            settings.pool = .adServerLinks
            let file = root.appendingPathComponent("d").path
            settings.timeout = .seconds(5)
            let bytes = try await client.download(origin.url("show/master.m3u8"), to: file, settings: settings)
            #expect(bytes > 0)
            let version = await client.validators(origin.url("show/master.m3u8"), timeout: .milliseconds(500), settings: settings)
            #expect(version != nil)
            #expect(await client.refusal(of: origin.url("show/master.m3u8"), under: settings.addresses!) == nil)
        }
    }
}
