import Foundation
import HLSPlaylist
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension RealClients {
    /// What a stranger's server — a database that stops answering, a catalogue origin that drips,
    /// a creative's source that is not what its ad server says — must not do to a replica
    /// (docs/reliability.md "Ad server faults"): grow it, stall it, or make it fire an event twice.
    @Suite("Replica faults", .serialized)
    struct ReplicaFaultTests {
        /// Sends `signal` to PostgreSQL's postmaster and every backend: `SIGSTOP` makes the
        /// database hang (connections open, nothing answered), `SIGCONT` brings it back.
        static func signal(_ database: PostgresServer, _ signal: Int32) async throws {
            let children = try await Tool.run("pgrep", ["-P", "\(database.process.pid)"])
            let pids = [database.process.pid] + children.output.split(whereSeparator: \.isNewline).compactMap { pid_t($0) }
            for pid in pids { kill(pid, signal) }
        }

        @Test(
            "at most once across a ledger outage: a beacon link fetched on two replicas while PostgreSQL hangs fires nothing then, each event once when it answers, and never again"
        )
        func ledgerOutage() async throws {
            let database = try await PostgresServer()
            let setup = try await AdServerServeTests.Setup {
                "{ trusted_hosts: [127.0.0.1], vast: \"\($0)/vast/pod?ads=bravo,delta&dur=3.84,1.92&sid={session}&pos={break.position}\", timeout: 2, fallback: [house] }"
            }
            defer { try? FileManager.default.removeItem(at: setup.folder) }
            let a = try await HardeningEndToEndTests.Server(campaigns: setup.folder, extra: ["--database", database.url])
            defer { kill(a.process.pid, SIGKILL) }
            let b = try await HardeningEndToEndTests.Server(campaigns: setup.folder, extra: ["--database", database.url])
            defer { kill(b.process.pid, SIGKILL) }
            let (_, v0, base) = try BeaconTests.start(a, query: "session=outage")
            let playlist = try a.get(BeaconTests.prefix + v0).body
            #expect(try b.get(BeaconTests.prefix + v0).body == playlist)
            let link = try #require(BeaconTests.links(playlist, base: base).first)

            try await Self.signal(database, SIGSTOP)
            for server in [a, b, a, b] { #expect(try LoopbackHTTP.exchange("GET", port: server.port, path: link).status == 302) }
            // Past the ledger's 5 s deadline, where a replica used to decide alone and fire.
            try await Task.sleep(for: .seconds(8))
            #expect(try await BeaconTests.tracked(setup).isEmpty, "fired while the ledger could not say")
            try await Self.signal(database, SIGCONT)

            // The claim under way is taken once the ledger answers: each of the segment's events once.
            let fired = try await BeaconTests.tracked(setup, expecting: 4)
            #expect(fired.map(\.event).sorted() == ["firstQuartile", "impression", "midpoint", "start"], "\(fired.map(\.event))")
            for server in [a, b] { #expect(try LoopbackHTTP.exchange("GET", port: server.port, path: link).status == 302) }
            try await Task.sleep(for: .seconds(2))
            #expect(try await BeaconTests.tracked(setup).count == 4, "fired again after the outage")
        }

        @Test(
            "a beacon link fetched 3,000 times while the database takes connections and never answers: one claim waits, the rest join it, and the replica's memory stays flat (it grew by 1.4 GiB)"
        )
        func silentLedgerBoundsMemory() async throws {
            let silent = try LiveChannelTests.SilentPort()
            let server = try await HardeningEndToEndTests.Server(
                campaigns: Repository.root.appendingPathComponent("Campaigns"),
                extra: ["--database", "postgres://adstitch@127.0.0.1:\(silent.port)/adstitch"]
            )
            defer { kill(server.process.pid, SIGKILL) }
            let master = try server.get("/v1/campaigns/evening-news/master.m3u8?session=silent")
            let v0 = try #require(AdServerServeTests.sessionFiles(master.body).first { $0.hasSuffix("/v0.m3u8") })
            let base = "/v1/campaigns/evening-news/" + v0.dropLast("v0.m3u8".count)
            let link = try #require(BeaconTests.links(try server.get("/v1/campaigns/evening-news/" + v0).body, base: String(base)).first)
            _ = try LoopbackHTTP.exchange("GET", port: server.port, path: link)
            try await Task.sleep(for: .seconds(1))
            let before = AdServerFaultTests.residentMiB(server.process.pid)
            for _ in 0..<3_000 { _ = try LoopbackHTTP.exchange("GET", port: server.port, path: link) }
            try await Task.sleep(for: .seconds(6))
            let after = AdServerFaultTests.residentMiB(server.process.pid)
            #expect(after - before < 40, "RSS \(before) → \(after) MiB")
            let metrics = try server.get("/metrics").body
            let joined = metrics.split(separator: "\n").first { $0.hasPrefix("adstitch_beacons_total{event=\"link\",outcome=\"joined\"}") }
            #expect(joined.flatMap { Int($0.split(separator: " ").last ?? "") }.map { $0 >= 2_990 } == true, "\(joined ?? "no joined count")")
            #expect(server.healthy())
        }

        @Test(
            "catalogue titles: a slow origin's loads never hold another catalogue's (one waited 29.75 s behind four); a missing title is asked of its origin once, not per start; an overlong %c0%ae never reaches it"
        )
        func catalogueOrigins() async throws {
            let root = try CatalogueServeTests.originFolder()
            defer { try? FileManager.default.removeItem(at: root) }
            let slow = try await StaticServer(root: root)
            let fast = try await StaticServer(root: root)
            // `library` drips every byte of its titles at one a second; `quick` is another origin.
            let folder = try CatalogueServeTests.campaigns(origin: slow, prefix: "_/drip/1/vod/")
            defer { try? FileManager.default.removeItem(at: folder) }
            let other = try CatalogueServeTests.campaigns(origin: fast)
            defer { try? FileManager.default.removeItem(at: other) }
            let yaml = try String(contentsOf: other.appendingPathComponent("library/campaign.yaml"), encoding: .utf8)
            try FileManager.default.moveItem(at: other.appendingPathComponent("library"), to: folder.appendingPathComponent("quick"))
            try Data(yaml.replacingOccurrences(of: "id: library", with: "id: quick").utf8)
                .write(to: folder.appendingPathComponent("quick/campaign.yaml"))
            let server = try await HardeningEndToEndTests.Server(campaigns: folder)
            defer { kill(server.process.pid, SIGKILL) }

            // Six slow starts at once (more than one origin's places), left to run out.
            let port = server.port
            for title in ["plain", "plain-2", "marked", "a&b+c", "top", "show/season-1/ep_01"] {
                Thread {
                    _ = try? LoopbackHTTP.exchange("GET", port: port, path: "/v1/campaigns/library/assets/\(title)/master.m3u8")
                }.start()
            }
            try await Task.sleep(for: .seconds(1))
            let started = ContinuousClock.now
            let quick = try server.get("/v1/campaigns/quick/assets/plain/master.m3u8?session=q")
            let took = ContinuousClock.now - started
            #expect(quick.status == 200, "\(quick.body.prefix(300))")
            #expect(took < .seconds(3), "another origin's title took \(took) behind the slow one's")

            // A missing title: 404 each time, the origin asked once.
            for _ in 0..<5 { #expect(try server.get("/v1/campaigns/quick/assets/gone/master.m3u8").status == 404) }
            let hits = try fast.hits()
            #expect(hits["/vod/gone/master.m3u8"] == 1, "\(hits)")
            // Octets that decode to no UTF-8 (an overlong '.') are no title path: refused here.
            let before = try fast.hits().values.reduce(0, +)
            #expect(try server.get("/v1/campaigns/quick/assets/%c0%ae%c0%ae/master.m3u8").status == 400)
            #expect(try fast.hits().values.reduce(0, +) == before)
        }

        @Test(
            "a replica started while PostgreSQL is down serves live sessions from what it sees (it answered 503 for the whole outage)"
        )
        func liveStartsWithoutDatabase() async throws {
            let origin = try BackgroundProcess(
                "python3",
                [Repository.root.appendingPathComponent("scripts/live-origin.py").path, "--port", "0", "--window", "10"]
            )
            defer { origin.stop() }
            guard let line = await origin.waitForLine(containing: "Serving HTTP"), let port = line.split(separator: " ").last else {
                throw Tool.Missing(name: "scripts/live-origin.py")
            }
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("live-nodb-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            try FileManager.default.copyItem(
                at: Repository.root.appendingPathComponent("Campaigns/single-asset"),
                to: folder.appendingPathComponent("single-asset")
            )
            let yaml = try String(contentsOf: Repository.root.appendingPathComponent("Campaigns/live-news.yaml"), encoding: .utf8)
                .replacingOccurrences(of: "127.0.0.1:8081", with: "127.0.0.1:\(port)")
            try Data(yaml.utf8).write(to: folder.appendingPathComponent("live-news.yaml"))
            // Nothing listens on port 1: every connection is refused.
            let server = try await HardeningEndToEndTests.Server(
                campaigns: folder,
                extra: ["--database", "postgres://adstitch@127.0.0.1:1/adstitch"]
            )
            defer { kill(server.process.pid, SIGKILL) }
            var status = 0
            let deadline = Date().addingTimeInterval(15)
            while Date() < deadline {
                status = try server.get("/v1/campaigns/live-news/master.m3u8?session=nodb").status
                if status == 200 { break }
                try await Task.sleep(for: .milliseconds(250))
            }
            #expect(status == 200)
        }
    }
}
