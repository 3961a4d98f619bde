import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Just enough of the W3C WebDriver protocol to drive headless Chromium through chromedriver:
/// open a session, load a page, run a script, read the browser log.
final class WebDriver: @unchecked Sendable {
    private let driver: BackgroundProcess
    private let endpoint: URL
    /// chromedriver's and Chromium's temporary files (the profile, shared memory files: some
    /// 8 MB a session), removed with the driver; they outlived every run in /tmp otherwise.
    private let scratch: URL
    private var session = ""

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// `arguments`: more Chromium switches (a log file, say).
    init(arguments: [String] = []) async throws {
        // Below the kernel's ephemeral ports (32768–60999 here), which the run's own connections
        // take, and on another port when the one drawn is taken after all: chromedriver exits at
        // once then ("bind() failed: Address already in use"; one CI run lost a test to it).
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("webdriver-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        self.scratch = scratch
        let started: (process: BackgroundProcess, port: Int)
        do {
            started = try await BackgroundProcess.server(
                "chromedriver",
                ports: 20_000..<32_000,
                marker: "started successfully",
                environment: ["TMPDIR": scratch.path]
            ) { ["--port=\($0)"] }
        } catch {
            try? FileManager.default.removeItem(at: scratch)
            throw error
        }
        let (driver, port) = started
        self.driver = driver
        self.endpoint = URL(string: "http://127.0.0.1:\(port)")!
        let capabilities: [String: Any] = [
            "capabilities": [
                "alwaysMatch": [
                    "browserName": "chrome",
                    "goog:loggingPrefs": ["browser": "ALL"],
                    "goog:chromeOptions": [
                        "binary": try Tool.path("chromium"),
                        "args": [
                            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                            "--autoplay-policy=no-user-gesture-required",
                            "--window-size=1280,900",
                        ] + arguments,
                    ],
                ]
            ]
        ]
        let value = try await self.call("POST", "/session", capabilities)
        guard let id = (value as? [String: Any])?["sessionId"] as? String else { throw Failure(description: "no WebDriver session: \(value)") }
        self.session = id
    }

    func open(_ url: URL) async throws {
        _ = try await self.call("POST", "/session/\(self.session)/url", ["url": url.absoluteString])
    }

    /// Runs `script` (a function body) in the page and returns its result.
    func execute(_ script: String) async throws -> Any {
        try await self.call("POST", "/session/\(self.session)/execute/sync", ["script": script, "args": [] as [Any]])
    }

    /// A Chrome DevTools Protocol command (chromedriver's `goog/cdp/execute`): network
    /// conditions, scripts run before a page's own.
    @discardableResult
    func cdp(_ command: String, _ parameters: [String: Any] = [:]) async throws -> Any {
        try await self.call("POST", "/session/\(self.session)/goog/cdp/execute", ["cmd": command, "params": parameters])
    }

    /// Console messages of level SEVERE.
    func severeLogs() async throws -> [String] {
        let entries = try await self.call("POST", "/session/\(self.session)/se/log", ["type": "browser"]) as? [[String: Any]] ?? []
        return entries.filter { ($0["level"] as? String) == "SEVERE" }.compactMap { $0["message"] as? String }
    }

    func screenshot(to file: URL) async throws {
        guard let base64 = try await self.call("GET", "/session/\(self.session)/screenshot", nil) as? String, let data = Data(base64Encoded: base64)
        else {
            throw Failure(description: "no screenshot")
        }
        try data.write(to: file)
    }

    /// How a `<video id="video">` ended up: played to the end or not, its duration, its error.
    struct Playback {
        var ended: Bool
        var duration: Double?
        var error: String?
        var description: String
    }

    /// Opens `page` and polls its `<video id="video">` (at 4× speed) until it ends, fails or
    /// `timeout` passes.
    func play(_ page: URL, timeout: TimeInterval = 90) async throws -> Playback {
        try await self.open(page)
        var state: [Any] = []
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            try await Task.sleep(for: .seconds(1))
            state =
                try await self.execute(
                    "const v = document.getElementById('video'); v.playbackRate = 4; return [v.ended, v.duration, v.error ? v.error.message : null, v.currentTime]"
                ) as? [Any] ?? []
            if state.first as? Bool == true || (state.count > 2 && !(state[2] is NSNull)) { break }
        }
        return Playback(
            ended: state.first as? Bool == true,
            duration: state.count > 1 ? state[1] as? Double : nil,
            error: state.count > 2 ? state[2] as? String : "no state",
            description: "\(state)"
        )
    }

