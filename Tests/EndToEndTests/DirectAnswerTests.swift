import Foundation
import Testing

/// A viewer's session files are answered in the connection's pipeline (`SessionFileResponder`,
/// docs/performance.md) whatever the log level. Two replicas of the demo campaigns, one answering
/// directly and logging every request (`--log-level debug`), one through the router alone
/// (`--no-direct-answers`), must answer alike, byte for byte, and log a line per request alike.
@Suite("Direct answers of session files, end to end", .serialized)
struct DirectAnswerTests {
    typealias Server = RealClients.HardeningEndToEndTests.Server

    /// The demo campaigns and `long-news`, served both ways (same secret: one's tokens play on the other).
    /// The caller removes `campaigns` when done.
    static func servers() async throws -> (direct: Server, routed: Server, campaigns: URL) {
        let campaigns = try Self.campaigns()
        let direct: Server
        do {
            direct = try await Server(campaigns: campaigns, extra: ["--log-level", "debug"])
        } catch {
            try? FileManager.default.removeItem(at: campaigns)
            throw error
        }
        do {
            return (direct, try await Server(campaigns: campaigns, extra: ["--no-direct-answers", "--log-level", "debug"]), campaigns)
        } catch {
            kill(direct.process.pid, SIGKILL)
            try? FileManager.default.removeItem(at: campaigns)
            throw error
        }
    }

    /// A folder with the demos and `long-news`: the TS demo with a first act of 800 segments, so
    /// its playlists carry blocks long enough to be written from the revision's shared buffers
    /// (`StitchedBody.sharedMinimum`, 16 KiB), between the session's own bytes — a direct answer
    /// of several buffers.
    static func campaigns() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("direct-answers-\(UUID().uuidString.prefix(8))")
        let demos = Repository.root.appendingPathComponent("Campaigns")
        try FileManager.default.copyItem(at: demos, to: folder)
        let long = folder.appendingPathComponent("long-news")
        try FileManager.default.copyItem(at: demos.appendingPathComponent("evening-news"), to: long)
        let yaml = long.appendingPathComponent("campaign.yaml")
        try Data(try String(contentsOf: yaml, encoding: .utf8).replacingOccurrences(of: "id: evening-news", with: "id: long-news").utf8).write(
            to: yaml
        )
        for rendition in ["240p", "360p"] {
            let playlist = long.appendingPathComponent("media/program/act-1/\(rendition)/index.m3u8")
            let lines = try String(contentsOf: playlist, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            // The header up to the key, its four segments 200 times, the end.
            let segments = lines.filter { $0.hasPrefix("#EXTINF") || $0.hasPrefix("seg_") }
            let header = lines.prefix { !$0.hasPrefix("#EXTINF") }
            let text = (Array(header) + Array(repeating: segments, count: 200).flatMap { $0 } + ["#EXT-X-ENDLIST", ""]).joined(separator: "\n")
            try Data(text.utf8).write(to: playlist)
        }
        return folder
    }

    /// One raw request (`head` without its final blank line) on a new connection, read to the
    /// server's close: the whole answer as sent, minus the `Date` header's value.
    static func raw(_ head: String, port: Int) throws -> Data {
        let socket = try LoopbackHTTP.connect(port: port)
        defer { close(socket) }
        // A server that does not close when it should fails the test, not hangs it.
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        try LoopbackHTTP.send(Array((head + "\r\n").utf8), on: socket)
        return Self.withoutDate(LoopbackHTTP.receive(on: socket))
    }

    /// `response` with every `date:` header line's value blanked (the clock moves between servers).
    static func withoutDate(_ response: Data) -> Data {
        var text = String(decoding: response, as: UTF8.self)
        while let range = text.range(of: "\r\ndate: [^\r]*", options: [.regularExpression, .caseInsensitive]) {
            text.replaceSubrange(range, with: "\r\nDATE-REMOVED")
        }
        return Data(text.utf8)
    }

