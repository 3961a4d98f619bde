import Foundation
import HLSPlaylist
import Synchronization
import Testing

extension RealClients {
    /// `adstitch serve` over real sockets, played by real clients.
    @Suite("Server, end to end", .serialized)
    struct ServerEndToEndTests {
        /// `adstitch serve` on a free loopback port, for the length of a test.
        final class Server: Sendable {
            let process: BackgroundProcess
            let port: Int

            init() async throws {
                (self.process, self.port) = try await BackgroundProcess.server(CLITests.binary, ports: 40_000..<50_000, marker: "Server started") {
                    [
                        "serve", "--campaigns", Repository.root.appendingPathComponent("Campaigns").path, "--port", "\($0)", "--secret", "e2e",
                        "--preview",
                    ]
                }
            }

            func get(_ path: String) throws -> String {
                String(decoding: try LoopbackHTTP.request("GET", port: self.port, path: path, body: Data()), as: UTF8.self)
            }
        }

        @Test(
            "GStreamer decodes every frame of a served session (fMP4; one TS asset cut at its markers), fetched over HTTP from the server",
            arguments: ["feature-fmp4", "single-asset"]
        )
        func gstreamerDecodesAServedSession(_ campaign: String) async throws {
            let server = try await Server()
            let master = try server.get("/v1/campaigns/\(campaign)/master.m3u8?session=served-1&locale=es")
            let variant = try #require(master.split(separator: "\n").first { $0.hasPrefix("sessions/") && $0.hasSuffix("v0.m3u8") })
            let base = "http://127.0.0.1:\(server.port)/v1/campaigns/\(campaign)/"
            let manifestPath = "/v1/campaigns/\(campaign)/" + variant.replacingOccurrences(of: "v0.m3u8", with: "boundaries.json")
            let manifest = try JSONSerialization.jsonObject(with: Data(try server.get(manifestPath).utf8)) as? [String: Any]
            let duration = try #require(ExactDecimal("\(manifest?["duration"] ?? "")"))
            let decoded = try await Decoded(try #require(URL(string: base + variant)), scratch: FileManager.default.temporaryDirectory, audio: false)
            #expect(decoded.videoFrames == (duration * 25).roundedToInteger)
            // GStreamer reports nothing: the server's own view of the session stands for it.
            let quality =
                try JSONSerialization.jsonObject(
                    with: Data(try server.get("/v1/campaigns/\(campaign)/" + variant.replacingOccurrences(of: "v0.m3u8", with: "qoe")).utf8)
                ) as? [String: Any]
            let view = quality?["server"] as? [String: Any]
            #expect(quality?["estimated"] as? Bool == true && quality?["failed"] as? Bool == false, "\(quality ?? [:])")
            #expect(
                view?["first_playlist"] != nil && (view?["switches"] as? [[String: Any]])?.first?["rendition"] as? String == "v0",
                "\(view ?? [:])"
            )
        }

