import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension RealClients {
    /// Frequency caps count what live sessions play (docs/campaign-format.md "Frequency caps"): a
    /// live break's ad whose beacon link a viewer's player reaches is an impression of that viewer,
    /// under its break, as a stitched session's is under its piece.
    @Suite("Frequency caps, live", .serialized)
    struct LiveFrequencyCapTests {
        @Test(
            "a live break's alpha played by a signed viewer is counted once however often its link is fetched; the viewer's next start is capped and its fill leaves alpha out"
        )
        func liveImpressionsCount() async throws {
            let database = try await PostgresServer()
            let epoch = Int(Date().timeIntervalSince1970) + 1
            let script = Repository.root.appendingPathComponent("scripts/live-origin.py").path
            // Breaks at segments 8 and 22 (about 15 s and 42 s in), 5 segments (9.6 s) long.
            let (origin, originPort) = try await BackgroundProcess.server("python3", ports: 40_000..<50_000, marker: "Serving HTTP") {
                [
                    "-u", script, "--epoch", "\(epoch)", "--window", "10", "--first-break", "8", "--break-every", "14", "--break-length", "5",
                    "--port", "\($0)",
                ]
            }
            defer { origin.stop() }
            let folder = try LiveEndToEndTests.folder(origin: originPort, tracked: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = folder.appendingPathComponent("live/campaign.yaml")
            let yaml = try String(contentsOf: file, encoding: .utf8)
            try Data((yaml + "\nfrequency_caps:\n  - { ads: '^alpha$', max: 1, per: 1h }\n").utf8).write(to: file)
            let server = try await HardeningEndToEndTests.Server(
                campaigns: folder,
                extra: ["--database", database.url, "--start-key", FrequencyCapEndToEndTests.startKey]
            )
            defer { kill(server.process.pid, SIGKILL) }

            /// A signed start of `session` for the viewer, once the channel has a window: its
            /// video playlist's path.
            func start(_ session: String) async throws -> String {
                let deadline = Date().addingTimeInterval(30)
                while Date() < deadline {
                    let answer = try server.get("/v1/campaigns/live-e2e/master.m3u8?" + FrequencyCapEndToEndTests.start(session, viewer: "live-v"))
                    if answer.status == 200, let line = answer.body.split(separator: "\n").first(where: { $0.hasPrefix("sessions/") }) {
                        return "/v1/campaigns/live-e2e/" + line
                    }
                    try await Task.sleep(for: .milliseconds(500))
                }
                throw Tool.Missing(name: "a live session start on the test channel")
            }
            // Three sessions joined before the break: the pools' draw differs by session, so one
            // of them plays alpha.
            var playlists: [String: String] = [:]
            for session in ["live-cap-1", "live-cap-2", "live-cap-3"] { playlists[session] = try await start(session) }

            var played: (session: String, path: String)?
            let opened = Date().addingTimeInterval(60)
            while played == nil, Date() < opened {
                for (session, path) in playlists.sorted(by: { $0.key < $1.key }) {
                    let answer = try server.get(path)
                    #expect(answer.status == 200, "\(answer.body)")
                    let link = answer.body.split(separator: "\n").first { $0.hasPrefix("beacons/") && BeaconTests.target($0).contains("/alpha/") }
                    if let link {
                        played = (session, path.replacingOccurrences(of: #"[^/]+\.m3u8$"#, with: "", options: .regularExpression) + link)
                        break
                    }
                }
                if played == nil { try await Task.sleep(for: .milliseconds(500)) }
            }
            let (session, link) = try #require(played, "no session's break listed alpha's beacon link")
            // The player reaches alpha's first segment, and asks it again (a retry, a seek back).
            for _ in 0..<3 { #expect(try server.get(link).status == 302) }

            // The viewer's impressions as the preview reads them: alpha once, from that session.
            var sessions: [String] = []
            var reached = false
            let recorded = Date().addingTimeInterval(15)
            while Date() < recorded {
                let report = try JSONSerialization.jsonObject(
                    with: Data(try server.get("/preview/live-e2e/report.json?session=p&viewer=live-v").body.utf8)
                )
                let cap = (((report as? [String: Any])?["frequencyCaps"] as? [String: Any])?["caps"] as? [[String: Any]])?.first
                sessions = (cap?["impressions"] as? [[String: Any]])?.compactMap { $0["session"] as? String } ?? []
                reached = cap?["reached"] as? Bool ?? false
                if !sessions.isEmpty { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            // Fetched three times, counted once (after a moment for any late write).
            try await Task.sleep(for: .milliseconds(500))
            let report = try server.get("/preview/live-e2e/report.json?session=p&viewer=live-v").body
            #expect(sessions == [session] && reached, "\(report)")

            // The viewer's next session starts capped: the next break's fill leaves alpha out.
            let capped = try await start("live-cap-4")
            let metrics = try server.get("/metrics").body
            #expect(metrics.contains(#"adstitch_frequency_cap_starts_total{outcome="open"} 3"#), "\(metrics)")
            #expect(metrics.contains(#"adstitch_frequency_cap_starts_total{outcome="capped"} 1"#), "\(metrics)")
            // Every window it lists until the channel's second break (the first not `seq-8`; the
            // origin marks it with a SCTE-35 splice id) has closed.
            var windows = ""
            var second: Substring = ""
            let closed = Date().addingTimeInterval(60)
            while Date() < closed {
                let window = try server.get(capped).body
                windows += window
                let opened = window.ranges(of: #"#EXT-X-DATERANGE:ID=""#).first { !window[$0.upperBound...].hasPrefix("seq-8\"") }
                if let start = opened, let end = window.range(of: "#EXT-X-CUE-IN", range: start.upperBound..<window.endIndex) {
                    second = window[start.lowerBound..<end.lowerBound]
                    break
                }
                try await Task.sleep(for: .milliseconds(500))
            }
            #expect(second.contains("/bravo/"), "the second break's fill: \(second)")
            #expect(!windows.contains("/alpha/"), "a capped viewer's breaks play no alpha: \(windows)")
        }
    }
}
