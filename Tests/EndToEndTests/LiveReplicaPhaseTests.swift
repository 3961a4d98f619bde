import Foundation
import HLSPlaylist
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension RealClients {
    /// Two replicas of one live campaign (one secret, one database) whose pollers are out of phase,
    /// and a viewer whose refreshes alternate between them, as behind a round-robin balancer, in
    /// real time, on the shape a new user met (issue 52): 1.92 s segments under
    /// `TARGETDURATION:2` (the demo's encode: 48 frames at 25 fps) dated three hours behind the
    /// wall clock. The window is cut as every replica cuts it (`LiveChannelTimeline.cut`, the
    /// channel's clock shared through PostgreSQL's sightings), so it never goes back and both
    /// replicas list the same segments. `LiveCutPropertyTests` holds the other shapes.
    @Suite("Live replicas out of phase", .serialized)
    struct LiveReplicaPhaseTests {
        /// The origin's dates less its clock: three hours behind.
        static let dateOffset = -10_800

        @Test("a viewer alternating two out-of-phase replicas for 60 s (1.92 s segments, dates 3 h behind): numbers never go back, windows agree")
        func alternatingReplicas() async throws {
            let database = try await PostgresServer()
            let epoch = Int(Date().timeIntervalSince1970) + 1
            let script = Repository.root.appendingPathComponent("scripts/live-origin.py").path
            let (origin, originPort) = try await BackgroundProcess.server("python3", ports: 40_000..<50_000, marker: "Serving HTTP") {
                [
                    "-u", script, "--epoch", "\(epoch)", "--window", "10", "--first-break", "14", "--break-every", "12", "--break-length", "4",
                    "--date-offset", "\(Self.dateOffset)", "--port", "\($0)",
                ]
            }
            defer { origin.stop() }
            let folder = try LiveEndToEndTests.folder(origin: originPort)
            defer { try? FileManager.default.removeItem(at: folder) }
            let a = try await HardeningEndToEndTests.Server(campaigns: folder, extra: ["--database", database.url])
            defer { kill(a.process.pid, SIGKILL) }
            // Half a poll interval later: the pollers (every second) out of phase.
            try await Task.sleep(for: .milliseconds(500))
            let b = try await HardeningEndToEndTests.Server(campaigns: folder, extra: ["--database", database.url])
            defer { kill(b.process.pid, SIGKILL) }

            var master: String?
            let ready = Date().addingTimeInterval(70)
            while Date() < ready {
                // Enough of a window for the cut to leave several segments.
                let window = try LoopbackHTTP.exchange("GET", port: originPort, path: "/240p/index.m3u8")
                let answer = try a.get("/v1/campaigns/live-e2e/master.m3u8?session=phase")
                // Past the first break (segments 14–17), which both replicas watched from its start:
                // a replica that starts in the middle of a break knows less of it than one that saw it
                // open (docs/design-decisions.md "Live"), which is not what this test is about.
                let origin = try? PlaylistParser().parseMediaPlaylist(String(decoding: window.body, as: UTF8.self))
                if answer.status == 200, let last = origin?.segments.last?.mediaSequenceNumber, last >= 19 {
                    master = answer.body
                    break
                }
                try await Task.sleep(for: .milliseconds(500))
            }
            let playlist =
                "/v1/campaigns/live-e2e/"
                + (try #require(master?.split(separator: "\n").first { $0.hasPrefix("sessions/") && $0.hasSuffix(".m3u8") }))

            var lastSequence = Int.min
            var lastDiscontinuity = Int.min
            var wentBack = 0
            var refreshes = 0
            var agreed = 0
            var compared = 0
            var lags: [Double] = []
            var served: [Int: String] = [:]
            var reused = 0
            let end = Date().addingTimeInterval(62)
            var turn = 0
            while Date() < end {
                let servers = turn % 2 == 0 ? [a, b] : [b, a]
                turn += 1
                // One refresh from each, back to back: the viewer's, then the other replica's for comparison.
                let first = try servers[0].get(playlist)
                let second = try servers[1].get(playlist)
                #expect(first.status == 200 && second.status == 200)
                guard first.status == 200, second.status == 200 else { break }
                for answer in [first, second] {
                    let parsed = try PlaylistParser().parseMediaPlaylist(answer.body)
                    refreshes += 1
                    if parsed.mediaSequence < lastSequence || parsed.discontinuitySequence < lastDiscontinuity {
                        wentBack += 1
                        print(
                            "went back: \(lastSequence)/\(lastDiscontinuity) → \(parsed.mediaSequence)/\(parsed.discontinuitySequence) (\(answer.body == first.body ? "viewer's" : "other")):\n\(answer.body)"
                        )
                    }
                    lastSequence = max(lastSequence, parsed.mediaSequence)
                    lastDiscontinuity = max(lastDiscontinuity, parsed.discontinuitySequence)
                    for segment in parsed.segments {
                        let uri = String(segment.uri)
                        if let known = served[segment.mediaSequenceNumber], known != uri {
                            reused += 1
                            print(
                                "reused \(segment.mediaSequenceNumber): \(known) then \(uri) (\(answer.body == first.body ? "viewer's" : "other"))\n\(answer.body)"
                            )
                        }
                        served[segment.mediaSequenceNumber] = uri
                    }
                    if answer.body == first.body, let last = parsed.segments.last, let date = last.programDateTime.flatMap(DateTime.init) {
                        // How far behind the origin's clock the viewer's window ends.
                        let endSeconds = (date.secondsSinceEpoch + last.duration).doubleValue - Double(Self.dateOffset)
                        lags.append(Date().timeIntervalSince1970 - endSeconds)
                    }
                }
                compared += 1
                if first.body == second.body { agreed += 1 }
                try await Task.sleep(for: .milliseconds(500))
            }
            let meanLag = lags.isEmpty ? 0 : lags.reduce(0, +) / Double(lags.count)
            print(
                "live replicas: \(refreshes) refreshes, \(agreed)/\(compared) pairs identical, mean lag \(String(format: "%.2f", meanLag)) s behind the origin's clock"
            )
            #expect(refreshes >= 200)
            #expect(wentBack == 0, "the window went back \(wentBack) times")
            #expect(reused == 0, "\(reused) sequence numbers named two segments")
            // Two answers a few milliseconds apart differ only when a segment boundary of the cut
            // falls between them.
            #expect(agreed * 10 >= compared * 9, "\(agreed) of \(compared) pairs agreed")
        }
    }
}
