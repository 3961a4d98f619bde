import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The repository root, for the demo campaigns.
enum Repository {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static func campaign(_ id: String) -> URL { root.appendingPathComponent("Campaigns/\(id)/campaign.yaml") }
}

/// Runs the real clients (gst-launch-1.0, ffprobe, chromium) the end-to-end tests check with.
enum Tool {
    struct Result {
        var status: Int32
        var output: String
    }

    struct Missing: Error, CustomStringConvertible {
        var name: String
        var description: String { "\(self.name) is not installed; run `make deps` (or `make test`, which installs it)" }
    }

    /// The path of an executable on PATH.
    static func path(_ name: String) throws -> String {
        if name.contains("/") {
            guard FileManager.default.isExecutableFile(atPath: name) else { throw Missing(name: name) }
            return name
        }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw Missing(name: name)
    }

    /// Runs `name arguments…` to completion (killed after `timeout` seconds), output and errors
    /// merged through a file.
    static func run(_ name: String, _ arguments: [String], timeout: TimeInterval = 120) async throws -> Result {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("tool-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let pid = try Spawn.start(try self.path(name), arguments, output: log)
        let status = await Spawn.wait(pid, timeout: timeout)
        return Result(status: status, output: (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }
}

/// `posix_spawn` with every inherited descriptor closed but stdin (/dev/null), stdout and stderr
/// (a file). Foundation's `Process` on Linux hangs in `waitUntilExit` once a long-lived child it
/// started (the file server) holds descriptors of later launches, so the tests spawn directly.
enum Spawn {
    /// `environment`: variables set for the child on top of this process's own.
    static func start(_ path: String, _ arguments: [String], output: URL, environment: [String: String] = [:]) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Close every other descriptor open now (closefrom is not exported to Swift here).
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in open.compactMap({ Int32($0) }) where fd > 2 && fcntl(fd, F_GETFD) != -1 {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var variables = ProcessInfo.processInfo.environment
        variables.merge(environment) { $1 }
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for variable in envp { free(variable) } }
        // The child must not inherit the test runner's blocked or ignored signals, or SIGTERM
        // would never stop a server.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGPIPE, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let status = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard status == 0 else { throw Tool.Missing(name: "\(path) (posix_spawn failed: \(status))") }
        return pid
    }

    /// The exit status, after SIGKILL if the process outlives `timeout`. It waits by sleeping
    /// tasks, never by blocking a thread: Swift's cooperative pool has one thread per core (two
    /// here) and does not grow, so a test blocked in a wait would stop every other test's tasks
    /// — timers included — for as long (the cause of the timing flakes CI met).
    static func wait(_ pid: pid_t, timeout: TimeInterval) async -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let status = Self.reap(pid, deadline: deadline) { return status }
            await Spawn.pause(milliseconds: 20)
        }
    }

    /// ``wait(_:timeout:)`` for a `deinit`, which cannot suspend (a process stopped by SIGTERM
    /// exits at once; this blocks at most `timeout`).
    static func waitBlocking(_ pid: pid_t, timeout: TimeInterval) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let status = Self.reap(pid, deadline: deadline) { return status }
            usleep(5_000)
        }
    }

    /// One look at `pid`: its exit status once it has exited; -1 after SIGKILL once `deadline`
    /// has passed; nil while it runs.
    private static func reap(_ pid: pid_t, deadline: Date) -> Int32? {
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) != 0 { return Self.exitStatus(status) }
        guard Date() > deadline else { return nil }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
        return -1
    }

    /// Suspends for `milliseconds`; in a cancelled task (where `Task.sleep` returns at once) it
    /// blocks instead, so a polling loop never spins.
    static func pause(milliseconds: Int) async {
        do { try await Task.sleep(for: .milliseconds(milliseconds)) } catch { usleep(useconds_t(milliseconds * 1_000)) }
    }

    private static func exitStatus(_ status: Int32) -> Int32 {
        (status & 0x7f) == 0 ? (status >> 8) & 0xff : -(status & 0x7f)
    }
}

/// A process started for the length of a test (a file server, chromedriver), killed on deinit.
final class BackgroundProcess: @unchecked Sendable {
    let pid: pid_t
    let log: URL

