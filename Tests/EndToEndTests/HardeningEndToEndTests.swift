import AdSessions
import AdStitchServer
import Crypto
import Foundation
import Testing

extension RealClients {
    /// What used to crash, freeze or hold a replica, against a running `adstitch serve`: the
    /// process survives and `/healthz` answers after each.
    @Suite("Hardening, end to end", .serialized)
    struct HardeningEndToEndTests {
        /// A campaigns folder: a copy of the TS demo as `news/`, and `bad.yaml` (a break of 10¹⁹ s).
        static func folder() throws -> URL {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hardening-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                at: Repository.root.appendingPathComponent("Campaigns/evening-news"),
                to: folder.appendingPathComponent("news")
            )
            let yaml = try String(contentsOf: folder.appendingPathComponent("news/campaign.yaml"), encoding: .utf8)
                .replacingOccurrences(of: "id: evening-news", with: "id: endless")
                .replacingOccurrences(of: "duration: 12,", with: "duration: 9999999999999999999,")
                .replacingOccurrences(of: "playlist: media/", with: "playlist: news/media/")
            try Data(yaml.utf8).write(to: folder.appendingPathComponent("bad.yaml"))
            return folder
        }

        final class Server: Sendable {
            let process: BackgroundProcess
            let port: Int

            init(campaigns: URL, extra: [String] = []) async throws {
                (self.process, self.port) = try await BackgroundProcess.server(CLITests.binary, ports: 50_000..<60_000, marker: "Server started") {
                    ["serve", "--campaigns", campaigns.path, "--port", "\($0)", "--secret", "hardening", "--preview"] + extra
                }
            }

            func get(_ path: String) throws -> (status: Int, body: String) {
                let answer = try LoopbackHTTP.exchange("GET", port: self.port, path: path)
                return (answer.status, String(decoding: answer.body, as: UTF8.self))
            }

            func healthy() -> Bool { (try? self.get("/healthz").status) == 200 }
        }

        @Test("crash and freeze inputs: a huge bandwidth, a 10^19 s break, a FRAME-RATE of 10^-13 hot-reloaded, a signed absurd decision time")
        func survivesWhatUsedToKillIt() async throws {
            let folder = try Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let server = try await Server(campaigns: folder)
            defer { kill(server.process.pid, SIGKILL) }

            // 1. Any viewer, on the demo's bandwidth_hint startup entry.
            #expect(try server.get("/v1/campaigns/evening-news/master.m3u8?bandwidth=9223372036854775807").status == 400)
            #expect(try server.get("/preview/evening-news/report.json?bandwidth=9223372036854775807").status == 200)
            #expect(server.healthy())

            // 2. The break of 10^19 s never loaded; the master requests that used to loop answer 404.
            let campaigns = try server.get("/v1/campaigns").body
            #expect(campaigns.contains("longer than a break may run"))
            for _ in 0..<3 { #expect(try server.get("/v1/campaigns/endless/master.m3u8").status == 404) }
            #expect(try server.get("/v1/campaigns/evening-news/master.m3u8?session=alive").status == 200)

            // 5. A token signed with the server's secret whose decision time is near Int64.max.
            let revision = try #require(
                try (JSONSerialization.jsonObject(with: Data(campaigns.utf8)) as? [String: Any]).flatMap { $0["campaigns"] as? [[String: Any]] }?
                    .first { $0["id"] as? String == "evening-news" }?["revision"] as? String
            )
            let token = SessionToken(campaign: "evening-news", revision: revision, session: "t", at: .max - 5, attributes: [:], expires: .max)
                .encoded(secret: SymmetricKey(data: Data("hardening".utf8)))
            #expect(try server.get("/v1/campaigns/evening-news/sessions/\(token)/v0.m3u8").status == 403)
            #expect(server.healthy())

            // 3. A programme FRAME-RATE of 10^-13, hot-reloaded: the reload fails, the last good revision serves.
            let master = folder.appendingPathComponent("news/media/program/act-1/master.m3u8")
            let text = try String(contentsOf: master, encoding: .utf8)
            try Data(text.replacingOccurrences(of: "FRAME-RATE=25.000", with: "FRAME-RATE=0.0000000000001").utf8).write(to: master)
            var reported = false
            for _ in 0..<30 where !reported {
                try await Task.sleep(for: .milliseconds(500))
                reported = (try? server.get("/v1/campaigns").body.contains("FRAME-RATE=0.0000000000001 is out of range")) == true
            }
            #expect(reported, "the reload reports the FRAME-RATE")
            #expect(server.healthy())
            #expect(try server.get("/v1/campaigns/evening-news/master.m3u8?session=still").status == 200)
            #expect(waitpid(server.process.pid, nil, WNOHANG) == 0, "the server is still running")
        }

