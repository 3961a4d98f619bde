import AdCampaignStore
import AdSessions
import AdStitchServer
import CompressNIO
import Crypto
import Foundation
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// Every route and error of the HTTP API, through the router (docs/http-api.md).
@Suite("HTTP routes")
struct RouteTests {
    static let campaigns = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Campaigns")
    static var secret: SymmetricKey { SymmetricKey(data: Data("test-secret".utf8)) }
    static let store = CampaignStore(folder: campaigns, logger: Logger(label: "test"))

    /// The app with the preview tool open (`serve --preview`), as a developer runs it.
    func app(secret: SymmetricKey = Self.secret) -> some ApplicationProtocol {
        var policy = SessionPolicy(secret: secret)
        policy.preview = .open
        return buildApplication(store: Self.store, policy: policy)
    }

    /// The master of a new session and the session's path prefix (`/v1/campaigns/{id}/sessions/{token}/`).
    func startSession(
        _ client: some TestClientProtocol,
        _ campaign: String = "evening-news",
        query: String = "session=s-1&locale=es-ES"
    )
        async throws -> (master: String, prefix: String)
    {
        try await client.execute(uri: "/v1/campaigns/\(campaign)/master.m3u8?\(query)", method: .get) { response in
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/vnd.apple.mpegurl")
            #expect(response.headers[.cacheControl] == "private, no-store")
            let master = String(buffer: response.body)
            let uri = try #require(master.split(separator: "\n").first { $0.hasPrefix("sessions/") && $0.hasSuffix(".m3u8") })
            return (master, "/v1/campaigns/\(campaign)/" + uri.split(separator: "/").prefix(2).joined(separator: "/") + "/")
        }
    }

    @Test("healthz answers")
    func health() async throws {
        try await self.app().test(.live) { client in
            try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
        }
    }

