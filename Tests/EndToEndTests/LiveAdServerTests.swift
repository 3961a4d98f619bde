import Foundation
import HLSPlaylist
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension RealClients {
    /// A live channel whose breaks ask an ad decision server (scripts/test-ad-server.py) as they
    /// open: once per session and break, by whichever replica the first refresh that sees the break
    /// reaches; every later refresh, on either replica, plays what was recorded.
    @Suite("Live breaks filled by an ad server", .serialized)
    struct LiveAdServerTests {
        @Test(
            "two replicas sharing PostgreSQL: a break is asked for once per session when it opens, with its id, duration and place; both replicas list the pod, then the fallback pool, under the same numbers; a server past its timeout leaves the pools, the refresh within it; the pod's event segments are beacon links that redirect and fire each event once, whichever replica and however often"
        )
        func liveBreaksAskOnce() async throws {
            let database = try await PostgresServer()
            let epoch = Int(Date().timeIntervalSince1970) + 1
            let script = Repository.root.appendingPathComponent("scripts/live-origin.py").path
            // A break at segment 10 (about 19 s in), 4 segments (7.68 s) long.
            let (origin, originPort) = try await BackgroundProcess.server("python3", ports: 40_000..<50_000, marker: "Serving HTTP") {
                [
                    "-u", script, "--epoch", "\(epoch)", "--window", "10", "--first-break", "10", "--break-every", "40", "--break-length", "4",
                    "--port", "\($0)",
                ]
            }
            defer { origin.stop() }
            let folder = try LiveEndToEndTests.folder(origin: originPort)
            defer { try? FileManager.default.removeItem(at: folder) }
            // The creatives: the channel's own ad encodes, on a static origin.
            let media = try await StaticServer(root: folder.appendingPathComponent("live/media"))
            let ads = try await AdServerEndToEndTests.Server(mediaBase: media.base.absoluteString + "ads")
            let pod = "/vast/pod?ads=bravo,alpha&dur=1.92,3.84&sid={session}&brk={break.id}&d={break.duration}&pos={break.position}"
            let slow = "/vast/slow?ms=5000&to=%2Fvast%2Fpod%3Fads%3Dbravo%26dur%3D1.92"
            let yaml = try String(contentsOf: folder.appendingPathComponent("live/campaign.yaml"), encoding: .utf8)
            try Data(
                (yaml + """

                    ad_server: { trusted_hosts: [127.0.0.1], vast: "\(ads.base)\(pod)", timeout: 2, fallback: [prime] }
                    ad_servers:
                      slow: { trusted_hosts: [127.0.0.1], vast: "\(ads.base)\(slow)", timeout: 1, fallback: [prime] }
                    rules:
                      - name: slow-tier
                        when: { attributes: { tier: '^slow$' } }
                        then: { ad_server: slow }

                    """).utf8
            ).write(to: folder.appendingPathComponent("live/campaign.yaml"))
            let a = try await HardeningEndToEndTests.Server(campaigns: folder, extra: ["--database", database.url])
            defer { kill(a.process.pid, SIGKILL) }
            let b = try await HardeningEndToEndTests.Server(campaigns: folder, extra: ["--database", database.url])
            defer { kill(b.process.pid, SIGKILL) }

            // Three sessions joined before the break: one asks the pod's server, one the slow one,
            // and hls.js plays the third through it.
            func start(_ query: String) async throws -> (playlist: String, boundaries: String, master: String) {
                let deadline = Date().addingTimeInterval(30)
                while Date() < deadline {
                    let answer = try a.get("/v1/campaigns/live-e2e/master.m3u8?\(query)")
                    if answer.status == 200, let line = answer.body.split(separator: "\n").first(where: { $0.hasPrefix("sessions/") }) {
                        let playlist = "/v1/campaigns/live-e2e/" + line
                        let boundaries = playlist.replacingOccurrences(of: #"/[^/]+\.m3u8$"#, with: "/boundaries.json", options: .regularExpression)
                        return (playlist, boundaries, answer.body)
                    }
                    try await Task.sleep(for: .milliseconds(500))
                }
                throw Tool.Missing(name: "a live session start on the test channel")
            }
            /// A session's token, from one of its paths.
            func token(_ path: String) throws -> String {
                let components = path.split(separator: "/")
                return try #require(components.firstIndex(of: "sessions").map { String(components[$0 + 1]) })
            }
            let viewer = try await start("session=live-ads")
            // A live playlist ignores Range: it changes at every refresh, and a range of one version
            // asked of the next (Chromium's native HLS does) must not get 416.
            let ranged = try LoopbackHTTP.exchange("GET", port: a.port, path: viewer.playlist, headers: [("Range", "bytes=1000000-")])
            #expect(ranged.status == 200 && String(decoding: ranged.body, as: UTF8.self).hasPrefix("#EXTM3U"), "\(ranged.status)")
            let slowViewer = try await start("session=live-slow&tier=slow")
            let player = try await start("session=live-hlsjs")
            let hlsjs = try await Self.HlsJsLive(master: player.master, port: b.port)

            // Alternate the replicas until the break has closed for both viewers.
            var served: [Int: String] = [:]
            var reused = 0
            var slowest = Duration.zero
            var breakAds: [String: [String]] = [:]
            var beaconLinks: Set<String> = []
            var slowAds: [String: [String]] = [:]
            let end = Date().addingTimeInterval(75)
            var turn = 0
            while Date() < end {
                let server = turn % 2 == 0 ? a : b
                turn += 1
                let started = ContinuousClock.now
                let answer = try server.get(viewer.playlist)
                let slowAnswer = try server.get(slowViewer.playlist)
                slowest = max(slowest, ContinuousClock.now - started)
                #expect(answer.status == 200 && slowAnswer.status == 200, "\(answer.body) \(slowAnswer.body)")
                guard answer.status == 200, slowAnswer.status == 200 else { break }
                for segment in try PlaylistParser().parseMediaPlaylist(answer.body).segments {
                    let uri = String(segment.uri)
                    if uri.hasPrefix("beacons/") { beaconLinks.insert(uri) }
                    if let known = served[segment.mediaSequenceNumber], known != uri { reused += 1 }
                    served[segment.mediaSequenceNumber] = uri
                }
                breakAds = AdServerServeTests.ads(try server.get(viewer.boundaries).body)
                slowAds = AdServerServeTests.ads(try server.get(slowViewer.boundaries).body)
                // Origin segment 15 is on air: the break (10 to 13) has closed.
                let closed = answer.body.contains("seg_015.ts")
                if closed, !breakAds.isEmpty, !slowAds.isEmpty { break }
                try await Task.sleep(for: .milliseconds(500))
            }
            print("live ad server: \(turn) refresh pairs, slowest pair \(slowest), ads \(breakAds), slow tier \(slowAds)")
            let (breakID, played) = try #require(breakAds.first)
            // The pod first, in sequence, then the fallback pool fills what is left of the 7.68 s.
            #expect(Array(played.prefix(2)) == ["UAID-bravo", "UAID-alpha"], "\(breakAds)")
            #expect(played.dropFirst(2).allSatisfy { !$0.hasPrefix("UAID-") }, "\(played)")
            // Past its 1 s timeout: the pools fill the slow tier's break, and no refresh waited longer.
            #expect(slowAds[breakID]?.isEmpty == false && slowAds[breakID]?.contains { $0.hasPrefix("UAID-") } == false, "\(slowAds)")
            #expect(slowest < .seconds(3), "a refresh pair took \(slowest)")
            #expect(reused == 0, "\(reused) sequence numbers named two segments across the replicas")

            // One request per session for the break, with its id, planned duration and place.
            let requests = try await AdServerServeTests.requestLog(ads)
            let asked = requests.compactMap { $0["query"] as? String }.filter { $0.contains("sid=live-ads") }
            #expect(asked.count == 1, "\(asked)")
            let query = try #require(asked.first)
            #expect(query.contains("brk=\(breakID)") && query.contains("d=7.68") && query.contains("pos=mid"), "\(query)")
            #expect(requests.filter { ($0["path"] as? String)?.hasPrefix("/vast/slow") == true }.count == 1, "\(requests)")
            let metrics = try a.get("/metrics").body + (try b.get("/metrics").body)
            #expect(metrics.contains(#"adstitch_ad_server_requests_total{outcome="timeout"} 1"#), "\(metrics)")

            // Server-side beacons: the pod's event segments — bravo's one (all six events), alpha's
            // two — are links; each redirects to its segment on either replica, fetched twice on
            // each; every event of each ad fires once.
            let sessionBase = viewer.playlist.replacingOccurrences(of: #"[^/]+\.m3u8$"#, with: "", options: .regularExpression)
            #expect(beaconLinks.count == 3, "\(beaconLinks)")
            #expect(beaconLinks.allSatisfy { $0.contains("&break=\(breakID)") }, "\(beaconLinks)")
            for link in beaconLinks.sorted() {
                let target = BeaconTests.target(link)
                for server in [a, b, a, b] {
                    let answer = try LoopbackHTTP.exchange("GET", port: server.port, path: sessionBase + link)
                    #expect(answer.status == 302, "\(link): \(answer.status)")
                    let location = answer.head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("location:") }
                    #expect(location.map { $0.dropFirst("location:".count).trimmingCharacters(in: .whitespaces) } == target, "\(link)")
                }
            }
            let forged = try LoopbackHTTP.exchange(
                "GET",
                port: a.port,
                path: sessionBase + (beaconLinks.first ?? "").replacingOccurrences(of: "&break=\(breakID)", with: "&break=other")
            )
            #expect(forged.status == 403, "a link whose break was changed is not AdStitch's")
            let events = ["impression", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete"]
            /// A session's events in the ledger (either replica's view): (break, ad, event), in order.
            func ledger(_ path: String) throws -> [(breakID: String, ad: String, event: String)] {
                let listed = try b.get("/v1/sessions/\(try token(path))/events").body
                let list = (try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [String: Any])?["events"] as? [[String: Any]] ?? []
                return list.map { ($0["break"] as? String ?? "", $0["ad"] as? String ?? "", $0["event"] as? String ?? "") }
            }
            let viewerEvents = try ledger(viewer.playlist)
            #expect(viewerEvents.count == 12 && viewerEvents.allSatisfy { $0.breakID == breakID }, "\(viewerEvents)")
            #expect(Set(viewerEvents.map(\.ad)) == ["UAID-bravo", "UAID-alpha"], "\(viewerEvents)")

            // hls.js (MSE), playing its session from replica b, goes through the break's beacon
            // links as it reaches them: the ledger has its twelve events, each ad's in play order.
            var playerEvents: [(breakID: String, ad: String, event: String)] = []
            let reached = Date().addingTimeInterval(40)
            while Date() < reached {
                playerEvents = try ledger(player.playlist)
                if playerEvents.count >= 12 { break }
                try await Task.sleep(for: .seconds(1))
            }
            let playback = try await hlsjs.finish()
            #expect(playback.error == nil, "hls.js: \(playback)")
            #expect(playback.currentTime > 15, "hls.js played \(playback.currentTime) s")
            for ad in ["UAID-bravo", "UAID-alpha"] {
                #expect(playerEvents.filter { $0.ad == ad }.map(\.event) == events, "hls.js session, \(ad): \(playerEvents)")
            }
            #expect(playerEvents.count == 12, "\(playerEvents)")

            // What the tracking URLs received: each event of each ad twice (two sessions), and each
            // session's in play order — in every prefix of an ad's requests, no event has come
            // more often than the one before it.
            func trackers() async throws -> [(event: String, ad: String)] {
                try await AdServerServeTests.requestLog(ads).compactMap { request in
                    guard let path = request["path"] as? String, path.hasPrefix("/track/"), path != "/track/error" else { return nil }
                    return (String(path.dropFirst("/track/".count)), (request["query"] as? String)?.components(separatedBy: "ad=").last ?? "")
                }
            }
            let deadline = Date().addingTimeInterval(15)
            while Date() < deadline, try await trackers().count < 24 { try await Task.sleep(for: .milliseconds(100)) }
            try await Task.sleep(for: .milliseconds(500))  // nothing more comes
            let tracked = try await trackers()
            #expect(tracked.count == 24, "\(tracked)")
            // A live break is a mid-roll; its ads' playheads are filled, the programme's is not (a
            // live channel has no start the viewer shares).
            let queries = try await AdServerServeTests.requestLog(ads).compactMap { request -> String? in
                guard let path = request["path"] as? String, path.hasPrefix("/track/"), path != "/track/error" else { return nil }
                return (request["query"] as? String)?.removingPercentEncoding
            }
            #expect(queries.allSatisfy { $0.hasPrefix("bp=2&ap=00:00:0") && $0.contains("&cp=[CONTENTPLAYHEAD]&") }, "\(queries)")
            #expect(queries.contains { $0.contains("ap=00:00:03.840") && $0.hasSuffix("ad=alpha") }, "alpha's complete at 3.84 s: \(queries)")
            for ad in ["bravo", "alpha"] {
                var counts = [Int](repeating: 0, count: events.count)
                var inOrder = true
                for request in tracked where request.ad == ad {
                    guard let index = events.firstIndex(of: request.event) else { continue }
                    counts[index] += 1
                    if index > 0, counts[index] > counts[index - 1] { inOrder = false }
                }
                #expect(inOrder && counts == [Int](repeating: 2, count: events.count), "\(ad): \(tracked.filter { $0.ad == ad }.map(\.event))")
            }
        }

        /// hls.js (MSE) in headless Chromium playing a live session: a page on a static server
        /// whose multivariant playlist names the session's files on `port` absolutely.
        final class HlsJsLive {
            let browser: WebDriver
            let pages: StaticServer
            let folder: URL

            init(master: String, port: Int) async throws {
                self.folder = FileManager.default.temporaryDirectory.appendingPathComponent("hlsjs-live-\(UUID().uuidString.prefix(8))")
                try FileManager.default.createDirectory(at: self.folder, withIntermediateDirectories: true)
                try FileManager.default.copyItem(at: HlsJs.file(), to: self.folder.appendingPathComponent("hls.js"))
                let absolute = master.replacingOccurrences(of: "sessions/", with: "http://127.0.0.1:\(port)/v1/campaigns/live-e2e/sessions/")
                try Data(absolute.utf8).write(to: self.folder.appendingPathComponent("master.m3u8"))
                let page = HlsJs.page(title: "AdStitch e2e, live")
                try Data(page.utf8).write(to: self.folder.appendingPathComponent("page.html"))
                self.pages = try await StaticServer(root: self.folder)
                self.browser = try await WebDriver()
                try await self.browser.open(self.pages.url("page.html"))
            }

            /// What the player reached, then the browser, pages and folder gone.
            func finish() async throws -> (currentTime: Double, error: String?) {
                defer {
                    self.pages.process.stop()
                    try? FileManager.default.removeItem(at: self.folder)
                }
                let state = try await self.browser.execute("return [document.getElementById('video').currentTime, window.hlsError]") as? [Any] ?? []
                await self.browser.quit()
                return (state.first as? Double ?? 0, state.count > 1 ? state[1] as? String : nil)
            }
        }
    }
}