    /// The responses in `stream`, split by their Content-Length.
    static func responses(_ stream: Data) -> [(head: String, body: Data)] {
        var rest = stream[...]
        var found: [(String, Data)] = []
        while let separator = rest.range(of: Data("\r\n\r\n".utf8)) {
            let head = String(decoding: rest[..<separator.lowerBound], as: UTF8.self)
            let length =
                head.lowercased().split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            let status = head.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
            let bodyLength = status == 304 ? 0 : length
            let end = rest.index(separator.upperBound, offsetBy: min(bodyLength, rest.distance(from: separator.upperBound, to: rest.endIndex)))
            found.append((head, Data(rest[separator.upperBound..<end])))
            rest = rest[end...]
        }
        return found
    }

    static func metric(_ name: String, route: String? = nil, status: Int? = nil, server: Server) throws -> Int {
        let text = try server.get("/metrics").body
        return text.split(separator: "\n").filter { line in
            line.hasPrefix(name) && (route.map { line.contains("route=\"\($0)\"") } ?? true)
                && (status.map { line.contains("status=\"\($0)\"") } ?? true)
        }.compactMap { $0.split(separator: " ").last.flatMap { Double($0) }.map { Int($0) } }.reduce(0, +)
    }

    /// The access log lines (the router's `LogRequestsMiddleware` format) in a server's log so far.
    static func requestLines(_ server: Server) throws -> [String] {
        try String(contentsOf: server.process.log, encoding: .utf8).split(separator: "\n").filter { $0.hasSuffix("[Hummingbird] Request") }
            .map(String.init)
    }

