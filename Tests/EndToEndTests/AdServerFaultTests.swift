import Foundation
import HLSPlaylist
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension RealClients {
    /// An ad decision server is a stranger (docs/reliability.md "Ad server faults"): the answers
    /// that used to kill, bloat or stall a replica — absurd numbers, a fan-out of wrappers, 5,000
    /// ads — each against `serve` and the CLI, from `scripts/test-ad-server.py`'s hostile paths;
    /// and what an answer names (wrappers, creatives, trackers) fetched only where the campaign
    /// allows.
    @Suite("Ad server faults", .serialized)
    struct AdServerFaultTests {
        /// The demo on a static origin and the test ad server, with one campaign file per entry of
        /// `requests` (campaign id → the `ad_server:` block's body, given the ad server's base).
        struct Setup {
            let origin: StaticServer
            let adServer: AdServerEndToEndTests.Server
            let folder: URL

            /// `mediaHost`: the name the ad server's creatives are written with (their origin is
            /// on 127.0.0.1; `localhost` names it apart from the ad server's own trackers).
            init(_ requests: [String: (String) -> String], mediaHost: String = "127.0.0.1") async throws {
                self.origin = try await StaticServer(root: RemoteCampaignTests.demo)
                let media = self.origin.base.absoluteString.replacingOccurrences(of: "127.0.0.1", with: mediaHost) + "media/ads"
                self.adServer = try await AdServerEndToEndTests.Server(mediaBase: media)
                self.folder = FileManager.default.temporaryDirectory.appendingPathComponent("ad-faults-\(UUID().uuidString.prefix(8))")
                try FileManager.default.createDirectory(at: self.folder, withIntermediateDirectories: true)
                let base = self.adServer.base
                for (id, request) in requests {
                    let file = try RemoteCampaignTests.campaign(base: self.origin.base.absoluteString) {
                        $0.replacingOccurrences(of: "id: evening-news", with: "id: \(id)") + "\nad_server: \(request(base))\n"
                    }
                    try FileManager.default.moveItem(at: file, to: self.folder.appendingPathComponent("\(id).yaml"))
                    try? FileManager.default.removeItem(at: file.deletingLastPathComponent())
                }
            }

            func file(_ id: String) -> String { self.folder.appendingPathComponent("\(id).yaml").path }
        }

        /// The resident memory of process `pid`, in MiB.
        static func residentMiB(_ pid: pid_t) -> Int {
            let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
            return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) / 1024
        }

        /// A query value: `text` percent-encoded for a URL's query (its `&`, `?`, `=`, `%` too).
        static func query(_ text: String) -> String {
            text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
        }

        @Test(
            "hostile answers — a <Duration> of 2⁶³ hours, 2562047788015216 h or −10 s, VMAP at 50 % or past every integer, 50 wrappers six deep, 5,000 ads: every master answers within the break's timeout, the replica stays small and alive, requests stay within each break's budget"
        )
        func hostileAnswers() async throws {
            let inline = Self.query("/vast/inline?ad=bravo&dur=3.84")
            let cases: [String: (String) -> String] = [
                "duration-max": {
                    "{ trusted_hosts: [127.0.0.1], vast: \"\($0)/vast/duration?value=9223372036854775807:00:00\", fallback: [house] }"
                },
                "duration-huge": { "{ trusted_hosts: [127.0.0.1], vast: \"\($0)/vast/duration?value=2562047788015216:00:00\", fallback: [house] }" },
                "duration-negative": { "{ trusted_hosts: [127.0.0.1], vast: \"\($0)/vast/duration?value=-00:00:10\", fallback: [house] }" },
                "vmap-percent": { "{ trusted_hosts: [127.0.0.1], vmap: \"\($0)/vmap/offset?offset=50%25&to=\(inline)\", fallback: [house] }" },
                "vmap-huge": {
                    "{ trusted_hosts: [127.0.0.1], vmap: \"\($0)/vmap/offset?offset=99999999999999999999:00:00&to=\(inline)\", fallback: [house] }"
                },
                "fanout": {
                    "{ trusted_hosts: [127.0.0.1], vast: \"\($0)/vast/fanout?width=50&depth=6&b={break.id}\", timeout: 2, fallback: [house] }"
                },
                // 1,500 ads fit the 1 MiB an answer may have (5,000 do not: refused whole).
                "many": { "{ trusted_hosts: [127.0.0.1], vast: \"\($0)/vast/many?count=1500&b={break.id}\", timeout: 2, fallback: [house] }" },
                "many-large": { "{ trusted_hosts: [127.0.0.1], vast: \"\($0)/vast/many?count=5000&b={break.id}\", timeout: 2, fallback: [house] }" },
            ]
            let setup = try await Setup(cases)
            defer { try? FileManager.default.removeItem(at: setup.folder) }

            // The CLI first: preview reads each answer, reports what it refused, and exits 0.
            let duration = try await CLITests().adstitch(["preview", setup.file("duration-max"), "--session", "p", "--format", "json"])
            #expect(duration.status == 0, "\(duration.output.suffix(600))")
            #expect(duration.output.contains("is no duration of 0–3600 s"), "\(duration.output.suffix(600))")
            let negative = try await CLITests().adstitch(["preview", setup.file("duration-negative"), "--session", "p"])
            #expect(
                negative.status == 0 && negative.output.contains("<Duration>-00:00:10</Duration> is no duration"),
                "\(negative.output.suffix(600))"
            )
            let percent = try await CLITests().adstitch(["preview", setup.file("vmap-percent"), "--session", "p", "--format", "json"])
            #expect(percent.status == 0, "\(percent.output.suffix(600))")
            // 50 % of the demo's 28.8 s programme is 14.4 s: the break after act-1 (13.44 s) is within 2 s.
            #expect(percent.output.contains("UAID-bravo"), "the VMAP break maps onto mid-1: \(percent.output.suffix(800))")
            let huge = try await CLITests().adstitch(["preview", setup.file("vmap-huge"), "--session", "p"])
            #expect(huge.status == 0 && huge.output.contains("timeOffset"), "\(huge.output.suffix(600))")

            let server = try await HardeningEndToEndTests.Server(campaigns: setup.folder)
            defer { kill(server.process.pid, SIGKILL) }
            let before = Self.residentMiB(server.process.pid)
            var times: [String] = []
            for id in cases.keys.sorted() {
                let started = ContinuousClock.now
                let master = try server.get("/v1/campaigns/\(id)/master.m3u8?session=hostile-\(id)")
                let took = ContinuousClock.now - started
                times.append("\(id) \(took)")
                #expect(master.status == 200, "\(id): \(master.body.prefix(300))")
                // The break's timeout (2 s) bounds the ad server and the creatives together.
                #expect(
                    took < .milliseconds(3_500),
                    "\(id): the master took \(took); \(times); \(((try? String(contentsOf: server.process.log, encoding: .utf8)) ?? "").suffix(1500))"
                )
                #expect(server.healthy(), "\(id)")
            }
            let requests = try await setup.adServer.requests(queries: true)
            let fanout = requests.filter { $0.hasPrefix("/vast/fanout") }
            // Three breaks, each within its budget of requests (it made 1,585 for one session).
            #expect(fanout.count <= 3 * 16, "\(fanout.count) fan-out requests")
            // The wrappers' error pixels: each break's failures bounded, their URLs fired once each.
            let errors = requests.filter { $0.hasPrefix("/track/error") }
            #expect(errors.count <= 3 * 64 * 3, "\(errors.count) error pixels (every hostile campaign's breaks)")
            // The creatives of 5,000 ads: at most 16 loaded per break.
            let creatives = try setup.origin.hits(under: "/media/ads/bravo/master.m3u8")
            #expect(creatives <= 3 * 16 + 1, "\(creatives) creative playlists fetched")
            let after = Self.residentMiB(server.process.pid)
            // The fan-out grew a replica from 46 to 814 MiB.
            #expect(after - before < 120, "RSS \(before) → \(after) MiB")

            // Nothing abandoned holds the ad server's connections: a plain session asks at once.
            let started = ContinuousClock.now
            #expect(try server.get("/v1/campaigns/duration-max/master.m3u8?session=after").status == 200)
            #expect(ContinuousClock.now - started < .seconds(2))
            #expect(try await setup.adServer.requests().last == "/vast/duration")
        }

        @Test(
            "what an answer names is fetched only where the campaign allows: a wrapper to loopback or to 169.254.169.254, a creative on loopback, a redirect from a trusted host to an untrusted one — each refused with why, never asked; trusted by name, the same plays"
        )
        func addressPolicy() async throws {
            var ad = ""
            let cases: [String: (String) -> String] = [
                "metadata": { _ in "{ vast: \"\(ad)/vast/wrap?uri=\(Self.query("http://169.254.169.254/latest/meta-data/"))\", fallback: [house] }" },
                "loopback-wrapper": { base in
                    "{ vast: \"\(base)/vast/wrap?uri=\(Self.query(base + "/vast/inline?ad=bravo&dur=3.84"))\", fallback: [house] }"
                },
                "redirect": { base in
                    let local = base.replacingOccurrences(of: "127.0.0.1", with: "localhost")
                    let hop = local + "/redirect?to=" + Self.query(base + "/vast/inline?ad=bravo&dur=3.84")
                    return "{ trusted_hosts: [localhost], vast: \"\(base)/vast/wrap?uri=\(Self.query(hop))\", fallback: [house] }"
                },
                "loopback-creative": { base in
                    "{ vast: \"\(base)/vast/creative?uri=\(Self.query(base + "/creative/master.m3u8"))\", fallback: [house] }"
                },
                "trusted": { base in
                    "{ trusted_hosts: [127.0.0.1], vast: \"\(base)/vast/wrap?uri=\(Self.query(base + "/vast/inline?ad=bravo&dur=3.84"))\", fallback: [house] }"
                },
            ]
            let setup = try await Setup(
                cases.mapValues { request in
                    { base in
                        ad = base
                        return request(base)
                    }
                }
            )
            defer { try? FileManager.default.removeItem(at: setup.folder) }
            for (id, refusal) in [("metadata", "169.254.169.254, not a public address"), ("loopback-wrapper", "127.0.0.1, not a public address")] {
                let preview = try await CLITests().adstitch(["preview", setup.file(id), "--session", "p"])
                #expect(preview.status == 0 && preview.output.contains(refusal), "\(id): \(preview.output.suffix(800))")
                #expect(!preview.output.contains("plays: UAID-bravo"), "\(id)")
            }
            // The ad server's own request, then nothing it named: no /vast/inline reached it.
            #expect(try await setup.adServer.requests().allSatisfy { $0 == "/vast/wrap" })
            let redirect = try await CLITests().adstitch(["preview", setup.file("redirect"), "--session", "p"])
            #expect(redirect.output.contains("127.0.0.1, not a public address"), "\(redirect.output.suffix(800))")
            #expect(try await setup.adServer.requests().filter { $0 == "/redirect" }.count == 3, "the trusted hop was asked, once per break")
            #expect(try await !setup.adServer.requests().contains("/vast/inline"), "the untrusted hop never was")
            // A creative on loopback: refused, never fetched (the ad server would have logged it).
            let creative = try await CLITests().adstitch(["preview", setup.file("loopback-creative"), "--session", "p"])
            #expect(creative.output.contains("127.0.0.1, not a public address"), "\(creative.output.suffix(800))")
            #expect(try await !setup.adServer.requests().contains("/creative/master.m3u8"))
            // Trusted by name, the same wrapper plays.
            let trusted = try await CLITests().adstitch(["preview", setup.file("trusted"), "--session", "p"])
            #expect(trusted.output.contains("plays: UAID-bravo"), "\(trusted.output.suffix(800))")
        }

        @Test(
            "trackers an answer names go only where the campaign allows: impression to complete on an untrusted loopback host are never requested; the same answer with the host trusted fires each once"
        )
        func trackersFollowThePolicy() async throws {
            // The creatives are named by `localhost` (trusted in both); the ad server's own
            // trackers by 127.0.0.1, trusted in one campaign only.
            let pod = { (base: String) in "\"\(base)/vast/pod?ads=bravo&dur=3.84\", fallback: [house] }" }
            let setup = try await Setup(
                [
                    "pixels-refused": { "{ trusted_hosts: [localhost], vast: \(pod($0))" },
                    "pixels-allowed": { "{ trusted_hosts: [localhost, 127.0.0.1], vast: \(pod($0))" },
                ],
                mediaHost: "localhost"
            )
            defer { try? FileManager.default.removeItem(at: setup.folder) }
            let server = try await HardeningEndToEndTests.Server(campaigns: setup.folder)
            defer { kill(server.process.pid, SIGKILL) }
            for id in ["pixels-refused", "pixels-allowed"] {
                let master = try server.get("/v1/campaigns/\(id)/master.m3u8?session=px")
                #expect(master.status == 200)
                let v0 = try #require(AdServerServeTests.sessionFiles(master.body).first { $0.hasSuffix("/v0.m3u8") })
                let base = "/v1/campaigns/\(id)/" + v0.dropLast("v0.m3u8".count)
                let links = BeaconTests.links(try server.get("/v1/campaigns/\(id)/" + v0).body, base: String(base))
                #expect(!links.isEmpty, "\(id): the creative plays, its segments are beacon links")
                for link in links { #expect(try LoopbackHTTP.exchange("GET", port: server.port, path: link).status == 302) }
            }
            let deadline = Date().addingTimeInterval(10)
            var fired: [String] = []
            while Date() < deadline {
                fired = try await setup.adServer.requests(queries: true).filter { $0.hasPrefix("/track/") }
                if fired.filter({ $0.hasPrefix("/track/complete") }).count >= 3 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            try await Task.sleep(for: .milliseconds(500))
            fired = try await setup.adServer.requests(queries: true).filter { $0.hasPrefix("/track/") }
            // One session's three breaks fired each event once; the other session's never reached the host.
            for event in ["impression", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete"] {
                #expect(fired.filter { $0.hasPrefix("/track/\(event)?") }.count == 3, "\(event): \(fired)")
            }
            let metrics = try server.get("/metrics").body
            #expect(metrics.contains("adstitch_beacons_total{event=\"impression\",outcome=\"refused\"} 3"), "the refused pixels, counted")
        }
    }
}
