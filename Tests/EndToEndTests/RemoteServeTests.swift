import AdSessions
import Foundation
import HLSPlaylist
import Testing

extension RealClients {
    /// `adstitch serve` over a campaign whose playlists are on an http origin (the evening-news
    /// demo behind the test origin), its media written straight onto the origin or, through a
    /// rewrite rule, onto a second loopback server standing for the CDN. Real clients play the
    /// sessions; the server serves playlists, never the remote media.
    @Suite("Remote campaigns, served", .serialized)
    struct RemoteServeTests {
        /// A campaigns folder with the demo's YAML on `origin` and `extra` appended.
        static func campaigns(origin: StaticServer, extra: String = "") throws -> URL {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("remote-serve-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("news"), withIntermediateDirectories: true)
            let yaml = try String(contentsOf: Repository.campaign("evening-news"), encoding: .utf8)
                .replacingOccurrences(of: "playlist: media/", with: "playlist: \(origin.base.absoluteString)media/")
            try Data((yaml + "\n" + extra).utf8).write(to: folder.appendingPathComponent("news/campaign.yaml"))
            return folder
        }

        /// ``campaigns(origin:extra:)`` with every segment and key on the origin with the viewer's
        /// session in its query (`?st={session}`): each row of each playlist carries the viewer's
        /// value (GStreamer once fetched 0 frames of such a session).
        static func tokenCampaigns(origin: StaticServer) throws -> URL {
            let port = try #require(origin.base.port)
            return try Self.campaigns(
                origin: origin,
                extra:
                    "rewrite:\n  - { name: token, applies_to: [program, ads, slate, keys], match: '^http://127\\.0\\.0\\.1:\(port)/(.*)$', replace: '\(origin.base.absoluteString)$1?st={session}' }\n"
            )
        }

        /// A session's video playlists (their server paths) and its duration, from its master.
        static func session(_ server: HardeningEndToEndTests.Server, query: String) throws -> (playlists: [String], duration: ExactDecimal) {
            let master = try server.get("/v1/campaigns/evening-news/master.m3u8?\(query)")
            #expect(master.status == 200, "\(master.body)")
            let playlists = master.body.split(separator: "\n").filter { $0.hasPrefix("sessions/") && $0.hasSuffix(".m3u8") }
                .map { "/v1/campaigns/evening-news/" + $0 }
            let prefix = try #require(playlists.first?.split(separator: "/").dropLast().joined(separator: "/"))
            let manifest = try server.get("/" + prefix + "/boundaries.json")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(manifest.body.utf8)) as? [String: Any])
            let duration = try #require((json["duration"] as? NSNumber).flatMap { ExactDecimal($0.stringValue) })
            return (playlists, duration)
        }

