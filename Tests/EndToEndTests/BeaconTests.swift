import Foundation
import HLSPlaylist
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension RealClients {
    /// Server-side ad measurement (docs/campaign-format.md "Measurement"): a stitched session's
    /// playlists list the segments where its ads' VAST events fall on AdStitch's beacon route,
    /// which redirects to the segment and fires the events — once per session and event, whichever
    /// replica answers and however often a player asks — to the test ad server, which records them.
    @Suite("Beacons", .serialized)
    struct BeaconTests {
        typealias Setup = AdServerServeTests.Setup

        /// A playlist line's segment: the line itself, or the segment a beacon link names (`?to=`,
        /// before a live link's `&break=`).
        static func target(_ line: some StringProtocol) -> String {
            guard line.hasPrefix("beacons/"), let query = line.components(separatedBy: "?to=").last else { return String(line) }
            let to = query.components(separatedBy: "&break=")[0]
            return to.removingPercentEncoding ?? to
        }

        /// The end of a test ad server tracker as the ad server wrote it, its playhead macros
        /// unfilled: what a client-side document hands the player, which fills them.
        static func unfilled(_ event: String, ad: String) -> String {
            "/track/\(event)?bp=[BREAKPOSITION]&ap=[ADPLAYHEAD]&cp=[CONTENTPLAYHEAD]&ad=\(ad)"
        }

        /// The beacon links of a media playlist, as absolute paths on the server.
        static func links(_ playlist: String, base: String) -> [String] {
            playlist.split(separator: "\n").filter { $0.hasPrefix("beacons/") }.map { base + $0 }
        }

        /// A tracking request: its event, its ad, the headers it came with and its query's fields
        /// (decoded; the playhead macros the firer filled: `bp`, `ap`, `cp`).
        typealias Tracked = (event: String, ad: String, headers: [String: String], fields: [String: String])

        /// The test ad server's `/track/{event}?…ad=…` requests, in arrival order.
        static func tracked(_ setup: Setup) async throws -> [Tracked] {
            try await AdServerServeTests.requestLog(setup.adServer).compactMap { request in
                guard let path = request["path"] as? String, path.hasPrefix("/track/"), path != "/track/error" else { return nil }
                let query = request["query"] as? String ?? ""
                let ad = query.components(separatedBy: "ad=").last ?? ""
                var fields: [String: String] = [:]
                for pair in query.split(separator: "&") {
                    let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                    if parts.count == 2 { fields[parts[0]] = parts[1].removingPercentEncoding ?? parts[1] }
                }
                return (String(path.dropFirst("/track/".count)), ad, request["headers"] as? [String: String] ?? [:], fields)
            }
        }

        static let prefix = "/v1/campaigns/evening-news/"

        /// A session of evening-news started on `server`: its multivariant playlist, its `v0`
        /// playlist (relative to the campaign) and the path its files lie under.
        static func start(_ server: HardeningEndToEndTests.Server, query: String) throws -> (master: String, v0: String, base: String) {
            let master = try server.get(Self.prefix + "master.m3u8?" + query)
            #expect(master.status == 200)
            let v0 = try #require(AdServerServeTests.sessionFiles(master.body).first { $0.hasSuffix("/v0.m3u8") })
            return (master.body, v0, Self.prefix + v0.dropLast("v0.m3u8".count))
        }

        /// What the test ad server recorded once `count` events came (or 15 s passed), and 0.5 s more
        /// for any that should not come.
        static func tracked(_ setup: Setup, expecting count: Int) async throws -> [Tracked] {
            let deadline = Date().addingTimeInterval(15)
            while Date() < deadline, try await Self.tracked(setup).count < count { try await Task.sleep(for: .milliseconds(100)) }
            try await Task.sleep(for: .milliseconds(500))  // nothing more comes
            return try await Self.tracked(setup)
        }

        /// The VAST 4.3 macros the firer fills in the stitched test's trackers: the break's position
        /// (1 pre-roll, 2 mid-roll, 3 post-roll), the ad's playhead at the event (bravo 3.84 s,
        /// delta 1.92 s) and the programme's at the ad (0 for the pre-roll, the most for the post-roll).
        static func expectPlayheadMacros(_ fired: [Tracked]) {
            let playheads = [
                "bravo": ["00:00:00.000", "00:00:00.000", "00:00:00.960", "00:00:01.920", "00:00:02.880", "00:00:03.840"],
                "delta": ["00:00:00.000", "00:00:00.000", "00:00:00.480", "00:00:00.960", "00:00:01.440", "00:00:01.920"],
            ]
            let events = ["impression", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete"]
            for request in fired {
                let expected = playheads[request.ad]?[events.firstIndex(of: request.event) ?? 0]
                #expect(request.fields["ap"] == expected, "\(request.ad) \(request.event): \(request.fields)")
                #expect(request.fields["cp"]?.wholeMatch(of: /\d\d:\d\d:\d\d\.\d{3}/) != nil, "\(request.fields)")
            }
            let bravo = fired.filter { $0.ad == "bravo" && $0.event == "impression" }
            #expect(Set(bravo.compactMap { $0.fields["bp"] }) == ["1", "2", "3"], "\(bravo.map(\.fields))")
            let content = Dictionary(bravo.map { ($0.fields["bp"] ?? "", $0.fields["cp"] ?? "") }) { first, _ in first }
            #expect(
                content["1"] == "00:00:00.000" && (content["2"] ?? "") > "00:00:00.000" && (content["3"] ?? "") > (content["2"] ?? ""),
                "\(content)"
            )
        }

        @Test(
            "each ad's impression, start, quartiles and complete fire once per session, with the viewer's headers, however often and wherever its segments are fetched; GStreamer plays through the redirects"
        )
        func serverSide() async throws {
            try await AdServerServeTests.withPodReplicas { setup, a, b in try await Self.serverSide(setup, a, b) }
        }

        static func serverSide(_ setup: Setup, _ a: HardeningEndToEndTests.Server, _ b: HardeningEndToEndTests.Server) async throws {
            let prefix = Self.prefix
            let (_, v0, base) = try Self.start(a, query: "session=beacons-1")
            let playlist = try a.get(prefix + v0).body
            #expect(try b.get(prefix + v0).body == playlist, "both replicas list the same links")
            let links = Self.links(playlist, base: String(base))
            // Per break: bravo (two segments: the first carries impression to midpoint, the second
            // the third quartile and complete) and delta (one segment, all six) — the post-roll has
            // room for bravo alone.
            let ads = AdServerServeTests.ads(try a.get(String(base) + "boundaries.json").body)
            // The ad server's creatives (the house pool's fill the rest of the mid-roll, without tracking).
            let occurrences = ads.values.flatMap { $0 }.filter { $0.hasPrefix("UAID-") }
            #expect(occurrences.count == 5, "\(ads)")
            #expect(
                links.count == 2 * occurrences.filter { $0 == "UAID-bravo" }.count + occurrences.filter { $0 == "UAID-delta" }.count,
                "\(playlist)"
            )
            #expect(playlist.components(separatedBy: "\n").filter { $0.hasPrefix("http") && $0.contains("/media/ads/") }.isEmpty == false)

            // Each link three times, from each replica in turn, as a player that retries would.
            for (index, link) in links.enumerated() {
                for attempt in 0..<3 {
                    let server = (index + attempt) % 2 == 0 ? a : b
                    let answer = try LoopbackHTTP.exchange(
                        "GET",
                        port: server.port,
                        path: link,
                        headers: [("User-Agent", "BeaconTest/1.0"), ("X-Forwarded-For", "198.51.100.23")]
                    )
                    #expect(answer.status == 302, "\(link): \(answer.head)")
                    let location = answer.head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("location:") }?.dropFirst(9)
                        .trimmingCharacters(in: .whitespaces)
                    let target = try #require(location.flatMap { URL(string: $0) }, "\(answer.head)")
                    #expect(target.absoluteString.hasPrefix(setup.origin.base.absoluteString + "media/ads/") && target.pathExtension == "ts")
                    if attempt == 0 {
                        let segment = try LoopbackHTTP.exchange("GET", port: try #require(target.port), path: target.path)
                        #expect(segment.status == 200 && segment.body.count > 1_000, "the redirect names the real segment")
                    }
                }
            }
            // Fired in the background: wait for all of them.
            let expected = occurrences.count * 6
            let fired = try await Self.tracked(setup, expecting: expected)
            #expect(fired.count == expected, "\(fired.map { "\($0.ad) \($0.event)" })")
            for ad in ["bravo", "delta"] {
                let times = occurrences.filter { $0 == "UAID-\(ad)" }.count
                for event in ["impression", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete"] {
                    #expect(fired.filter { $0.ad == ad && $0.event == event }.count == times, "\(ad) \(event)")
                }
            }
            Self.expectPlayheadMacros(fired)
            #expect(fired.allSatisfy { $0.headers["X-Device-IP"] == "198.51.100.23" && $0.headers["X-Device-User-Agent"] == "BeaconTest/1.0" })
            // The ledger, from either replica: every event once, with its break and ad.
            let token = String(v0.split(separator: "/")[1])
            let ledger = try JSONSerialization.jsonObject(with: Data(try b.get("/v1/sessions/\(token)/events").body.utf8)) as? [String: Any]
            let entries = ledger?["events"] as? [[String: Any]] ?? []
            #expect(entries.count == expected, "\(ledger ?? [:])")
            #expect(Set(entries.compactMap { $0["break"] as? String }) == Set(ads.keys))
            let deduped = try a.get("/metrics").body + (try b.get("/metrics").body)
            #expect(deduped.contains("outcome=\"deduped\""), "the repeats were counted as deduped")

            // A link AdStitch did not write: no redirect.
            let forged = try #require(links.first).replacingOccurrences(of: "?to=", with: "?to=http%3A%2F%2Fevil.example%2F")
            #expect(try a.get(forged).status == 403)

            // GStreamer plays a second session through the redirects; its events fire as it goes.
            let second = try a.get(prefix + "master.m3u8?session=beacons-2")
            let v0b = try #require(AdServerServeTests.sessionFiles(second.body).first { $0.hasSuffix("/v0.m3u8") })
            let before = try await Self.tracked(setup).count
            let url = try #require(URL(string: "http://127.0.0.1:\(b.port)\(prefix)\(v0b)"))
            let decoded = try await Decoded(url, scratch: FileManager.default.temporaryDirectory, audio: false)
            let manifest =
                try JSONSerialization.jsonObject(
                    with: Data(try b.get(prefix + v0b.replacingOccurrences(of: "v0.m3u8", with: "boundaries.json")).body.utf8)
                )
                as? [String: Any]
            let duration = try #require(ExactDecimal("\(manifest?["duration"] ?? "")"))
            #expect(decoded.videoFrames == RealClientTests.frames(duration, fps: 25), "every frame through the redirects")
            let until = Date().addingTimeInterval(10)
            while Date() < until, try await Self.tracked(setup).count < before + expected { try await Task.sleep(for: .milliseconds(100)) }
            #expect(try await Self.tracked(setup).count == before + expected, "GStreamer's session fired every event once")
        }

        @Test(
            "an interstitial session's tracked ads play from its own ad playlists, alike on both replicas, whose event segments are beacon links; hls.js playing it fires each ad's impression, start, quartiles and complete once, as a stitched session does"
        )
        func interstitials() async throws {
            try await AdServerServeTests.withPodReplicas { setup, a, b in try await Self.interstitials(setup, a, b) }
        }

        static func interstitials(_ setup: Setup, _ a: HardeningEndToEndTests.Server, _ b: HardeningEndToEndTests.Server) async throws {
            let (master, v0, base) = try Self.start(a, query: "session=beacons-i&insertion=interstitials&player=hls.js")
            let ads = AdServerServeTests.ads(try a.get(base + "boundaries.json").body)
            let occurrences = ads.values.flatMap { $0 }.filter { $0.hasPrefix("UAID-") }
            #expect(occurrences.count == 5, "\(ads)")

            // The asset lists: each ad server creative (tracked) is the session's own playlist on
            // the host asked; the house ads (untracked) their media as before.
            var own: [String] = []
            for breakID in ads.keys.sorted() {
                let list = try JSONSerialization.jsonObject(with: Data(try a.get(base + "assets-\(breakID).json").body.utf8)) as? [String: Any]
                for asset in list?["ASSETS"] as? [[String: Any]] ?? [] {
                    let uri = try #require(asset["URI"] as? String)
                    if uri.contains("/sessions/") {
                        let url = try #require(URL(string: uri))
                        #expect(url.port == a.port && url.path.hasPrefix(base) && url.lastPathComponent.hasPrefix("ad-"), "\(uri)")
                        own.append(url.path)
                    } else {
                        #expect(uri.contains("/media/"), "\(uri)")
                    }
                }
            }
            #expect(own.count == occurrences.count, "\(own)")
            var links: [String] = []
            for path in own {
                let multivariant = try a.get(path)
                #expect(multivariant.status == 200 && multivariant.body.hasPrefix("#EXTM3U\n"), "\(path): \(multivariant.body)")
                #expect(try b.get(path).body == multivariant.body, "both replicas write the ad's playlists alike")
                let variants = multivariant.body.split(separator: "\n").filter { !$0.hasPrefix("#") }
                #expect(!variants.isEmpty && variants.allSatisfy { $0.hasPrefix("ad-") })
                for variant in variants {
                    let media = try a.get(base + variant).body
                    #expect(try b.get(base + variant).body == media)
                    #expect(media.hasSuffix("#EXT-X-ENDLIST\n"))
                    let segments = media.split(separator: "\n").filter { !$0.hasPrefix("#") }
                    #expect(segments.allSatisfy { Self.target($0).hasPrefix(setup.origin.base.absoluteString + "media/ads/") }, "\(media)")
                    links += Self.links(media, base: String(base))
                }
            }
            #expect(!links.isEmpty)
            // A piece no asset list names (an island, a house ad): 404.
            let named = Set(own.map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent })
            let other = try #require((0..<100).map { "ad-\($0)" }.first { !named.contains($0) })
            #expect(try a.get(base + other + ".m3u8").status == 404)
            #expect(try a.get(base + "ad-\(own.count + 1000).m3u8").status == 404)

            // hls.js plays the session from replica a: its events fire as it reaches them.
            let log = try await InterstitialEndToEndTests.playWithHlsJs(port: a.port, campaign: "evening-news", master: master)
            #expect(log.contains { $0.hasPrefix("asset:") }, "\(log)")
            let expected = occurrences.count * 6
            let fired = try await Self.tracked(setup, expecting: expected)
            #expect(fired.count == expected, "\(fired.map { "\($0.ad) \($0.event)" }); hls.js: \(log)")
            for ad in ["bravo", "delta"] {
                let times = occurrences.filter { $0 == "UAID-\(ad)" }.count
                for event in ["impression", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete"] {
                    #expect(fired.filter { $0.ad == ad && $0.event == event }.count == times, "\(ad) \(event)")
                }
            }
            Self.expectPlayheadMacros(fired)
            #expect(fired.allSatisfy { $0.headers["X-Device-User-Agent"]?.contains("Chrome") == true }, "the player's own headers")
            // The ledger, from the other replica: every event once, with its break and ad.
            let token = String(v0.split(separator: "/")[1])
            let ledger = try JSONSerialization.jsonObject(with: Data(try b.get("/v1/sessions/\(token)/events").body.utf8)) as? [String: Any]
            let entries = ledger?["events"] as? [[String: Any]] ?? []
            #expect(entries.count == expected, "\(ledger ?? [:])")
            #expect(Set(entries.compactMap { $0["break"] as? String }) == Set(ads.keys))
        }

        @Test(
            "a tracking URL that fails is tried three times (1 s, then 2 s apart) and counted failed; one that fails twice is sent on its third try; a tracker that answers after 3 s delays nothing: the 302 is at once"
        )
        func failingTrackers() async throws {
            let tracker = try await AdServerEndToEndTests.Server()
            let base = tracker.base
            let root = try EveningNewsFolder.make { yaml in
                yaml.replacingOccurrences(
                    of: #"tracking: { impression: ["https://tracking.example/i?ad=alpha"] }"#,
                    with: """
                        tracking: { impression: ["\(base)/track/impression?ad=alpha&fail=2"], start: ["\(base)/track/start?ad=alpha&fail=always"],
                                    firstQuartile: ["\(base)/track/firstQuartile?ad=alpha&ms=3000"] }
                        """
                )
            }
            defer { try? FileManager.default.removeItem(at: root) }
            let server = try await HardeningEndToEndTests.Server(campaigns: root)
            defer { kill(server.process.pid, SIGKILL) }
            let prefix = "/v1/campaigns/evening-news/"
            let master = try server.get(prefix + "master.m3u8?session=trackers")
            let v0 = try #require(AdServerServeTests.sessionFiles(master.body).first { $0.hasSuffix("/v0.m3u8") })
            let links = Self.links(try server.get(prefix + v0).body, base: prefix + v0.dropLast("v0.m3u8".count))
            // alpha's first segment carries its impression, start and first quartile (at 1.44 s of 5.76 s).
            let first = try #require(links.first { $0.split(separator: "/").drop { $0 != "beacons" }.dropFirst(2).first == "7" }, "\(links)")
            let began = ContinuousClock.now
            let answer = try LoopbackHTTP.exchange("GET", port: server.port, path: first)
            let took = ContinuousClock.now - began
            #expect(answer.status == 302 && took < .seconds(2), "\(answer.status) after \(took)")  // the slow tracker alone takes 3 s
            // Three tries take 3 s (1 s, then 2 s between them); the slow tracker answers after 3 s.
            let until = Date().addingTimeInterval(10)
            var metrics = ""
            while Date() < until {
                metrics = try server.get("/metrics").body
                if metrics.contains(#"adstitch_beacons_total{event="start",outcome="failed"} 1"#),
                    metrics.contains(#"adstitch_beacons_total{event="firstQuartile",outcome="sent"} 1"#)
                {
                    break
                }
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(metrics.contains(#"adstitch_beacons_total{event="impression",outcome="sent"} 1"#), "\(metrics)")
            #expect(metrics.contains(#"adstitch_beacons_total{event="start",outcome="failed"} 1"#))
            #expect(metrics.contains(#"adstitch_beacons_total{event="firstQuartile",outcome="sent"} 1"#))
            let requests = try await AdServerServeTests.requestLog(tracker).compactMap { $0["path"] as? String }
            #expect(requests.filter { $0 == "/track/impression" }.count == 3, "two failures, then sent: \(requests)")
            #expect(requests.filter { $0 == "/track/start" }.count == 3, "three tries, no more: \(requests)")
            #expect(requests.filter { $0 == "/track/firstQuartile" }.count == 1, "\(requests)")
        }

        @Test(
            "client-side reporting, by the campaign or the session start: no beacon link, nothing fired; tracking.json lists each ad's events at exact stream times with the ad server's URLs and verifications (its wrapper's first), alike on a replica that reads the recorded decisions; the other mode has none"
        )
        func clientSide() async throws {
            let database = try await PostgresServer()
            let pod = "/vast/pod?ads=bravo,delta%26dur=3.84,1.92"
            let setup = try await Setup {
                "{ trusted_hosts: [127.0.0.1], vast: \"\($0)/vast/wrapper?to=\(pod)&sid={session}\", timeout: 2, fallback: [house] }"
            }
            defer { try? FileManager.default.removeItem(at: setup.folder) }
            let file = setup.folder.appendingPathComponent("campaign.yaml")
            let yaml = try String(contentsOf: file, encoding: .utf8)
            try Data((yaml + "\nreporting: client\n").utf8).write(to: file)
            let a = try await HardeningEndToEndTests.Server(campaigns: setup.folder, extra: ["--database", database.url])
            defer { kill(a.process.pid, SIGKILL) }
            let b = try await HardeningEndToEndTests.Server(campaigns: setup.folder, extra: ["--database", database.url])
            defer { kill(b.process.pid, SIGKILL) }
            let prefix = "/v1/campaigns/evening-news/"

            #expect(try a.get(prefix + "master.m3u8?reporting=sometimes").status == 400)
            for (query, client) in [("session=client-1", true), ("session=client-2&reporting=server", false)] {
                let master = try a.get(prefix + "master.m3u8?" + query)
                try #require(master.status == 200, "\(master.body)")
                let v0 = try #require(AdServerServeTests.sessionFiles(master.body).first { $0.hasSuffix("/v0.m3u8") })
                let base = prefix + v0.dropLast("v0.m3u8".count)
                let playlist = try a.get(prefix + v0).body
                #expect(playlist.contains("beacons/") != client, "\(query): \(playlist)")
                let manifest = try JSONSerialization.jsonObject(with: Data(try a.get(base + "boundaries.json").body.utf8)) as? [String: Any] ?? [:]
                let tracking = try b.get(base + "tracking.json")
                guard client else {
                    #expect(manifest["trackingUri"] == nil)
                    #expect(tracking.status == 404 && tracking.body.contains("server-side"), "\(tracking.body)")
                    continue
                }
                #expect(manifest["trackingUri"] as? String == "tracking.json")
                try #require(tracking.status == 200, "\(tracking.body)")
                #expect(try a.get(base + "tracking.json").body == tracking.body, "both replicas answer the same document")
                let document = try #require(try JSONSerialization.jsonObject(with: Data(tracking.body.utf8)) as? [String: Any])
                #expect(document["reporting"] as? String == "client" && document["session"] as? String == "client-1")
                let breaks = try #require(document["breaks"] as? [[String: Any]])
                #expect(breaks.map { $0["id"] as? String } == (manifest["breaks"] as? [[String: Any]] ?? []).map { $0["id"] as? String })
                var creatives = 0
                for item in breaks {
                    for ad in item["ads"] as? [[String: Any]] ?? [] where ["UAID-bravo", "UAID-delta"].contains(ad["id"] as? String) {
                        creatives += 1
                        let name = String((ad["id"] as? String ?? "").dropFirst("UAID-".count))
                        let start = try #require((ad["start"] as? NSNumber).flatMap { ExactDecimal("\($0)") })
                        let duration = try #require(ExactDecimal(name == "bravo" ? "3.84" : "1.92"))
                        let events = try #require(ad["events"] as? [[String: Any]])
                        #expect(events.compactMap { $0["event"] as? String } == TrackingNames.timed)
                        for event in events {
                            let at = try #require((event["at"] as? NSNumber).flatMap { ExactDecimal("\($0)") })
                            let quarters = TrackingNames.quarters[event["event"] as? String ?? ""] ?? -1
                            #expect((at - start) * 4 == duration * quarters, "\(name) \(event)")
                            let urls = event["urls"] as? [String] ?? []
                            #expect(urls.contains { $0.hasSuffix(Self.unfilled(event["event"] as? String ?? "", ad: name)) }, "\(urls)")
                        }
                        // The wrapper's impression and start go with the inline ad's.
                        #expect((events.first?["urls"] as? [String] ?? []).contains { $0.hasSuffix(Self.unfilled("impression", ad: "wrapper-1")) })
                        #expect((ad["interactive"] as? [String: [String]])?["pause"]?.first?.hasSuffix(Self.unfilled("pause", ad: name)) == true)
                        let verifications = try #require(ad["verifications"] as? [[String: Any]])
                        #expect(verifications.map { $0["vendor"] as? String } == ["wrapper.example-omid", "inline.example-omid"])
                        #expect(verifications.last?["parameters"] as? String == "{\"ad\": \"\(name)\"}")
                        let resource = (verifications.last?["resources"] as? [[String: Any]])?.first
                        #expect(resource?["apiFramework"] as? String == "omid" && resource?["browserOptional"] as? Bool == true)
                    }
                }
                #expect(creatives >= 2, "the pod's creatives are in the document: \(tracking.body)")
            }
            // AdStitch fired nothing for the client session: its ledger is empty, the ad server saw no tracker.
            let master = try a.get(prefix + "master.m3u8?session=client-1").body
            let v0 = try #require(AdServerServeTests.sessionFiles(master).first { $0.hasSuffix("/v0.m3u8") })
            let token = v0.split(separator: "/")[1]
            let events = try JSONSerialization.jsonObject(with: Data(try a.get("/v1/sessions/\(token)/events").body.utf8)) as? [String: Any]
            #expect((events?["events"] as? [Any])?.isEmpty == true, "\(String(describing: events))")
            #expect(try await Self.tracked(setup).isEmpty, "nothing fired server-side")
        }
    }
}

/// The events a tracking document times, in play order, and where each falls in quarters of its ad.
enum TrackingNames {
    static let timed = ["impression", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete"]
    static let quarters = ["impression": 0, "start": 0, "firstQuartile": 1, "midpoint": 2, "thirdQuartile": 3, "complete": 4]
}
