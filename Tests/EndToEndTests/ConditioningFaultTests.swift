import Foundation
import HLSPlaylist
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension RealClients {
    /// Conditioning takes a stranger's file (docs/reliability.md "Ad server faults"): a source
    /// that is not what its ad server says is refused before anything is encoded, an encoder never
    /// outlives its job or its replica, and the queue shows no one's credentials.
    @Suite("Conditioning faults", .serialized)
    struct ConditioningFaultTests {
        /// An MP4 of `seconds` at 320x180 under `spot/` of a fresh origin, a campaign whose ad
        /// server answers it as an MP4-only creative announced at `announced` s (`uri`: the
        /// source's URL as the answer names it, given the origin's base), and the folder of both.
        struct Setup {
            let media: URL
            let mp4Origin: StaticServer
            let origin: StaticServer
            let adServer: AdServerEndToEndTests.Server
            let folder: URL

            init(seconds: String, announced: String, uri: (String) -> String = { $0 + "spot/creative.mp4" }) async throws {
                self.media = FileManager.default.temporaryDirectory.appendingPathComponent("mp4-faults-\(UUID().uuidString.prefix(8))")
                try FileManager.default.createDirectory(at: self.media.appendingPathComponent("spot"), withIntermediateDirectories: true)
                _ = try await ConditionTests.creative(
                    "creative",
                    video: "testsrc2=size=320x180:rate=25",
                    audio: "sine=frequency=440",
                    duration: seconds,
                    in: self.media.appendingPathComponent("spot")
                )
                self.mp4Origin = try await StaticServer(root: self.media)
                self.origin = try await StaticServer(root: RemoteCampaignTests.demo)
                self.adServer = try await AdServerEndToEndTests.Server()
                let source = AdServerFaultTests.query(uri(self.mp4Origin.base.absoluteString))
                let ads = self.adServer.base
                let file = try RemoteCampaignTests.campaign(base: self.origin.base.absoluteString) {
                    $0 + """

                        ad_server: { trusted_hosts: [127.0.0.1], vast: "\(ads)/vast/source?ad=spot&dur=\(announced)&uri=\(source)", timeout: 2, fallback: [house] }
                        creatives: { store: creatives/ }

                        """
                }
                self.folder = file.deletingLastPathComponent()
            }

            func remove() {
                try? FileManager.default.removeItem(at: self.media)
                try? FileManager.default.removeItem(at: self.folder)
            }
        }

        /// The conditioning jobs a server lists (`GET /v1/creatives`).
        static func jobs(_ server: HardeningEndToEndTests.Server) throws -> [[String: Any]] {
            let listed = try JSONSerialization.jsonObject(with: Data(try server.get("/v1/creatives").body.utf8)) as? [String: Any]
            return listed?["creatives"] as? [[String: Any]] ?? []
        }

        /// The pids of the processes whose command line names `path`.
        static func processes(naming path: String) -> [Int32] {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            return entries.compactMap { Int32($0) }.filter { pid in
                guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
                return String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self).contains(path)
            }
        }

        @Test(
            "a 30 s source its ad server announces at 3.84 s is refused before it is encoded (a 10-hour one was encoded in full): the job fails for good, saying both figures"
        )
        func durationMismatch() async throws {
            let setup = try await Setup(seconds: "30", announced: "3.84")
            defer { setup.remove() }
            let server = try await HardeningEndToEndTests.Server(campaigns: setup.folder)
            defer { kill(server.process.pid, SIGKILL) }
            #expect(try server.get("/v1/campaigns/evening-news/master.m3u8?session=long").status == 200)
            var job: [String: Any]?
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                job = try Self.jobs(server).first
                if job?["state"] as? String == "failed" { break }
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(job?["state"] as? String == "failed", "\(job ?? [:])")
            #expect(job?["attempts"] as? Int == 1, "not tried again: the source would not change")
            let error = job?["error"] as? String ?? ""
            #expect(error.contains("runs 30") && error.contains("says 3.84 s") && error.contains("not encoded"), "\(error)")
            // Nothing was written to the store but what a download leaves behind, and that is gone.
            let store = setup.folder.appendingPathComponent("creatives")
            let left = (FileManager.default.enumerator(atPath: store.path)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".ts") }
            #expect(left.isEmpty, "\(left)")
        }

        @Test("an encode under way is stopped with its replica: no ffmpeg is left running after serve shuts down (SIGTERM)")
        func encoderStopsWithTheReplica() async throws {
            let setup = try await Setup(seconds: "40", announced: "40")
            defer { setup.remove() }
            let server = try await HardeningEndToEndTests.Server(campaigns: setup.folder)
            defer { kill(server.process.pid, SIGKILL) }
            #expect(try server.get("/v1/campaigns/evening-news/master.m3u8?session=encode").status == 200)
            // The encoder runs once the job is taken; its command line names the campaign's store.
            let store = setup.folder.appendingPathComponent("creatives").path
            var encoders: [Int32] = []
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline, encoders.isEmpty {
                encoders = Self.processes(naming: store)
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(!encoders.isEmpty, "an encoder started")
            kill(server.process.pid, SIGTERM)
            let exited = Date().addingTimeInterval(30)
            while Date() < exited, !server.process.hasExited { try await Task.sleep(for: .milliseconds(100)) }
            #expect(server.process.hasExited, "serve shut down")
            // Its encoder with it (a killed replica's too: its encoders die with it, PR_SET_PDEATHSIG).
            let gone = Date().addingTimeInterval(3)
            while Date() < gone, !Self.processes(naming: store).isEmpty { try await Task.sleep(for: .milliseconds(100)) }
            #expect(Self.processes(naming: store).isEmpty, "ffmpeg outlived serve: \(Self.processes(naming: store))")
        }

        @Test(
            "GET /v1/creatives writes a source's credentials *** (user:password@, a signed URL's signature), and answers only who may use the preview: 404 with it off, 403 without its key"
        )
        func creativesListing() async throws {
            let setup = try await Setup(seconds: "3.84", announced: "3.84") { base in
                base.replacingOccurrences(of: "http://", with: "http://ops:hunter2@") + "spot/creative.mp4?Expires=9&Signature=s3cr3t"
            }
            defer { setup.remove() }
            let keyed = try await BackgroundProcess.server(CLITests.binary, ports: 50_000..<60_000, marker: "Server started") {
                ["serve", "--campaigns", setup.folder.path, "--port", "\($0)", "--secret", "s", "--preview-key", "k"]
            }
            defer { kill(keyed.process.pid, SIGKILL) }
            _ = try LoopbackHTTP.exchange("GET", port: keyed.port, path: "/v1/campaigns/evening-news/master.m3u8?session=creds")
            #expect(try LoopbackHTTP.exchange("GET", port: keyed.port, path: "/v1/creatives").status == 403)
            let listed = try LoopbackHTTP.exchange("GET", port: keyed.port, path: "/v1/creatives", headers: [("AdStitch-Preview-Key", "k")])
            #expect(listed.status == 200)
            let body = String(decoding: listed.body, as: UTF8.self)
            #expect(body.contains("***@127.0.0.1") && body.contains("Signature=***"), "\(body)")
            #expect(!body.contains("hunter2") && !body.contains("s3cr3t"), "\(body)")
            let off = try await BackgroundProcess.server(CLITests.binary, ports: 50_000..<60_000, marker: "Server started") {
                ["serve", "--campaigns", setup.folder.path, "--port", "\($0)", "--secret", "s"]
            }
            defer { kill(off.process.pid, SIGKILL) }
            #expect(try LoopbackHTTP.exchange("GET", port: off.port, path: "/v1/creatives").status == 404)
        }
    }
}
