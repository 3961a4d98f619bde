import Foundation
import HLSPlaylist
import Testing

/// The `adstitch` command line, run as a user runs it (the binary `swift build` made).
@Suite("Command line")
struct CLITests {
    /// `.build/<triple>/debug/adstitch`, beside the test bundle.
    static var binary: String {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if directory.lastPathComponent.hasSuffix(".xctest") { directory = directory.deletingLastPathComponent() }
        return directory.appendingPathComponent("adstitch").path
    }

    func adstitch(_ arguments: String...) async throws -> Tool.Result {
        try await self.adstitch(arguments)
    }

    func adstitch(_ arguments: [String]) async throws -> Tool.Result {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else { throw Tool.Missing(name: "\(Self.binary) (run swift build)") }
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let status = await Spawn.wait(try Spawn.start(Self.binary, arguments, output: log), timeout: 60)
        return Tool.Result(status: status, output: (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }

    /// `files` (paths relative to a new folder, texts) written into it, its `campaign.yaml`
    /// stitched by `adstitch stitch`: the stitched master's text, parsed and lint-checked. The
    /// folder is removed after.
    static func stitchedMaster(_ files: [String: String], extra: [String] = []) async throws -> MultivariantPlaylist {
        try await Self.stitched(files, extra: extra).master
    }

    /// As ``stitchedMaster(_:extra:)``, with every file `stitch` wrote by name (`v0.m3u8`, `a1.m3u8`…).
    static func stitched(_ files: [String: String], extra: [String] = []) async throws -> (master: MultivariantPlaylist, files: [String: String]) {
        let folder = try Self.folder(files)
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out")
        let result = try await CLITests().adstitch(
            ["stitch", folder.appendingPathComponent("campaign.yaml").path, "--out", out.path, "--session", "s"] + extra
        )
        #expect(result.status == 0, "\(result.output)")
        var written: [String: String] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? [] {
            // Text files, and the IMSC filler's bytes as they decode (tests look at its name).
            written[name] = String(decoding: try Data(contentsOf: out.appendingPathComponent(name)), as: UTF8.self)
        }
        let master = try PlaylistParser().parseMultivariantPlaylist(written["master.m3u8"] ?? "")
        #expect(PlaylistLinter().lint(master).filter { $0.severity == .error }.isEmpty, "\(written["master.m3u8"] ?? "")")
        return (master, written)
    }

    /// `adstitch validate` of the `campaign.yaml` among `files`, every segment, key and init
    /// section the media playlists name made as an empty file (validate checks they exist).
    /// Returns its status and output, the folder's path written `<folder>` in it.
    static func validated(_ files: [String: String]) async throws -> Tool.Result {
        let folder = try Self.folder(files, segments: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await CLITests().adstitch(["validate", folder.appendingPathComponent("campaign.yaml").path])
        return Tool.Result(status: result.status, output: result.output.replacingOccurrences(of: folder.path, with: "<folder>"))
    }

    /// A new folder holding `files` (paths relative to it, texts) and, with `segments`, an empty
    /// file for every segment and init section its media playlists name (what `validate` and
    /// `serve` check exist).
    static func folder(_ files: [String: String], segments: Bool) throws -> URL {
        let folder = try Self.folder(files)
        for (path, text) in files where segments && path.hasSuffix(".m3u8") && text.contains("#EXTINF") {
            let directory = folder.appendingPathComponent(path).deletingLastPathComponent()
            for line in text.split(separator: "\n") {
                let uri =
                    line.hasPrefix("#EXT-X-MAP:")
                    ? line.split(separator: "\"").dropFirst().first.map(String.init) : line.hasPrefix("#") ? nil : String(line)
                guard let uri, !uri.isEmpty else { continue }
                _ = FileManager.default.createFile(atPath: directory.appendingPathComponent(uri).path, contents: Data())
            }
        }
        return folder
    }

    /// A new folder holding `files` (paths relative to it, texts).
    static func folder(_ files: [String: String]) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stitch-\(UUID().uuidString.prefix(8))")
        for (path, text) in files {
            let url = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        return folder
    }

    func temporary(_ name: String, _ text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString.prefix(6))-\(name)")
        try Data(text.utf8).write(to: url)
        return url
    }

    @Test("fmt prints the canonical playlist: LF, no blank lines, a final newline, lines otherwise untouched")
    func fmtCanonicalises() async throws {
        let file = try self.temporary(
            "a.m3u8",
            "#EXTM3U\r\n#EXT-X-TARGETDURATION:10\r\n\r\n#EXTINF:10.010010,Title, with comma\r\nseg.ts\r\n#EXT-X-ENDLIST"
        )
        let result = try await self.adstitch("fmt", file.path)
        #expect(result.status == 0)
        #expect(result.output == "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10.010010,Title, with comma\nseg.ts\n#EXT-X-ENDLIST\n")
    }

    @Test("fmt on bad input exits 1 with the file, line and reason")
    func fmtReportsErrors() async throws {
        let file = try self.temporary("bad.m3u8", "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:ten,\nseg.ts\n")
        let result = try await self.adstitch("fmt", file.path)
        #expect(result.status == 1)
        #expect(result.output.contains("\(file.path):3: error:"), "\(result.output)")
    }

    @Test("validate prints file:line: error for a playlist and exits 1")
    func validatePlaylist() async throws {
        let file = try self.temporary(
            "v.m3u8",
            "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:10\n#EXT-X-BYTERANGE:100\n#EXTINF:10,\nseg.ts\n#EXT-X-ENDLIST\n"
        )
        let result = try await self.adstitch("validate", file.path)
        #expect(result.status == 1)
        #expect(result.output.contains("\(file.path):2: error:") && result.output.contains("[version]"), "\(result.output)")
        #expect(result.output.contains("\(file.path):4: error:") && result.output.contains("[byterange-offset]"), "\(result.output)")
    }

    @Test("validate and stitch read a campaign whose playlists are on an http origin; a missing one is file:line:column, URL and status")
    func remoteCampaign() async throws {
        let server = try await StaticServer(root: Repository.root.appendingPathComponent("Campaigns/evening-news"))
        let base = server.base.absoluteString
        let yaml = try String(contentsOf: Repository.campaign("evening-news"), encoding: .utf8)
            .replacingOccurrences(of: "playlist: media/", with: "playlist: \(base)media/")
        let campaign = try self.temporary("remote.yaml", yaml)
        let valid = try await self.adstitch("validate", campaign.path)
        #expect(valid.status == 0, "\(valid.output)")
        #expect(valid.output.contains("campaign evening-news is valid"), "\(valid.output)")
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("cli-remote-\(UUID().uuidString.prefix(6))")
        defer { try? FileManager.default.removeItem(at: out) }
        let stitched = try await self.adstitch("stitch", campaign.path, "--out", out.path, "--session", "remote-1")
        #expect(stitched.status == 0, "\(stitched.output)")
        let playlist = try String(contentsOf: out.appendingPathComponent("v0.m3u8"), encoding: .utf8)
        #expect(playlist.split(separator: "\n").filter { !$0.hasPrefix("#") }.allSatisfy { $0.hasPrefix(base + "media/") })

        let broken = try self.temporary("broken-remote.yaml", yaml.replacingOccurrences(of: "media/slate/master.m3u8", with: "media/slate/gone.m3u8"))
        let refused = try await self.adstitch("validate", broken.path)
        #expect(refused.status == 1)
        #expect(refused.output.contains("\(broken.path):15:"), "\(refused.output)")
        #expect(refused.output.contains("\(base)media/slate/gone.m3u8 answered HTTP 404"), "\(refused.output)")

        // --origin-… flags: an origin slower than --origin-timeout is an error, as the campaign's line says.
        let slow = try self.temporary(
            "slow-remote.yaml",
            yaml.replacingOccurrences(of: base + "media/slate/", with: base + "_/slow/1500/media/slate/")
        )
        let hasty = try await self.adstitch("validate", "--origin-timeout", "0.5", "--origin-attempts", "1", slow.path)
        #expect(hasty.status == 1)
        #expect(hasty.output.contains("\(slow.path):15:") && hasty.output.contains("did not answer in time"), "\(hasty.output)")
        #expect(try await self.adstitch("validate", slow.path).status == 0, "the default timeout (5 s) waits for it")

        // stitch and preview with a rewrite rule for the ads: the stitched ads on the CDN, and
        // the preview naming the rule for each ad and none for the islands.
        let rewritten = try self.temporary(
            "rewritten-remote.yaml",
            yaml + "\nrewrite:\n  - { name: ad-cdn, applies_to: [ads], match: '/media/ads/(.*)$', replace: 'https://ads.cdn.test/$1?s={session}' }\n"
        )
        let cdnOut = out.appendingPathComponent("cdn")
        #expect(try await self.adstitch("stitch", rewritten.path, "--out", cdnOut.path, "--session", "remote 2").status == 0)
        let cdnPlaylist = try String(contentsOf: cdnOut.appendingPathComponent("v0.m3u8"), encoding: .utf8)
        let segments = cdnPlaylist.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(segments.contains { $0.hasPrefix("https://ads.cdn.test/") && $0.hasSuffix("?s=remote%202") }, "\(segments)")
        #expect(segments.contains { $0.hasPrefix(base + "media/program/") })
        let preview = try await self.adstitch("preview", rewritten.path, "--session", "remote 2")
        #expect(preview.status == 0, "\(preview.output)")
        #expect(preview.output.contains("Rewrites in force: ad-cdn"), "\(preview.output)")
        #expect(preview.output.contains("island act-1  URIs as they are"), "\(preview.output)")
        #expect(
            preview.output.split(separator: "\n").contains { $0.contains(" ad ") && $0.hasSuffix("URIs rewritten by ad-cdn") },
            "\(preview.output)"
        )
    }

    @Test("validate accepts the demo campaigns and refuses a broken one with file:line:column")
    func validateCampaigns() async throws {
        let good = try await self.adstitch("validate", Repository.campaign("evening-news").path, Repository.campaign("feature-fmp4").path)
        #expect(good.status == 0, "\(good.output)")
        #expect(good.output.contains("campaign evening-news is valid") && good.output.contains("campaign feature-fmp4 is valid"))
        // The demo with a break after an island that does not exist, its media by absolute path.
        let folder = Repository.campaign("evening-news").deletingLastPathComponent().path
        let yaml = try String(contentsOf: Repository.campaign("evening-news"), encoding: .utf8)
            .replacingOccurrences(of: "after: act-1,  duration: 12", with: "after: act-9,  duration: 12")
            .replacingOccurrences(of: "playlist: media/", with: "playlist: \(folder)/media/")
        let broken = try self.temporary("broken.yaml", yaml)
        defer { try? FileManager.default.removeItem(at: broken) }
        let result = try await self.adstitch("validate", broken.path)
        #expect(result.status == 1)
        let line = yaml.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("act-9") }.map { $0 + 1 } ?? 0
        #expect(result.output.contains("\(broken.path):\(line):"), "\(result.output)")
        #expect(result.output.contains("breaks[1].after") && result.output.contains("act-9"), "\(result.output)")
    }