        /// One session started on `a` and continued on `b`, checked against itself and its manifest.
        static func checkSession(_ index: Int, a: Server, b: Server) -> [String] {
            var failures: [String] = []
            func fail(_ message: String) { failures.append("session \(index): \(message)") }
            do {
                let locale = ["es-ES", "en-GB", "fr-FR", "de-DE"][index % 4]
                let campaign = index.isMultiple(of: 2) ? "evening-news" : "feature-fmp4"
                let base = "/v1/campaigns/\(campaign)/"
                let master = try LoopbackHTTP.exchange("GET", port: a.port, path: base + "master.m3u8?session=many-\(index)&locale=\(locale)")
                guard master.status == 200 else {
                    fail("master answered \(master.status)")
                    return failures
                }
                let uris = String(decoding: master.body, as: UTF8.self).split(separator: "\n").filter {
                    $0.hasPrefix("sessions/") && $0.hasSuffix(".m3u8")
                }
                guard let video = uris.first(where: { $0.hasSuffix("/v0.m3u8") }) else {
                    fail("no v0 in the master")
                    return failures
                }
                let first = try LoopbackHTTP.exchange("GET", port: a.port, path: base + video)
                let again = try LoopbackHTTP.exchange("GET", port: a.port, path: base + video)
                let replica = try LoopbackHTTP.exchange("GET", port: b.port, path: base + video)
                if first.status != 200 || first.body != again.body { fail("v0 changed between two requests") }
                if replica.body != first.body { fail("the other replica served different bytes for the same token") }
                let playlist = try PlaylistParser().parseMediaPlaylist(String(decoding: first.body, as: UTF8.self))
                let manifestPath = base + video.replacingOccurrences(of: "v0.m3u8", with: "boundaries.json")
                let manifestData = try LoopbackHTTP.exchange("GET", port: b.port, path: manifestPath).body
                guard let manifest = try JSONSerialization.jsonObject(with: manifestData) as? [String: Any] else {
                    fail("no manifest")
                    return failures
                }
                if manifest["session"] as? String != "many-\(index)" { fail("manifest of another session") }
                if ExactDecimal("\(manifest["duration"] ?? "")") != playlist.duration {
                    fail("manifest duration \(manifest["duration"] ?? "") ≠ playlist \(playlist.duration)")
                }
                // Every boundary, break start and end, and ad start is where a piece of the stitched
                // playlist starts (after a discontinuity), to the exact decimal.
                let starts = Set([ExactDecimal.zero] + playlist.segments.filter(\.isDiscontinuity).map(\.startTime))
                guard let boundaries = manifest["boundaries"] as? [Any], boundaries.count >= 3, let breaks = manifest["breaks"] as? [[String: Any]]
                else {
                    fail("the manifest has no boundaries or breaks")
                    return failures
                }
                var times = boundaries.map { "\($0)" }
                for adBreak in breaks {
                    times += ["\(adBreak["start"] ?? "")"]
                    if let end = ExactDecimal("\(adBreak["end"] ?? "")"), end != playlist.duration { times.append("\(end)") }
                    guard let ads = adBreak["ads"] as? [[String: Any]], !ads.isEmpty else {
                        fail("break \(adBreak["id"] ?? "?") has no ads")
                        continue
                    }
                    times += ads.map { "\($0["start"] ?? "")" }
                }
                for time in times where !starts.contains(ExactDecimal(time) ?? -1) { fail("\(time) is not where a piece starts") }
                if (manifest["breaks"] as? [Any])?.isEmpty ?? true { fail("no breaks in the manifest") }
                // The same path with one character of the token changed.
                let token = video.split(separator: "/")[1]
                let flipped = String(token.prefix(10)) + (token.dropFirst(10).first == "A" ? "B" : "A") + token.dropFirst(11)
                let forged = try LoopbackHTTP.exchange("GET", port: b.port, path: base + "sessions/\(flipped)/v0.m3u8")
                if forged.status != 403 { fail("a tampered token got \(forged.status)") }
            } catch {
                fail("\(error)")
            }
            return failures
        }

        @Test(
            "48 concurrent viewers over real sockets across two replicas: stable playlists, agreeing replicas, boundaries at the splices, 403 for tampered tokens"
        )
        func manyConcurrentSessions() async throws {
            let a = try await Server()
            let b = try await Server()
            let failures = Mutex<[String]>([])
            let group = DispatchGroup()
            // Threads, not tasks: the client is blocking, and the cooperative pool has two threads here.
            for index in 0..<48 {
                group.enter()
                Thread.detachNewThread {
                    let found = Self.checkSession(index, a: a, b: b)
                    failures.withLock { $0 += found }
                    group.leave()
                }
            }
            #expect(group.wait(timeout: .now() + 120) == .success)
            let all = failures.withLock { $0 }
            #expect(all.isEmpty, "\(all.count) failures, first: \(all.prefix(5).joined(separator: "; "))")
            let metrics = try a.get("/metrics")
            #expect(metrics.contains(#"adstitch_http_requests_total{route="/v1/campaigns/{id}/master.m3u8",method="GET",status="200"} 48"#))
        }

        @Test("SIGTERM shuts the server down gracefully: exit status 0, the port closed")
        func gracefulShutdown() async throws {
            let server = try await Server()
            #expect(try server.get("/healthz") == "ok\n")
            kill(server.process.pid, SIGTERM)
            #expect(await Spawn.wait(server.process.pid, timeout: 15) == 0)
            #expect(throws: (any Error).self) { try server.get("/healthz") }
        }

        @Test("headless Chromium plays a session of the served TS demo to the end from /play")
        func chromiumPlaysAServedSession() async throws {
            let server = try await Server()
            let browser = try await WebDriver()
            do {
                let playback = try await browser.play(URL(string: "http://127.0.0.1:\(server.port)/play/evening-news")!)
                #expect(playback.ended, "did not play to the end: \(playback.description)")
                #expect(playback.error == nil, "media error: \(playback.description)")
                #expect(try await browser.severeLogs().isEmpty)
                // Native playback reports nothing (the page cannot learn its session's URL): the
                // server's own view of the session gives the campaign's figures, as estimates.
                let kpis =
                    try JSONSerialization.jsonObject(with: Data(try server.get("/v1/campaigns/evening-news/qoe?by=replica").utf8)) as? [String: Any]
                #expect(kpis?["sessions"] as? Int ?? 0 >= 1 && kpis?["estimated"] as? Int == kpis?["sessions"] as? Int, "\(kpis ?? [:])")
                #expect((kpis?["failed_sessions_pct"] as? [String: Any])?["failed"] as? Int == 0, "\(kpis ?? [:])")
                #expect((kpis?["twib_bps"] as? [String: Any])?["count"] as? Int ?? 0 >= 1, "\(kpis ?? [:])")
            } catch {
                await browser.quit()
                throw error
            }
            await browser.quit()
        }
    }
}
