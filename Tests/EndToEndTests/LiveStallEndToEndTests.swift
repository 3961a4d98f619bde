import Foundation
import HLSPlaylist
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension RealClients {
    /// `live_stall` (docs/campaign-format.md "A stalled origin") through `serve`: the live origin
    /// stands still for 20 s (its stall fault) while GStreamer plays a session and a checker polls
    /// two replicas sharing PostgreSQL in turn. The viewer's window goes on with slate on the
    /// channel's clock, the programme comes back after it, and no number ever names two segments.
    @Suite("Live stalls, end to end", .serialized)
    struct LiveStallEndToEndTests {
        @Test("the origin stands still 20 s: slate on the clock, GStreamer keeps decoding, two replicas agree")
        func stall() async throws {
            let database = try await PostgresServer()
            let epoch = Int(Date().timeIntervalSince1970) + 1
            let script = Repository.root.appendingPathComponent("scripts/live-origin.py").path
            let (origin, originPort) = try await BackgroundProcess.server("python3", ports: 40_000..<50_000, marker: "Serving HTTP") {
                ["-u", script, "--epoch", "\(epoch)", "--window", "10", "--first-break", "100000", "--port", "\($0)"]
            }
            defer { origin.stop() }
            let folder = try LiveEndToEndTests.folder(origin: originPort)
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = folder.appendingPathComponent("live/campaign.yaml")
            try Data((try String(contentsOf: file, encoding: .utf8) + "\nlive_stall: { after: 3, fill: slate }\n").utf8).write(to: file)
            let first = try await HardeningEndToEndTests.Server(campaigns: folder, extra: ["--database", database.url])
            defer { kill(first.process.pid, SIGKILL) }
            let second = try await HardeningEndToEndTests.Server(campaigns: folder, extra: ["--database", database.url])
            defer { kill(second.process.pid, SIGKILL) }

            // On air (native players and hlsdemux want a few segments), then a session.
            let onAir = Date().addingTimeInterval(40)
            while Date() < onAir {
                let window = try LoopbackHTTP.exchange("GET", port: originPort, path: "/240p/index.m3u8")
                if String(decoding: window.body, as: UTF8.self).components(separatedBy: "#EXTINF:").count > 6 { break }
                try await Task.sleep(for: .milliseconds(500))
            }
            var master = try first.get("/v1/campaigns/live-e2e/master.m3u8?session=checker")
            for _ in 0..<20 where master.status != 200 {
                try await Task.sleep(for: .milliseconds(500))
                master = try first.get("/v1/campaigns/live-e2e/master.m3u8?session=checker")
            }
            #expect(master.status == 200, "\(master.body)")
            let playlist = try #require(master.body.split(separator: "\n").first { $0.hasPrefix("sessions/") && $0.hasSuffix(".m3u8") })
            let path = "/v1/campaigns/live-e2e/" + playlist
            let boundaries = "/" + path.split(separator: "/").dropLast().joined(separator: "/") + "/boundaries.json"

            let frames = FileManager.default.temporaryDirectory.appendingPathComponent("stall-frames-\(UUID().uuidString.prefix(6)).gray")
            defer { try? FileManager.default.removeItem(at: frames) }
            let base = "http://127.0.0.1:\(first.port)/v1/campaigns/live-e2e/master.m3u8"
            // As in the three-minute live run: hlsdemux and decodebin named, the lowest variant.
            let gstreamer = try BackgroundProcess(
                "gst-launch-1.0",
                [
                    "-q", "souphttpsrc", "location=\(base)?session=gstreamer", "!", "hlsdemux", "connection-speed=1", "!", "decodebin", "name=d",
                    "d.", "!", "video/x-raw", "!", "videoconvert", "!", "videoscale", "!", "video/x-raw,format=GRAY8,width=64,height=36", "!",
                    "filesink", "location=\(frames.path)", "d.", "!", "audio/x-raw", "!", "fakesink",
                ]
            )
            let started = Date()
            var seen = LiveEndToEndTests.Seen()
            var problems: [String] = []
            var stalledAt: Date?
            var lagsDuringStall: [Double] = []
            var stallManifests = 0
            var programmeAfter = 0
            var polls = 0
            while Date().timeIntervalSince(started) < 75 {
                polls += 1
                if stalledAt == nil, Date().timeIntervalSince(started) > 15 {
                    #expect(try LoopbackHTTP.exchange("GET", port: originPort, path: "/_/stall/20").status == 200)
                    stalledAt = Date()
                }
                let server = polls % 2 == 0 ? second : first
                let answer = try server.get(path)
                guard answer.status == 200 else {
                    problems.append("\(path): \(answer.status) \(answer.body.prefix(200))")
                    try await Task.sleep(for: .seconds(1))
                    continue
                }
                problems += Self.check(answer.body, into: &seen)
                let parsed = try PlaylistParser().parseMediaPlaylist(answer.body, url: URL(string: "http://adstitch.test/v0.m3u8")!)
                if let stalledAt, let last = parsed.segments.last, let date = last.programDateTime.flatMap({ DateTime($0) }) {
                    let end = Double(String(describing: date.secondsSinceEpoch + last.duration)) ?? 0
                    let since = Date().timeIntervalSince(stalledAt)
                    // The fill is listed from after + 1 target durations (8 s) of standstill.
                    if since > 12, since < 19 { lagsDuringStall.append(Date().timeIntervalSince1970 - end) }
                    if since > 25, !last.uri.contains("/media/") { programmeAfter += 1 }
                }
                let manifest = try server.get(boundaries)
                if manifest.status != 200 { problems.append("\(boundaries): \(manifest.status)") }
                if manifest.body.replacingOccurrences(of: " ", with: "").contains("\"stall\":true") { stallManifests += 1 }
                try await Task.sleep(for: .seconds(1))
            }
            let elapsed = Date().timeIntervalSince(started)
            let gstreamerPlaying = !gstreamer.hasExited
            gstreamer.stop()

            #expect(problems.isEmpty, "\(problems.prefix(10).joined(separator: "\n"))")
            // Without the fill the window would end where the origin stopped: 12–19 s behind.
            #expect(!lagsDuringStall.isEmpty && lagsDuringStall.allSatisfy { $0 < 8 }, "window end behind the clock: \(lagsDuringStall)")
            #expect(stallManifests > 3, "the boundary manifest tells of the stall")
            #expect(programmeAfter > 10, "the programme returns after the stall")
            let gstreamerLog = (try? String(contentsOf: gstreamer.log, encoding: .utf8)) ?? ""
            #expect(gstreamerPlaying && !gstreamerLog.contains("ERROR"), "GStreamer: \(gstreamerLog.suffix(800))")
            let decoded = (((try? FileManager.default.attributesOfItem(atPath: frames.path)[.size]) as? Int) ?? 0) / (64 * 36)
            // 25 frames a second through the stall: a frozen window would have cost ~15 s of them.
            #expect(decoded >= Int((elapsed - 12) * 25), "GStreamer decoded \(decoded) frames in \(elapsed) s")
            print("live stall e2e: \(polls) polls, lag during the stall \(lagsDuringStall), GStreamer \(decoded) frames in \(Int(elapsed)) s")
        }

        /// One poll held to the sequence rules (RFC 8216bis §6.2.1–6.2.2), whichever replica answered.
        static func check(_ text: String, into seen: inout LiveEndToEndTests.Seen) -> [String] {
            guard let playlist = try? PlaylistParser().parseMediaPlaylist(text, url: URL(string: "http://adstitch.test/v0.m3u8")!) else {
                return ["does not parse: \(text.prefix(300))"]
            }
            var problems: [String] = []
            let errors = PlaylistLinter().lint(playlist).filter { $0.severity == .error }
            if !errors.isEmpty { problems.append("lint \(errors)") }
            if playlist.mediaSequence < seen.lastMediaSequence {
                problems.append("EXT-X-MEDIA-SEQUENCE went back from \(seen.lastMediaSequence) to \(playlist.mediaSequence)")
            }
            seen.lastMediaSequence = playlist.mediaSequence
            for segment in playlist.segments {
                let number = segment.mediaSequenceNumber
                let file = segment.uri.split(separator: "/").suffix(2).joined(separator: "/")
                if let earlier = seen.segments[number], earlier != file { problems.append("segment \(number) was \(earlier), now \(file)") }
                if let earlier = seen.discontinuities[number], earlier != segment.discontinuitySequenceNumber {
                    problems.append("segment \(number)'s discontinuity number moved from \(earlier) to \(segment.discontinuitySequenceNumber)")
                }
                seen.segments[number] = file
                seen.discontinuities[number] = segment.discontinuitySequenceNumber
            }
            return problems
        }
    }
}