        /// Requests adstitch counted on its media route (`adstitch_http_requests_total`, any status).
        static func mediaRequests(_ server: HardeningEndToEndTests.Server) throws -> Int {
            let metrics = try server.get("/metrics").body
            #expect(metrics.contains("adstitch_http_requests_total{"), "the counter is there to read")
            return metrics.split(separator: "\n")
                .filter { $0.hasPrefix("adstitch_http_requests_total{") && $0.contains("route=\"/v1/campaigns/{id}/media/**\"") }
                .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }
                .reduce(0) { $0 + Int($1) }
        }

        @Test("GStreamer decodes every frame of a served session whose segments and keys come straight from the origin")
        func gstreamerDecodesFromTheOrigin() async throws {
            let origin = try await StaticServer(root: Repository.root.appendingPathComponent("Campaigns/evening-news"))
            let base = origin.base.absoluteString
            let folder = try Self.campaigns(origin: origin)
            defer { try? FileManager.default.removeItem(at: folder) }
            let server = try await HardeningEndToEndTests.Server(campaigns: folder)
            defer { kill(server.process.pid, SIGKILL) }

            let (playlists, duration) = try Self.session(server, query: "session=remote-1&locale=es-ES")
            #expect(playlists.count == 2)
            for path in playlists {
                let playlist = try server.get(path)
                #expect(playlist.status == 200)
                let uris = playlist.body.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(BeaconTests.target)
                #expect(uris.count > 10 && uris.allSatisfy { $0.hasPrefix(base + "media/") }, "\(uris.prefix(3))")
                let keys = playlist.body.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-KEY:METHOD=AES-128") }
                #expect(!keys.isEmpty && keys.allSatisfy { $0.contains("URI=\"\(base)media/") })
                let scratch = FileManager.default.temporaryDirectory
                let decoded = try await Decoded(URL(string: "http://127.0.0.1:\(server.port)\(path)")!, scratch: scratch)
                #expect(decoded.videoFrames == RealClientTests.frames(duration, fps: 25), "\(path): \(decoded.videoFrames) frames for \(duration) s")
            }
            #expect(try origin.hits().keys.contains { $0.hasSuffix(".ts") }, "the segments came from the origin")
            #expect(try Self.mediaRequests(server) == 0, "no media request reached adstitch")
            // The count is live: a media request would show (a remote campaign has no local media: 404).
            #expect(try server.get("/v1/campaigns/evening-news/media/program/act-1/360p/seg_000.ts").status == 404)
            #expect(try Self.mediaRequests(server) == 1)
        }

        @Test("GStreamer decodes every frame of a session whose every URI carries its token (?st={session}), gzip or plain")
        func gstreamerDecodesPerSessionTokens() async throws {
            let origin = try await StaticServer(root: Repository.root.appendingPathComponent("Campaigns/evening-news"))
            let folder = try Self.tokenCampaigns(origin: origin)
            defer { try? FileManager.default.removeItem(at: folder) }
            let server = try await HardeningEndToEndTests.Server(campaigns: folder)
            defer { kill(server.process.pid, SIGKILL) }
            let (playlists, duration) = try Self.session(server, query: "session=token-viewer-0123456789&locale=es-ES")
            for path in playlists {
                let playlist = try server.get(path)
                let uris = playlist.body.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(BeaconTests.target)
                #expect(uris.count > 10 && uris.allSatisfy { $0.hasSuffix("?st=token-viewer-0123456789") }, "\(uris.prefix(3))")
                for compress in [false, true] {
                    let decoded = try await Decoded(
                        URL(string: "http://127.0.0.1:\(server.port)\(path)")!,
                        scratch: FileManager.default.temporaryDirectory,
                        compress: compress
                    )
                    #expect(
                        decoded.videoFrames == RealClientTests.frames(duration, fps: 25),
                        "\(path), gzip asked \(compress): \(decoded.videoFrames) frames for \(duration) s"
                    )
                }
            }
        }

        @Test("hls.js plays a session whose every URI carries its token (?st={session}) to the end, gzip answers and all")
        func hlsJsPlaysPerSessionTokens() async throws {
            let origin = try await StaticServer(root: Repository.root.appendingPathComponent("Campaigns/evening-news"))
            let folder = try Self.tokenCampaigns(origin: origin)
            defer { try? FileManager.default.removeItem(at: folder) }
            let server = try await HardeningEndToEndTests.Server(campaigns: folder)
            defer { kill(server.process.pid, SIGKILL) }
            let master = try server.get("/v1/campaigns/evening-news/master.m3u8?session=hls-token-viewer")
            #expect(master.status == 200)
            let (_, duration) = try Self.session(server, query: "session=hls-token-viewer")
            let log = try await InterstitialEndToEndTests.playWithHlsJs(port: server.port, campaign: "evening-news", master: master.body)
            let ended = log.last { $0.hasPrefix("video-ended:") }.flatMap { Double($0.dropFirst("video-ended:".count)) }
            #expect(ended.map { abs($0 - duration.doubleValue) < 0.5 } == true, "ended at \(String(describing: ended)) of \(duration) s; \(log)")
            #expect(try origin.hits().keys.contains { $0.hasSuffix(".ts") }, "the segments came from the origin, with the token")
        }

        @Test(
            "headless Chromium plays a TS session to the end through a CDN-prefix rewrite with a per-session token; segments from the CDN, keys from the origin"
        )
        func chromiumPlaysThroughTheCDN() async throws {
            let origin = try await StaticServer(root: Repository.root.appendingPathComponent("Campaigns/evening-news"))
            // The CDN: another server over the same media, and the player's page.
            let cdnRoot = FileManager.default.temporaryDirectory.appendingPathComponent("cdn-\(UUID().uuidString.prefix(8))")
            defer { try? FileManager.default.removeItem(at: cdnRoot) }
            try FileManager.default.createDirectory(at: cdnRoot, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                at: cdnRoot.appendingPathComponent("media"),
                withDestinationURL: Repository.root.appendingPathComponent("Campaigns/evening-news/media")
            )
            let cdn = try await StaticServer(root: cdnRoot)
            let originPort = try #require(origin.base.port)
            let cdnBase = cdn.base.absoluteString
            let folder = try Self.campaigns(
                origin: origin,
                extra: """
                    rewrite:
                      - { name: cdn, match: '^http://127\\.0\\.0\\.1:\(originPort)/(.*)$', replace: '\(cdnBase)$1?st={session}' }
                    """
            )
            defer { try? FileManager.default.removeItem(at: folder) }
            let server = try await HardeningEndToEndTests.Server(campaigns: folder)
            defer { kill(server.process.pid, SIGKILL) }

            let (playlists, duration) = try Self.session(server, query: "session=cdn-1&locale=en-GB")
            let playlist = try server.get(try #require(playlists.first))
            let uris = playlist.body.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(BeaconTests.target)
            #expect(uris.count > 10 && uris.allSatisfy { $0.hasPrefix(cdnBase + "media/") }, "\(uris.prefix(3))")
            // A per-session token in every segment URI (the viewer's value in every row).
            #expect(uris.allSatisfy { $0.hasSuffix("?st=cdn-1") }, "\(uris.prefix(3))")

            // crossorigin: Chromium's native HLS reads a key from another host than the page's
            // only in CORS mode (without it: DEMUXER_ERROR_COULD_NOT_PARSE); docs/real-clients.md.
            let page = """
                <!doctype html>
                <html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>AdStitch CDN e2e</title></head>
                <body><video id="video" src="http://127.0.0.1:\(server.port)/v1/campaigns/evening-news/master.m3u8?session=cdn-1&amp;locale=en-GB"
                  crossorigin="anonymous" muted autoplay playsinline width="640"></video></body></html>
                """
            try Data(page.utf8).write(to: cdnRoot.appendingPathComponent("play.html"))
            let browser = try await WebDriver()
            do {
                let playback = try await browser.play(cdn.url("play.html"))
                #expect(playback.ended, "did not play to the end: \(playback.description)")
                #expect(playback.error == nil, "media error: \(playback.description)")
                if let played = playback.duration { #expect(abs(played - duration.doubleValue) < 0.5, "\(played) s vs \(duration) s") }
                #expect(try await browser.severeLogs().isEmpty)
            } catch {
                await browser.quit()
                throw error
            }
            await browser.quit()

            let cdnHits = try cdn.hits()
            let originHits = try origin.hits()
            #expect(cdnHits.keys.filter { $0.hasSuffix(".ts") }.count > 10, "segments from the CDN: \(cdnHits) origin: \(originHits)")
            #expect(!originHits.keys.contains { $0.hasSuffix(".ts") }, "no segment from the origin: \(originHits)")
            #expect(originHits.keys.contains { $0.hasSuffix(".key") }, "keys stay on the origin: \(originHits)")
            #expect(try Self.mediaRequests(server) == 0, "no media request reached adstitch")
        }
    }
}