    @Test(
        "every session file of the demos — plain, gzip, cached, 304, HTTP/1.0, errors — is the router's answer byte for byte, counted and logged alike"
    )
    func sameBytesAsTheRouter() async throws {
        let (direct, routed, campaigns) = try await Self.servers()
        defer {
            kill(direct.process.pid, SIGKILL)
            kill(routed.process.pid, SIGKILL)
            try? FileManager.default.removeItem(at: campaigns)
        }
        // Sessions of each demo, started on the direct replica; their files, from their masters.
        var files: [String] = []
        for (campaign, query) in [
            ("evening-news", "session=d1&locale=en-GB"), ("feature-fmp4", "session=d2"), ("single-asset", "session=d3"),
            ("evening-news", "session=d4&insertion=interstitials"), ("long-news", "session=d5&locale=en-GB"),
        ] {
            let master = try direct.get("/v1/campaigns/\(campaign)/master.m3u8?\(query)")
            #expect(master.status == 200, "\(campaign): \(master.body)")
            let paths = master.body.matches(of: /sessions\/[A-Za-z0-9_\-.~]+\/[A-Za-z0-9_\-.]+/).map { String($0.output) }
            let prefix = "/v1/campaigns/\(campaign)/"
            files += Set(paths).sorted().map { prefix + $0 }
            if let first = paths.first {
                files.append(prefix + first.split(separator: "/").prefix(2).joined(separator: "/") + "/boundaries.json")
            }
        }
        #expect(files.count >= 16, "\(files)")
        let long = try #require(files.first { $0.contains("/long-news/") && $0.hasSuffix(".m3u8") })
        #expect(try direct.get(long).body.components(separatedBy: "seg_").count > 800, "long-news's first act is written from a shared buffer")
        // An interstitial session's asset lists (named in its media playlists) are the router's:
        // they name the request's host.
        var assetLists: [String] = []
        for file in files where file.hasSuffix(".m3u8") {
            let playlist = try direct.get(file).body
            for match in playlist.matches(of: /X-ASSET-LIST="([^"]+)"/) {
                let base = file.split(separator: "/").dropLast().joined(separator: "/")
                assetLists.append("/" + base + "/" + match.output.1)
            }
        }
        #expect(!assetLists.isEmpty, "no asset list in the interstitial session")
        let token = try #require(files.first).split(separator: "/")[4]
        var tampered = Array(token)
        tampered[tampered.count / 2] = tampered[tampered.count / 2] == "A" ? "B" : "A"

        // (request head, answered directly?)
        var requests: [(String, Bool)] = []
        let host = "Host: 127.0.0.1\r\n"
        for file in files {
            let plain = "GET \(file) HTTP/1.1\r\n\(host)Connection: close\r\n"
            requests += [
                (plain, true),  // stitched
                (plain, true),  // from the response cache
                ("GET \(file) HTTP/1.1\r\n\(host)Accept-Encoding: gzip, deflate, br\r\nConnection: close\r\n", true),
                ("GET \(file)?from=cdn HTTP/1.0\r\n\(host)", true),
                ("HEAD \(file) HTTP/1.1\r\n\(host)Connection: close\r\n", false),
            ]
        }
        for list in Set(assetLists).sorted().prefix(2) {
            requests.append(("GET \(list) HTTP/1.1\r\n\(host)Connection: close\r\n", false))
        }
        let first = try #require(files.first { $0.hasSuffix(".m3u8") })
        let campaignPath = "/" + first.split(separator: "/").prefix(3).joined(separator: "/")
        requests += [
            ("GET \(first.replacingOccurrences(of: String(token), with: String(tampered))) HTTP/1.1\r\n\(host)Connection: close\r\n", true),
            ("GET \(campaignPath)/sessions/\(token)/nope.m3u8 HTTP/1.1\r\n\(host)Connection: close\r\n", true),
            ("GET /v1/campaigns/single-asset/sessions/\(token)/v1.m3u8 HTTP/1.1\r\n\(host)Connection: close\r\n", true),
            ("GET \(first.replacingOccurrences(of: ".m3u8", with: "%2Em3u8")) HTTP/1.1\r\n\(host)Connection: close\r\n", false),
            ("GET \(first) HTTP/1.1\r\n\(host)Content-Length: 0\r\nConnection: close\r\n", true),
            ("GET \(first) HTTP/1.1\r\n\(host)Content-Length: 4\r\nConnection: close\r\n\r\nab", false),
        ]
        // A matching If-None-Match (304) and one that does not match, with the ETags just served.
        for file in files.prefix(3) {
            let answer = Self.responses(try Self.raw("GET \(file) HTTP/1.1\r\n\(host)Connection: close\r\n", port: direct.port))
            let etag = try #require(answer.first?.head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("etag:") })
                .dropFirst("etag:".count).trimmingCharacters(in: .whitespaces)
            requests += [
                ("GET \(file) HTTP/1.1\r\n\(host)If-None-Match: W/\(etag)\r\nConnection: close\r\n", true),
                ("GET \(file) HTTP/1.1\r\n\(host)If-None-Match: \"other\"\r\nConnection: close\r\n", true),
            ]
        }
        _ = try routed.get(files[0])  // the routed replica's caches as warm as the direct one's

        let directBefore = try Self.metric("adstitch_http_direct_answers_total", server: direct)
        let route = "/v1/campaigns/{id}/sessions/{token}/{file}"
        let counted = { (server: Server, status: Int) in try Self.metric("adstitch_http_requests_total", route: route, status: status, server: server)
        }
        let countedBefore = try [200, 304, 403, 404].map { status in try [direct, routed].map { try counted($0, status) } }
        let loggedBefore = try [direct, routed].map { try Self.requestLines($0) }
        var statuses: Set<Int> = []
        for (head, _) in requests {
            let fromDirect = try Self.raw(head, port: direct.port)
            let fromRouter = try Self.raw(head, port: routed.port)
            let answer = Self.responses(fromDirect)
            statuses.insert(answer.first.map { Int($0.head.split(separator: " ")[1]) ?? 0 } ?? 0)
            #expect(answer.count == 1, "\(head): \(answer.count) answers")
            #expect(
                fromDirect == fromRouter,
                "\(head)\ndirect:\n\(String(decoding: fromDirect.prefix(600), as: UTF8.self))\nrouter:\n\(String(decoding: fromRouter.prefix(600), as: UTF8.self))"
            )
        }
        #expect(statuses.isSuperset(of: [200, 304, 403, 404]), "\(statuses)")
        // One access log line per request on both, each with its own request id, whichever way it was answered.
        for (index, server) in [direct, routed].enumerated() {
            let lines = try Self.requestLines(server).dropFirst(loggedBefore[index].count)
            #expect(lines.count == requests.count, "\(lines.count) lines logged for \(requests.count) requests")
            let ids = Set(lines.compactMap { $0.firstMatch(of: /hb\.request\.id=(\S+)/).map { String($0.output.1) } })
            #expect(ids.count == lines.count, "\(ids.count) request ids for \(lines.count) lines")
        }
        // The direct replica answered what it should itself (the asset lists are the router's),
        // the routed one nothing; both counted every request alike.
        let answeredDirectly = try Self.metric("adstitch_http_direct_answers_total", server: direct) - directBefore
        #expect(answeredDirectly == requests.filter(\.1).count, "\(answeredDirectly) answered directly of \(requests.filter(\.1).count)")
        #expect(try Self.metric("adstitch_http_direct_answers_total", server: routed) == 0)
        for (index, status) in [200, 304, 403, 404].enumerated() {
            let added = try [direct, routed].enumerated().map { try counted($0.element, status) - countedBefore[index][$0.offset] }
            #expect(added[0] == added[1] && added[0] > 0, "status \(status): \(added) requests counted (direct, routed)")
        }
    }

    @Test("pipelined requests are answered in order when the router's and direct answers interleave")
    func pipelinedAnswersKeepTheirOrder() async throws {
        let (direct, routed, campaigns) = try await Self.servers()
        defer {
            kill(direct.process.pid, SIGKILL)
            kill(routed.process.pid, SIGKILL)
            try? FileManager.default.removeItem(at: campaigns)
        }
        let master = try direct.get("/v1/campaigns/evening-news/master.m3u8?session=pipelined")
        let playlist =
            "/v1/campaigns/evening-news/"
            + (try #require(master.body.split(separator: "\n").first { $0.hasPrefix("sessions/") && $0.hasSuffix(".m3u8") }))
        let alone = try direct.get(playlist).body
        let host = "Host: 127.0.0.1\r\n"
        // The first is answered directly; the rest wait for the router's answer to the second.
        let heads = [
            "GET \(playlist) HTTP/1.1\r\n\(host)\r\n",
            "GET /v1/campaigns HTTP/1.1\r\n\(host)\r\n",
            "GET \(playlist) HTTP/1.1\r\n\(host)\r\n",
            "GET /healthz HTTP/1.1\r\n\(host)\r\n",
            "GET \(playlist) HTTP/1.1\r\n\(host)Accept-Encoding: gzip\r\n\r\n",
            "GET /preview HTTP/1.1\r\n\(host)\r\n",
            "GET \(playlist.replacingOccurrences(of: ".m3u8", with: ".nope")) HTTP/1.1\r\n\(host)Connection: close\r\n",
        ]
        for server in [direct, routed] {
            let before = try Self.metric("adstitch_http_direct_answers_total", server: server)
            let answers = Self.responses(try Self.raw(heads.joined(), port: server.port))
            #expect(answers.count == heads.count, "\(answers.map(\.head))")
            #expect(try Self.metric("adstitch_http_direct_answers_total", server: server) - before == (server === direct ? 1 : 0))
            guard answers.count == heads.count else { continue }
            #expect(String(decoding: answers[0].body, as: UTF8.self) == alone)
            #expect(answers[1].head.contains("application/json") && String(decoding: answers[1].body, as: UTF8.self).contains("evening-news"))
            #expect(String(decoding: answers[2].body, as: UTF8.self) == alone)
            #expect(String(decoding: answers[3].body, as: UTF8.self) == "ok\n")
            #expect(answers[4].head.lowercased().contains("content-encoding: gzip"))
            #expect(answers[5].head.contains("text/html"))
            #expect(answers[6].head.hasPrefix("HTTP/1.1 404"))
        }
    }

    @Test("a client that pipelines requests and stops reading is disconnected after --idle-timeout, its answers dropped")
    func unreadAnswersEndTheConnection() async throws {
        let server = try await Server(
            campaigns: Repository.root.appendingPathComponent("Campaigns"),
            extra: ["--response-cache-mib", "0", "--idle-timeout", "2"]
        )
        defer { kill(server.process.pid, SIGKILL) }
        let master = try server.get("/v1/campaigns/evening-news/master.m3u8?session=unread-2")
        let playlist =
            "/v1/campaigns/evening-news/"
            + (try #require(master.body.split(separator: "\n").first { $0.hasPrefix("sessions/") && $0.hasSuffix(".m3u8") }))
        let size = try server.get(playlist).body.utf8.count
        let count = 4_000
        let socket = try LoopbackHTTP.connect(port: server.port)
        defer { close(socket) }
        var small: Int32 = 4096
        setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
        let bytes = Array(String(repeating: "GET \(playlist) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", count: count).utf8)
        var sent = 0
        let deadline = Date().addingTimeInterval(3)
        while sent < bytes.count, Date() < deadline {
            let written = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written > 0 { sent += written } else { try await Task.sleep(for: .milliseconds(10)) }
        }
        // Not reading for twice the idle timeout, then reading what is left: a server that kept
        // the connection would now send every answer.
        try await Task.sleep(for: .seconds(5))
        var received = 0
        var closed = false
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let reading = Date()
        while Date().timeIntervalSince(reading) < 20 {
            let got = recv(socket, &buffer, buffer.count, 0)
            if got == 0 || (got < 0 && errno == ECONNRESET) {
                closed = true
                break
            }
            if got > 0 { received += got } else { try await Task.sleep(for: .milliseconds(20)) }
        }
        let answered = sent / (bytes.count / count)
        #expect(closed, "the connection stayed open")
        #expect(received < answered * size / 2, "\(received) bytes read of \(answered) answers of \(size) bytes: the answers kept coming")
        #expect(server.healthy())
    }

    @Test("a client that pipelines thousands of requests and reads nothing does not make the server buffer their answers")
    func pipeliningWithoutReadingIsBounded() async throws {
        // No response cache, so each answer is a buffer of its own (cached ones share theirs).
        let server = try await Server(campaigns: Repository.root.appendingPathComponent("Campaigns"), extra: ["--response-cache-mib", "0"])
        defer { kill(server.process.pid, SIGKILL) }
        let master = try server.get("/v1/campaigns/evening-news/master.m3u8?session=unread")
        let playlist =
            "/v1/campaigns/evening-news/"
            + (try #require(master.body.split(separator: "\n").first { $0.hasPrefix("sessions/") && $0.hasSuffix(".m3u8") }))
        let size = try server.get(playlist).body.utf8.count
        func residentMiB() throws -> Int {
            let status = try String(contentsOfFile: "/proc/\(server.process.pid)/status", encoding: .utf8)
            let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
            return (Int(line.split(separator: " ")[1]) ?? 0) / 1024
        }
        let before = try residentMiB()
        // 20,000 requests (~70 MB of answers), sent for three seconds as far as the server takes them.
        let socket = try LoopbackHTTP.connect(port: server.port)
        defer { close(socket) }
        _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
        let bytes = Array(String(repeating: "GET \(playlist) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", count: 20_000).utf8)
        var sent = 0
        let deadline = Date().addingTimeInterval(3)
        while sent < bytes.count, Date() < deadline {
            let written = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written > 0 { sent += written } else { try await Task.sleep(for: .milliseconds(10)) }
        }
        // While the server works through what it took (seconds for a debug build).
        var grown = 0
        for _ in 0..<32 {
            try await Task.sleep(for: .milliseconds(250))
            grown = max(grown, try residentMiB() - before)
        }
        // Unbounded, every request taken would be an answer in memory: sent / request × size.
        let requestBytes = bytes.count / 20_000
        #expect(grown < 32, "the server grew by \(grown) MiB holding answers to \(sent / requestBytes) requests of \(size) bytes each")
        #expect(server.healthy())
    }
}
