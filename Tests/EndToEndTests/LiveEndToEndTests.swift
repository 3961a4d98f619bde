import Foundation
import HLSPlaylist
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension RealClients {
    /// A live channel stitched per viewer (docs/design-decisions.md "Live"), watched for three minutes of wall clock by
    /// GStreamer, ffmpeg and headless Chromium at once, while a checker polls every rendition each
    /// second on two replicas in turn — the second started after a break has left the origin's
    /// window, knowing it only from the break history in PostgreSQL.
    @Suite("Live sessions, end to end", .serialized)
    struct LiveEndToEndTests {
        /// The live origin in real time: ten-segment windows (19.2 s), a five-segment break (9.6 s)
        /// every twenty segments from segment 6, CUE and DATERANGE SCTE-35 styles in turn.
        static let firstBreak = 6
        static let breakEvery = 20
        static let breakLength = 5
        static let segment = ExactDecimal(significand: 192, exponent: 2)

        static func marked(_ sequence: Int) -> Bool {
            sequence >= Self.firstBreak && (sequence - Self.firstBreak) % Self.breakEvery < Self.breakLength
        }

        /// A campaigns folder with the live campaign on `origin` and the single-asset demo's ads and
        /// slate; with `tracked`, alpha tracks its impression, midpoint and complete (on the
        /// origin's master, which answers any query: what the server fires is counted `sent`).
        static func folder(origin port: Int, tracked: Bool = false) throws -> URL {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("live-e2e-\(UUID().uuidString.prefix(8))")
            let media = folder.appendingPathComponent("live/media")
            try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
            for part in ["ads", "slate"] {
                try FileManager.default.copyItem(
                    at: Repository.root.appendingPathComponent("Campaigns/single-asset/media/\(part)"),
                    to: media.appendingPathComponent(part)
                )
            }
            let yaml = """
                version: 1
                id: live-e2e
                program: { live: "http://127.0.0.1:\(port)/master.m3u8" }
                marker_breaks: { duration: 9.6, pools: [prime], restrict: [skip] }
                slate: { playlist: media/slate/master.m3u8 }
                pools:
                  prime:
                    - { id: alpha, playlist: media/ads/alpha/master.m3u8\(tracked ? Self.alphaTracking(port) : "") }
                    - { id: bravo, playlist: media/ads/bravo/master.m3u8 }
                markers: [daterange, cue]
                """
            try Data(yaml.utf8).write(to: folder.appendingPathComponent("live/campaign.yaml"))
            return folder
        }

        static func alphaTracking(_ port: Int) -> String {
            let events = ["impression", "midpoint", "complete"].map { #"\#($0): ["http://127.0.0.1:\#(port)/master.m3u8?track=\#($0)"]"# }
            return ", tracking: { " + events.joined(separator: ", ") + " }"
        }

        /// What the checker saw under each media sequence number of a rendition.
        struct Seen {
            var segments: [Int: String] = [:]
            var discontinuities: [Int: Int] = [:]
            var lastMediaSequence = Int.min
            var ads: [String: String] = [:]
            var polls = 0
            /// The breaks of the latest answer that start at least 4 s after its first segment: still
            /// in the window a few seconds later, when the preview page is asked.
            var breaksStaying: Set<String> = []
        }

        @Test("three minutes across breaks: GStreamer, ffmpeg and Chromium play; two replicas agree on every number and ad")
        func threeMinutes() async throws {
            let database = try await PostgresServer()
            let epoch = Int(Date().timeIntervalSince1970) + 1
            let script = Repository.root.appendingPathComponent("scripts/live-origin.py").path
            let (origin, originPort) = try await BackgroundProcess.server("python3", ports: 40_000..<50_000, marker: "Serving HTTP") {
                [
                    "-u", script, "--epoch", "\(epoch)", "--window", "10", "--first-break", "\(Self.firstBreak)",
                    "--break-every", "\(Self.breakEvery)", "--break-length", "\(Self.breakLength)", "--port", "\($0)",
                ]
            }
            defer { origin.stop() }
            // alpha's events fire server-side: every client plays its event segments through the
            // beacon route's redirects.
            let folder = try Self.folder(origin: originPort, tracked: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let first = try await HardeningEndToEndTests.Server(campaigns: folder, extra: ["--database", database.url])
            defer { kill(first.process.pid, SIGKILL) }

            // A session for each client and one for the checker, once the channel has a window.
            func start(_ server: HardeningEndToEndTests.Server, _ session: String) async throws -> String {
                let deadline = Date().addingTimeInterval(30)
                while Date() < deadline {
                    let answer = try server.get("/v1/campaigns/live-e2e/master.m3u8?session=\(session)")
                    if answer.status == 200 { return answer.body }
                    try await Task.sleep(for: .milliseconds(500))
                }
                throw Tool.Missing(name: "a live session start on the test channel")
            }
            let checkerMaster = try await start(first, "checker")
            let playlists = checkerMaster.split(separator: "\n").filter { $0.hasPrefix("sessions/") && $0.hasSuffix(".m3u8") }.map {
                "/v1/campaigns/live-e2e/" + $0
            }
            #expect(playlists.count == 2, "\(checkerMaster)")
            // The clients join a channel on air: native Chromium fails a live playlist of one or
            // two segments ("Segment queue never had any data", docs/real-clients.md).
            let onAir = Date().addingTimeInterval(40)
            while Date() < onAir {
                let window = try LoopbackHTTP.exchange("GET", port: originPort, path: "/240p/index.m3u8")
                if String(decoding: window.body, as: UTF8.self).components(separatedBy: "#EXTINF:").count > 6 { break }
                try await Task.sleep(for: .milliseconds(500))
            }
            let base = "http://127.0.0.1:\(first.port)/v1/campaigns/live-e2e/master.m3u8"
            let seconds = 180
            let started = Date()

            // GStreamer: decodes the lowest variant into a file until stopped — through hlsdemux
            // and decodebin named, not uridecodebin. For adaptive streams uridecodebin turns on
            // decodebin's buffering, and gst-launch pauses the pipeline whenever the buffering level
            // drops, as it does at a live edge; one run in four or five, a prerolled sink then held a
            // decoder's allocation query (after a resolution change at an ad) behind a `queue`, and
            // the pipeline stayed paused for good (thread dump in docs/real-clients.md). Without
            // buffering nothing pauses, and decodebin's own queues give each stream its thread.
            let frames = FileManager.default.temporaryDirectory.appendingPathComponent("live-frames-\(UUID().uuidString.prefix(6)).gray")
            defer { try? FileManager.default.removeItem(at: frames) }
            // hlsdemux's own account of what it fetched and when, told on a failure.
            let gstreamerDebug = frames.deletingPathExtension().appendingPathExtension("debug.log")
            defer { try? FileManager.default.removeItem(at: gstreamerDebug) }
            let gstreamer = try BackgroundProcess(
                "env",
                [
                    "GST_DEBUG=hlsdemux:5,adaptivedemux:4,hls:4", "GST_DEBUG_NO_COLOR=1", "GST_DEBUG_FILE=\(gstreamerDebug.path)",
                    "gst-launch-1.0", "-q", "souphttpsrc", "location=\(base)?session=gstreamer", "!", "hlsdemux", "connection-speed=1", "!",
                    "decodebin", "name=d", "d.", "!", "video/x-raw", "!", "videoconvert", "!", "videoscale", "!",
                    "video/x-raw,format=GRAY8,width=64,height=36", "!", "filesink", "location=\(frames.path)", "d.", "!", "audio/x-raw", "!",
                    "fakesink",
                ]
            )
            // ffmpeg: reads 180 s of the first variant and exits. (Unmapped, it reads the best video
            // of one variant and the audio of another, both live at once, and stalls interleaving
            // their timestamps across discontinuities: docs/real-clients.md.)
            let ffmpeg = try BackgroundProcess(
                "ffmpeg",
                ["-nostdin", "-v", "error", "-i", "\(base)?session=ffmpeg", "-map", "0:v:0", "-map", "0:a:0", "-t", "\(seconds)", "-f", "null", "-"]
            )
            // Chromium: plays natively (TS) on the server's own /play page (native HLS needs the
            // playlist on the page's origin), recording waiting events and the time spent in them.
            let chromiumLog = folder.appendingPathComponent("chromium.log")
            let browser = try await WebDriver(arguments: ["--enable-logging", "--v=0", "--vmodule=*hls*=1", "--log-file=\(chromiumLog.path)"])
            try await browser.open(URL(string: "http://127.0.0.1:\(first.port)/play/live-e2e")!)
            _ = try await browser.execute(
                """
                const video = document.getElementById('video');
                // Playback has started once the clock moves past where it first played; a
                // 'waiting' before that is the start (Chromium fires one at 0.00 when it begins
                // before enough is buffered), not a stall.
                window.live = { playing: null, from: video.paused ? null : video.currentTime, waiting: [], startWaits: 0, waitingSince: null, waited: 0, error: null };
                const started = () => window.live.playing !== null;
                video.addEventListener('playing', () => {
                  if (window.live.waitingSince !== null) { window.live.waited += performance.now() - window.live.waitingSince; window.live.waitingSince = null; }
                  if (window.live.from === null) window.live.from = video.currentTime;
                });
                video.addEventListener('waiting', () => {
                  if (!started()) { window.live.startWaits += 1; return; }
                  window.live.waiting.push(video.currentTime.toFixed(2));
                  window.live.waitingSince = performance.now();
                });
                video.addEventListener('error', () => {
                  window.live.error = (video.error ? video.error.message || String(video.error.code) : 'error')
                    + ' at ' + (window.live.lastTime || 0).toFixed(2) + ' s, ' + ((performance.now() - (window.live.playing || 0)) / 1000).toFixed(1) + ' s after it started';
                });
                video.addEventListener('timeupdate', () => {
                  window.live.lastTime = video.currentTime;
                  if (!started() && window.live.from !== null && video.currentTime > window.live.from) window.live.playing = performance.now();
                });
                """
            )

            // The checker: every rendition each second, on the first replica until the second
            // starts, then on each in turn.
            var seen: [String: Seen] = [:]
            var second: HardeningEndToEndTests.Server?
            defer { if let second { kill(second.process.pid, SIGKILL) } }
            var problems: [String] = []
            var polls = 0
            var previewChecked = false
            while Date().timeIntervalSince(started) < Double(seconds) {
                if second == nil, Date().timeIntervalSince(started) > 55 {
                    // The first break (segments 6–10, 11.5–21 s) has left the window (10 segments) by now.
                    second = try await HardeningEndToEndTests.Server(campaigns: folder, extra: ["--database", database.url])
                }
                polls += 1
                // The preview once a break stays in the window for a while (between breaks its
                // window has none to show).
                if !previewChecked, polls >= 60, let staying = seen.values.first(where: { !$0.breaksStaying.isEmpty })?.breaksStaying {
                    problems += try Self.checkPreview(first, knownBreaks: staying)
                    previewChecked = true
                }
                let server = polls % 2 == 0 ? (second ?? first) : first
                for path in playlists {
                    let answer = try server.get(path)
                    guard answer.status == 200 else {
                        if server !== first, answer.status == 503 { continue }  // still reading the channel
                        problems.append("\(path): \(answer.status) \(answer.body.prefix(200))")
                        continue
                    }
                    problems += Self.check(
                        answer.body,
                        rendition: String(path.suffix(7)),
                        epoch: epoch,
                        into: &seen[String(path.suffix(7)), default: Seen()]
                    )
                }
                try await Task.sleep(for: .seconds(1))
            }
            let elapsed = Date().timeIntervalSince(started)
            let state =
                try await browser.execute(
                    "const v = document.getElementById('video'); return [JSON.stringify(window.live), v.currentTime, v.error ? v.error.message : null]"
                ) as? [Any] ?? []
            let logs = try await browser.severeLogs()
            await browser.quit()
            // Still playing when stopped: it neither failed nor took the live session for ended.
            let gstreamerPlaying = !gstreamer.hasExited
            gstreamer.stop()
            let ffmpegStatus = await Spawn.wait(ffmpeg.pid, timeout: 60)

            #expect(problems.isEmpty, "\(problems.prefix(10).joined(separator: "\n"))")
            #expect(previewChecked, "no break stayed in the window after the first minute")
            let v0 = try #require(seen.values.first)
            #expect(seen.values.allSatisfy { $0.polls > 100 }, "the checker polled each rendition every second")
            #expect(second != nil && seen.count == 2)
            let breaksSeen = Set(v0.ads.keys)
            #expect(breaksSeen.count >= 3, "breaks seen: \(breaksSeen)")
            let renditions = Array(seen.values)
            for (number, segment) in renditions[0].segments {
                if let other = renditions[1].segments[number] {
                    #expect(other == segment, "segment \(number): \(segment) in one rendition, \(other) in the other")
                }
            }

            // GStreamer decoded about the time it played: 25 frames a second, from the three
            // segments before the live edge it starts at to the edge when stopped.
            let gstreamerLog = (try? String(contentsOf: gstreamer.log, encoding: .utf8)) ?? ""
            #expect(gstreamerPlaying && !gstreamerLog.contains("ERROR"), "GStreamer: \(gstreamerLog.suffix(800))")
            let decoded = (((try? FileManager.default.attributesOfItem(atPath: frames.path)[.size]) as? Int) ?? 0) / (64 * 36)
            #expect(
                decoded >= Int((elapsed - 12) * 25) && decoded <= Int((elapsed + 25) * 25),
                "GStreamer decoded \(decoded) frames in \(elapsed) s; what hlsdemux fetched:\n\(Self.fetches(gstreamerDebug))"
            )

            let ffmpegLog = (try? String(contentsOf: ffmpeg.log, encoding: .utf8)) ?? ""
            #expect(ffmpegStatus == 0, "ffmpeg: \(ffmpegLog.suffix(800))")

            // The three clients and the checker each a session: alpha's events fired through the
            // redirects the clients followed (the checker fetches no segment), each to its tracker.
            let metrics = try first.get("/metrics").body + (try second?.get("/metrics").body ?? "")
            for event in ["impression", "midpoint", "complete"] {
                #expect(
                    metrics.contains(#"adstitch_beacons_total{event="\#(event)",outcome="sent"}"#),
                    "\(event): \(metrics.split(separator: "\n").filter { $0.contains("beacons") })"
                )
            }
            #expect(!metrics.contains(#"outcome="failed""#), "\(metrics.split(separator: "\n").filter { $0.contains("beacons") })")

            let live = (state.first as? String).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] } ?? [:]
            let currentTime = state.count > 1 ? (state[1] as? Double ?? 0) : 0
            let waited = (live["waited"] as? Double ?? 0) / 1000
            let chromiumLines = ((try? String(contentsOf: chromiumLog, encoding: .utf8)) ?? "").split(separator: "\n")
                .filter { $0.contains("hls") || $0.contains("HLS") || $0.contains("demuxer") }.suffix(15).joined(separator: "\n")
            #expect(live["error"] is NSNull && (state.count > 2 && state[2] is NSNull), "Chromium: \(state)\n\(chromiumLines)")
            #expect(currentTime > Double(seconds) - 30, "Chromium played \(currentTime) s in \(elapsed) s: \(state)")
            // Started (so the stall count below covers the run), then never waited again.
            #expect(live["playing"] is Double, "Chromium never started playing: \(state)")
            #expect((live["waiting"] as? [Any])?.isEmpty == true && waited == 0, "Chromium stalled after the start: \(state)")
            #expect(logs.isEmpty, "\(logs)")
            print(
                "live e2e: \(polls) checker polls, breaks \(breaksSeen.sorted()), GStreamer \(decoded) frames in \(Int(elapsed)) s, Chromium at \(currentTime) s, waiting at the start \(live["startWaits"] ?? 0)×, after it \(live["waiting"] ?? []) for \(waited) s"
            )
        }

        /// The preview of the live campaign: the channel's window, its breaks with this viewer's ads,
        /// what the next break is filled from, and a preview session that plays live.
        static func checkPreview(_ server: HardeningEndToEndTests.Server, knownBreaks: Set<String>) throws -> [String] {
            var problems: [String] = []
            let page = try server.get("/preview/live-e2e?session=preview-1&locale=es-ES")
            if page.status != 200 { problems.append("preview: \(page.status)") }
            for needle in ["Window: segments", "Next break:", "marker airs", "join_mid_break", "Rules applied"] where !page.body.contains(needle) {
                problems.append("preview page lacks \"\(needle)\"")
            }
            if !knownBreaks.contains(where: { page.body.contains("<code>\($0)</code>") }) {
                problems.append("preview page names none of the breaks \(knownBreaks.sorted())")
            }
            if !page.body.contains("<code>alpha</code>") && !page.body.contains("<code>bravo</code>") {
                problems.append("preview page shows no ads for the breaks")
            }
            let master = try server.get("/preview/live-e2e/master.m3u8?session=preview-1")
            guard master.status == 200, let uri = master.body.split(separator: "\n").first(where: { $0.hasSuffix("/v0.m3u8") }) else {
                return problems + ["preview master: \(master.status) \(master.body.prefix(200))"]
            }
            let playlist = try server.get(String(uri))
            if playlist.status != 200 || !playlist.body.contains("#EXT-X-MEDIA-SEQUENCE:") || playlist.body.contains("#EXT-X-ENDLIST") {
                problems.append("preview live playlist: \(playlist.status) \(playlist.body.prefix(300))")
            }
            return problems
        }

        /// hlsdemux's debug log in brief: each fragment it fetched (when, and the last two parts of
        /// its URI), its warnings and errors, and what it said about the playlist's sequence.
        static func fetches(_ log: URL) -> String {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            var lines: [String] = []
            var last = ""
            for line in text.split(separator: "\n") {
                // "0:00:12.133031195 pid thread LEVEL category file:line:function:<object> message"
                let fields = line.split(separator: " ", maxSplits: 6, omittingEmptySubsequences: true)
                guard fields.count == 7 else { continue }
                let time = fields[0].split(separator: ":").suffix(2).joined(separator: ":").prefix(8)
                let message = String(fields[6])
                if let uri = message.range(of: "URI now ") {
                    let short = message[uri.upperBound...].split(separator: "/").suffix(2).joined(separator: "/")
                    if short != last { lines.append("\(time) \(short)") }
                    last = short
                } else if fields[3] == "WARN" || fields[3] == "ERROR" || message.contains("sequence") || message.contains("sync") {
                    lines.append("\(time) \(fields[3]) \(message.prefix(200))")
                }
            }
            return lines.isEmpty ? "(no debug log)" : lines.suffix(150).joined(separator: "\n")
        }

        /// One poll of a viewer's playlist, held to the sequence rules and the marked stretches.
        static func check(_ text: String, rendition: String, epoch: Int, into seen: inout Seen) -> [String] {
            var problems: [String] = []
            let playlist: MediaPlaylist
            do {
                playlist = try PlaylistParser().parseMediaPlaylist(text, url: URL(string: "http://adstitch.test/\(rendition)")!)
            } catch {
                return ["\(rendition): does not parse: \(error)"]
            }
            seen.polls += 1
            let errors = PlaylistLinter().lint(playlist).filter { $0.severity == .error }
            if !errors.isEmpty { problems.append("\(rendition): lint \(errors)") }
            if playlist.hasEndList { problems.append("\(rendition): EXT-X-ENDLIST in a live playlist") }
            if playlist.mediaSequence < seen.lastMediaSequence {
                problems.append("\(rendition): EXT-X-MEDIA-SEQUENCE went back from \(seen.lastMediaSequence) to \(playlist.mediaSequence)")
            }
            seen.lastMediaSequence = playlist.mediaSequence
            for segment in playlist.segments {
                let number = segment.mediaSequenceNumber
                // A beacon link is its segment here (each rendition's link signs its own target).
                let uri = BeaconTests.target(segment.uri)
                let file = uri.split(separator: "/").suffix(3).filter { !["240p", "360p", "180p"].contains($0) }.joined(separator: "/")
                if let earlier = seen.segments[number], earlier != file {
                    problems.append("\(rendition): segment \(number) was \(earlier), now \(file)")
                }
                if let earlier = seen.discontinuities[number], earlier != segment.discontinuitySequenceNumber {
                    problems.append(
                        "\(rendition): segment \(number)'s discontinuity number moved from \(earlier) to \(segment.discontinuitySequenceNumber)"
                    )
                }
                seen.segments[number] = file
                seen.discontinuities[number] = segment.discontinuitySequenceNumber
                // Where it stands on the channel: the origin segment its date falls in.
                guard let date = segment.programDateTime.flatMap({ DateTime($0) }) else {
                    problems.append("\(rendition): segment \(number) has no date")
                    continue
                }
                let origin = ((date.secondsSinceEpoch - ExactDecimal(epoch)).scaledValue / Self.segment.scaledValue)
                let isProgramme = uri.hasPrefix("http://127.0.0.1") && !uri.contains("/media/")
                if isProgramme, Self.marked(Int(origin)) {
                    problems.append("\(rendition): programme segment \(origin) of a marked stretch plays")
                }
                if !isProgramme, !Self.marked(Int(origin)) {
                    problems.append("\(rendition): an ad or slate segment at \(date) plays outside every marked stretch (origin segment \(origin))")
                }
            }
            // Each break's ads, from its date range: the same on every poll.
            seen.breaksStaying = []
            let windowStart = playlist.segments.first?.programDateTime.flatMap { DateTime($0) }?.secondsSinceEpoch
            for line in text.split(separator: "\n") where line.hasPrefix("#EXT-X-DATERANGE:") {
                let fields = line.dropFirst("#EXT-X-DATERANGE:".count)
                guard let id = fields.firstMatch(of: /ID="([^"]*)"/)?.1 else { continue }
                let ads = fields.firstMatch(of: /X-AD-ID="([^"]*)"/)?.1 ?? ""
                if let earlier = seen.ads[String(id)], earlier != String(ads) {
                    problems.append("\(rendition): break \(id)'s ads changed from \(earlier) to \(ads)")
                }
                seen.ads[String(id)] = String(ads)
                if let windowStart, let start = fields.firstMatch(of: /START-DATE="([^"]*)"/).flatMap({ DateTime(String($0.1)) }),
                    start.secondsSinceEpoch >= windowStart + 4
                {
                    seen.breaksStaying.insert(String(id))
                }
            }
            return problems
        }
    }
}
