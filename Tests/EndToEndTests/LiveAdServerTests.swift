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

                    ad_server: { vast: "\(ads.base)\(pod)", timeout: 2, fallback: [prime] }
                    ad_servers:
                      slow: { vast: "\(ads.base)\(slow)", timeout: 1, fallback: [prime] }
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

            // Two sessions joined before the break: one asks the pod's server, one the slow one.
            func start(_ query: String) async throws -> (playlist: String, boundaries: String) {
                let deadline = Date().addingTimeInterval(30)
                while Date() < deadline {
                    let answer = try a.get("/v1/campaigns/live-e2e/master.m3u8?\(query)")
                    if answer.status == 200, let line = answer.body.split(separator: "\n").first(where: { $0.hasPrefix("sessions/") }) {
                        let playlist = "/v1/campaigns/live-e2e/" + line
                        return (playlist, playlist.replacingOccurrences(of: #"/[^/]+\.m3u8$"#, with: "/boundaries.json", options: .regularExpression))
                    }
                    try await Task.sleep(for: .milliseconds(500))
                }
                throw Tool.Missing(name: "a live session start on the test channel")
            }
            let viewer = try await start("session=live-ads")
            // A live playlist ignores Range: it changes at every refresh, and a range of one version
            // asked of the next (Chromium's native HLS does) must not get 416.
            let ranged = try LoopbackHTTP.exchange("GET", port: a.port, path: viewer.playlist, headers: [("Range", "bytes=1000000-")])
            #expect(ranged.status == 200 && String(decoding: ranged.body, as: UTF8.self).hasPrefix("#EXTM3U"), "\(ranged.status)")
            let slowViewer = try await start("session=live-slow&tier=slow")

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
                let target = BeaconTests.target(link.components(separatedBy: "&break=")[0])
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
            func trackers() async throws -> [(event: String, ad: String)] {
                try await AdServerServeTests.requestLog(ads).compactMap { request in
                    guard let path = request["path"] as? String, path.hasPrefix("/track/"), path != "/track/error" else { return nil }
                    return (String(path.dropFirst("/track/".count)), (request["query"] as? String)?.components(separatedBy: "ad=").last ?? "")
                }
            }
            let deadline = Date().addingTimeInterval(15)
            while Date() < deadline, try await trackers().count < 12 { try await Task.sleep(for: .milliseconds(100)) }
            try await Task.sleep(for: .milliseconds(500))  // nothing more comes
            let tracked = try await trackers()
            for ad in ["bravo", "alpha"] {
                #expect(tracked.filter { $0.ad == ad }.map(\.event) == events, "\(ad): \(tracked)")
            }
            #expect(tracked.count == 12, "\(tracked)")
            // The ledger lists them under the break, by the ad's place in its fill.
            let components = viewer.playlist.split(separator: "/")
            let token = try #require(components.firstIndex(of: "sessions").map { String(components[$0 + 1]) })
            let listed = try b.get("/v1/sessions/\(token)/events").body
            let entries = (try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [String: Any])?["events"] as? [[String: Any]] ?? []
            #expect(entries.count == 12 && entries.allSatisfy { $0["break"] as? String == breakID }, "\(listed)")
            #expect(Set(entries.compactMap { $0["ad"] as? String }) == ["UAID-bravo", "UAID-alpha"], "\(listed)")
        }
    }
}
