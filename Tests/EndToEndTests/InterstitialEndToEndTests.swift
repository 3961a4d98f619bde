import Foundation
import HLSPlaylist
import Testing

extension RealClients {
    /// Interstitial sessions (`insertion=interstitials`) from `adstitch serve`, played by real
    /// clients: hls.js plays the breaks as HLS Interstitials; GStreamer and ffmpeg, which ignore
    /// them, play the primary content (docs/real-clients.md).
    @Suite("Interstitial sessions, real clients", .serialized)
    struct InterstitialEndToEndTests {
        typealias Server = ServerEndToEndTests.Server

        /// An interstitial session of `campaign`: its session path prefix (`/v1/campaigns/{id}/sessions/{token}/`),
        /// its boundary manifest and its multivariant playlist.
        static func session(_ server: Server, campaign: String, query: String) throws -> (prefix: String, manifest: [String: Any], master: String) {
            let master = try server.get("/v1/campaigns/\(campaign)/master.m3u8?insertion=interstitials&\(query)")
            let variant = try #require(master.split(separator: "\n").first { $0.hasPrefix("sessions/") && $0.hasSuffix("/v0.m3u8") })
            let prefix = "/v1/campaigns/\(campaign)/" + variant.dropLast("v0.m3u8".count)
            let manifest = try #require(
                try JSONSerialization.jsonObject(with: Data(try server.get(prefix + "boundaries.json").utf8)) as? [String: Any]
            )
            #expect(manifest["insertion"] as? String == "interstitials")
            return (prefix, manifest, master)
        }

        static func decimal(_ value: Any?) -> ExactDecimal? { (value as? NSNumber).flatMap { ExactDecimal($0.stringValue) } }

        @Test("GStreamer decodes every frame of an interstitial session's primary content (it ignores interstitials)")
        func gstreamerPlaysThePrimary() throws {
            let server = try Server()
            defer { server.process.stop() }
            let (prefix, manifest, _) = try Self.session(server, campaign: "evening-news", query: "session=primary-1")
            let primary = try #require(Self.decimal(manifest["primaryDuration"]))
            let decoded = try Decoded(
                try #require(URL(string: "http://127.0.0.1:\(server.port)\(prefix)v1.m3u8")),
                scratch: FileManager.default.temporaryDirectory
            )
            #expect(decoded.videoFrames == RealClientTests.frames(primary, fps: 25), "\(decoded.videoFrames) frames for \(primary) s of primary")
        }

