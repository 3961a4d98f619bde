import AdPreview
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
        func gstreamerPlaysThePrimary() async throws {
            let server = try await Server()
            defer { server.process.stop() }
            let (prefix, manifest, _) = try Self.session(server, campaign: "evening-news", query: "session=primary-1")
            let primary = try #require(Self.decimal(manifest["primaryDuration"]))
            let decoded = try await Decoded(
                try #require(URL(string: "http://127.0.0.1:\(server.port)\(prefix)v1.m3u8")),
                scratch: FileManager.default.temporaryDirectory
            )
            #expect(decoded.videoFrames == RealClientTests.frames(primary, fps: 25), "\(decoded.videoFrames) frames for \(primary) s of primary")
        }

        @Test("ffmpeg reads an interstitial session's primary content to the end, and ffprobe reports the primary's duration")
        func ffmpegPlaysThePrimary() async throws {
            let server = try await Server()
            defer { server.process.stop() }
            let (prefix, manifest, _) = try Self.session(server, campaign: "single-asset", query: "session=primary-2")
            let primary = try #require(Self.decimal(manifest["primaryDuration"]))
            let url = "http://127.0.0.1:\(server.port)\(prefix)v0.m3u8"
            let decode = try await Tool.run("ffmpeg", ["-v", "error", "-nostdin", "-i", url, "-f", "null", "-"])
            #expect(decode.status == 0 && decode.output.isEmpty, "\(decode.output)")
            let probe = try await Tool.run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "default=nw=1:nk=1", url])
            let reported = ExactDecimal(probe.output.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(reported == primary, "ffprobe: \(probe.output), primary: \(primary)")
        }

        /// What hls.js did playing an interstitial session: its events as `list:ID:count`,
        /// `start:ID:primaryTime`, `asset:ID:index`, `end:ID`, `resumed:primaryTime`, `seek:T`,
        /// `ended:primaryTime` (with `video-ended:currentTime`). The page comes from another origin
        /// (CORS, as for a real web player) and plays the session's own multivariant playlist at
        /// 4×; with `seekTarget`, it seeks there 0.6 s after the programme first resumes. It stops
        /// at the post-roll's end or at the primary's end (a stitched session's end).
        static func playWithHlsJs(_ server: Server, campaign: String, master: String, seekTarget: Double? = nil) async throws -> [String] {
            try await Self.playWithHlsJs(port: server.port, campaign: campaign, master: master, seekTarget: seekTarget)
        }

        static func playWithHlsJs(port: Int, campaign: String, master: String, seekTarget: Double? = nil) async throws -> [String] {
            let absolute = master.replacingOccurrences(of: "sessions/", with: "http://127.0.0.1:\(port)/v1/campaigns/\(campaign)/sessions/")
            return try await Self.playWithHlsJs(source: .text(absolute), seekTarget: seekTarget)
        }

        /// What hls.js plays: a multivariant playlist's text (served beside the page), or a URL
        /// it fetches itself, resolving the playlist's URIs against it as any player does.
        enum HlsJsSource {
            case text(String)
            case url(URL)
        }

        static func playWithHlsJs(source: HlsJsSource, seekTarget: Double? = nil) async throws -> [String] {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hlsjs-interstitials-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            try FileManager.default.copyItem(at: HlsJs.file(), to: folder.appendingPathComponent("hls.js"))
            let load: String
            switch source {
            case .text(let text):
                try Data(text.utf8).write(to: folder.appendingPathComponent("master.m3u8"))
                load = "master.m3u8"
            case .url(let url):
                load = url.absoluteString
            }
            let seek =
                seekTarget.map {
                    "if (!window.seeked) setTimeout(() => { window.seeked = true; window.log.push('seek:\($0)'); video.currentTime = \($0); }, 600);"
                } ?? ""
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
                    \(seek)
                  });
                  // 'ended' fires after every asset played apart from the primary too: the primary's
                  // own end is the one with no interstitial playing.
                  video.addEventListener('ended', () => {
                    const item = hls.interstitialsManager && hls.interstitialsManager.playingItem;
                    if (!item || !item.event) {
                      window.log.push('ended:' + primaryTime().toFixed(3), 'video-ended:' + video.currentTime.toFixed(3));
                      if (!hls.interstitialsManager || !hls.interstitialsManager.events.some(e => e.cue.post)) window.done = true;
                    }
                  });
                  video.defaultPlaybackRate = 4;
                  video.addEventListener('loadedmetadata', () => { video.playbackRate = 4; video.play(); });
                  hls.loadSource('\(load)');
                  hls.attachMedia(video);
                </script></body></html>
                """
            try Data(page.utf8).write(to: folder.appendingPathComponent("page.html"))
            let pages = try await StaticServer(root: folder)
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
                #expect(try await browser.severeLogs().isEmpty)
            } catch {
                await browser.quit()
                throw error
            }
            await browser.quit()
            return log
        }

        /// Each break of the manifest: its asset list (as served) fetched, started at its place on
        /// the primary timeline (hls.js maps dates through media times that start 21 ms in, for
        /// AAC priming: 50 ms allowed), every asset of it started, ended.
        static func checkBreaks(_ log: [String], manifest: [String: Any], server: Server, prefix: String) throws {
            for item in try #require(manifest["breaks"] as? [[String: Any]]) {
                let id = try #require(item["id"] as? String)
                let start = try #require(Self.decimal((item["primary"] as? [String: Any])?["start"])).doubleValue
                let list = try #require(
                    try JSONSerialization.jsonObject(with: Data(try server.get(prefix + "assets-\(id).json").utf8)) as? [String: Any]
                )
                let assets = (list["ASSETS"] as? [Any])?.count ?? 0
                #expect(assets > 0 && log.contains("list:\(id):\(assets)"), "\(id): asset list of \(assets) assets; \(log)")
                let started = log.first { $0.hasPrefix("start:\(id):") }.flatMap { Double($0.split(separator: ":").last ?? "") }
                #expect(started.map { abs($0 - start) < 0.05 } == true, "\(id) starts at \(String(describing: started)), expected \(start); \(log)")
                for asset in 0..<assets { #expect(log.contains("asset:\(id):\(asset)"), "\(id) asset \(asset); \(log)") }
                #expect(log.contains("end:\(id)"), "\(id) ended; \(log)")
            }
        }

        /// hls.js 1.6 plays the evening-news session as interstitials: the pre-roll before the
        /// programme, the mid-roll (restrict: [skip, jump]) — which a seek past it cannot avoid:
        /// hls.js plays it and resumes the programme where the break stands, not at the seek
        /// target — and the post-roll after it, each from the asset list it fetched, every
        /// asset of each list started.
        @Test("hls.js plays an interstitial session: pre-roll, a restricted mid-roll a seek cannot skip, post-roll")
        func hlsJsPlaysInterstitials() async throws {
            let server = try await Server()
            defer { server.process.stop() }
            let (prefix, manifest, master) = try Self.session(server, campaign: "evening-news", query: "session=hlsjs-1&player=hls.js")
            let breaks = try #require(manifest["breaks"] as? [[String: Any]])
            #expect(breaks.map { $0["id"] as? String } == ["preroll", "mid-1", "postroll"])
            let starts = breaks.map { Self.decimal(($0["primary"] as? [String: Any])?["start"])?.doubleValue ?? -1 }
            let primary = try #require(Self.decimal(manifest["primaryDuration"])).doubleValue
            let seekTarget = (starts[1] + starts[2]) / 2  // past the mid-roll, before the post-roll
            #expect(primary > seekTarget)

            let log = try await Self.playWithHlsJs(server, campaign: "evening-news", master: master, seekTarget: seekTarget)
            try Self.checkBreaks(log, manifest: manifest, server: server, prefix: prefix)
            // In order; the seek past the restricted mid-roll played it, then resumed the
            // programme where the break stands — before the seek target.
            // (On a busy machine hls.js may announce the pre-roll twice as it attaches the media; it
            // plays it once: each break must end exactly once.)
            let order = log.filter { $0.hasPrefix("start:") || $0.hasPrefix("seek:") }
                .map { $0.split(separator: ":").prefix(2).joined(separator: ":") }
                .reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }
            #expect(order == ["start:preroll", "seek:\(seekTarget)", "start:mid-1", "start:postroll"], "\(log)")
            for id in ["preroll", "mid-1", "postroll"] { #expect(log.count { $0 == "end:\(id)" } == 1, "\(id) ended once; \(log)") }
            let resumedAfterMid = log.drop { $0 != "end:mid-1" }.first { $0.hasPrefix("resumed:") }.flatMap { Double($0.dropFirst("resumed:".count)) }
            #expect(
                resumedAfterMid.map { $0 < seekTarget - 0.5 && abs($0 - starts[1]) < 0.5 } == true,
                "after the mid-roll the programme resumed at \(String(describing: resumedAfterMid)), not at the seek target \(seekTarget); \(log)"
            )
        }

        /// The single-asset demo as interstitials: replacements (`X-RESUME-OFFSET` = the replaced
        /// stretch, `X-TIMELINE-OCCUPIES="RANGE"`) skip the programme they replace — hls.js resumes
        /// at start + resume offset — and an insertion resumes where it stood; the primary plays to
        /// its end.
        @Test("hls.js plays the one-asset demo's replacements and insertion as interstitials, resuming past each replaced stretch")
        func hlsJsPlaysReplacements() async throws {
            let server = try await Server()
            defer { server.process.stop() }
            let (prefix, manifest, master) = try Self.session(server, campaign: "single-asset", query: "session=hlsjs-2&player=hls.js")
            let log = try await Self.playWithHlsJs(server, campaign: "single-asset", master: master)
            try Self.checkBreaks(log, manifest: manifest, server: server, prefix: prefix)
            var replacements = 0
            for item in try #require(manifest["breaks"] as? [[String: Any]]) {
                let id = try #require(item["id"] as? String)
                let placement = try #require(item["primary"] as? [String: Any])
                let resume = try #require(Self.decimal(placement["start"])) + (try #require(Self.decimal(placement["resumeOffset"])))
                if try #require(Self.decimal(placement["resumeOffset"])) > .zero { replacements += 1 }
                let resumed = log.drop { $0 != "end:\(id)" }.first { $0.hasPrefix("resumed:") }.flatMap { Double($0.dropFirst("resumed:".count)) }
                #expect(
                    resumed.map { abs($0 - resume.doubleValue) < 0.3 } == true,
                    "\(id): resumed at \(String(describing: resumed)), expected \(resume); \(log)"
                )
            }
            #expect(replacements >= 2, "the demo has marker replacements")
            let primary = try #require(Self.decimal(manifest["primaryDuration"])).doubleValue
            let ended = log.last { $0.hasPrefix("ended:") }.flatMap { Double($0.dropFirst("ended:".count)) }
            #expect(ended.map { abs($0 - primary) < 0.3 } == true, "the primary ended at \(String(describing: ended)) of \(primary); \(log)")
        }

        /// The preview page with hls.js (`serve --hls-js`, as `make run` starts it): its
        /// interstitial player plays the plan's breaks as interstitials under the page's
        /// Content-Security-Policy (hls.js's worker, MSE), with no console error.
        @Test("the preview's interstitial player (hls.js) plays every break of the plan, with no console error")
        func previewPlaysInterstitials() async throws {
            let server = try await HardeningEndToEndTests.Server(
                campaigns: Repository.root.appendingPathComponent("Campaigns"),
                extra: ["--hls-js", try HlsJs.file().path]
            )
            defer { kill(server.process.pid, SIGKILL) }
            let browser = try await WebDriver()
            var statuses: [String] = []
            do {
                try await browser.open(
                    try #require(URL(string: "http://127.0.0.1:\(server.port)/preview/evening-news?session=pv-1&at=2026-11-27T19:30:00Z"))
                )
                _ = try await browser.execute(
                    "const v = document.getElementById('video-interstitials'); v.defaultPlaybackRate = 4; v.playbackRate = 4; v.play(); return true"
                )
                let deadline = Date().addingTimeInterval(60)
                while Date() < deadline, !(statuses.last ?? "").hasPrefix("Break postroll") {
                    try await Task.sleep(for: .milliseconds(250))
                    let status = try await browser.execute("return document.getElementById('interstitial-now').textContent") as? String ?? ""
                    if status != statuses.last { statuses.append(status) }
                }
                #expect(try await browser.severeLogs().isEmpty)
            } catch {
                await browser.quit()
                throw error
            }
            await browser.quit()
            #expect(statuses.contains { $0.hasPrefix("Break preroll: asset 1 of") }, "\(statuses)")
            #expect(statuses.contains { $0.hasPrefix("Break mid-1: asset 1 of") && $0.hasSuffix("(restricted: no skipping)") }, "\(statuses)")
            #expect(statuses.contains { $0.hasPrefix("Break postroll: asset 1 of 1") }, "\(statuses)")
            #expect(!statuses.contains { $0.hasPrefix("hls.js:") }, "\(statuses)")
        }

        /// A campaigns folder holding `last-island` (`insertion: auto`): islands of 3.84 s TS
        /// segments (`scripts/ts-demo-media.sh` with `SEGMENT=3.84`, encoded here), act-1 of two
        /// segments and act-2 of one, the mid-roll `mid-1` between them — so it resumes the
        /// programme in its final segment, which hls.js before 1.7 stalls after
        /// (docs/real-clients.md) — and a post-roll; the ads and slate are the TS demo's.
        static func lastIslandCampaigns() async throws -> URL {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("last-island-\(UUID().uuidString.prefix(8))")
            let media = folder.appendingPathComponent("last-island/media")
            try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
            let demo = Repository.root.appendingPathComponent("Campaigns/evening-news/media")
            for name in ["ads", "slate"] {
                try FileManager.default.copyItem(at: demo.appendingPathComponent(name), to: media.appendingPathComponent(name))
            }
            let encode = try await Tool.run(
                "bash",
                [
                    "-c",
                    """
                    set -euo pipefail
                    cd "$1"
                    source "$2"
                    SEGMENT=3.84
                    asset program/act-1 7.68 testsrc2 "sine=frequency=440" "ACT 1" PROGRAM_LADDER
                    asset program/act-2 3.84 testsrc "sine=frequency=523" "ACT 2" PROGRAM_LADDER
                    """,
                    "encode", media.path, Repository.root.appendingPathComponent("scripts/ts-demo-media.sh").path,
                ]
            )
            #expect(encode.status == 0, "\(encode.output)")
            let yaml = """
                version: 1
                id: last-island
                title: Last island of one segment
                insertion: auto
                program:
                  islands:
                    - { id: act-1, playlist: media/program/act-1/master.m3u8 }
                    - { id: act-2, playlist: media/program/act-2/master.m3u8 }
                breaks:
                  - { id: mid-1, before: act-2, duration: 6, pools: [house] }
                  - { id: postroll, after: act-2, duration: 2, pools: [house] }
                slate: { playlist: media/slate/master.m3u8 }
                pools:
                  house:
                    - { id: delta, playlist: media/ads/delta/master.m3u8 }
                    - { id: bravo, playlist: media/ads/bravo/master.m3u8 }

                """
            try Data(yaml.utf8).write(to: folder.appendingPathComponent("last-island/campaign.yaml"))
            return folder
        }

        /// The preview's interstitial player carries a workaround for hls.js 1.6's stall after a
        /// break resuming in the programme's final segment (PreviewAssets): it seeks to what is
        /// buffered when hls.js leaves the element before it. With it, hls.js 1.6.15 plays such a
        /// session to the end: the mid-roll, the programme's last segment, the post-roll.
        @Test("the preview's hls.js 1.6 plays a session whose mid-roll resumes in the final segment to the end, every break started and ended")
        func previewPlaysPastABreakBeforeTheFinalSegment() async throws {
            let folder = try await Self.lastIslandCampaigns()
            defer { try? FileManager.default.removeItem(at: folder) }
            let server = try await HardeningEndToEndTests.Server(campaigns: folder, extra: ["--hls-js", try HlsJs.file().path])
            defer { kill(server.process.pid, SIGKILL) }
            let browser = try await WebDriver()
            var log: [String] = []
            do {
                try await browser.open(try #require(URL(string: "http://127.0.0.1:\(server.port)/preview/last-island?session=pv-last")))
                // The page's own hls.js instance, watched before it plays.
                _ = try await browser.execute(
                    """
                    const video = document.getElementById('video-interstitials');
                    const hls = video.hls;
                    window.log = []; window.done = false;
                    const primaryTime = () => hls.interstitialsManager ? hls.interstitialsManager.primary.currentTime.toFixed(3) : '-';
                    hls.on('hlsInterstitialStarted', (e, d) => window.log.push('start:' + d.event.identifier + ':' + primaryTime()));
                    hls.on('hlsInterstitialEnded', (e, d) => {
                      window.log.push('end:' + d.event.identifier + ':' + primaryTime());
                      if (d.event.cue.post) window.done = true;
                    });
                    hls.on('hlsInterstitialsPrimaryResumed', () => window.log.push('resumed:' + primaryTime()));
                    hls.on('hlsError', (e, d) => window.log.push((d.fatal ? 'fatal:' : 'error:') + d.details));
                    video.defaultPlaybackRate = 4; video.playbackRate = 4; video.play();
                    return true
                    """
                )
                let deadline = Date().addingTimeInterval(45)
                while Date() < deadline {
                    try await Task.sleep(for: .milliseconds(500))
                    if try await browser.execute("return window.done") as? Bool == true { break }
                }
                log = try await browser.execute("return window.log") as? [String] ?? []
                #expect(try await browser.severeLogs().isEmpty)
            } catch {
                await browser.quit()
                throw error
            }
            await browser.quit()
            for id in ["mid-1", "postroll"] {
                #expect(log.count { $0.hasPrefix("start:\(id):") } == 1, "\(id) started once; \(log)")
                #expect(log.count { $0.hasPrefix("end:\(id):") } == 1, "\(id) ended once; \(log)")
            }
            let order = log.filter { $0.hasPrefix("start:") || $0.hasPrefix("end:") }.map {
                $0.split(separator: ":").prefix(2).joined(separator: ":")
            }
            #expect(order == ["start:mid-1", "end:mid-1", "start:postroll", "end:postroll"], "\(log)")
            // The programme resumed after the mid-roll (7.68 s) and played its final segment to the
            // end (11.52 s) before the post-roll.
            let postroll = log.first { $0.hasPrefix("start:postroll:") }.flatMap { Double($0.split(separator: ":").last ?? "") }
            #expect(postroll.map { $0 > 11.2 } == true, "the post-roll started at \(String(describing: postroll)) s of primary; \(log)")
            #expect(!log.contains { $0.hasPrefix("fatal:") }, "\(log)")
        }

        /// `insertion=auto` (the campaign's) for a page that says `player=hls.js/1.6.15` gets a
        /// stitched session of the campaign hls.js 1.6 would stall on as interstitials, and hls.js
        /// plays it to the end; `player=hls.js/1.7.0` gets interstitials.
        @Test("auto gives hls.js 1.6 a stitched session of a campaign whose mid-roll resumes in the final segment, and it plays to the end")
        func autoStitchesForHlsJs16() async throws {
            let folder = try await Self.lastIslandCampaigns()
            defer { try? FileManager.default.removeItem(at: folder) }
            let server = try await HardeningEndToEndTests.Server(campaigns: folder)
            defer { kill(server.process.pid, SIGKILL) }
            func start(_ player: String) throws -> (master: String, manifest: [String: Any]) {
                let master = try server.get("/v1/campaigns/last-island/master.m3u8?session=auto-1&player=\(player)")
                #expect(master.status == 200, "\(master.body)")
                let variant = try #require(master.body.split(separator: "\n").first { $0.hasPrefix("sessions/") && $0.hasSuffix("/v0.m3u8") })
                let manifest = try server.get("/v1/campaigns/last-island/" + variant.dropLast("v0.m3u8".count) + "boundaries.json")
                return (master.body, try #require(try JSONSerialization.jsonObject(with: Data(manifest.body.utf8)) as? [String: Any]))
            }
            #expect(try start("hls.js/1.7.0").manifest["insertion"] as? String == "interstitials")
            let (master, manifest) = try start("hls.js/1.6.15")
            #expect(manifest["insertion"] as? String == "stitched")
            #expect(!master.contains("com.apple.hls.interstitial"))
            let breaks = try #require(manifest["breaks"] as? [[String: Any]])
            #expect(breaks.map { $0["id"] as? String } == ["mid-1", "postroll"])
            let duration = try #require(Self.decimal(manifest["duration"])).doubleValue
            let log = try await Self.playWithHlsJs(port: server.port, campaign: "last-island", master: master)
            let ended = log.last { $0.hasPrefix("video-ended:") }.flatMap { Double($0.dropFirst("video-ended:".count)) }
            #expect(ended.map { abs($0 - duration) < 0.5 } == true, "ended at \(String(describing: ended)) of \(duration) s; \(log)")
        }
    }
}
