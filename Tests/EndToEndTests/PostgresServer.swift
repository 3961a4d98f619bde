import Foundation

/// A PostgreSQL server of Debian's package on a free loopback port, for the length of a test:
/// its own cluster in a temporary folder (trust authentication, user `adstitch`), stopped and
/// removed on deinit. PostgreSQL refuses to run as root, so as root it runs as the package's
/// `postgres` user (`setpriv`, which execs it: stopping the process stops the server).
final class PostgresServer: Sendable {
    let process: BackgroundProcess
    let port: Int
    let folder: URL

    var url: String { "postgres://adstitch@127.0.0.1:\(self.port)/postgres" }

    init() async throws {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        guard let version = versions.compactMap({ Int($0) }).max() else {
            throw Tool.Missing(name: "PostgreSQL (Debian's postgresql package: make test installs it)")
        }
        let bin = "/usr/lib/postgresql/\(version)/bin"
        self.folder = FileManager.default.temporaryDirectory.appendingPathComponent("adstitch-pg-\(UUID().uuidString.prefix(8))")
        let data = self.folder.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let asRoot = getuid() == 0
        func command(_ program: String, _ arguments: [String]) -> (String, [String]) {
            asRoot
                ? ("setpriv", ["--reuid=postgres", "--regid=postgres", "--init-groups", "\(bin)/\(program)"] + arguments)
                : ("\(bin)/\(program)", arguments)
        }
        if asRoot {
            let owned = try await Tool.run("chown", ["-R", "postgres:postgres", self.folder.path])
            guard owned.status == 0 else { throw Tool.Missing(name: "a folder the postgres user owns: \(owned.output)") }
        }
        let (initdb, initArguments) = command("initdb", ["-D", data.path, "-A", "trust", "-U", "adstitch", "--no-sync", "-E", "UTF8"])
        let created = try await Tool.run(initdb, initArguments)
        guard created.status == 0 else { throw Tool.Missing(name: "a PostgreSQL cluster (initdb: \(created.output.suffix(400)))") }
        // Below Linux's ephemeral range (32768–60999), where the tests' own outgoing connections
        // take their local ports; and another port if one is taken anyway.
        var attempt = 0
        while true {
            let port = Int.random(in: 20_000..<32_000)
            let (postgres, arguments) = command(
                "postgres",
                ["-D", data.path, "-p", "\(port)", "-k", self.folder.path, "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"]
            )
            let process = try BackgroundProcess(postgres, arguments)
            if await process.waitForLine(containing: "ready to accept connections", timeout: 120) != nil {
                (self.port, self.process) = (port, process)
                break
            }
            let log = (try? String(contentsOf: process.log, encoding: .utf8)) ?? ""
            process.stop()
            attempt += 1
            guard attempt < 5, log.contains("already in use") else { throw Tool.Missing(name: "PostgreSQL on port \(port): \(log.suffix(400))") }
        }
    }

    deinit {
        self.process.stop()
        try? FileManager.default.removeItem(at: self.folder)
    }
}