        @Test("ffmpeg reads an interstitial session's primary content to the end, and ffprobe reports the primary's duration")
        func ffmpegPlaysThePrimary() throws {
            let server = try Server()
            defer { server.process.stop() }
            let (prefix, manifest, _) = try Self.session(server, campaign: "single-asset", query: "session=primary-2")
            let primary = try #require(Self.decimal(manifest["primaryDuration"]))
            let url = "http://127.0.0.1:\(server.port)\(prefix)v0.m3u8"
            let decode = try Tool.run("ffmpeg", ["-v", "error", "-nostdin", "-i", url, "-f", "null", "-"])
            #expect(decode.status == 0 && decode.output.isEmpty, "\(decode.output)")
            let probe = try Tool.run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "default=nw=1:nk=1", url])
            let reported = ExactDecimal(probe.output.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(reported == primary, "ffprobe: \(probe.output), primary: \(primary)")
        }

        /// hls.js 1.6 plays the evening-news session as interstitials: the pre-roll before the
        /// programme, the mid-roll (restrict: [skip, jump]) — which a seek past it cannot avoid:
        /// hls.js plays it and resumes the programme where the break stands, not at the seek
        /// target — and the post-roll after it, each from the asset list it fetched, every
        /// asset of each list started.
        @Test("hls.js plays an interstitial session: pre-roll, a restricted mid-roll a seek cannot skip, post-roll")
        func hlsJsPlaysInterstitials() async throws {
            let server = try Server()
            defer { server.process.stop() }
            let (prefix, manifest, masterText) = try Self.session(server, campaign: "evening-news", query: "session=hlsjs-1&player=hls.js")
            let breaks = try #require(manifest["breaks"] as? [[String: Any]])
            #expect(breaks.map { $0["id"] as? String } == ["preroll", "mid-1", "postroll"])
            let starts = breaks.map { Self.decimal(($0["primary"] as? [String: Any])?["start"])?.doubleValue ?? -1 }
            let assets = breaks.map { ($0["ads"] as? [[String: Any]])?.count ?? 0 }
            let primary = try #require(Self.decimal(manifest["primaryDuration"])).doubleValue

            // The page comes from another origin (CORS, as for a real web player).
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hlsjs-interstitials-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            try FileManager.default.copyItem(at: HlsJs.file(), to: folder.appendingPathComponent("hls.js"))
            // The session's own multivariant playlist (the one the manifest above belongs to),
            // its relative URIs made absolute on the server.
            let sessionText = masterText.replacingOccurrences(
                of: "sessions/",
                with: "http://127.0.0.1:\(server.port)/v1/campaigns/evening-news/sessions/"
            )
            try Data(sessionText.utf8).write(to: folder.appendingPathComponent("master.m3u8"))
            let master = "master.m3u8"
            let seekTarget = (starts[1] + starts[2]) / 2  // past the mid-roll, before the post-roll
            let page = """
                <!doctype html>
                <html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>AdStitch e2e, interstitials</title>
                <script src="hls.js"></script></head>
                <body><video id="video" muted playsinline width="640"></video>
                <script>
                  const video = document.getElementById('video');
                  window.log = []; window.hlsError = null; window.seeked = false; window.done = false;
                  const hls = new Hls();
                  const primaryTime = () => hls.interstitialsManager ? hls.interstitialsManager.primary.currentTime : -1;
                  hls.on('hlsError', (e, d) => { if (d.fatal) window.hlsError = d.type + ': ' + d.details; else window.log.push('error:' + d.details); });
                  hls.on('hlsAssetListLoaded', (e, d) => window.log.push('list:' + d.event.identifier + ':' + d.assetListResponse.ASSETS.length));
                  hls.on('hlsInterstitialStarted', (e, d) => window.log.push('start:' + d.event.identifier + ':' + d.event.startTime.toFixed(3)));
                  hls.on('hlsInterstitialAssetStarted', (e, d) => window.log.push('asset:' + d.event.identifier + ':' + d.assetListIndex));
                  hls.on('hlsInterstitialEnded', (e, d) => {
                    window.log.push('end:' + d.event.identifier);
                    if (d.event.cue.post) window.done = true;
                  });
                  hls.on('hlsInterstitialsPrimaryResumed', () => {
                    window.log.push('resumed:' + primaryTime().toFixed(3));
                    // Once the programme has played a little after the pre-roll, seek past the mid-roll.
                    if (!window.seeked) setTimeout(() => { window.seeked = true; window.log.push('seek:\(seekTarget)'); video.currentTime = \(seekTarget); }, 600);
                  });
                  video.defaultPlaybackRate = 4;
                  video.addEventListener('loadedmetadata', () => { video.playbackRate = 4; video.play(); });
                  hls.loadSource('\(master)');
                  hls.attachMedia(video);
                </script></body></html>
                """
            try Data(page.utf8).write(to: folder.appendingPathComponent("page.html"))
            let pages = try StaticServer(root: folder)
            defer { pages.process.stop() }

            let browser = try await WebDriver()
            var log: [String] = []
            do {
                try await browser.open(pages.url("page.html"))
                let deadline = Date().addingTimeInterval(90)
                while Date() < deadline {
                    try await Task.sleep(for: .seconds(1))
                    let state = try await browser.execute("return [window.done, window.hlsError]") as? [Any] ?? []
                    if state.first as? Bool == true || (state.count > 1 && !(state[1] is NSNull)) { break }
                }
                log = try await browser.execute("return window.log") as? [String] ?? []
                let error = try await browser.execute("return window.hlsError")
                #expect(error is NSNull, "hls.js: \(error); \(log)")
            } catch {
                await browser.quit()
                throw error
            }
            await browser.quit()

            // Each break: its asset list fetched, started at its place on the primary timeline,
            // every asset started, ended.
            for (index, id) in ["preroll", "mid-1", "postroll"].enumerated() {
                #expect(log.contains("list:\(id):\(assets[index])"), "\(id): asset list of \(assets[index]) assets; \(log)")
                let start = log.first { $0.hasPrefix("start:\(id):") }.flatMap { Double($0.split(separator: ":").last ?? "") }
                #expect(
                    start.map { abs($0 - starts[index]) < 0.05 } == true,
                    "\(id) starts at \(String(describing: start)), expected \(starts[index]); \(log)"
                )
                for asset in 0..<assets[index] { #expect(log.contains("asset:\(id):\(asset)"), "\(id) asset \(asset); \(log)") }
                #expect(log.contains("end:\(id)"), "\(id) ended; \(log)")
            }
            // In order; the seek past the restricted mid-roll played it, then resumed the
            // programme where the break stands — before the seek target.
            let order = log.filter { $0.hasPrefix("start:") || $0.hasPrefix("seek:") }.map {
                $0.split(separator: ":").prefix(2).joined(separator: ":")
            }
            #expect(order == ["start:preroll", "seek:\(seekTarget)", "start:mid-1", "start:postroll"], "\(log)")
            let resumedAfterMid = log.drop { $0 != "end:mid-1" }.first { $0.hasPrefix("resumed:") }.flatMap { Double($0.dropFirst("resumed:".count)) }
            #expect(
                resumedAfterMid.map { $0 < seekTarget - 0.5 && abs($0 - starts[1]) < 0.5 } == true,
                "after the mid-roll the programme resumed at \(String(describing: resumedAfterMid)), not at the seek target \(seekTarget); \(log)"
            )
            #expect(primary > seekTarget)
        }
    }
}
