import Foundation
import Testing

extension RealClients {
    /// Absolute URIs a request's Host could write (docs/http-api.md "Public address"): interstitial
    /// asset lists name ads on `--public-url` whatever the Host, and without it on the request's
    /// own host, answered private so no shared cache hands one client's host to another.
    @Suite("Public address")
    struct PublicAddressTests {
        /// The asset list of a new interstitial session's first break, asked for with `host` (and
        /// `extra` header lines): its answer head and the URIs it lists.
        static func assetList(_ server: HardeningEndToEndTests.Server, host: String, extra: String = "") throws -> (head: String, uris: [String]) {
            let master = try server.get("/v1/campaigns/evening-news/master.m3u8?session=host-1&insertion=interstitials")
            let playlist = try #require(master.body.split(separator: "\n").first { $0.hasPrefix("sessions/") && $0.hasSuffix(".m3u8") })
            let prefix = "/v1/campaigns/evening-news/" + playlist.split(separator: "/").prefix(2).joined(separator: "/") + "/"
            let answer = try FrontDoorEndToEndTests.raw(
                "GET \(prefix)assets-mid-1.json HTTP/1.1\r\nHost: \(host)\r\n\(extra)Connection: close\r\n",
                port: server.port
            )
            let (head, body) = try #require(FrontDoorEndToEndTests.responses(answer).first)
            let json = try JSONSerialization.jsonObject(with: body) as? [String: Any]
            let uris = (json?["ASSETS"] as? [[String: Any]])?.compactMap { $0["URI"] as? String } ?? []
            return (head, uris)
        }

        /// Whether an asset list's URIs are all under `base`: the ads' media, and (alpha reports
        /// its impression server-side) the session's own copy of a tracked ad's playlists — one of each.
        static func named(_ uris: [String], under base: String) -> Bool {
            let media = uris.filter { $0.hasPrefix(base + "media/") }
            let own = uris.filter { $0.hasPrefix(base + "sessions/") && $0.hasSuffix(".m3u8") }
            return !media.isEmpty && !own.isEmpty && media.count + own.count == uris.count
        }

        @Test("without --public-url: the request's host, validated, answered private; X-Forwarded-* ignored unless trusted")
        func fromTheRequest() async throws {
            let server = try await HardeningEndToEndTests.Server(campaigns: Repository.root.appendingPathComponent("Campaigns"))
            defer { kill(server.process.pid, SIGKILL) }
            let (head, uris) = try Self.assetList(
                server,
                host: "viewer.example:8443",
                extra: "X-Forwarded-Proto: https\r\nX-Forwarded-Host: evil.example\r\n"
            )
            #expect(Self.named(uris, under: "http://viewer.example:8443/v1/campaigns/evening-news/"), "\(uris)")
            #expect(head.lowercased().contains("cache-control: private"), "\(head)")
            // Userinfo, a path or a fragment in Host never reaches a URI.
            for host in ["evil.example@viewer.example", "viewer.example/x", "viewer.example#frag", "a b"] {
                let (_, uris) = try Self.assetList(server, host: host)
                #expect(
                    uris.allSatisfy { !$0.contains("evil") && !$0.contains("#") && !$0.contains(" ") && !$0.hasPrefix("http://viewer.example/x") },
                    "\(host): \(uris)"
                )
            }
        }

        @Test("with --public-url: every asset URI on it whatever the Host, shared-cacheable; --trust-forwarded believes the proxy")
        func fromConfiguration() async throws {
            let server = try await HardeningEndToEndTests.Server(
                campaigns: Repository.root.appendingPathComponent("Campaigns"),
                extra: ["--public-url", "https://ads.example.com"]
            )
            defer { kill(server.process.pid, SIGKILL) }
            let (head, uris) = try Self.assetList(server, host: "evil.example")
            #expect(Self.named(uris, under: "https://ads.example.com/v1/campaigns/evening-news/"), "\(uris)")
            #expect(head.lowercased().contains("cache-control: public"), "\(head)")

            let proxied = try await HardeningEndToEndTests.Server(
                campaigns: Repository.root.appendingPathComponent("Campaigns"),
                extra: ["--trust-forwarded"]
            )
            defer { kill(proxied.process.pid, SIGKILL) }
            let (_, forwarded) = try Self.assetList(
                proxied,
                host: "10.0.0.5:8080",
                extra: "X-Forwarded-Proto: https\r\nX-Forwarded-Host: cdn.example\r\n"
            )
            #expect(!forwarded.isEmpty && forwarded.allSatisfy { $0.hasPrefix("https://cdn.example/") }, "\(forwarded)")
        }
    }
}
