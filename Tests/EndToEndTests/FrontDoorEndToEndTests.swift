import AdCampaignStore
import Foundation
import Testing

/// A viewer's session files have one door: the connection's pipeline (`SessionFileDoor`,
/// docs/architecture.md "One front door"), whatever the log level, the method or the file —
/// stitched, cached, gzip, ranged, asset lists, errors — framed as HTTP says, logged and counted
/// once each, and in order with the router's answers on a pipelined connection.
@Suite("Session files through the front door, end to end", .serialized)
struct FrontDoorEndToEndTests {
    typealias Server = RealClients.HardeningEndToEndTests.Server

    /// A replica of the demo campaigns and `long-news`, logging every request (`--log-level debug`).
    /// The caller removes `campaigns` when done.
    static func server() async throws -> (server: Server, campaigns: URL) {
        let campaigns = try Self.campaigns()
        do {
            return (try await Server(campaigns: campaigns, extra: ["--log-level", "debug"]), campaigns)
        } catch {
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

    /// A response's header lines, lower-cased names, `Date` left out.
    static func headerLines(_ head: String) -> [String] {
        head.split(separator: "\r\n").dropFirst().map { line in
            let name = line.prefix { $0 != ":" }.lowercased()
            return name + line.dropFirst(name.count)
        }.filter { !$0.hasPrefix("date:") && $0 != "DATE-REMOVED" }
    }

    @Test(
        "every session file of the demos — plain, gzip, cached, ranged, 304, HEAD, OPTIONS, POST, HTTP/1.0, asset lists, errors — is framed as HTTP says, logged and counted once"
    )
    func framedLoggedCounted() async throws {
        let (server, campaigns) = try await Self.server()
        defer {
            kill(server.process.pid, SIGKILL)
            try? FileManager.default.removeItem(at: campaigns)
        }
        // Sessions of each demo; their files, from their masters.
        var files: [String] = []
        for (campaign, query) in [
            ("evening-news", "session=d1&locale=en-GB"), ("feature-fmp4", "session=d2"), ("single-asset", "session=d3"),
            ("evening-news", "session=d4&insertion=interstitials"), ("long-news", "session=d5&locale=en-GB"),
        ] {
            let master = try server.get("/v1/campaigns/\(campaign)/master.m3u8?\(query)")
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
        #expect(try server.get(long).body.components(separatedBy: "seg_").count > 800, "long-news's first act is written from a shared buffer")
        // An interstitial session's asset lists, named in its media playlists.
        var assetLists: [String] = []
        for file in files where file.hasSuffix(".m3u8") {
            let playlist = try server.get(file).body
            for match in playlist.matches(of: /X-ASSET-LIST="([^"]+)"/) {
                let base = file.split(separator: "/").dropLast().joined(separator: "/")
                assetLists.append("/" + base + "/" + match.output.1)
            }
        }
        #expect(!assetLists.isEmpty, "no asset list in the interstitial session")
        let token = try #require(files.first).split(separator: "/")[4]
        var tampered = Array(token)
        tampered[tampered.count / 2] = tampered[tampered.count / 2] == "A" ? "B" : "A"

        // (request head, expected status); each GET of a file is followed by its HEAD.
        var requests: [(head: String, status: Int)] = []
        let host = "Host: 127.0.0.1\r\n"
        for file in files + Set(assetLists).sorted().prefix(2) {
            requests += [
                ("GET \(file) HTTP/1.1\r\n\(host)Connection: close\r\n", 200),  // stitched
                ("GET \(file) HTTP/1.1\r\n\(host)Connection: close\r\n", 200),  // from the response cache
                ("HEAD \(file) HTTP/1.1\r\n\(host)Connection: close\r\n", 200),
                ("GET \(file) HTTP/1.1\r\n\(host)Accept-Encoding: gzip, deflate, br\r\nConnection: close\r\n", 200),
                ("GET \(file)?from=cdn HTTP/1.0\r\n\(host)", 200),
                ("GET \(file) HTTP/1.1\r\n\(host)Range: bytes=0-9\r\nConnection: close\r\n", 206),
            ]
        }
        let first = try #require(files.first { $0.hasSuffix(".m3u8") })
        let campaignPath = "/" + first.split(separator: "/").prefix(3).joined(separator: "/")
        requests += [
            ("GET \(first.replacingOccurrences(of: String(token), with: String(tampered))) HTTP/1.1\r\n\(host)Connection: close\r\n", 403),
            ("GET \(campaignPath)/sessions/\(token)/nope.m3u8 HTTP/1.1\r\n\(host)Connection: close\r\n", 404),
            ("GET /v1/campaigns/single-asset/sessions/\(token)/v1.m3u8 HTTP/1.1\r\n\(host)Connection: close\r\n", 403),
            ("GET \(first.replacingOccurrences(of: ".m3u8", with: "%2Em3u8")) HTTP/1.1\r\n\(host)Connection: close\r\n", 404),
            ("GET \(first) HTTP/1.1\r\n\(host)Content-Length: 0\r\nConnection: close\r\n", 200),
            ("GET \(first) HTTP/1.1\r\n\(host)Content-Length: 4\r\nConnection: close\r\n\r\nab", 200),
            ("OPTIONS \(first) HTTP/1.1\r\n\(host)Connection: close\r\n", 204),
            ("POST \(first) HTTP/1.1\r\n\(host)Content-Length: 2\r\nConnection: close\r\n\r\n{}", 405),
            ("DELETE \(first) HTTP/1.1\r\n\(host)Connection: close\r\n", 405),
        ]
        // A matching If-None-Match (304, also for a HEAD) and one that does not match, with the ETags just served.
        for file in files.prefix(3) {
            let answer = Self.responses(try Self.raw("GET \(file) HTTP/1.1\r\n\(host)Connection: close\r\n", port: server.port))
            let etag = try #require(answer.first?.head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("etag:") })
                .dropFirst("etag:".count).trimmingCharacters(in: .whitespaces)
            requests += [
                ("GET \(file) HTTP/1.1\r\n\(host)If-None-Match: W/\(etag)\r\nConnection: close\r\n", 304),
                ("HEAD \(file) HTTP/1.1\r\n\(host)If-None-Match: \(etag)\r\nConnection: close\r\n", 304),
                ("GET \(file) HTTP/1.1\r\n\(host)If-None-Match: \"other\"\r\nConnection: close\r\n", 200),
            ]
        }

        let route = "/v1/campaigns/{id}/sessions/{token}/{file}"
        let statuses = Set(requests.map(\.status))
        let countedBefore = try statuses.map { try Self.metric("adstitch_http_requests_total", route: route, status: $0, server: server) }
        let loggedBefore = try Self.requestLines(server).count
        var lastGet: (head: String, body: Data)?
        for (head, status) in requests {
            // Read to the server's close: an answer that does not end its connection fails here.
            let answers = Self.responses(try Self.raw(head, port: server.port))
            #expect(answers.count == 1, "\(head): \(answers.count) answers")
            guard let answer = answers.first else { continue }
            let lines = Self.headerLines(answer.head)
            #expect(answer.head.split(separator: " ").dropFirst().first == "\(status)", "\(head)\n\(answer.head)")
            #expect(lines.contains("server: AdStitch") && answer.head.contains("DATE-REMOVED"), "\(head): Date and Server")
            #expect(lines.contains("access-control-allow-origin: *"), "\(head): CORS")
            let length = lines.first { $0.hasPrefix("content-length:") }.flatMap { Int($0.dropFirst("content-length: ".count)) }
            if head.hasPrefix("HEAD") {
                #expect(answer.body.isEmpty, "\(head): a HEAD answer has no body")
                if status == 200, let get = lastGet {
                    #expect(lines == Self.headerLines(get.head), "\(head): the GET's headers")
                }
            } else if status == 304 || status == 204 {
                #expect(answer.body.isEmpty && length == nil, "\(head): no body, no Content-Length")
            } else {
                #expect(length == answer.body.count, "\(head): Content-Length \(length ?? -1) of \(answer.body.count) bytes")
            }
            if status >= 400 { #expect(lines.contains("content-type: application/problem+json"), "\(head)") }
            if status == 405 { #expect(lines.contains("allow: GET, HEAD, OPTIONS"), "\(head)") }
            if head.hasPrefix("GET"), status == 200, !head.contains("gzip"), !head.contains("HTTP/1.0") { lastGet = answer }
        }
        // One access log line per request, each with its own request id.
        let lines = try Self.requestLines(server).dropFirst(loggedBefore)
        #expect(lines.count == requests.count, "\(lines.count) lines logged for \(requests.count) requests")
        let ids = Set(lines.compactMap { $0.firstMatch(of: /hb\.request\.id=(\S+)/).map { String($0.output.1) } })
        #expect(ids.count == lines.count, "\(ids.count) request ids for \(lines.count) lines")
        // Every request counted under the route, by its status.
        for (index, status) in statuses.enumerated() {
            let added = try Self.metric("adstitch_http_requests_total", route: route, status: status, server: server) - countedBefore[index]
            let expected = requests.filter { $0.status == status }.count
            #expect(added == expected, "status \(status): \(added) counted, \(expected) sent")
        }
    }

    @Test("pipelined requests are answered in order when the router's and the door's answers interleave")
    func pipelinedAnswersKeepTheirOrder() async throws {
        let (server, campaigns) = try await Self.server()
        defer {
            kill(server.process.pid, SIGKILL)
            try? FileManager.default.removeItem(at: campaigns)
        }
        let master = try server.get("/v1/campaigns/evening-news/master.m3u8?session=pipelined")
        let playlist =
            "/v1/campaigns/evening-news/"
            + (try #require(master.body.split(separator: "\n").first { $0.hasPrefix("sessions/") && $0.hasSuffix(".m3u8") }))
        let alone = try server.get(playlist).body
        let host = "Host: 127.0.0.1\r\n"
        // The first is the door's; the rest wait for the router's answer to the second.
        let heads = [
            "GET \(playlist) HTTP/1.1\r\n\(host)\r\n",
            "GET /v1/campaigns HTTP/1.1\r\n\(host)\r\n",
            "GET \(playlist) HTTP/1.1\r\n\(host)\r\n",
            "GET /healthz HTTP/1.1\r\n\(host)\r\n",
            "GET \(playlist) HTTP/1.1\r\n\(host)Accept-Encoding: gzip\r\n\r\n",
            "GET /preview HTTP/1.1\r\n\(host)\r\n",
            "GET \(playlist.replacingOccurrences(of: ".m3u8", with: ".nope")) HTTP/1.1\r\n\(host)Connection: close\r\n",
        ]
        do {
            let answers = Self.responses(try Self.raw(heads.joined(), port: server.port))
            #expect(answers.count == heads.count, "\(answers.map(\.head))")
            guard answers.count == heads.count else { return }
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
