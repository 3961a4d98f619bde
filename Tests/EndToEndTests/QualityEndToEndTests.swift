import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension RealClients {
    /// Viewing quality from a real player (docs/quality.md): hls.js on `serve`'s own `/play` page, in
    /// headless Chromium, on a network throttled below the lowest variant through the DevTools
    /// protocol, so that it stalls. The page's reporter posts what the player does; what AdStitch then
    /// says of the session must be what the page itself counted, independently, from the first
    /// instant of the document.
    @Suite("Viewing quality, real clients", .serialized)
    struct QualityEndToEndTests {
        /// Counts the page's own stalls and startup from the document's first instant, before any
        /// script of the page runs (media events do not bubble; a capturing listener on the document
        /// sees them): the same definitions as the reporter, but not its code.
        static let truth = """
            window.truth = { startup: null, stalls: [], open: null };
            document.addEventListener("playing", function () {
              if (window.truth.startup === null) window.truth.startup = performance.now();
              if (window.truth.open) {
                window.truth.stalls.push({ at: window.truth.open.at, duration: (performance.now() - window.truth.open.since) / 1000 });
                window.truth.open = null;
              }
            }, true);
            document.addEventListener("waiting", function (event) {
              const video = event.target;
              if (window.truth.startup !== null && !window.truth.open && !video.seeking) {
                window.truth.open = { at: video.currentTime, since: performance.now() };
              }
            }, true);
            document.addEventListener("seeking", function () { window.truth.open = null; }, true);
            """

        @Test(
            "hls.js on the /play page, throttled below the lowest variant, stalls: AdStitch's QoE of the session has the page's stalls (±1), their lengths within 0.5 s, each in the piece the boundary manifest holds it in, and the startup within 100 ms"
        )
        func throttledPlayback() async throws {
            let folder = try HardeningEndToEndTests.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let server = try await HardeningEndToEndTests.Server(campaigns: folder, extra: ["--hls-js", try HlsJs.file().path])
            defer { kill(server.process.pid, SIGKILL) }
            let page = URL(string: "http://127.0.0.1:\(server.port)/play/evening-news")!
            let browser = try await WebDriver()
            do {
                // Once unthrottled with the media blocked, so hls.js and the page's script come
                // from the cache (max-age=300) after — a throttled network would take 40 s for
                // hls.js alone — and no segment does.
                try await browser.cdp("Network.enable")
                try await browser.cdp("Network.setBlockedURLs", ["urls": ["*.m3u8*", "*/media/*"]])
                try await browser.open(page)
                try await Task.sleep(for: .seconds(2))
                try await browser.open(URL(string: "about:blank")!)
                try await browser.cdp("Network.setBlockedURLs", ["urls": [String]()])
                try await browser.cdp("Page.addScriptToEvaluateOnNewDocument", ["source": Self.truth])
                // 12 KB/s: the lowest variant (~230 kbit/s, ~55 KB a 1.92 s segment) arrives at less
                // than half the speed it plays.
                try await browser.cdp(
                    "Network.emulateNetworkConditions",
                    ["offline": false, "latency": 20, "downloadThroughput": 12_000, "uploadThroughput": 1_000_000]
                )
                try await browser.open(page)
                var truth: [String: Any] = [:]
                for _ in 0..<40 {
                    try await Task.sleep(for: .seconds(1))
                    truth = try await browser.execute("return window.truth") as? [String: Any] ?? [:]
                    // Five stalls: past the six-second pre-roll into the programme.
                    if (truth["stalls"] as? [Any])?.count ?? 0 >= 5 { break }
                }
                // Stop where it is, unthrottle, and send what the reporter holds.
                _ = try await browser.execute("document.getElementById('video').pause(); return 0")
                try await browser.cdp(
                    "Network.emulateNetworkConditions",
                    ["offline": false, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1]
                )
                truth = try await browser.execute("return window.truth") as? [String: Any] ?? [:]
                _ = try await browser.execute("window.qoe.flush(); return 0")
                try await Task.sleep(for: .seconds(2))
                let reporter = try #require(
                    try await browser.execute("return {url: window.qoe.url, sent: window.qoe.sent, failed: window.qoe.failed}") as? [String: Any]
                )
                let reportURL = try #require(reporter["url"] as? String, "the reporter never learnt its URL: \(reporter)")
                #expect(reporter["failed"] as? Int == 0, "\(reporter)")
                let path = try #require(URL(string: reportURL)?.path)

                let answer = try LoopbackHTTP.exchange("GET", port: server.port, path: path)
                #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
                let session = try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
                let truthStalls = truth["stalls"] as? [[String: Any]] ?? []
                let stalls = (session["events"] as? [[String: Any]] ?? []).filter { $0["type"] as? String == "stall" }
                #expect(truthStalls.count >= 1, "the throttled page never stalled: \(truth)")
                #expect(
                    abs((session["stalls"] as? Int ?? -1) - truthStalls.count) <= 1,
                    "server \(session["stalls"] ?? "-") vs page \(truthStalls.count)"
                )
                for (reported, counted) in zip(stalls, truthStalls) {
                    let lengths = (reported["duration"] as? Double ?? -1, counted["duration"] as? Double ?? 0)
                    #expect(abs(lengths.0 - lengths.1) <= 0.5, "stall lengths: server \(lengths.0) s, page \(lengths.1) s")
                }
                let startup = try #require(session["startup_ms"] as? Int, "no startup: \(session)")
                let pageStartup = try #require(truth["startup"] as? Double)
                #expect(abs(Double(startup) - pageStartup) <= 100, "startup: server \(startup) ms, page \(pageStartup) ms")

                // Each stall in the piece the session's boundary manifest holds its stream time in.
                let manifestPath = path.replacingOccurrences(of: "/qoe", with: "/boundaries.json")
                let manifest = try #require(
                    try JSONSerialization.jsonObject(with: LoopbackHTTP.exchange("GET", port: server.port, path: manifestPath).body) as? [String: Any]
                )
                let breaks = manifest["breaks"] as? [[String: Any]] ?? []
                for stall in stalls {
                    let at = try #require(stall["at"] as? Double)
                    var holder: (String, String)?
                    for adBreak in breaks {
                        for ad in adBreak["ads"] as? [[String: Any]] ?? [] {
                            let start = ad["start"] as? Double ?? 0
                            if start <= at, at < start + (ad["duration"] as? Double ?? 0) {
                                holder = (adBreak["id"] as? String ?? "", ad["id"] as? String ?? "")
                            }
                        }
                    }
                    #expect(
                        stall["break"] as? String == holder?.0 && stall["ad"] as? String == holder?.1,
                        "stall at \(at): \(stall) vs \(String(describing: holder))"
                    )
                }
                // Both kinds of place were met: in a break's ad, and in programme.
                #expect(stalls.contains { $0["break"] != nil } && stalls.contains { $0["break"] == nil }, "\(stalls)")
            } catch {
                await browser.quit()
                throw error
            }
            await browser.quit()
        }
        /// The news campaign in a folder of its own with every ad tracked at every event, so each
        /// of their segments where an event falls is a beacon link the server sees fetched (the
        /// tracking server refuses at once: loopback, a closed port).
        static func trackedFolder() throws -> URL {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("quality-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let news = folder.appendingPathComponent("evening-news")
            try FileManager.default.copyItem(at: Repository.root.appendingPathComponent("Campaigns/evening-news"), to: news)
            let yaml = try String(contentsOf: news.appendingPathComponent("campaign.yaml"), encoding: .utf8)
            let events = ["impression", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete"]
            let tracking = "tracking: { " + events.map { "\($0): [\"http://127.0.0.1:9/\($0)\"]" }.joined(separator: ", ") + " }"
            func ad(_ id: String) -> String { "    - { id: \(id), playlist: media/ads/\(id)/master.m3u8, \(tracking) }" }
            let pools = (["pools:", "  prime:"] + ["alpha", "bravo", "charlie"].map(ad) + ["  house:"] + ["delta", "bravo"].map(ad)).joined(
                separator: "\n"
            )
            let start = try #require(yaml.range(of: "pools:\n"))
            let end = try #require(yaml.range(of: "rules:\n"))
            try Data((yaml[..<start.lowerBound] + pools + "\n" + yaml[end.lowerBound...]).utf8).write(
                to: news.appendingPathComponent("campaign.yaml")
            )
            return folder
        }

        /// hls.js's build and the page's script into the browser's cache, unthrottled, the media
        /// blocked (a throttled network would take 40 s for hls.js alone); then the page counts
        /// its own stalls from its first instant.
        static func warm(_ browser: WebDriver, _ page: URL) async throws {
            try await browser.cdp("Network.enable")
            try await browser.cdp("Network.setBlockedURLs", ["urls": ["*.m3u8*", "*/media/*"]])
            try await browser.open(page)
            try await Task.sleep(for: .seconds(2))
            try await browser.open(URL(string: "about:blank")!)
            try await browser.cdp("Network.setBlockedURLs", ["urls": [String]()])
            try await browser.cdp("Page.addScriptToEvaluateOnNewDocument", ["source": Self.truth])
        }

        @Test(
            "no player report at all (the page's reports blocked), hls.js throttled so that it stalls: the server's own view of the session, from the wall and stream times of the segments fetched through its beacon links, flags it stalled, as an estimate"
        )
        func serverEstimateWithoutReports() async throws {
            let folder = try Self.trackedFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let server = try await HardeningEndToEndTests.Server(campaigns: folder, extra: ["--hls-js", try HlsJs.file().path])
            defer { kill(server.process.pid, SIGKILL) }
            let page = URL(string: "http://127.0.0.1:\(server.port)/play/evening-news")!
            let browser = try await WebDriver()
            do {
                try await Self.warm(browser, page)
                try await browser.cdp("Network.setBlockedURLs", ["urls": ["*/qoe*"]])
                try await browser.cdp(
                    "Network.emulateNetworkConditions",
                    ["offline": false, "latency": 20, "downloadThroughput": 12_000, "uploadThroughput": 1_000_000]
                )
                try await browser.open(page)
                var truth: [String: Any] = [:]
                for _ in 0..<45 {
                    try await Task.sleep(for: .seconds(1))
                    truth = try await browser.execute("return window.truth") as? [String: Any] ?? [:]
                    if (truth["stalls"] as? [Any])?.count ?? 0 >= 3 { break }
                }
                _ = try await browser.execute("document.getElementById('video').pause(); window.qoe.flush(); return 0")
                try await Task.sleep(for: .seconds(1))
                let reporter = try #require(
                    try await browser.execute("return {url: window.qoe.url, sent: window.qoe.sent}") as? [String: Any]
                )
                #expect(reporter["sent"] as? Int == 0, "a report got through: \(reporter)")
                let reportURL = try #require(reporter["url"] as? String)
                let path = try #require(URL(string: reportURL)?.path)
                let answer = try LoopbackHTTP.exchange("GET", port: server.port, path: path)
                #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
                let session = try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
                let view = session["server"] as? [String: Any] ?? [:]
                let segments = view["segments"] as? [[String: Any]] ?? []
                let pageStalls = (truth["stalls"] as? [[String: Any]] ?? []).map { $0["duration"] as? Double ?? 0 }
                print(
                    "server view without reports: \(session["stalls"] ?? "-") stalls, \(session["stall_seconds"] ?? "-") s over \(segments.count) beacon segments; the page counted \(pageStalls)"
                )
                #expect(pageStalls.count >= 1, "the throttled page never stalled: \(truth)")
                #expect(session["estimated"] as? Bool == true && session["failed"] as? Bool == false, "\(session)")
                #expect(segments.count >= 2, "\(view)")
                #expect(session["stalls"] as? Int ?? 0 >= 1, "the server's view did not see the stalls: \(session)")
                #expect((view["switches"] as? [Any])?.isEmpty == false && view["master"] != nil)
                // The pre-roll's first ad started: its impression's segment came through its link.
                #expect((session["ads"] as? [String: Any])?["started"] as? Int ?? 0 >= 1, "\(session["ads"] ?? "-")")
            } catch {
                await browser.quit()
                throw error
            }
            await browser.quit()
        }

        @Test(
            "an ad segment that answers 404: hls.js's error reaches the session (failed, or with an error naming the 404), and the KPIs count the session with errors"
        )
        func missingAdSegment() async throws {
            let folder = try Self.trackedFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let server = try await HardeningEndToEndTests.Server(campaigns: folder, extra: ["--hls-js", try HlsJs.file().path])
            defer { kill(server.process.pid, SIGKILL) }
            // Gone once the campaign is loaded (a load would refuse the campaign): the second
            // segment of every ad of more than one answers 404.
            for id in ["alpha", "bravo", "charlie"] {
                for rendition in ["180p", "360p"] {
                    try FileManager.default.removeItem(at: folder.appendingPathComponent("evening-news/media/ads/\(id)/\(rendition)/seg_001.ts"))
                }
            }
            let page = URL(string: "http://127.0.0.1:\(server.port)/play/evening-news")!
            let browser = try await WebDriver()
            do {
                try await browser.open(page)
                var errors: [[String: Any]] = []
                for _ in 0..<60 {
                    try await Task.sleep(for: .seconds(1))
                    let events = try await browser.execute("return window.qoe ? window.qoe.events : []") as? [[String: Any]] ?? []
                    errors = events.filter { $0["type"] as? String == "error" }
                    if !errors.isEmpty { break }
                }
                #expect(!errors.isEmpty, "hls.js met no error")
                _ = try await browser.execute("window.qoe.flush(); return 0")
                try await Task.sleep(for: .seconds(2))
                let url = try #require(try await browser.execute("return window.qoe.url") as? String)
                let path = try #require(URL(string: url)?.path)
                let session = try #require(
                    try JSONSerialization.jsonObject(with: LoopbackHTTP.exchange("GET", port: server.port, path: path).body) as? [String: Any]
                )
                let codes = (session["events"] as? [[String: Any]] ?? []).filter { $0["type"] as? String == "error" }.compactMap {
                    $0["code"] as? String
                }
                print("a missing ad segment: failed \(session["failed"] ?? "-"), errors \(codes)")
                #expect(session["failed"] as? Bool == true || codes.contains { $0.contains("404") }, "\(session)")
                #expect(session["errors"] as? Int ?? 0 >= 1)
                let kpis = try #require(
                    try JSONSerialization.jsonObject(
                        with: LoopbackHTTP.exchange("GET", port: server.port, path: "/v1/campaigns/evening-news/qoe").body
                    ) as? [String: Any]
                )
                #expect((kpis["failed_sessions_pct"] as? [String: Any])?["with_errors"] as? Int ?? 0 >= 1, "\(kpis)")
            } catch {
                await browser.quit()
                throw error
            }
            await browser.quit()
        }
    }
}
