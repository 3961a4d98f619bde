import AdCampaign
import AdCampaignStore
import AdSessions
import AdStitchServer
import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

/// No viewer may choose their way out of ads: signed session starts, trusted attributes,
/// expiring tokens, key rotation, preview tokens (docs/http-api.md "Session security").
@Suite("Session security")
struct SessionSecurityTests {
    static let startKey = Data("backend-start-key".utf8)

    /// A clock the test moves.
    final class Clock: Sendable {
        private let date = Mutex(Date(timeIntervalSince1970: 1_795_000_000))
        var now: Date { self.date.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { self.date.withLock { $0 += seconds } }
    }

    func app(_ policy: SessionPolicy) -> some ApplicationProtocol {
        buildApplication(store: RouteTests.store, policy: policy)
    }

    func policy(startKey: Data? = nil, clock: Clock? = nil, secrets: [String] = ["test-secret"]) -> SessionPolicy {
        var policy = SessionPolicy(secrets: secrets.map { Data($0.utf8) }, startKey: startKey)
        policy.preview = .open
        if let clock { policy.now = { clock.now } }
        return policy
    }

    /// The query with `sig` appended, signed as an app backend would.
    static func signed(_ pairs: [(String, String)]) -> String {
        let query = pairs.map { (name: $0.0, value: $0.1) }
        let sig = SessionPolicy.signature(of: query, key: Self.startKey)
        return (pairs + [("sig", sig)]).map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0.1)" }.joined(
            separator: "&"
        )
    }

    static func problem(_ response: TestResponse) throws -> String {
        #expect(response.headers[.contentType] == "application/problem+json")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
        return try #require(json["detail"] as? String)
    }

    /// The token in a master's first media playlist URI.
    static func token(_ master: String) throws -> String {
        let uri = try #require(master.split(separator: "\n").first { $0.hasPrefix("sessions/") })
        return String(uri.split(separator: "/")[1])
    }

    @Test("with a start key, a session start needs exp and sig over its whole query; a valid one honours seen")
    func signedStarts() async throws {
        let clock = Clock()
        let exp = String(Int(clock.now.timeIntervalSince1970) + 300)
        let pairs = [("session", "b-1"), ("locale", "en-GB"), ("seen", "alpha,delta"), ("exp", exp)]
        try await self.app(self.policy(startKey: Self.startKey, clock: clock)).test(.live) { client in
            let base = "/v1/campaigns/evening-news/master.m3u8?"
            for (query, says) in [
                ("session=b-1&locale=en-GB", "add exp=<unix seconds> and sig="),
                ("session=b-1&exp=\(exp)", "has no sig"),
                (Self.signed(pairs).replacingOccurrences(of: "locale=en%2DGB", with: "locale=es"), "does not match"),
                (Self.signed(pairs) + "&tier=gold", "does not match"),
                (Self.signed([("session", "b-1"), ("exp", "1000")]), "expired"),
            ] {
                try await client.execute(uri: base + query, method: .get) { response in
                    #expect(response.status == .forbidden, "\(query)")
                    let detail = try Self.problem(response)
                    #expect(detail.contains(says), "\(query)")
                }
            }
            let token = try await client.execute(uri: base + Self.signed(pairs), method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.init("AdStitch-Ignored-Attributes")!] == nil)
                return try Self.token(String(buffer: response.body))
            }
            let decoded = try #require(SessionToken(decoding: token, secret: SymmetricKey(data: Data("test-secret".utf8))))
            #expect(decoded.attributes["seen"] == "alpha,delta")
            #expect(decoded.attributes["exp"] == nil && decoded.attributes["sig"] == nil)
        }
    }

    @Test("without a start key, seen is ignored on session starts: claiming every ad seen still plays ads")
    func unsignedStartsIgnoreTrustedAttributes() async throws {
        try await self.app(self.policy()).test(.live) { client in
            let master = try await client.execute(
                uri: "/v1/campaigns/evening-news/master.m3u8?session=u-1&seen=alpha,bravo,charlie,delta",
                method: .get
            ) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.init("AdStitch-Ignored-Attributes")!] == "seen")
                return String(buffer: response.body)
            }
            let token = try Self.token(master)
            #expect(SessionToken(decoding: token, secret: SymmetricKey(data: Data("test-secret".utf8)))?.attributes["seen"] == nil)
            try await client.execute(uri: "/v1/campaigns/evening-news/sessions/\(token)/boundaries.json", method: .get) { response in
                let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
                let breaks = try #require(json["breaks"] as? [[String: Any]])
                let ads = breaks.flatMap { ($0["ads"] as? [[String: Any]]) ?? [] }.filter { $0["slate"] == nil }
                #expect(ads.count >= 3, "a viewer claiming to have seen every ad still gets ads")
            }
        }
    }

    @Test(
        "headers never set a trusted attribute, signed start or not; untrusted ones come from headers, bounded",
        arguments: [false, true]
    )
    func headersGoThroughTheTrustCheck(signedStart: Bool) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trusted-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: RouteTests.campaigns.appendingPathComponent("evening-news"), to: folder.appendingPathComponent("news"))
        let file = folder.appendingPathComponent("news/campaign.yaml")
        let yaml = try String(contentsOf: file, encoding: .utf8)
        try (yaml + "\ntrusted_attributes: [seen, locale, device]\n").write(to: file, atomically: true, encoding: .utf8)
        let store = CampaignStore(folder: folder, logger: Logger(label: "test"))
        let clock = Clock()
        let policy = self.policy(startKey: signedStart ? Self.startKey : nil, clock: clock)
        let query = signedStart ? Self.signed([("session", "h-1"), ("exp", String(Int(clock.now.timeIntervalSince1970) + 300))]) : "session=h-1"
        let tvAgent = "Mozilla/5.0 (SMART-TV; Linux; Tizen 6.0) AppleWebKit/537.36"
        try await buildApplication(store: store, policy: policy).test(.live) { client in
            let token = try await client.execute(
                uri: "/v1/campaigns/evening-news/master.m3u8?\(query)",
                method: .get,
                headers: [.acceptLanguage: "es-ES,es;q=0.9", .userAgent: tvAgent]
            ) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.init("AdStitch-Ignored-Attributes")!] == "device, locale")
                return try Self.token(String(buffer: response.body))
            }
            let decoded = try #require(SessionToken(decoding: token, secret: SymmetricKey(data: Data("test-secret".utf8))))
            #expect(decoded.attributes["locale"] == nil && decoded.attributes["device"] == nil, "\(decoded.attributes)")
        }
        // The demo campaign trusts only `seen`: there headers fill locale and device, and a 70,000-byte
        // Accept-Language sets nothing rather than minting a token the server would refuse.
        try await self.app(self.policy()).test(.live) { client in
            for (language, locale) in [("es-ES,es;q=0.9", "es-ES"), (String(repeating: "x", count: 70_000), nil)] {
                let token = try await client.execute(
                    uri: "/v1/campaigns/evening-news/master.m3u8?session=h-2",
                    method: .get,
                    headers: [.acceptLanguage: language, .userAgent: tvAgent]
                ) { response in
                    #expect(response.status == .ok)
                    return try Self.token(String(buffer: response.body))
                }
                let decoded = try #require(SessionToken(decoding: token, secret: SymmetricKey(data: Data("test-secret".utf8))))
                #expect(decoded.attributes["locale"] == locale && decoded.attributes["device"] == "tv")
                try await client.execute(uri: "/v1/campaigns/evening-news/sessions/\(token)/boundaries.json", method: .get) { response in
                    #expect(response.status == .ok, "every token minted is one the server takes")
                }
            }
        }
    }

    @Test("a token stops playing after --session-ttl, cached answers included (410 that says to start again); its events are no longer listed")
    func tokensExpire() async throws {
        let clock = Clock()
        var policy = self.policy(clock: clock)
        policy.sessionTTL = .seconds(600)
        try await self.app(policy).test(.live) { client in
            let master = try await client.execute(uri: "/v1/campaigns/evening-news/master.m3u8?session=e-1", method: .get) { String(buffer: $0.body) }
            let token = try Self.token(master)
            let prefix = "/v1/campaigns/evening-news/sessions/\(token)/"
            try await client.execute(uri: prefix + "v0.m3u8", method: .get) { #expect($0.status == .ok) }
            // This application fires no beacons: a live token's events are not found, not gone.
            try await client.execute(uri: "/v1/sessions/\(token)/events", method: .get) { #expect($0.status == .notFound) }
            clock.advance(599)
            try await client.execute(uri: prefix + "v0.m3u8", method: .get) { #expect($0.status == .ok) }
            clock.advance(1)
            for file in ["v0.m3u8", "boundaries.json"] {  // the first is in the response cache, the second is not
                try await client.execute(uri: prefix + file, method: .get) { response in
                    #expect(response.status == .gone, "\(file)")
                    let detail = try Self.problem(response)
                    #expect(detail.contains("start a new session"))
                }
            }
            try await client.execute(uri: "/v1/sessions/\(token)/events", method: .get) { #expect($0.status == .gone) }
        }
    }

    @Test("keys rotate: the first secret signs, every one verifies; a dropped key ends its sessions")
    func keyRotation() async throws {
        let token = try await self.app(self.policy(secrets: ["old-key"])).test(.live) { client in
            try await client.execute(uri: "/v1/campaigns/evening-news/master.m3u8?session=k-1", method: .get) {
                try Self.token(String(buffer: $0.body))
            }
        }
        try await self.app(self.policy(secrets: ["new-key", "old-key"])).test(.live) { client in
            try await client.execute(uri: "/v1/campaigns/evening-news/sessions/\(token)/v0.m3u8", method: .get) { #expect($0.status == .ok) }
            let fresh = try await client.execute(uri: "/v1/campaigns/evening-news/master.m3u8?session=k-2", method: .get) {
                try Self.token(String(buffer: $0.body))
            }
            #expect(SessionToken(decoding: fresh, secret: SymmetricKey(data: Data("new-key".utf8))) != nil)
            #expect(SessionToken(decoding: fresh, secret: SymmetricKey(data: Data("old-key".utf8))) == nil)
        }
        try await self.app(self.policy(secrets: ["new-key"])).test(.live) { client in
            try await client.execute(uri: "/v1/campaigns/evening-news/sessions/\(token)/v0.m3u8", method: .get) { #expect($0.status == .forbidden) }
        }
    }

    @Test("a signed token with a decision time near Int64.max is refused, not a crash")
    func absurdDecisionTime() async throws {
        let secret = SymmetricKey(data: Data("test-secret".utf8))
        let revision = try #require(RouteTests.store.campaign("evening-news")?.campaign.revision)
        let tokens = [Int64.max - 5, Int64.min, -1, 253_402_300_799_999].map { at in
            SessionToken(campaign: "evening-news", revision: revision, session: "t", at: at, attributes: [:], expires: Int64.max).encoded(
                secret: secret
            )
        }
        try await self.app(self.policy()).test(.live) { client in
            for token in tokens {
                try await client.execute(uri: "/v1/campaigns/evening-news/sessions/\(token)/v0.m3u8", method: .get) {
                    #expect($0.status == .forbidden, "\(token)")
                }
            }
            try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
        }
    }

    @Test("bandwidth=2^63-1 on a session start is a 400 naming the parameter; the preview plans it without trapping")
    func hugeBandwidth() async throws {
        try await self.app(self.policy()).test(.live) { client in
            for value in ["9223372036854775807", "0", "-5", "1e9", "fast"] {
                try await client.execute(uri: "/v1/campaigns/evening-news/master.m3u8?bandwidth=\(value)", method: .get) { response in
                    #expect(response.status == .badRequest, "\(value)")
                    let detail = try Self.problem(response)
                    #expect(detail.contains("bandwidth=\(value) must be"))
                }
            }
            try await client.execute(uri: "/v1/campaigns/evening-news/master.m3u8?bandwidth=9007199254740991", method: .get) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: "/preview/evening-news/report.json?bandwidth=9223372036854775807", method: .get) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
        }
    }

    @Test("by default the preview tool's routes are not served (a preview session chooses its time and attributes: no ads)")
    func previewOff() async throws {
        #expect(SessionPolicy(secrets: [Data("s".utf8)]).preview == .off)
        var policy = self.policy()
        policy.preview = .off
        try await self.app(policy).test(.live) { client in
            for uri in ["/preview", "/preview/evening-news", "/preview/evening-news/master.m3u8", "/preview/evening-news/report.json"] {
                try await client.execute(uri: uri, method: .get) { #expect($0.status == .notFound, "\(uri)") }
            }
            try await client.execute(uri: "/v1/campaigns/evening-news/master.m3u8", method: .get) { #expect($0.status == .ok) }
        }
    }

    @Test("--preview-key: every preview route, session files included, needs the key (header or the cookie /preview?key= sets)")
    func previewKey() async throws {
        var policy = self.policy()
        policy.preview = .key(Data("operator-key".utf8))
        try await self.app(policy).test(.live) { client in
            let uris = [
                "/preview", "/preview/evening-news?seen=alpha,bravo,charlie,delta", "/preview/evening-news/compare?count=2",
                "/preview/evening-news/report.json", "/preview/assets/preview.js", "/preview/evening-news/master.m3u8?seen=alpha",
            ]
            for uri in uris {
                try await client.execute(uri: uri, method: .get) { #expect($0.status == .forbidden, "\(uri) without the key") }
                try await client.execute(uri: uri, method: .get, headers: [.init("AdStitch-Preview-Key")!: "wrong"]) {
                    #expect($0.status == .forbidden, "\(uri) with a wrong key")
                }
                try await client.execute(uri: uri, method: .get, headers: [.init("AdStitch-Preview-Key")!: "operator-key"]) {
                    #expect($0.status == .ok, "\(uri) with the key")
                }
            }
            // A browser: /preview?key= sets the cookie, which then opens every route.
            let cookie = try await client.execute(uri: "/preview?key=operator-key", method: .get) { response in
                #expect(response.status == .seeOther && response.headers[.location] == "/preview")
                let setCookie = try #require(response.headers[.setCookie])
                #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict") && setCookie.contains("Path=/preview"))
                return String(try #require(setCookie.split(separator: ";").first))
            }
            try await client.execute(uri: "/preview?key=wrong", method: .get) { #expect($0.status == .forbidden) }
            let master = try await client.execute(uri: "/preview/evening-news/master.m3u8", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.status == .ok)
                return String(buffer: response.body)
            }
            // The preview session's files need the key too: without it the session is no stream.
            let playlist = try #require(master.split(separator: "\n").first { $0.contains("sessions/") && $0.hasSuffix(".m3u8") })
            let path = playlist.hasPrefix("/") ? String(playlist) : "/preview/evening-news/" + playlist
            try await client.execute(uri: path, method: .get) { #expect($0.status == .forbidden, "\(path) without the key") }
            try await client.execute(uri: path, method: .get, headers: [.cookie: "other=1; " + cookie]) { #expect($0.status == .ok) }
        }
    }

    @Test("a session start whose attributes would make a token too long to fetch is a 400, on the API and in the preview")
    func tokensStayFetchable() async throws {
        let big = String(repeating: "x", count: 1024)
        let query = (0..<9).map { "k\($0)=\(big)" }.joined(separator: "&")
        try await self.app(self.policy()).test(.live) { client in
            try await client.execute(uri: "/v1/campaigns/evening-news/master.m3u8?\(query)", method: .get) { response in
                #expect(response.status == .badRequest)
                let detail = try Self.problem(response)
                #expect(detail.contains("more than 8192 bytes"))
            }
            try await client.execute(uri: "/preview/evening-news/master.m3u8?\(query)", method: .get) { #expect($0.status == .badRequest) }
            // Seven such attributes fit, and every URI of the session can be fetched.
            let fits = (0..<7).map { "k\($0)=\(big)" }.joined(separator: "&")
            let master = try await client.execute(uri: "/v1/campaigns/evening-news/master.m3u8?\(fits)", method: .get) { response in
                #expect(response.status == .ok)
                return String(buffer: response.body)
            }
            let prefix = "/v1/campaigns/evening-news/sessions/\(try Self.token(master))/"
            #expect(prefix.utf8.count < 16_384)
            try await client.execute(uri: prefix + "v0.m3u8", method: .get) { #expect($0.status == .ok) }
        }
    }
}