    init(_ name: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        self.log = FileManager.default.temporaryDirectory.appendingPathComponent("background-\(UUID().uuidString).log")
        self.pid = try Spawn.start(try Tool.path(name), arguments, output: self.log, environment: environment)
    }

    /// Waits until the output has a line containing `marker`, returning that line (nil after
    /// `timeout`, or as soon as the process has exited without writing it).
    /// `timeout` is generous: it is wall-clock time, and while the test run's other tests keep
    /// Swift's two cooperative threads busy this task may not run for tens of seconds (the clean-
    /// clone CI replica saw a python origin that had started reported as "not installed").
    func waitForLine(containing marker: String, timeout: TimeInterval = 120) async -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let exited = self.hasExited
            let text = (try? String(contentsOf: self.log, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.contains(marker) }) { return String(line) }
            if exited { return nil }
            await Spawn.pause(milliseconds: 50)
        }
        return nil
    }

    /// Whether the process has exited (it is reaped then).
    var hasExited: Bool {
        var status: Int32 = 0
        return waitpid(self.pid, &status, WNOHANG) != 0
    }

    /// A server on a random port of `ports`, started with `arguments(port)`: tried again on
    /// another port when it exits before printing `marker` (another process of the test run
    /// took the port).
    static func server(
        _ name: String,
        ports: Range<Int>,
        marker: String,
        timeout: TimeInterval = 120,
        environment: [String: String] = [:],
        _ arguments: (Int) -> [String]
    ) async throws -> (process: BackgroundProcess, port: Int) {
        var lastLog = ""
        for _ in 0..<5 {
            let port = Int.random(in: ports)
            let process = try BackgroundProcess(name, arguments(port), environment: environment)
            if await process.waitForLine(containing: marker, timeout: timeout) != nil { return (process, port) }
            lastLog = (try? String(contentsOf: process.log, encoding: .utf8)) ?? ""
            guard process.hasExited else { break }
        }
        throw NotStarted(description: "\(name) did not start listening (ports \(ports)); its last output: \(String(lastLog.suffix(300)))")
    }

    struct NotStarted: Error, CustomStringConvertible {
        var description: String
    }

    /// Stops the process (SIGTERM, then SIGKILL after two seconds) and reaps it.
    func stop() {
        var status: Int32 = 0
        guard waitpid(self.pid, &status, WNOHANG) == 0 else { return }
        kill(self.pid, SIGTERM)
        _ = Spawn.waitBlocking(self.pid, timeout: 2)  // SIGKILL after two seconds
    }

    deinit {
        self.stop()
        try? FileManager.default.removeItem(at: self.log)
    }
}

/// A static HTTP server over a folder, on a free loopback port, in a process of its own
/// (scripts/test-origin.py): Range requests (byte-range segments need them), validators and 304s,
/// and the faults the origin tests inject by path (`/_/status/404/…`, `/_/slow/…`; see the script).
final class StaticServer: Sendable {
    let process: BackgroundProcess
    let base: URL

    init(root: URL) async throws {
        let script = Repository.root.appendingPathComponent("scripts/test-origin.py").path
        self.process = try BackgroundProcess("python3", ["-u", script, root.path])
        guard let line = await self.process.waitForLine(containing: "Serving HTTP"),
            let port = line.split(separator: " ").last.flatMap({ Int($0) })
        else { throw Tool.Missing(name: "a python3 file server that starts") }
        self.base = URL(string: "http://127.0.0.1:\(port)/")!
    }

    /// `path` (no leading `/`) on this server.
    func url(_ path: String) -> URL { URL(string: path, relativeTo: self.base)!.absoluteURL }

    /// Requests so far for each path (the server's `/_/hits`).
    func hits() throws -> [String: Int] {
        let answer = try LoopbackHTTP.exchange("GET", port: self.base.port ?? 0, path: "/_/hits")
        return try JSONDecoder().decode([String: Int].self, from: answer.body)
    }

    /// Requests so far for paths starting with `prefix`.
    func hits(under prefix: String) throws -> Int {
        try self.hits().filter { $0.key.hasPrefix(prefix) }.values.reduce(0, +)
    }
}