    @Test("GET /v1/campaigns lists the demo campaigns as loaded")
    func listsCampaigns() async throws {
        try await self.app().test(.live) { client in
            try await client.execute(uri: "/v1/campaigns", method: .get) { response in
                #expect(response.status == .ok)
                let json = try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]
                let entries = json?["campaigns"] as? [[String: Any]] ?? []
                #expect(Set(entries.compactMap { $0["id"] as? String }) == ["evening-news", "feature-fmp4", "single-asset", "ad-server-news"])
                // ad-server-news loads without its ad server: it is asked per session start.
                #expect(entries.filter { $0["status"] as? String == "loaded" }.count == 4)
                // The live demo needs its channel's origin (make run starts one); this store reads local files only.
                let live = entries.first { $0["file"] as? String == "live-news.yaml" }
                #expect(live?["status"] as? String == "failed")
                #expect((live?["error"] as? String)?.contains("program.live") == true, "\(live ?? [:])")
            }
        }
    }

    @Test("a session: master, media playlists, boundary manifest and media, all under one signed token")
    func wholeSession() async throws {
        try await self.app().test(.live) { client in
            let (master, prefix) = try await self.startSession(client)
            #expect(master.contains("#EXT-X-SESSION-DATA:DATA-ID=\"com.adstitch.boundaries\",URI=\"sessions/"))
            let media = try await client.execute(uri: prefix + "v0.m3u8", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.accessControlAllowOrigin] == "*")
                return String(buffer: response.body)
            }
            let playlist = try PlaylistParser().parseMediaPlaylist(media)
            #expect(PlaylistLinter().lint(playlist).filter { $0.severity == .error }.isEmpty)
            let first = try #require(playlist.segments.first)
            #expect(first.uri.hasPrefix("/v1/campaigns/evening-news/media/"))
            try await client.execute(uri: String(first.uri), method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "video/mp2t")
                let path = String(first.uri.dropFirst("/v1/campaigns/evening-news/media/".count))
                #expect(
                    Data(response.body.readableBytesView)
                        == FileManager.default.contents(atPath: Self.campaigns.appendingPathComponent("evening-news/\(path)").path)
                )
            }
            try await client.execute(uri: prefix + "boundaries.json", method: .get) { response in
                let manifest = try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]
                #expect(manifest?["session"] as? String == "s-1")
                #expect(ExactDecimal("\(manifest?["duration"] ?? "")") == playlist.duration)
            }
        }
    }

    @Test("the same token gives the same playlists on another replica with the same secret")
    func replicasAgree() async throws {
        let (prefix, first) = try await self.app().test(.live) { client in
            let (_, prefix) = try await self.startSession(client)
            return (prefix, try await client.execute(uri: prefix + "v1.m3u8", method: .get) { String(buffer: $0.body) })
        }
        let replica = buildApplication(
            store: CampaignStore(folder: Self.campaigns, logger: Logger(label: "replica")),
            policy: SessionPolicy(secret: Self.secret)
        )
        try await replica.test(.live) { client in
            let second = try await client.execute(uri: prefix + "v1.m3u8", method: .get) { String(buffer: $0.body) }
            #expect(second == first)
        }
    }

    @Test("an edited token is refused with 403 as problem+json", arguments: ["payload", "signature", "other-secret"])
    func tamperedToken(part: String) async throws {
        try await self.app().test(.live) { client in
            let (_, prefix) = try await self.startSession(client)
            let token = prefix.split(separator: "/")[4]
            let pieces = token.split(separator: ".")
            var edited = String(token)
            switch part {
            case "payload":
                // The session's attributes with another locale: a viewer editing their way out of an ad.
                let json = String(decoding: Data(base64Encoded: String(pieces[0]).padded) ?? Data(), as: UTF8.self)
                    .replacingOccurrences(of: "es-ES", with: "en-GB")
                edited =
                    Data(json.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-")
                    .replacingOccurrences(of: "/", with: "_") + "." + pieces[1]
            case "signature":
                edited = pieces[0] + "." + String(pieces[1].reversed())
            default:
                let other = SessionToken(campaign: "evening-news", revision: "x", session: "s", at: 0, attributes: [:], expires: Int64.max)
                edited = other.encoded(secret: SymmetricKey(data: Data("another secret".utf8)))
            }
            try await client.execute(uri: "/v1/campaigns/evening-news/sessions/\(edited)/v0.m3u8", method: .get) { response in
                #expect(response.status == .forbidden)
                #expect(response.headers[.contentType] == "application/problem+json")
                let problem = try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]
                #expect((problem?["detail"] as? String)?.contains("start a new session") == true)
            }
        }
    }

    @Test("unknown campaigns and renditions are 404, bad query parameters 400, all problem+json")
    func errors() async throws {
        try await self.app().test(.live) { client in
            try await client.execute(uri: "/v1/campaigns/nope/master.m3u8", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(response.headers[.contentType] == "application/problem+json")
            }
            let (_, prefix) = try await self.startSession(client)
            try await client.execute(uri: prefix + "v9.m3u8", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/v1/campaigns/evening-news/master.m3u8?" + String(repeating: "x", count: 100) + "=1", method: .get) {
                #expect($0.status == .badRequest)
            }
            try await client.execute(uri: "/no/such/route", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(response.headers[.contentType] == "application/problem+json")
            }
        }
    }

    @Test(
        "media paths cannot leave the campaign folder, however encoded",
        arguments: [
            "../campaign.yaml", "..%2Fcampaign.yaml", "%2e%2e/%2e%2e/evening-news/campaign.yaml", "media/%2e%2e/%2e%2e/campaign.yaml",
            "..%2F..%2F..%2F..%2Fetc%2Fpasswd", "%2Fetc%2Fpasswd",
        ]
    )
    func pathTraversal(path: String) async throws {
        try await self.app().test(.live) { client in
            try await client.execute(uri: "/v1/campaigns/evening-news/media/" + path, method: .get) { response in
                #expect(response.status == .badRequest || response.status == .notFound, "\(path): \(response.status)")
                #expect(!String(buffer: response.body).contains("version: 1"))
                #expect(!String(buffer: response.body).contains("root:"))
            }
        }
    }

    @Test("byte ranges are answered with 206 and the exact bytes")
    func ranges() async throws {
        try await self.app().test(.live) { client in
            let path = "media/ads/bravo/180p/video.mp4"
            let file = try #require(FileManager.default.contents(atPath: Self.campaigns.appendingPathComponent("feature-fmp4/\(path)").path))
            try await client.execute(uri: "/v1/campaigns/feature-fmp4/media/\(path)", method: .get, headers: [.range: "bytes=100-199"]) { response in
                #expect(response.status == .partialContent)
                #expect(response.headers[.contentRange] == "bytes 100-199/\(file.count)")
                #expect(Data(response.body.readableBytesView) == file[100...199])
            }
            try await client.execute(uri: "/v1/campaigns/feature-fmp4/media/\(path)", method: .get, headers: [.range: "bytes=\(file.count + 10)-"]) {
                #expect($0.status == .rangeNotSatisfiable)
            }
        }
    }

    @Test("ETag and conditional GET, HEAD without a body, CORS and its preflight, readiness")
    func httpSemantics() async throws {
        try await self.app().test(.live) { client in
            let (_, prefix) = try await self.startSession(client)
            let (etag, length) = try await client.execute(uri: prefix + "v0.m3u8", method: .get) { response in
                #expect(response.headers[.accessControlAllowOrigin] == "*")
                return (try #require(response.headers[.eTag]), response.body.readableBytes)
            }
            try await client.execute(uri: prefix + "v0.m3u8", method: .get, headers: [.ifNoneMatch: etag]) { response in
                #expect(response.status == .notModified)
                #expect(response.body.readableBytes == 0)
                #expect(response.headers[.eTag] == etag)
            }
            try await client.execute(uri: prefix + "v0.m3u8", method: .get, headers: [.ifNoneMatch: "\"other\""]) { #expect($0.status == .ok) }
            try await client.execute(uri: prefix + "v0.m3u8", method: .head) { response in
                #expect(response.status == .ok)
                #expect(response.body.readableBytes == 0)
                #expect(response.headers[.contentLength] == String(length))
            }
            try await client.execute(uri: prefix + "boundaries.json", method: .options) { response in
                #expect(response.status == .noContent)
                #expect(response.headers[.accessControlAllowMethods]?.contains("GET") == true)
            }
            try await client.execute(uri: "/readyz", method: .get) { #expect($0.status == .ok) }
        }
    }

    @Test("playlists are gzipped when the client accepts it, with their own ETag, and decompress to the same bytes")
    func gzip() async throws {
        try await self.app().test(.live) { client in
            let (_, prefix) = try await self.startSession(client)
            let (plain, plainTag) = try await client.execute(uri: prefix + "v0.m3u8", method: .get) { response in
                #expect(response.headers[.contentEncoding] == nil)
                return (response.body, response.headers[.eTag])
            }
            try await client.execute(uri: prefix + "v0.m3u8", method: .get, headers: [.acceptEncoding: "br;q=1, gzip;q=0.8"]) { response in
                #expect(response.headers[.contentEncoding] == "gzip")
                #expect(response.headers[.vary] == "Accept-Encoding")
                #expect(response.headers[.eTag] != plainTag)
                var body = response.body
                #expect(body.readableBytes < plain.readableBytes)
                let decompressed = try body.decompress(with: .gzip())
                #expect(decompressed == plain)
            }
            try await client.execute(uri: prefix + "v0.m3u8", method: .get, headers: [.acceptEncoding: "gzip;q=0"]) {
                #expect($0.headers[.contentEncoding] == nil)
            }
        }
    }

    @Test("the viewer context comes from the query, else Accept-Language and User-Agent")
    func contextFromHeaders() async throws {
        try await self.app().test(.live) { client in
            let prefix = try await client.execute(
                uri: "/v1/campaigns/evening-news/master.m3u8?session=h-1",
                method: .get,
                headers: [.acceptLanguage: "es-ES,es;q=0.9", .userAgent: "Mozilla/5.0 (SMART-TV; Tizen 6.0)"]
            ) { response in
                let master = String(buffer: response.body)
                let uri = try #require(master.split(separator: "\n").first { $0.hasPrefix("sessions/") })
                return String(uri.split(separator: "/")[1])
            }
            let token = try #require(SessionToken(decoding: prefix, secret: Self.secret))
            #expect(token.attributes["locale"] == "es-ES")
            #expect(token.attributes["device"] == "tv")
        }
    }
}

extension String {
    /// Base64 padding for a base64url text.
    fileprivate var padded: String {
        let base = self.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        return base + String(repeating: "=", count: (4 - base.count % 4) % 4)
    }
}

/// Interstitial sessions through the router (docs/http-api.md "Insertion").
@Suite("HTTP routes: insertion modes")
struct InsertionRouteTests {
    let routes = RouteTests()

    @Test("insertion=interstitials: primary playlists with interstitial date ranges, asset lists, the manifest says so")
    func interstitialSession() async throws {
        try await self.routes.app().test(.live) { client in
            let (_, prefix) = try await self.routes.startSession(client, query: "session=i-1&insertion=interstitials")
            let media = try await client.execute(uri: prefix + "v0.m3u8", method: .get) { String(buffer: $0.body) }
            #expect(media.contains("CLASS=\"com.apple.hls.interstitial\""))
            #expect(media.contains("X-ASSET-LIST=\"assets-mid-1.json?_HLS_interstitial_id=mid-1\""))
            let list = try await client.execute(uri: prefix + "assets-mid-1.json", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json")
                #expect(response.headers[.accessControlAllowOrigin] == "*")
                return try #require(try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
            }
            let assets = try #require(list["ASSETS"] as? [[String: Any]])
            #expect(!assets.isEmpty)
            // Absolute on the host asked (the test client names none: the path), playable from the media route.
            for asset in assets {
                let uri = try #require(asset["URI"] as? String)
                let path = uri.hasPrefix("http://") ? "/" + uri.dropFirst("http://".count).drop { $0 != "/" }.dropFirst() : Substring(uri)
                #expect(path.hasPrefix("/v1/campaigns/evening-news/media/"), "\(uri)")
                try await client.execute(uri: String(path), method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == "application/vnd.apple.mpegurl")
                    #expect(String(buffer: response.body).contains("#EXT-X-STREAM-INF"))
                }
            }
            try await client.execute(uri: prefix + "boundaries.json", method: .get) { response in
                #expect(String(buffer: response.body).contains("\"insertion\": \"interstitials\""))
            }
            // A break id the campaign does not have, and a stitched session's asset list: 404.
            try await client.execute(uri: prefix + "assets-nope.json", method: .get) { #expect($0.status == .notFound) }
            let (_, stitched) = try await self.routes.startSession(client, query: "session=i-1")
            try await client.execute(uri: stitched + "assets-mid-1.json", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: stitched + "v0.m3u8", method: .get) { response in
                #expect(!String(buffer: response.body).contains("com.apple.hls.interstitial"))
            }
        }
    }

    @Test("an interstitial session's asset list of a break nothing filled (no ad for the viewer, no slate) is a 404 that says so, not a 500")
    func unfilledBreakAssetList() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("unfilled-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let copy = folder.appendingPathComponent("unfilled")
        try FileManager.default.copyItem(at: RouteTests.campaigns.appendingPathComponent("evening-news"), to: copy)
        let yaml = try String(contentsOf: copy.appendingPathComponent("campaign.yaml"), encoding: .utf8)
        let slate = "slate: { playlist: media/slate/master.m3u8 }\n"
        #expect(yaml.contains(slate))
        let edited = yaml.replacingOccurrences(of: "id: evening-news", with: "id: unfilled").replacingOccurrences(of: slate, with: "")
            .replacingOccurrences(
                of: "rules:\n",
                with: "rules:\n  - name: no-ads-in-french\n    when: { attributes: { locale: '^fr' } }\n    then: { exclude: ['.'] }\n"
            )
        try Data(edited.utf8).write(to: copy.appendingPathComponent("campaign.yaml"))
        let app = buildApplication(
            store: CampaignStore(folder: folder, logger: Logger(label: "unfilled")),
            policy: SessionPolicy(secret: RouteTests.secret)
        )
        try await app.test(.live) { client in
            let (_, french) = try await self.routes.startSession(client, "unfilled", query: "session=fr-1&locale=fr-FR&insertion=interstitials")
            try await client.execute(uri: french + "assets-mid-1.json", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(String(buffer: response.body).contains("break mid-1 does not play in this session"))
            }
            let (_, english) = try await self.routes.startSession(client, "unfilled", query: "session=en-1&locale=en-GB&insertion=interstitials")
            try await client.execute(uri: english + "assets-mid-1.json", method: .get) { #expect($0.status == .ok) }
        }
    }

    @Test("insertion=auto: interstitials for AVPlayer on iOS 17 and for hls.js, stitched for others; a bad mode is a 400")
    func autoMode() async throws {
        try await self.routes.app().test(.live) { client in
            func isInterstitial(_ query: String, agent: String) async throws -> Bool {
                let uri = try await client.execute(
                    uri: "/v1/campaigns/evening-news/master.m3u8?session=a-1&\(query)",
                    method: .get,
                    headers: [.userAgent: agent]
                ) { response in
                    #expect(response.status == .ok)
                    return try #require(String(buffer: response.body).split(separator: "\n").first { $0.hasPrefix("sessions/") })
                }
                let media = try await client.execute(uri: "/v1/campaigns/evening-news/" + uri, method: .get) { String(buffer: $0.body) }
                return media.contains("com.apple.hls.interstitial")
            }
            let iPhone = "AppleCoreMedia/1.0.0.21E236 (iPhone; U; CPU OS 17_4 like Mac OS X; de_de)"
            #expect(try await isInterstitial("insertion=auto", agent: iPhone))
            #expect(try await !isInterstitial("insertion=auto", agent: "AppleCoreMedia/1.0.0.17B111 (iPhone; U; CPU OS 13_2 like Mac OS X; en_us)"))
            #expect(try await !isInterstitial("insertion=auto", agent: "Mozilla/5.0 (X11; Linux x86_64) Chrome/120"))
            #expect(try await isInterstitial("insertion=auto&player=hls.js/1.6.15", agent: "Mozilla/5.0 (X11; Linux x86_64) Chrome/120"))
            #expect(try await !isInterstitial("insertion=stitched", agent: iPhone))
            // The campaign says stitched: without insertion=, even AVPlayer gets a stitched session.
            #expect(try await !isInterstitial("x=1", agent: iPhone))
            try await client.execute(uri: "/v1/campaigns/evening-news/master.m3u8?insertion=both", method: .get) { response in
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body).contains("stitched, interstitials or auto"))
            }
        }
    }

    @Test("the media route serves ads' and the slate's playlists, never the programme's")
    func mediaPlaylists() async throws {
        try await self.routes.app().test(.live) { client in
            try await client.execute(uri: "/v1/campaigns/evening-news/media/media/ads/alpha/master.m3u8", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/v1/campaigns/evening-news/media/media/program/act-1/master.m3u8", method: .get) {
                #expect($0.status == .notFound)
            }
        }
    }
}