    @Test("stitch writes the master, one playlist per rendition and the boundary manifest, with URIs that resolve")
    func stitchWritesASession() async throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("cli-session-\(UUID().uuidString.prefix(6))")
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try await self.adstitch(
            "stitch",
            Repository.campaign("feature-fmp4").path,
            "--out",
            out.path,
            "--session",
            "s-cli",
            "--at",
            "2026-11-27T19:30:00Z",
            "--set",
            "locale=es"
        )
        #expect(result.status == 0, "\(result.output)")
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(
            files == [
                "a0.m3u8", "a1.m3u8", "boundaries.json", "empty.vtt", "i0.m3u8", "i1.m3u8", "master.m3u8", "s2.m3u8", "tracking.json", "v0.m3u8",
                "v1.m3u8",
            ]
        )
        let v0URL = out.appendingPathComponent("v0.m3u8")
        let v0 = try PlaylistParser().parseMediaPlaylist(try String(contentsOf: v0URL, encoding: .utf8), url: v0URL)
        for segment in v0.segments {
            let url = try #require(v0.resolve(segment.uri))
            #expect(FileManager.default.fileExists(atPath: url.path), "\(segment.uri) does not resolve from \(out.path)")
        }
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("boundaries.json"))) as? [String: Any]
        #expect(manifest?["session"] as? String == "s-cli")
        // No server fires the ads' events of files written offline: they are the player's to fire.
        #expect(manifest?["trackingUri"] as? String == "tracking.json")
    }

    @Test("stitch hands the player the ads' trackers whatever the campaign's reporting (no server is there to fire them)")
    func stitchHandsTrackers() async throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("cli-trackers-\(UUID().uuidString.prefix(6))")
        defer { try? FileManager.default.removeItem(at: out) }
        // evening-news reports server-side (the default); alpha, its preroll, tracks its impression.
        let campaign = Repository.campaign("evening-news")
        #expect(!(try String(contentsOf: campaign, encoding: .utf8)).contains("reporting:"))
        let result = try await self.adstitch("stitch", campaign.path, "--out", out.path, "--session", "s-trackers", "--at", "2026-11-27T19:30:00Z")
        #expect(result.status == 0, "\(result.output)")
        let manifest = try String(contentsOf: out.appendingPathComponent("boundaries.json"), encoding: .utf8)
        let tracking = try String(contentsOf: out.appendingPathComponent("tracking.json"), encoding: .utf8)
        let alpha = "https://tracking.example/i?ad=alpha"
        #expect(manifest.contains("\"alpha\"") && manifest.contains(alpha), "\(manifest)")
        #expect(tracking.contains(alpha), "\(tracking)")
    }

    @Test("preview shows the same plan as text and JSON: every break, ad and exclusion")
    func previewExplains() async throws {
        let arguments = [
            "preview", Repository.campaign("evening-news").path, "--session", "s-1", "--at", "2026-11-27T19:30:00+01:00", "--set", "locale=es-ES",
        ]
        let text = try await self.adstitch(arguments)
        #expect(text.status == 0)
        #expect(text.output.contains("excluded by rule \"spanish-speakers\""), "\(text.output)")
        let json = try await self.adstitch(arguments + ["--format", "json"])
        let report = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
        let breaks = report?["breaks"] as? [[String: Any]] ?? []
        #expect(breaks.map { $0["id"] as? String } == ["preroll", "mid-1", "postroll"])
        for item in breaks {
            let candidates = try #require(item["candidates"] as? [[String: Any]])
            #expect(!candidates.isEmpty)
            for candidate in candidates where candidate["outcome"] as? String == "chosen" {
                #expect(text.output.contains("✓ \(candidate["ad"] as? String ?? "?")"))
            }
        }
    }

    @Test("preview of the single-asset demo: the CLI and the server's report.json give the same plan, cuts included")
    func previewAgreesWithTheServer() async throws {
        let at = "2026-11-25T12:00:00Z"
        let cli = try await self.adstitch("preview", Repository.campaign("single-asset").path, "--session", "p-1", "--at", at, "--format", "json")
        #expect(cli.status == 0, "\(cli.output)")
        let server = try await RealClients.HardeningEndToEndTests.Server(campaigns: Repository.root.appendingPathComponent("Campaigns"))
        defer { kill(server.process.pid, SIGKILL) }
        let served = try server.get("/preview/single-asset/report.json?session=p-1&at=\(at)")
        #expect(served.status == 200, "\(served.body)")
        let fromCLI = try #require(try JSONSerialization.jsonObject(with: Data(cli.output.utf8)) as? NSDictionary)
        let fromServer = try #require(try JSONSerialization.jsonObject(with: Data(served.body.utf8)) as? NSDictionary)
        #expect(fromCLI == fromServer)
        let breaks = try #require(fromCLI["breaks"] as? [[String: Any]])
        #expect(breaks.map { $0["kind"] as? String } == ["replacement", "replacement", "insertion"])
        #expect(breaks.map { ($0["cutAt"] as? NSNumber)?.doubleValue } == [5.76, 15.36, 23.04])
    }

    @Test("bad flags get a usage error, not a crash")
    func badFlags() async throws {
        let result = try await self.adstitch("preview", Repository.campaign("evening-news").path, "--at", "yesterday")
        #expect(result.status != 0)
        #expect(result.output.contains("ISO 8601"), "\(result.output)")
    }

    @Test(
        "serve says which YAML files of the campaigns folder it does not load, and why: at start, and in GET /v1/campaigns `skipped` (a second campaign beside a folder's campaign.yaml, a campaign.yml, a folder without campaign.yaml)"
    )
    func serveNamesSkippedFiles() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("skipped-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(
            at: Repository.campaign("evening-news").deletingLastPathComponent(),
            to: folder.appendingPathComponent("news")
        )
        let yaml = try String(contentsOf: folder.appendingPathComponent("news/campaign.yaml"), encoding: .utf8)
        for (path, text) in [
            ("news/late-night.yaml", yaml.replacingOccurrences(of: "id: evening-news", with: "id: late-night")),
            ("other/campaign.yml", "version: 1\n"),
            ("third/promo.yaml", "version: 1\n"),
        ] {
            let file = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
        let (process, port) = try await BackgroundProcess.server(CLITests.binary, ports: 50_000..<60_000, marker: "Server started") {
            ["serve", "--campaigns", folder.path, "--port", "\($0)", "--secret", "skipped"]
        }
        defer { process.stop() }
        let answer = try LoopbackHTTP.exchange("GET", port: port, path: "/v1/campaigns")
        #expect(answer.status == 200)
        let json = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
        #expect((json?["campaigns"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["evening-news"])
        let skipped = (json?["skipped"] as? [[String: String]]) ?? []
        #expect(skipped.map { $0["file"] } == ["news/late-night.yaml", "other/campaign.yml", "third/promo.yaml"], "\(skipped)")
        let reasons = skipped.map { $0["reason"] ?? "" }
        #expect(reasons.count == 3 && reasons[0].contains("holds one campaign") && reasons[0].contains("folder of its own"), "\(reasons)")
        #expect(reasons.count == 3 && reasons[1].contains("rename it other/campaign.yaml"), "\(reasons)")
        #expect(reasons.count == 3 && reasons[2].contains("third/ has no campaign.yaml"), "\(reasons)")
        let log = try String(contentsOf: process.log, encoding: .utf8)
        for file in ["news/late-night.yaml", "other/campaign.yml", "third/promo.yaml"] {
            #expect(log.contains("YAML file not loaded as a campaign") && log.contains(file), "the log at start names \(file): \(log)")
        }
    }
}
