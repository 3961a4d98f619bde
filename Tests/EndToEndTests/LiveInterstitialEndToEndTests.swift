import Foundation
import HLSPlaylist
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension RealClients {
    /// A live channel served as HLS Interstitials (docs/design-decisions.md "Live interstitials"):
    /// one primary playlist per rendition for every viewer, per-viewer asset lists.
    @Suite("Live channels as interstitials, end to end", .serialized)
    struct LiveInterstitialEndToEndTests {
        /// A break every 20 segments (38.4 s) from segment 10, five segments (9.6 s) long; break 2
        /// announces 15.36 s and ends at 9.6 (an early return). Dates three hours behind the clock.
        static let firstBreak = 10
        static let breakEvery = 20
        static let breakLength = 5

        /// The live end-to-end tests' campaign (``LiveEndToEndTests/folder(origin:tracked:)``) as interstitials.
        static func folder(origin port: Int) throws -> URL {
            let folder = try LiveEndToEndTests.folder(origin: port)
            let file = folder.appendingPathComponent("live/campaign.yaml")
            let yaml = try String(contentsOf: file, encoding: .utf8)
            try Data((yaml + "\ninsertion: interstitials\nreporting: client\n").utf8).write(to: file)
            return folder
        }

        @Test(
            "three minutes, two replicas sharing PostgreSQL: every viewer's primary playlist is the same bytes on both, cacheable; asset lists are the viewer's, the same on both; hls.js joins mid-break, then plays three breaks through, one ending early"
        )
        func threeMinutes() async throws {
            let database = try await PostgresServer()
            let epoch = Int(Date().timeIntervalSince1970) + 1
            let script = Repository.root.appendingPathComponent("scripts/live-origin.py").path
            let (origin, originPort) = try await BackgroundProcess.server("python3", ports: 40_000..<50_000, marker: "Serving HTTP") {
                [
                    "-u", script, "--epoch", "\(epoch)", "--window", "10", "--first-break", "\(Self.firstBreak)", "--break-every",
                    "\(Self.breakEvery)", "--break-length", "\(Self.breakLength)", "--early-break", "2", "--date-offset", "-10800",
                    "--port", "\($0)",
                ]
            }
            defer { origin.stop() }
            let folder = try Self.folder(origin: originPort)
            defer { try? FileManager.default.removeItem(at: folder) }
            let a = try await HardeningEndToEndTests.Server(campaigns: folder, extra: ["--database", database.url])
            defer { kill(a.process.pid, SIGKILL) }
            let b = try await HardeningEndToEndTests.Server(campaigns: folder, extra: ["--database", database.url])
            defer { kill(b.process.pid, SIGKILL) }

            /// A session's multivariant playlist and the token its media playlists carry.
            func start(_ server: HardeningEndToEndTests.Server, _ session: String) async throws -> (master: String, token: String) {
                let deadline = Date().addingTimeInterval(30)
                while Date() < deadline {
                    let answer = try server.get("/v1/campaigns/live-e2e/master.m3u8?session=\(session)")
                    if answer.status == 200 {
                        let uris = answer.body.split(separator: "\n").filter { !$0.hasPrefix("#") }
                        #expect(uris.count == 2 && uris.allSatisfy { $0.hasPrefix("channel/") && $0.contains(".m3u8?token=") }, "\(answer.body)")
                        #expect(!answer.body.contains("boundaries.json"), "an interstitial session has no boundary manifest")
                        let token = try #require(uris.first?.split(separator: "=").last.map(String.init))
                        return (answer.body, token)
                    }
                    try await Task.sleep(for: .milliseconds(500))
                }
                throw Tool.Missing(name: "a live session start on the test channel")
            }
            let viewer = try await start(a, "lin-viewer")
            let other = try await start(b, "lin-other")
            #expect(viewer.token != other.token)
            let primary = "/v1/campaigns/live-e2e/channel/v0.m3u8"

            // The primary's headers: for a CDN, below half a target duration; revalidated by ETag.
            let first = try LoopbackHTTP.exchange("GET", port: a.port, path: primary + "?token=" + viewer.token)
            #expect(first.status == 200 && first.head.lowercased().contains("cache-control: public, max-age=1"), "\(first.head)")
            let etag = try #require(
                first.head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("etag:") }.map {
                    String($0.dropFirst(5)).trimmingCharacters(in: .whitespaces)
                }
            )
            let again = try LoopbackHTTP.exchange("GET", port: a.port, path: primary + "?token=x", headers: [("If-None-Match", etag)])
            // Another token, the same playlist: 304 while the cut has not moved, else a new ETag.
            let changed = again.head.split(separator: "\r\n").contains { $0.lowercased().hasPrefix("etag:") && !$0.hasSuffix(etag) }
            #expect((again.status == 304 && again.body.isEmpty) || (again.status == 200 && changed), "\(again.status) \(again.head)")

            var player: HlsJsLiveInterstitials?
            var joinedBreak: String?
            var differing: [String] = []
            var polls = 0
            // Each interstitial's attributes as seen, by id; each asset list's assets, by id.
            var limits: [String: [String]] = [:]
            var durations: [String: String] = [:]
            var lists: [String: Int] = [:]
            let end = Date().addingTimeInterval(175)
            while Date() < end {
                // a, b, a: b's answer is one of a's (a cut may fall between two requests).
                let before = try a.get(primary + "?token=" + viewer.token)
                let middle = try b.get(primary + "?token=" + other.token)
                let after = try a.get(primary + "?token=" + viewer.token)
                polls += 1
                guard before.status == 200, middle.status == 200, after.status == 200 else {
                    differing.append("status \(before.status) \(middle.status) \(after.status)")
                    try await Task.sleep(for: .seconds(1))
                    continue
                }
                if middle.body != before.body && middle.body != after.body { differing.append(middle.body) }
                let resolved = try PlaylistParser().parseMediaPlaylist(
                    middle.body,
                    url: URL(string: "http://127.0.0.1:\(b.port)\(primary)?token=\(viewer.token)")!
                ).resolvingVariables()
                let segments = Array(resolved.segments)
                let windowEnd = segments.last.flatMap { segment in
                    segment.programDateTime.flatMap { DateTime(String($0))?.secondsSinceEpoch }.map { $0 + segment.duration }
                }
                for entry in resolved.dateRanges where entry.dateRange.isInterstitial {
                    let range = entry.dateRange
                    guard let id = range.id, let list = range.attributes.string("X-ASSET-LIST") else { continue }
                    limits[id, default: []].append(range.attributes.string("X-PLAYOUT-LIMIT") ?? "-")
                    if let duration = range.duration { durations[id] = "\(duration)" }
                    if lists[id] == nil {
                        // The viewer's asset list, the same from either replica (decided once, kept in PostgreSQL).
                        let path = try #require(URL(string: list, relativeTo: URL(string: "http://127.0.0.1\(primary)")!)?.absoluteURL)
                        let query = path.query.map { "?" + $0 } ?? ""
                        let fromA = try a.get(path.path + query)
                        let fromB = try b.get(path.path + query)
                        // Each replica names its own address (the request's host): the same list otherwise.
                        let sameList = fromA.body.replacingOccurrences(of: "127.0.0.1:\(a.port)/", with: "127.0.0.1:\(b.port)/") == fromB.body
                        #expect(fromA.status == 200 && sameList, "\(id): \(fromA.body) vs \(fromB.body)")
                        let assets =
                            (try JSONSerialization.jsonObject(with: Data(fromA.body.utf8)) as? [String: Any])?["ASSETS"] as? [[String: Any]] ?? []
                        #expect(
                            !assets.isEmpty && assets.allSatisfy { ($0["URI"] as? String)?.hasPrefix("http://127.0.0.1:") == true },
                            "\(fromA.body)"
                        )
                        lists[id] = assets.count
                        // Joining late in the break: only what plays from there, never nothing.
                        let late = try a.get(path.path + query + "&_HLS_start_offset=9")
                        let lateAssets = (try JSONSerialization.jsonObject(with: Data(late.body.utf8)) as? [String: Any])?["ASSETS"] as? [Any] ?? []
                        #expect(!lateAssets.isEmpty && lateAssets.count <= assets.count, "\(late.body)")
                        #expect(try a.get(path.path + query + "&_HLS_start_offset=abc").status == 400)
                    }
                    // hls.js joins while the first break plays, 3–7 s into it (it starts 6 s before the window's end).
                    if player == nil, let start = range.startDate.flatMap({ DateTime($0)?.secondsSinceEpoch }), let windowEnd,
                        (ExactDecimal(9)...ExactDecimal(13)).contains(windowEnd - start)
                    {
                        joinedBreak = id
                        let absolute = viewer.master.replacingOccurrences(
                            of: "channel/",
                            with: "http://127.0.0.1:\(b.port)/v1/campaigns/live-e2e/channel/"
                        )
                        player = try await HlsJsLiveInterstitials(master: absolute)
                    }
                }
                try await Task.sleep(for: .seconds(1))
            }
            let log = try await player?.finish() ?? (log: [], error: "never started", currentTime: 0)
            print(
                "live interstitials: \(polls) polls, limits \(limits), durations \(durations), lists \(lists), joined \(joinedBreak ?? "-"); hls.js \(log)"
            )
            #expect(
                differing.isEmpty,
                "\(differing.count) of \(polls) polls: replica b's primary was neither of a's around it: \(differing.prefix(2))"
            )
            #expect(log.error == nil, "hls.js: \(log)")
            // Four breaks aired; hls.js joined the first mid-way and played three more through.
            let started = log.log.filter { $0.hasPrefix("start:") }.map { $0.split(separator: ":")[1] }
            let ended = log.log.filter { $0.hasPrefix("end:") }.map { $0.split(separator: ":")[1] }
            #expect(Set(started).count >= 4 && Set(ended).count >= 4, "\(log.log)")
            if let joinedBreak {
                #expect(started.first.map(String.init) == joinedBreak, "hls.js started with \(started.first ?? "-"), joined \(joinedBreak)")
            }
            // The early return: break 2 was announced 15.36 s and ended at 9.6 — its playout limit followed.
            let early = limits.first { $0.value.contains("15.36") }
            #expect(early.map { $0.value.last == "9.6" && durations[$0.key] == "9.6" } == true, "\(limits) \(durations)")
            #expect(log.log.filter { $0 == "resumed" }.count >= 4, "hls.js resumed the programme after each break: \(log.log)")
            // The checker's polls with the viewer's token reached replica a (no CDN here): its own
            // view of the session saw the media playlists, and a start that played is no failed one.
            let quality =
                try JSONSerialization.jsonObject(with: Data(try a.get("/v1/campaigns/live-e2e/sessions/\(viewer.token)/qoe").body.utf8))
                as? [String: Any]
            let view = quality?["server"] as? [String: Any]
            #expect(view?["first_playlist"] != nil && quality?["failed"] as? Bool == false, "\(quality ?? [:])")
        }

        /// nginx with `proxy_cache` in front of one replica, keyed by path: 40 viewers, each with
        /// a session of their own, poll both renditions' primary playlists every half second
        /// through it for 20 s; the replica answers about one fetch per rendition per `max-age`,
        /// not one per viewer.
        @Test("a CDN in front: 40 viewers polling the primary playlists through nginx cost the replica about one fetch per rendition and second")
        func behindACDN() async throws {
            let epoch = Int(Date().timeIntervalSince1970) + 1
            let script = Repository.root.appendingPathComponent("scripts/live-origin.py").path
            let (origin, originPort) = try await BackgroundProcess.server("python3", ports: 40_000..<50_000, marker: "Serving HTTP") {
                [
                    "-u", script, "--epoch", "\(epoch)", "--window", "10", "--first-break", "4", "--break-every", "8", "--break-length", "3",
                    "--port", "\($0)",
                ]
            }
            defer { origin.stop() }
            let folder = try Self.folder(origin: originPort)
            defer { try? FileManager.default.removeItem(at: folder) }
            let replica = try await HardeningEndToEndTests.Server(campaigns: folder)
            defer { kill(replica.process.pid, SIGKILL) }
            let work = folder.appendingPathComponent("nginx")
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            // Debian installs it in /usr/sbin, which a test runner's PATH may lack.
            let binary = FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx") ? "/usr/sbin/nginx" : "nginx"
            let (nginx, port) = try await BackgroundProcess.server(binary, ports: 40_000..<50_000, marker: "start worker process") { port in
                let config = """
                    worker_processes 1;
                    daemon off;
                    master_process on;
                    pid \(work.path)/nginx-\(port).pid;
                    error_log stderr notice;
                    events { worker_connections 512; }
                    http {
                      access_log off;
                      client_body_temp_path \(work.path)/body; proxy_temp_path \(work.path)/proxy;
                      fastcgi_temp_path \(work.path)/fastcgi; uwsgi_temp_path \(work.path)/uwsgi; scgi_temp_path \(work.path)/scgi;
                      proxy_cache_path \(work.path)/cache levels=1 keys_zone=channel:1m max_size=64m;
                      server {
                        listen 127.0.0.1:\(port);
                        location /v1/campaigns/ {
                          proxy_pass http://127.0.0.1:\(replica.port);
                          proxy_http_version 1.1;
                          proxy_cache channel;
                          # The token in the query is the viewer's; the primary's bytes are not.
                          proxy_cache_key $scheme$proxy_host$uri;
                          proxy_cache_lock on;
                          proxy_cache_use_stale updating;
                          add_header X-Cache $upstream_cache_status;
                        }
                      }
                    }
                    """
                let file = work.appendingPathComponent("nginx-\(port).conf")
                try? Data(config.utf8).write(to: file)
                return ["-c", file.path, "-p", work.path]
            }
            defer { nginx.stop() }

            // 40 sessions, each its own token.
            var tokens: [String] = []
            let deadline = Date().addingTimeInterval(30)
            while tokens.count < 40, Date() < deadline {
                let answer = try replica.get("/v1/campaigns/live-e2e/master.m3u8?session=cdn-\(tokens.count)")
                if answer.status == 200, let uri = answer.body.split(separator: "\n").first(where: { $0.hasPrefix("channel/") }),
                    let token = uri.split(separator: "=").last
                {
                    tokens.append(String(token))
                } else {
                    try await Task.sleep(for: .milliseconds(500))
                }
            }
            #expect(tokens.count == 40)
            // The insertion mode as asked: stitched on request; interstitials refused with
            // server-side reporting (a live asset list's events are the player's to fire).
            let stitched = try replica.get("/v1/campaigns/live-e2e/master.m3u8?session=cdn-s&insertion=stitched")
            #expect(stitched.status == 200 && stitched.body.contains("\nsessions/") && !stitched.body.contains("channel/"), "\(stitched.body)")
            let refused = try replica.get("/v1/campaigns/live-e2e/master.m3u8?session=cdn-r&insertion=interstitials&reporting=server")
            #expect(refused.status == 400 && refused.body.contains("reporting=client"), "\(refused.body)")
            func fetches() throws -> Int {
                let text = try replica.get("/metrics").body
                return text.split(separator: "\n").filter {
                    $0.hasPrefix("adstitch_http_request_duration_seconds_count{") && $0.contains("/channel/")
                }
                .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }.reduce(0) { $0 + Int($1) }
            }
            let before = try fetches()
            var served = 0
            var hits = 0
            var failures: [String] = []
            let started = Date()
            while Date().timeIntervalSince(started) < 20 {
                for token in tokens {
                    for rendition in ["v0", "v1"] {
                        let answer = try LoopbackHTTP.exchange(
                            "GET",
                            port: port,
                            path: "/v1/campaigns/live-e2e/channel/\(rendition).m3u8?token=\(token)"
                        )
                        served += 1
                        if answer.status != 200 || !String(decoding: answer.body, as: UTF8.self).hasPrefix("#EXTM3U") {
                            failures.append("\(answer.status)")
                        }
                        if answer.head.contains("X-Cache: HIT") { hits += 1 }
                    }
                }
                try await Task.sleep(for: .milliseconds(500))
            }
            let elapsed = Date().timeIntervalSince(started)
            let fetched = try fetches() - before
            print("behind a CDN: \(served) answers to 40 viewers in \(elapsed) s, \(hits) cache hits, \(fetched) fetches of the replica")
            #expect(failures.isEmpty, "\(failures.prefix(5))")
            // max-age=1 for a target duration of 2: about one fetch per rendition per second (and
            // per revalidation), whatever the viewers; far from one per viewer.
            #expect(fetched > 0 && Double(fetched) <= 2 * (elapsed + 2) * 1.5, "\(fetched) fetches in \(elapsed) s")
            #expect(served >= 40 * 2 * 10 && hits >= served * 9 / 10, "\(hits) of \(served)")
        }

        /// hls.js (MSE) in headless Chromium playing a live interstitial session, logging each
        /// interstitial's asset list, start, assets and end.
        final class HlsJsLiveInterstitials {
            let browser: WebDriver
            let pages: StaticServer
            let folder: URL

            init(master: String) async throws {
                self.folder = FileManager.default.temporaryDirectory.appendingPathComponent("hlsjs-lin-\(UUID().uuidString.prefix(8))")
                try FileManager.default.createDirectory(at: self.folder, withIntermediateDirectories: true)
                try FileManager.default.copyItem(at: HlsJs.file(), to: self.folder.appendingPathComponent("hls.js"))
                try Data(master.utf8).write(to: self.folder.appendingPathComponent("master.m3u8"))
                let page = """
                    <!doctype html>
                    <html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>AdStitch e2e, live interstitials</title>
                    <script src="hls.js"></script></head>
                    <body><video id="video" muted playsinline width="640"></video>
                    <script>
                      const video = document.getElementById('video');
                      window.log = []; window.hlsError = null;
                      const hls = new Hls();
                      hls.on('hlsError', (e, d) => { if (d.fatal) window.hlsError = d.type + ': ' + d.details; else window.log.push('error:' + d.details); });
                      hls.on('hlsAssetListLoaded', (e, d) => window.log.push('list:' + d.event.identifier + ':' + d.assetListResponse.ASSETS.length));
                      hls.on('hlsInterstitialStarted', (e, d) => window.log.push('start:' + d.event.identifier));
                      hls.on('hlsInterstitialAssetStarted', (e, d) => window.log.push('asset:' + d.event.identifier + ':' + d.assetListIndex));
                      hls.on('hlsInterstitialEnded', (e, d) => window.log.push('end:' + d.event.identifier));
                      hls.on('hlsInterstitialsPrimaryResumed', () => window.log.push('resumed'));
                      hls.loadSource('master.m3u8');
                      hls.attachMedia(video);
                      hls.on(Hls.Events.MANIFEST_PARSED, () => video.play());
                    </script></body></html>
                    """
                try Data(page.utf8).write(to: self.folder.appendingPathComponent("page.html"))
                self.pages = try await StaticServer(root: self.folder)
                self.browser = try await WebDriver()
                try await self.browser.open(self.pages.url("page.html"))
            }

            /// What the player logged and reached, then the browser, pages and folder gone.
            func finish() async throws -> (log: [String], error: String?, currentTime: Double) {
                defer {
                    self.pages.process.stop()
                    try? FileManager.default.removeItem(at: self.folder)
                }
                let log = try await self.browser.execute("return window.log") as? [String] ?? []
                // The primary's time (an asset playing has its own).
                let state =
                    try await self.browser.execute(
                        "const m = hls.interstitialsManager; return [m ? m.primary.currentTime : document.getElementById('video').currentTime, window.hlsError]"
                    ) as? [Any] ?? []
                await self.browser.quit()
                return (log, state.count > 1 ? state[1] as? String : nil, state.first as? Double ?? 0)
            }
        }
    }
}
