import Foundation
import HLSPlaylist
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension RealClients {
    /// Automatic conditioning through `serve`: an ad server answers with an MP4-only creative; the
    /// first session skips it (the break falls back) and queues it; one replica of two sharing
    /// PostgreSQL encodes it once into the campaign's store; later sessions, on either replica,
    /// play it, and GStreamer decodes every frame of such a session.
    @Suite("Conditioning ad server creatives in serve", .serialized)
    struct ConditioningServeTests {
        @Test(
            "an MP4-only creative: the first session falls back and queues it, one encode across two replicas, GET /v1/creatives shows it, later sessions play it and GStreamer decodes them"
        )
        func automaticConditioning() async throws {
            let database = try await PostgresServer()
            // The MP4 on an origin of its own, where the test ad server's answers name it:
            // 1280x720 at 30 fps with 48 kHz audio, against the demo's 25 fps TS ladder.
            let media = FileManager.default.temporaryDirectory.appendingPathComponent("mp4-origin-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: media.appendingPathComponent("spot"), withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: media) }
            let made = try await ConditionTests.creative(
                "creative",
                video: "testsrc2=size=1280x720:rate=30",
                audio: "sine=frequency=440:sample_rate=48000",
                duration: "3.84",
                in: media.appendingPathComponent("spot")
            )
            #expect(FileManager.default.fileExists(atPath: made.path))
            let mp4Origin = try await StaticServer(root: media)
            let origin = try await StaticServer(root: RemoteCampaignTests.demo)
            let adServer = try await AdServerEndToEndTests.Server(mediaBase: String(mp4Origin.base.absoluteString.dropLast()))
            let file = try RemoteCampaignTests.campaign(base: origin.base.absoluteString) {
                $0 + """

                    ad_server: { trusted_hosts: [127.0.0.1], vast: "\(adServer.base)/vast/mp4?ad=spot&dur=3.84&sid={session}", timeout: 2, fallback: [house] }
                    creatives: { store: creatives/, condition: auto }

                    """
            }
            let folder = file.deletingLastPathComponent()
            defer { try? FileManager.default.removeItem(at: folder) }
            let a = try await HardeningEndToEndTests.Server(campaigns: folder, extra: ["--database", database.url])
            defer { kill(a.process.pid, SIGKILL) }
            let b = try await HardeningEndToEndTests.Server(campaigns: folder, extra: ["--database", database.url])
            defer { kill(b.process.pid, SIGKILL) }
            let prefix = "/v1/campaigns/evening-news/"
            func session(_ server: HardeningEndToEndTests.Server, _ id: String) throws -> (ads: [String: [String]], v0: String) {
                let master = try server.get(prefix + "master.m3u8?session=\(id)")
                #expect(master.status == 200, "\(master.body)")
                let v0 = try #require(AdServerServeTests.sessionFiles(master.body).first { $0.hasSuffix("/v0.m3u8") })
                let boundaries = try server.get(prefix + v0.replacingOccurrences(of: "v0.m3u8", with: "boundaries.json")).body
                return (AdServerServeTests.ads(boundaries), v0)
            }

            // The first session: the creative is not conditioned yet; the house pool fills.
            let first = try session(a, "first")
            #expect(!first.ads.values.joined().contains("UAID-spot"), "\(first.ads)")
            #expect(!first.ads.isEmpty)
            // Sessions on B meet it too; its job is the same one.
            _ = try session(b, "second")

            // One encode, by whichever replica took it; both show the same queue.
            var done: [String: Any]?
            let deadline = Date().addingTimeInterval(180)
            while Date() < deadline {
                let listed = try JSONSerialization.jsonObject(with: Data(try b.get("/v1/creatives").body.utf8)) as? [String: Any]
                let jobs = listed?["creatives"] as? [[String: Any]] ?? []
                #expect(jobs.count == 1, "\(jobs)")
                if let job = jobs.first, job["state"] as? String == "done" {
                    done = job
                    break
                }
                if let job = jobs.first, job["state"] as? String == "failed" {
                    Issue.record("the job failed: \(job)")
                    break
                }
                try await Task.sleep(for: .milliseconds(500))
            }
            let job = try #require(done, "the creative was not conditioned within 3 minutes")
            #expect(job["creative"] as? String == "UAID-spot" && job["attempts"] as? Int == 1, "\(job)")
            for key in ["queuedAt", "startedAt", "finishedAt"] {
                let text = job[key] as? String ?? ""
                #expect(text.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(key): \(text)")
            }
            let result = job["result"] as? [String: Any]
            #expect((result?["renditions"] as? [String])?.isEmpty == false, "\(job)")
            let encodes = [try a.get("/metrics").body, try b.get("/metrics").body].map { metrics in
                metrics.split(separator: "\n").first { $0.hasPrefix(#"adstitch_conditioning_jobs_total{outcome="done"}"#) }
                    .flatMap { $0.split(separator: " ").last.flatMap { Int($0) } } ?? 0
            }
            #expect(encodes.reduce(0, +) == 1, "encodes per replica: \(encodes)")
            // The preview's page of the queue says the same.
            let page = try a.get("/preview/creatives")
            #expect(page.status == 200 && page.body.contains("<code>UAID-spot</code>") && page.body.contains(">done</td>"), "\(page.body)")
            let store = folder.appendingPathComponent("creatives")
            let conditioned = try FileManager.default.contentsOfDirectory(atPath: store.path)
            #expect(conditioned.count == 1 && conditioned.allSatisfy { $0.hasPrefix("UAID-spot-") }, "\(conditioned)")

            // Later sessions play it, from either replica, first in the pre-roll.
            let later = try session(b, "later-b")
            #expect(later.ads["preroll"]?.first == "UAID-spot", "\(later.ads)")
            let laterA = try session(a, "later-a")
            #expect(laterA.ads["preroll"]?.first == "UAID-spot", "\(laterA.ads)")
            // Replica A answers B's session with the same bytes.
            #expect(try a.get(prefix + later.v0).body == (try b.get(prefix + later.v0).body))

            // GStreamer decodes the whole session, the conditioned creative included.
            let manifest =
                try JSONSerialization.jsonObject(
                    with: Data(try b.get(prefix + later.v0.replacingOccurrences(of: "v0.m3u8", with: "boundaries.json")).body.utf8)
                )
                as? [String: Any]
            let duration = try #require(ExactDecimal("\(manifest?["duration"] ?? "")"))
            let url = try #require(URL(string: "http://127.0.0.1:\(b.port)\(prefix)\(later.v0)"))
            let decoded = try await Decoded(url, scratch: FileManager.default.temporaryDirectory, audio: false)
            #expect(decoded.videoFrames == RealClientTests.frames(duration, fps: 25), "\(decoded.videoFrames) frames for \(duration) s")
            print("↳ conditioned in \(result?["seconds"] ?? "?") s: \(result?["renditions"] ?? [])")
        }

        @Test(
            "a creative whose source changes (new ETag, Last-Modified, length) is conditioned again beside the old encode: sessions meanwhile play the old one, later ones the new, and a session planned before keeps its segments"
        )
        func changedSourceIsConditionedAgain() async throws {
            let media = FileManager.default.temporaryDirectory.appendingPathComponent("mp4-origin-\(UUID().uuidString.prefix(8))")
            let spot = media.appendingPathComponent("spot")
            try FileManager.default.createDirectory(at: spot, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: media) }
            _ = try await ConditionTests.creative(
                "creative",
                video: "testsrc2=size=640x360:rate=25",
                audio: "sine=frequency=440",
                duration: "3.84",
                in: spot
            )
            let mp4Origin = try await StaticServer(root: media)
            let origin = try await StaticServer(root: RemoteCampaignTests.demo)
            let adServer = try await AdServerEndToEndTests.Server(mediaBase: String(mp4Origin.base.absoluteString.dropLast()))
            let file = try RemoteCampaignTests.campaign(base: origin.base.absoluteString) {
                $0
                    + "\nad_server: { trusted_hosts: [127.0.0.1], vast: \"\(adServer.base)/vast/mp4?ad=spot&dur=3.84\", timeout: 2, fallback: [house] }\ncreatives: { store: creatives/ }\n"
            }
            let folder = file.deletingLastPathComponent()
            defer { try? FileManager.default.removeItem(at: folder) }
            // Memory queue (no --database); the source asked again after a second.
            let server = try await HardeningEndToEndTests.Server(campaigns: folder, extra: ["--origin-poll", "1"])
            defer { kill(server.process.pid, SIGKILL) }
            let prefix = "/v1/campaigns/evening-news/"
            func v0(_ session: String) throws -> (path: String, body: String) {
                let master = try server.get(prefix + "master.m3u8?session=\(session)")
                let path = prefix + (try #require(AdServerServeTests.sessionFiles(master.body).first { $0.hasSuffix("/v0.m3u8") }))
                return (path, try server.get(path).body)
            }
            func jobs() throws -> [[String: Any]] {
                let listed = try JSONSerialization.jsonObject(with: Data(try server.get("/v1/creatives").body.utf8)) as? [String: Any]
                return listed?["creatives"] as? [[String: Any]] ?? []
            }
            func waitDone(_ count: Int) async throws {
                let deadline = Date().addingTimeInterval(120)
                while Date() < deadline {
                    let listed = try jobs()
                    if listed.count == count, listed.allSatisfy({ $0["state"] as? String == "done" }) { return }
                    try await Task.sleep(for: .milliseconds(300))
                }
                Issue.record("not \(count) jobs done: \(try jobs())")
            }
            /// The version folder of the creative a playlist names (`…/creatives/UAID-spot-…/vHASH/v0/…`).
            func version(_ playlist: String) -> String? {
                playlist.split(separator: "\n").map(BeaconTests.target).first { $0.contains("/creatives/UAID-spot-") }.flatMap { line in
                    line.components(separatedBy: "/creatives/").last?.split(separator: "/").dropFirst().first.map(String.init)
                }
            }

            _ = try v0("first")
            try await waitDone(1)
            let before = try v0("before")
            let old = try #require(version(before.body), "the session plays the conditioned creative: \(before.body)")

            // A new encode at the same URL: longer, so its length (and ETag) change.
            _ = try await ConditionTests.creative(
                "creative",
                video: "testsrc=size=640x360:rate=25",
                audio: "sine=frequency=880",
                duration: "3.80",
                in: spot
            )
            try await Task.sleep(for: .milliseconds(1_200))
            let meanwhile = try v0("meanwhile")
            #expect(version(meanwhile.body) == old, "the old encode plays while the new one is made: \(meanwhile.body)")
            try await waitDone(2)
            let after = try v0("after")
            let new = try #require(version(after.body), "\(after.body)")
            #expect(new != old, "a new version folder: \(new)")
            #expect(try jobs().compactMap { $0["sourceVersion"] as? String }.count == 2)
            // The session planned before still lists the old segments, and they are still there.
            #expect(try server.get(before.path).body == before.body)
            let oldSegment = try #require(
                before.body.split(separator: "\n").map(BeaconTests.target).first { $0.contains("/\(old)/") && !$0.hasPrefix("#") }
            )
            #expect(try server.get(String(oldSegment)).status == 200, "\(oldSegment)")
        }
    }
}