        @Test("validate and stitch refuse what used to trap them, with the file and line")
        func commandLineSurvives() async throws {
            let folder = try Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let master = folder.appendingPathComponent("news/media/program/act-1/master.m3u8")
            let text = try String(contentsOf: master, encoding: .utf8)
            try Data(text.replacingOccurrences(of: "FRAME-RATE=25.000", with: "FRAME-RATE=0.0000000000001").utf8).write(to: master)
            let campaign = folder.appendingPathComponent("news/campaign.yaml").path
            for arguments in [["validate", campaign], ["stitch", campaign, "--out", folder.appendingPathComponent("out").path]] {
                let result = try await Tool.run(CLITests.binary, arguments)
                #expect(result.status == 1, "\(arguments[0]) exits 1, not a trap: \(result.output)")
                #expect(result.output.contains("act-1/master.m3u8:"), "\(result.output)")
                #expect(result.output.contains("FRAME-RATE=0.0000000000001 is out of range"))
            }
        }

        /// Opens a connection, sends `bytes`, and reads until the server closes it: the seconds that
        /// took, or nil if it was still open after `limit`.
        static func secondsUntilClosed(port: Int, sending bytes: String, limit: Int) throws -> Double? {
            let socket = try LoopbackHTTP.connect(port: port)
            defer { close(socket) }
            var timeout = timeval(tv_sec: limit, tv_usec: 0)
            setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let request = Array(bytes.utf8)
            _ = request.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, 0) }
            let start = Date()
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = recv(socket, &buffer, buffer.count, 0)
                if count == 0 { return Date().timeIntervalSince(start) }  // closed by the server
                if count < 0 { return errno == EAGAIN || errno == EWOULDBLOCK ? nil : Date().timeIntervalSince(start) }
            }
        }

        /// Sends `head`, then one byte of body every 300 ms; the seconds until the server closed
        /// the connection, or nil if it was still open after `limit` seconds.
        static func secondsUntilClosed(port: Int, trickling head: String, limit: Double) async throws -> Double? {
            let socket = try LoopbackHTTP.connect(port: port)
            defer { close(socket) }
            let request = Array(head.utf8)
            _ = request.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            let start = Date()
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while Date().timeIntervalSince(start) < limit {
                var byte = UInt8(ascii: "x")
                if send(socket, &byte, 1, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) < 0, errno != EAGAIN { return Date().timeIntervalSince(start) }
                // Not usleep: a test must not hold one of Swift's cooperative threads (two here),
                // which every other test's waits run on.
                await Spawn.pause(milliseconds: 300)
                while true {
                    let count = recv(socket, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                    if count == 0 { return Date().timeIntervalSince(start) }  // closed by the server
                    if count < 0 { break }  // nothing more now
                }
            }
            return nil
        }

        @Test("a request whose body trickles in (POST, GET with Content-Length, chunked) is closed at --header-timeout")
        func trickledBodiesAreClosed() async throws {
            let folder = try Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let server = try await Server(campaigns: folder, extra: ["--header-timeout", "2", "--idle-timeout", "30"])
            defer { kill(server.process.pid, SIGKILL) }
            for head in [
                "POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n",
                "GET /v1/campaigns HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n",
                "POST /v1/campaigns HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1000\r\n",
            ] {
                let closed = try await Self.secondsUntilClosed(port: server.port, trickling: head, limit: 12)
                #expect(closed.map { $0 < 6 } == true, "\(head.prefix(40)): closed after \(closed.map { "\($0) s" } ?? "never")")
            }
            #expect(server.healthy())
        }

        @Test("connections: HTTP/1.0 without keep-alive is closed after its answer; a trickled request head is closed at --header-timeout")
        func connectionsAreClosed() async throws {
            let folder = try Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let server = try await Server(campaigns: folder, extra: ["--header-timeout", "1", "--idle-timeout", "4"])
            defer { kill(server.process.pid, SIGKILL) }
            // RFC 9112 §9.3: an HTTP/1.0 request without keep-alive ends its connection — at once,
            // not when the idle timeout (4 s) would.
            let closedAfterAnswer = try Self.secondsUntilClosed(port: server.port, sending: "GET /healthz HTTP/1.0\r\n\r\n", limit: 3)
            #expect(closedAfterAnswer != nil, "HTTP/1.0 connection left open")
            // Slowloris: half a request head, then nothing — closed at the header timeout (1 s), before the idle timeout.
            let closedHalfHead = try Self.secondsUntilClosed(port: server.port, sending: "GET /healthz HTTP/1.1\r\nHost: x\r\n", limit: 3)
            #expect(closedHalfHead != nil, "a half-sent request head held its connection")
            // An idle keep-alive connection after one answer: closed at --idle-timeout.
            let closedIdle = try Self.secondsUntilClosed(port: server.port, sending: "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", limit: 10)
            #expect(closedIdle != nil, "an idle connection was kept past --idle-timeout")
            #expect(server.healthy())
        }
    }
}
