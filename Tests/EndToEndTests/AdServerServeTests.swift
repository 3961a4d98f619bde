import Foundation
import HLSPlaylist
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension RealClients {
    /// `adstitch serve` with a campaign fed by `scripts/test-ad-server.py`: the master asks the ad
    /// server for every break at once on the viewer's behalf, records what it decided, and every
    /// replica sharing the database serves the same ads in every file of the session.
    @Suite("Ad server sessions through serve", .serialized)
    struct AdServerServeTests {
        /// The demo's programme and ads on a static origin, an ad server whose creatives are the
        /// demo's ads there, and a campaign folder asking it (`request`: the ad_server line's body).
        struct Setup {
            let origin: StaticServer
            let adServer: AdServerEndToEndTests.Server
            let folder: URL

            init(_ request: (String) -> String) async throws {
                self.origin = try await StaticServer(root: RemoteCampaignTests.demo)
                self.adServer = try await AdServerEndToEndTests.Server(mediaBase: self.origin.base.absoluteString + "media/ads")
                let base = self.adServer.base
                let file = try RemoteCampaignTests.campaign(base: self.origin.base.absoluteString) { $0 + "\nad_server: \(request(base))\n" }
                self.folder = file.deletingLastPathComponent()
            }
        }

        /// Runs `body` with the evening-news campaign whose ad server answers a pod of bravo (3.84 s)
        /// and delta (1.92 s) per break, the house pool filling the rest, served by two replicas
        /// sharing one PostgreSQL; everything is stopped and removed after.
        static func withPodReplicas(
            _ body: (Setup, HardeningEndToEndTests.Server, HardeningEndToEndTests.Server) async throws -> Void
        ) async throws {
            let database = try await PostgresServer()
            let setup = try await Setup {
                "{ trusted_hosts: [127.0.0.1], vast: \"\($0)/vast/pod?ads=bravo,delta&dur=3.84,1.92&sid={session}&pos={break.position}\", timeout: 2, fallback: [house] }"
            }
            defer { try? FileManager.default.removeItem(at: setup.folder) }
            // Replicas behind a balancer they trust: its X-Forwarded-For names the viewer.
            let a = try await HardeningEndToEndTests.Server(campaigns: setup.folder, extra: ["--database", database.url, "--trust-forwarded"])
            defer { kill(a.process.pid, SIGKILL) }
            let b = try await HardeningEndToEndTests.Server(campaigns: setup.folder, extra: ["--database", database.url, "--trust-forwarded"])
            defer { kill(b.process.pid, SIGKILL) }
            try await body(setup, a, b)
        }

        /// The ad ids of each break of a boundary manifest (slate left out).
        static func ads(_ manifest: String) -> [String: [String]] {
            let json = try? JSONSerialization.jsonObject(with: Data(manifest.utf8)) as? [String: Any]
            var ads: [String: [String]] = [:]
            for item in json?["breaks"] as? [[String: Any]] ?? [] {
                guard let id = item["id"] as? String else { continue }
                ads[id] = (item["ads"] as? [[String: Any]] ?? []).filter { $0["slate"] as? Bool != true }.compactMap { $0["id"] as? String }
            }
            return ads
        }

        /// Every session file a master names: its variants' lines and its renditions' `URI`s.
        static func sessionFiles(_ master: String) -> [String] {
            var files: [String] = []
            for line in master.split(separator: "\n") {
                if line.hasPrefix("sessions/") {
                    files.append(String(line))
                } else if let range = line.range(of: "URI=\"sessions/") {
                    let rest = line[line.index(range.upperBound, offsetBy: -9)...]
                    files.append(String(rest.prefix { $0 != "\"" }))
                }
            }
            return files
        }

        @Test(
            "two replicas sharing PostgreSQL: one master asks once per break with the viewer's device headers; the other replica serves every file of the session byte for byte alike, the pod first; hls.js plays it (stitched and interstitials), GStreamer decodes it"
        )
        func replicasServeTheDecidedAds() async throws {
            try await Self.withPodReplicas { setup, a, b in try await Self.replicasServeTheDecidedAds(setup, a, b) }
        }

        static func replicasServeTheDecidedAds(_ setup: Setup, _ a: HardeningEndToEndTests.Server, _ b: HardeningEndToEndTests.Server) async throws {

            let started = ContinuousClock.now
            let answer = try LoopbackHTTP.exchange(
                "GET",
                port: a.port,
                path: "/v1/campaigns/evening-news/master.m3u8?session=ads-1",
                headers: [("User-Agent", "AdStitchTest/1.0"), ("X-Forwarded-For", "203.0.113.7, 10.0.0.1"), ("Accept-Language", "es-ES")]
            )
            let took = ContinuousClock.now - started
            #expect(answer.status == 200)
            let master = String(decoding: answer.body, as: UTF8.self)
            let files = Self.sessionFiles(master)
            #expect(files.count == 3, "two variants and the manifest: \(master)")
            let v0 = try #require(files.first { $0.hasSuffix("/v0.m3u8") })
            let boundaries = v0.replacingOccurrences(of: "v0.m3u8", with: "boundaries.json")
            let prefix = "/v1/campaigns/evening-news/"

            // Replica B never saw the session start: it reads the decisions and answers alike.
            for file in files + [boundaries] {
                let fromB = try b.get(prefix + file)
                let fromA = try a.get(prefix + file)
                #expect(fromB.status == 200 && fromA.status == 200, "\(file): \(fromB.body)")
                #expect(fromB.body == fromA.body, "\(file) differs between replicas")
            }
            let ads = Self.ads(try b.get(prefix + boundaries).body)
            #expect(ads["preroll"] == ["UAID-bravo", "UAID-delta"], "\(ads)")
            #expect(Array(ads["mid-1"]?.prefix(2) ?? []) == ["UAID-bravo", "UAID-delta"])
            #expect(ads["postroll"] == ["UAID-bravo"], "4 s: the 1.92 s creative no longer fits after the 3.84 s one")
            // The creatives' segments come from the ad server's media, as its playlists name them.
            let variant = try b.get(prefix + v0).body
            #expect(variant.contains(setup.origin.base.absoluteString + "media/ads/"), "\(variant)")

            // One request per break, made by A alone, with the viewer's device headers (VAST 4.3 §2.4.2).
            let requests = try await Self.requestLog(setup.adServer)
            #expect(requests.count == 3, "\(requests)")
            #expect(Set(requests.compactMap { ($0["query"] as? String)?.components(separatedBy: "pos=").last }) == ["pre", "mid", "post"])
            for request in requests {
                let headers = request["headers"] as? [String: String] ?? [:]
                #expect(headers["X-Device-IP"] == "203.0.113.7", "\(headers)")
                #expect(headers["X-Device-User-Agent"] == "AdStitchTest/1.0")
                #expect(headers["X-Device-Accept-Language"] == "es-ES")
            }
            // Interstitials: the same decisions name the break's assets, from either replica.
            let interstitial = try a.get("/v1/campaigns/evening-news/master.m3u8?session=ads-2&insertion=interstitials")
            #expect(interstitial.status == 200)
            let primaryPath = try #require(Self.sessionFiles(interstitial.body).first { $0.hasSuffix("/v0.m3u8") })
            let primary = try b.get(prefix + primaryPath).body
            let list = try #require(primary.components(separatedBy: "X-ASSET-LIST=\"").dropFirst().first?.prefix { $0 != "\"" })
            // Relative to the primary playlist.
            let assets = try b.get(prefix + primaryPath.replacingOccurrences(of: "v0.m3u8", with: String(list))).body
            // The ad server's creatives have tracking: each is the session's own copy of its
            // playlists (docs/http-api.md "Beacons"), whose segments are the creative's on the origin.
            let listed = (try JSONSerialization.jsonObject(with: Data(assets.utf8)) as? [String: Any])?["ASSETS"] as? [[String: Any]] ?? []
            let adPath = try #require(
                listed.compactMap { ($0["URI"] as? String).flatMap(URL.init(string:))?.path }.first { $0.contains("/sessions/") },
                "\(list): \(assets)"
            )
            let adVariant = try #require(try b.get(adPath).body.split(separator: "\n").first { !$0.hasPrefix("#") })
            let adMedia = try b.get(URL(fileURLWithPath: adPath).deletingLastPathComponent().path + "/" + adVariant).body
            let adSegments = adMedia.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(BeaconTests.target)
            #expect(!adSegments.isEmpty && adSegments.allSatisfy { $0.hasPrefix(setup.origin.base.absoluteString + "media/ads/") }, "\(adMedia)")
            let metrics = try a.get("/metrics").body
            #expect(
                metrics.contains("adstitch_ad_server_requests_total{outcome=\"filled\"} 6"),
                "\(metrics.split(separator: "\n").filter { $0.contains("ad_server") })"
            )
            print("↳ master with 3 breaks asked at once: \(took)")

            // The preview page and its plan report ask the ad server for the form's viewer and show
            // each break's request and answer.
            let page = try a.get("/preview/evening-news?session=preview-1")
            #expect(page.status == 200)
            #expect(
                page.body.contains("<h2>Ad server</h2>") && page.body.contains("<code>UAID-bravo</code>, <code>UAID-delta</code>"),
                "\(page.body)"
            )
            let report =
                try JSONSerialization.jsonObject(with: Data(try a.get("/preview/evening-news/report.json?session=preview-1").body.utf8))
                as? [String: Any]
            let answers = report?["adServer"] as? [[String: Any]] ?? []
            #expect(answers.map { $0["break"] as? String } == ["preroll", "mid-1", "postroll"], "\(report ?? [:])")
            #expect(answers.last?["played"] as? [String] == ["UAID-bravo"])

            // hls.js (MSE) plays both sessions to the end from replica B: the stitched one, and the
            // interstitial one whose asset lists name the creatives.
            let stitchedPlay = try await InterstitialEndToEndTests.playWithHlsJs(port: b.port, campaign: "evening-news", master: master)
            #expect(stitchedPlay.contains { $0.hasPrefix("ended:") }, "\(stitchedPlay)")
            let interstitialPlay = try await InterstitialEndToEndTests.playWithHlsJs(
                port: b.port,
                campaign: "evening-news",
                master: interstitial.body
            )
            #expect(interstitialPlay.filter { $0.hasPrefix("list:") }.count == 3, "\(interstitialPlay)")
            #expect(interstitialPlay.contains { $0.hasPrefix("end:") }, "\(interstitialPlay)")

            // GStreamer decodes the session from replica B: programme and creatives, every frame.
            let manifest = try JSONSerialization.jsonObject(with: Data(try b.get(prefix + boundaries).body.utf8)) as? [String: Any]
            let duration = try #require(ExactDecimal("\(manifest?["duration"] ?? "")"))
            let url = try #require(URL(string: "http://127.0.0.1:\(b.port)\(prefix)\(v0)"))
            let decoded = try await Decoded(url, scratch: FileManager.default.temporaryDirectory, audio: false)
            #expect(decoded.videoFrames == RealClientTests.frames(duration, fps: 25), "\(decoded.videoFrames) frames for \(duration) s")
        }

        @Test(
            "a creative's playlists changed at its origin play in sessions started after the poll interval (--origin-poll); a session started before keeps its bytes"
        )
        func creativesRevalidate() async throws {
            // The creatives on an origin of their own, a copy this test edits.
            let creatives = FileManager.default.temporaryDirectory.appendingPathComponent("creatives-\(UUID().uuidString.prefix(8))")
            try FileManager.default.copyItem(at: RemoteCampaignTests.demo.appendingPathComponent("media/ads"), to: creatives)
            defer { try? FileManager.default.removeItem(at: creatives) }
            let creativeOrigin = try await StaticServer(root: creatives)
            let origin = try await StaticServer(root: RemoteCampaignTests.demo)
            let adServer = try await AdServerEndToEndTests.Server(mediaBase: String(creativeOrigin.base.absoluteString.dropLast()))
            let file = try RemoteCampaignTests.campaign(base: origin.base.absoluteString) {
                $0
                    + "\nad_server: { trusted_hosts: [127.0.0.1], vast: \"\(adServer.base)/vast/inline?ad=bravo&dur=3.84\", timeout: 2, fallback: [house] }\n"
            }
            defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
            let server = try await HardeningEndToEndTests.Server(campaigns: file.deletingLastPathComponent(), extra: ["--origin-poll", "1"])
            defer { kill(server.process.pid, SIGKILL) }
            let prefix = "/v1/campaigns/evening-news/"
            func variant(_ session: String) throws -> (path: String, body: String) {
                let master = try server.get(prefix + "master.m3u8?session=\(session)")
                let path = prefix + (try #require(Self.sessionFiles(master.body).first { $0.hasSuffix("/v0.m3u8") }))
                return (path, try server.get(path).body)
            }
            // The creative's segments where its events fall are beacon links naming them (`?to=`, percent-encoded).
            func named(_ body: String) -> String { body.removingPercentEncoding ?? body }
            let before = try variant("revalidate-1")
            #expect(
                named(before.body).contains(creativeOrigin.base.absoluteString + "bravo/") && !named(before.body).contains("?v=2"),
                "\(before.body)"
            )

            // The creative's playlists change at its origin: new segment URIs.
            for rendition in ["180p", "360p"] {
                let playlist = creatives.appendingPathComponent("bravo/\(rendition)/index.m3u8")
                let text = try String(contentsOf: playlist, encoding: .utf8)
                try Data(text.replacingOccurrences(of: ".ts\n", with: ".ts?v=2\n").utf8).write(to: playlist)
            }
            try await Task.sleep(for: .milliseconds(1_200))
            var changedAfter: Int?
            for attempt in 0..<20 {
                if named(try variant("revalidate-after-\(attempt)").body).contains("bravo/180p/seg_000.ts?v=2") {
                    changedAfter = attempt
                    break
                }
                try await Task.sleep(for: .milliseconds(250))
            }
            #expect(changedAfter != nil, "no session after the poll interval played the creative's new playlists")
            #expect(try server.get(before.path).body == before.body, "the session started before kept its bytes")
            print("↳ new creative playlists in the session started \(changedAfter.map { "\($0 + 1)" } ?? "?") after the poll interval")
        }

        @Test(
            "error beacons: an MP4-only creative (no conditioning) fires its <Error> URI once per break with [ERRORCODE] 403 and the viewer's device headers; the preview asks but fires nothing"
        )
        func errorBeacons() async throws {
            let setup = try await Setup {
                "{ trusted_hosts: [127.0.0.1], vast: \"\($0)/vast/mp4?ad=mp4only&dur=3.84&sid={session}\", timeout: 2, fallback: [house] }"
            }
            defer { try? FileManager.default.removeItem(at: setup.folder) }
            let server = try await HardeningEndToEndTests.Server(campaigns: setup.folder)
            defer { kill(server.process.pid, SIGKILL) }
            let answer = try LoopbackHTTP.exchange(
                "GET",
                port: server.port,
                path: "/v1/campaigns/evening-news/master.m3u8?session=beacons-1",
                headers: [("User-Agent", "AdStitchTest/1.0"), ("X-Forwarded-For", "198.51.100.9")]
            )
            #expect(answer.status == 200)
            // Fired in the background: wait for the three breaks' error requests.
            var errors: [[String: Any]] = []
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline {
                errors = try await Self.requestLog(setup.adServer).filter { $0["path"] as? String == "/track/error" }
                if errors.count >= 3 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(errors.count == 3, "one per break: \(errors)")
            for error in errors {
                #expect(error["query"] as? String == "ad=mp4only&code=403", "\(error)")
                let headers = error["headers"] as? [String: String] ?? [:]
                // Not behind a proxy it trusts (no --trust-forwarded): the viewer's own X-Forwarded-For
                // is no address to tell an ad server; the connection's is.
                #expect(headers["X-Device-IP"] == "127.0.0.1" && headers["X-Device-User-Agent"] == "AdStitchTest/1.0", "\(headers)")
            }
            // Counted once the tracker's answer is back, which can be after it logged the request.
            let sent = #"adstitch_beacons_total{event="error",outcome="sent"} 3"#
            var metrics = try server.get("/metrics").body
            let counted = Date().addingTimeInterval(10)
            while !metrics.contains(sent), Date() < counted {
                try await Task.sleep(for: .milliseconds(100))
                metrics = try server.get("/metrics").body
            }
            #expect(metrics.contains(sent), "\(metrics)")
            // The preview asks the ad server for its viewer, but is no viewer: nothing fires.
            let preview = try server.get("/preview/evening-news?session=preview-beacons")
            #expect(preview.status == 200)
            try await Task.sleep(for: .milliseconds(500))
            let after = try await Self.requestLog(setup.adServer)
            #expect(after.filter { $0["path"] as? String == "/track/error" }.count == 3, "\(after)")
            #expect(after.contains { ($0["query"] as? String)?.contains("sid=preview-beacons") == true }, "the preview asked")
        }

        @Test(
            "faults: a slow ad server, a 500 and malformed XML each give the master within the timeout, the breaks filled from the fallback pool, counted by outcome"
        )
        func faultsFallBack() async throws {
            let setup = try await Setup { base in
                // The viewer's `fault` attribute picks the answer: slow past the timeout, a 500, malformed XML.
                "{ trusted_hosts: [127.0.0.1], vast: \"\(base)/vast/{fault}?ms=3000&sid={session}&pos={break.position}\", timeout: 1, fallback: [house] }"
            }
            defer { try? FileManager.default.removeItem(at: setup.folder) }
            let server = try await HardeningEndToEndTests.Server(campaigns: setup.folder)
            defer { kill(server.process.pid, SIGKILL) }
            for (fault, outcome) in [("slow", "timeout"), ("error500", "error"), ("malformed", "error")] {
                let started = ContinuousClock.now
                let path = "/v1/campaigns/evening-news/master.m3u8?session=fault-\(fault)&fault=\(fault)"
                let answer = try server.get(path)
                let took = ContinuousClock.now - started
                #expect(answer.status == 200, "\(answer.body)")
                #expect(took < .milliseconds(1_600), "\(fault): the master took \(took) with a 1 s timeout")
                let files = Self.sessionFiles(answer.body)
                let boundaries = try #require(files.first { $0.hasSuffix("/v0.m3u8") }).replacingOccurrences(of: "v0.m3u8", with: "boundaries.json")
                let ads = Self.ads(try server.get("/v1/campaigns/evening-news/" + boundaries).body)
                #expect(
                    ads.values.flatMap { $0 }.allSatisfy { ["bravo", "delta"].contains($0) },
                    "\(fault): the house pool fills every break: \(ads)"
                )
                #expect(!ads.isEmpty)
                let metrics = try server.get("/metrics").body
                #expect(metrics.contains("adstitch_ad_server_requests_total{outcome=\"\(outcome)\"}"), "\(fault)")
                print("↳ \(fault): master in \(took)")
            }
        }

        static func requestLog(_ server: AdServerEndToEndTests.Server) async throws -> [[String: Any]] {
            let port = try #require(URLComponents(string: server.base)?.port)
            let answer = try LoopbackHTTP.exchange("GET", port: port, path: "/requests")
            return try JSONSerialization.jsonObject(with: answer.body) as? [[String: Any]] ?? []
        }
    }
}