    /// Ends the browser session and stops chromedriver.
    func quit() async {
        _ = try? await self.call("DELETE", "/session/\(self.session)", nil)
        self.driver.stop()
        try? FileManager.default.removeItem(at: self.scratch)
    }

    deinit {
        self.driver.stop()
        try? FileManager.default.removeItem(at: self.scratch)
    }

    private func call(_ method: String, _ path: String, _ body: [String: Any]?) async throws -> Any {
        let payload = try body.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data()
        let data = try LoopbackHTTP.request(method, port: self.endpoint.port ?? 0, path: path, body: payload)
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let value = json?["value"] as Any
        if let error = (value as? [String: Any])?["error"] as? String {
            throw Failure(description: "WebDriver \(method) \(path): \(error): \((value as? [String: Any])?["message"] ?? "")")
        }
        return value
    }
}

/// A minimal HTTP/1.1 client for loopback (chromedriver): one request per connection,
/// `Connection: close`, the body read to the end. FoundationNetworking's URLSession fails
/// chromedriver's responses here ("Failed writing header"), and the tests need nothing more.
enum LoopbackHTTP {
    static func request(_ method: String, port: Int, path: String, body: Data) throws -> Data {
        try self.exchange(method, port: port, path: path, body: body).body
    }

    /// A TCP socket connected to 127.0.0.1:`port`; the caller closes it.
    static func connect(port: Int) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw WebDriver.Failure(description: "socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socket)
            throw WebDriver.Failure(description: "cannot connect to 127.0.0.1:\(port)")
        }
        return socket
    }

    /// Sends all of `bytes` on `socket`.
    static func send(_ bytes: [UInt8], on socket: Int32) throws {
        var sent = 0
        while sent < bytes.count {
            let written = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, 0) }
            guard written > 0 else { throw WebDriver.Failure(description: "send failed") }
            sent += written
        }
    }

    /// What `socket` receives until the peer closes it (or a receive fails or times out), or
    /// until `complete` says what came is whole.
    static func receive(on socket: Int32, until complete: (Data) -> Bool = { _ in false }) -> Data {
        var response = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { break }
            response.append(contentsOf: buffer[0..<count])
            if complete(response) { break }
        }
        return response
    }

    /// One request on a new connection: the status code, the response head and the body.
    static func exchange(
        _ method: String,
        port: Int,
        path: String,
        body: Data = Data(),
        headers: [(String, String)] = []
    ) throws -> (status: Int, head: String, body: Data) {
        let socket = try self.connect(port: port)
        defer { close(socket) }
        var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
        try self.send(Array(request.utf8) + Array(body), on: socket)
        // Read until the peer closes, or the Content-Length body is complete (chromedriver may keep
        // the connection open).
        let response = self.receive(on: socket) { response in
            guard let separator = response.range(of: Data("\r\n\r\n".utf8)) else { return false }
            let head = String(decoding: response[..<separator.lowerBound], as: UTF8.self).lowercased()
            guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
                let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
            else { return false }
            return response.count - separator.upperBound >= length
        }
        guard let separator = response.range(of: Data("\r\n\r\n".utf8)) else { throw WebDriver.Failure(description: "no HTTP response") }
        let head = String(decoding: response[..<separator.lowerBound], as: UTF8.self)
        var content = Data(response[separator.upperBound...])
        if head.lowercased().contains("transfer-encoding: chunked") { content = Self.dechunk(content) }
        let status = head.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, head, content)
    }

    private static func dechunk(_ data: Data) -> Data {
        var out = Data()
        var rest = data[...]
        while let lineEnd = rest.range(of: Data("\r\n".utf8)) {
            let size = Int(String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";")[0], radix: 16) ?? 0
            if size == 0 { break }
            let start = lineEnd.upperBound
            out.append(rest[start..<min(rest.endIndex, start + size)])
            rest = rest[min(rest.endIndex, start + size + 2)...]
        }
        return out
    }
}
