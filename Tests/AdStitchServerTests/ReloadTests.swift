import AdCampaign
import AdCampaignStore
import AdDecision
import AdMetrics
import AdSessions
import AdStitchServer
import AdStitching
import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOPosix
import Testing

/// Hot reload: a changed campaign is loaded again; a broken one never replaces the last good
/// revision; sessions keep the revision they started on.
@Suite("Campaign reload")
struct ReloadTests {
    /// A folder with a copy of the TS demo campaign (its file and media: a campaign reads nothing
    /// outside its own folder).
    func folder() throws -> (folder: URL, file: URL, yaml: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reload-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: RouteTests.campaigns.appendingPathComponent("evening-news"), to: folder.appendingPathComponent("news"))
        let file = folder.appendingPathComponent("news/campaign.yaml")
        return (folder, file, try String(contentsOf: file, encoding: .utf8))
    }

    /// A store over `folder` and a router without the response cache: every answer is rendered
    /// from the revision its token names (planned then, or by the session's master on that same
    /// load), so these tests fail if revision pinning breaks.
    static func uncachedApp(_ folder: URL, logger: Logger) -> (CampaignStore, some ApplicationProtocol) {
        let store = CampaignStore(folder: folder, logger: logger)
        return (store, buildApplication(store: store, policy: SessionPolicy(secret: RouteTests.secret), responseCacheBytes: 0))
    }

    /// Polls twice, as the reloader does: a change is loaded once it has stayed the same for a poll.
    static func settle(_ store: CampaignStore, logger: Logger) -> Bool {
        let first = store.reload(logger: logger)
        return store.reload(logger: logger) || first
    }

    /// ``settle(_:logger:)`` on NIO's blocking pool, as the server reloads: tests that reload
    /// dozens of times must not hold Swift's cooperative threads (two on this machine), which
    /// every other test's waits run on.
    static func settleOffPool(_ store: CampaignStore, logger: Logger) async throws -> Bool {
        try await NIOThreadPool.singleton.runIfActive { Self.settle(store, logger: logger) }
    }

    @Test("a campaign loaded again unchanged (same revision, new assets) keeps serving the sessions planned before, byte for byte")
    func reloadedUnchanged() async throws {
        let (folder, file, yaml) = try self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let logger = Logger(label: "test")
        let (store, app) = Self.uncachedApp(folder, logger: logger)
        try await app.test(.live) { client in
            // The master plans the session and keeps the plan for the session's next fetches.
            let (_, prefix) = try await RouteTests().startSession(client, query: "session=same-1&locale=es-ES")
            let revision = try #require(store.statuses.first?.serving)
            // The same bytes written again: a new modification time, so a new load, same revision.
            try await Task.sleep(for: .milliseconds(20))
            try Data(yaml.utf8).write(to: file)
            #expect(Self.settle(store, logger: logger))
            #expect(store.statuses.first?.serving == revision)
            let (status, body) = try await client.execute(uri: prefix + "v0.m3u8", method: .get) { ($0.status, String(buffer: $0.body)) }
            #expect(status == .ok, "\(body)")
            // What the new load renders for the token's session.
            let token = try #require(SessionToken(decoding: prefix.split(separator: "/").last ?? "", secret: RouteTests.secret))
            let served = try #require(store.campaign("evening-news"))
            let plan = Planner().plan(
                served.campaign,
                for: ViewerContext(session: token.session, milliseconds: token.at, attributes: token.attributes)
            )
            let kind = served.renderer.session(.stitched)
            #expect(try body == kind.render(#require(kind.file(named: "v0.m3u8")), plan).text)
        }
    }

    @Test("a session keeps playing for its TTL however often its campaign changes (up to 32 revisions); comments make no revision")
    func churn() async throws {
        let (folder, file, yaml) = try self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let logger = Logger(label: "test")
        let (store, app) = Self.uncachedApp(folder, logger: logger)
        try await app.test(.live) { client in
            let (_, prefix) = try await RouteTests().startSession(client, query: "session=churn-1")
            let first = try #require(store.statuses.first?.serving)
            // A playlist stamped with a comment on every change: the same revision.
            let playlist = folder.appendingPathComponent("news/media/program/act-1/240p/index.m3u8")
            let original = try String(contentsOf: playlist, encoding: .utf8)
            for stamp in 0..<3 {
                try await Task.sleep(for: .milliseconds(20))
                try Data(original.replacingOccurrences(of: "#EXTM3U\n", with: "#EXTM3U\n# served at \(stamp)\n").utf8).write(to: playlist)
                _ = try await Self.settleOffPool(store, logger: logger)
                #expect(store.statuses.first?.serving == first, "a comment made a revision")
            }
            // Twelve real changes (more than the eight kept before): the first session still plays.
            for edit in 0..<12 {
                try await Task.sleep(for: .milliseconds(20))
                try Data(yaml.replacingOccurrences(of: "title: ", with: "title: v\(edit) ").utf8).write(to: file)
                #expect(try await Self.settleOffPool(store, logger: logger))
            }
            #expect(store.statuses.first?.serving != first)
            for name in ["v0.m3u8", "v1.m3u8", "boundaries.json"] {
                try await client.execute(uri: prefix + name, method: .get) { #expect($0.status == .ok, "\(name) after 12 revisions") }
            }
        }
    }

    @Test("an edited campaign reloads; its old sessions keep their ads; a broken edit keeps the last good revision")
    func reload() async throws {
        let (folder, file, yaml) = try self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let logger = Logger(label: "test")
        let (store, app) = Self.uncachedApp(folder, logger: logger)
        try await app.test(.live) { client in
            let route = RouteTests()
            let (_, oldPrefix) = try await route.startSession(client, query: "session=r-1&locale=es-ES")
            let before = try await client.execute(uri: oldPrefix + "v0.m3u8", method: .get) { String(buffer: $0.body) }
            let firstRevision = try #require(store.statuses.first?.serving)

            // An edit: every ad but delta excluded, so new sessions differ.
            try Data(
                (yaml + "\n# edited\n").replacingOccurrences(
                    of: "then: { exclude: ['^bravo$'] }",
                    with: "then: { exclude: ['^(alpha|bravo|charlie)$'] }"
                )
                .replacingOccurrences(of: "attributes: { locale: '^es(-|$)' }", with: "attributes: { locale: '.' }").utf8
            ).write(to: file)
            #expect(Self.settle(store, logger: logger))
            let secondRevision = try #require(store.statuses.first?.serving)
            #expect(secondRevision != firstRevision)
            let after = try await client.execute(uri: oldPrefix + "v0.m3u8", method: .get) { response in
                #expect(response.status == .ok)
                return String(buffer: response.body)
            }
            #expect(after == before, "a session started before the reload changed its playlist")
            // The same session started now gets the edit's ads: pinning is what kept the old ones.
            let (_, samePrefix) = try await route.startSession(client, query: "session=r-1&locale=es-ES")
            let now = try await client.execute(uri: samePrefix + "v0.m3u8", method: .get) { String(buffer: $0.body) }
            #expect(now != before)
            let edited = ["/ads/alpha/", "/ads/charlie/"]
            #expect(!edited.contains(where: now.contains) && edited.contains(where: before.contains))
            let (newMaster, _) = try await route.startSession(client, query: "session=r-2&locale=en")
            #expect(newMaster.contains("sessions/"))

            // A broken edit: reported, and the last good revision keeps serving.
            try Data(yaml.replacingOccurrences(of: "version: 1", with: "version: 7").utf8).write(to: file)
            #expect(Self.settle(store, logger: logger))
            let status = try #require(store.statuses.first)
            #expect(status.error?.contains("only version 1 is supported") == true)
            #expect(status.serving == secondRevision)
            try await client.execute(uri: "/v1/campaigns", method: .get) { response in
                let json = try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]
                let entry = (json?["campaigns"] as? [[String: Any]])?.first
                #expect(entry?["status"] as? String == "failed")
                #expect((entry?["error"] as? String)?.contains("version") == true)
            }
            _ = try await route.startSession(client, query: "session=r-3")
            #expect(!store.reload(logger: logger), "nothing changed since the last reload")
        }
    }

    @Test("a changed file loads only once it is the same on two polls: a half-written campaign never becomes a revision")
    func loadsOnlyStableFiles() throws {
        let (folder, file, yaml) = try self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let logger = Logger(label: "test")
        let store = CampaignStore(folder: folder, logger: logger)
        let first = try #require(store.statuses.first?.serving)
        // Half written: it happens to parse, and would exclude nothing for Spanish speakers.
        let half = String(yaml[..<(try #require(yaml.range(of: "\nrules:"))).lowerBound])
        try Data(half.utf8).write(to: file)
        #expect(!store.reload(logger: logger), "a change seen once is not loaded")
        #expect(store.statuses.first?.serving == first)
        // The writer finishes before the next poll: what loads is the finished file.
        try Data((yaml + "\n# finished\n").utf8).write(to: file)
        #expect(!store.reload(logger: logger), "changed again since the last poll: still not loaded")
        #expect(store.reload(logger: logger))
        let status = try #require(store.statuses.first)
        #expect(status.error == nil)
        #expect(status.serving != first)
        #expect(store.campaign("evening-news")?.campaign.rules.count == 3)
    }

    @Test("a deleted segment is noticed: the reload fails naming the playlist line, the last good revision serves")
    func deletedSegment() throws {
        let (folder, _, _) = try self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let logger = Logger(label: "test")
        let store = CampaignStore(folder: folder, logger: logger)
        let good = try #require(store.statuses.first?.serving)
        let playlist = folder.appendingPathComponent("news/media/ads/delta/180p/index.m3u8")
        let lines = try String(contentsOf: playlist, encoding: .utf8).split(separator: "\n")
        let segment = try #require(lines.first { $0.hasSuffix(".ts") })
        let line = try #require(lines.firstIndex(of: segment)) + 1
        try FileManager.default.removeItem(at: playlist.deletingLastPathComponent().appendingPathComponent(String(segment)))
        #expect(Self.settle(store, logger: logger))
        let status = try #require(store.statuses.first)
        #expect(status.serving == good)
        #expect(status.error?.contains("news/media/ads/delta/180p/index.m3u8:\(line): uri: \(segment) is missing") == true, "\(status.error ?? "")")
        // Restored, it is noticed too, and the campaign loads again; then nothing changes.
        try Data("restored".utf8).write(to: playlist.deletingLastPathComponent().appendingPathComponent(String(segment)))
        #expect(Self.settle(store, logger: logger))
        #expect(store.statuses.first?.error == nil)
        #expect(!Self.settle(store, logger: logger), "a loaded campaign is not loaded again")
    }

    @Test("a folder that cannot be listed (EMFILE, a flaky mount) keeps every campaign loaded")
    func listingErrorsAreTransient() async throws {
        let (folder, _, _) = try self.folder()
        let logger = Logger(label: "test")
        let store = CampaignStore(folder: folder, logger: logger, metrics: ServerMetrics())
        #expect(store.campaign("evening-news") != nil)
        try FileManager.default.removeItem(at: folder)
        #expect(!store.reload(logger: logger))
        #expect(store.campaign("evening-news") != nil)
        #expect(store.statuses.count == 1)
        try await buildApplication(store: store, policy: SessionPolicy(secret: RouteTests.secret)).test(.live) { client in
            let samples = try await MetricsTests().metrics(client)
            #expect(samples["adstitch_campaign_folder_errors_total"] == 1)
            #expect(samples["adstitch_campaigns_loaded"] == 1)
        }
    }

    @Test(
        "a session whose revision is no longer kept gets 410: superseded longer than the session TTL ago, or beyond 32 newer revisions",
        arguments: [true, false]
    )
    func revisionsBeyondTheLimitAreGone(byTime: Bool) async throws {
        let (folder, file, yaml) = try self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let logger = Logger(label: "test")
        let store = CampaignStore(folder: folder, logger: logger, revisionRetention: byTime ? .milliseconds(200) : .seconds(86_400))
        let app = buildApplication(store: store, policy: SessionPolicy(secret: RouteTests.secret), responseCacheBytes: 0)
        try await app.test(.live) { client in
            var prefixes: [String] = []
            for edit in 0...(byTime ? 2 : 32) {
                if edit > 0 {
                    // The first revision's sessions outlive their TTL before the last edit.
                    if byTime, edit == 2 { try await Task.sleep(for: .milliseconds(300)) }
                    try Data((yaml + "\n# edit \(edit)\n").utf8).write(to: file)
                    #expect(try await Self.settleOffPool(store, logger: logger))
                }
                prefixes.append(try await RouteTests().startSession(client, query: "session=k-\(edit)").prefix)
            }
            // The first is gone; the others are kept (by time: the second was superseded just now).
            try await client.execute(uri: prefixes[0] + "v0.m3u8", method: .get) { response in
                #expect(response.status == .gone)
                let problem = try #require(try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
                #expect((problem["detail"] as? String)?.contains("is no longer kept on this server; start a new session") == true)
            }
            for prefix in prefixes.dropFirst() {
                try await client.execute(uri: prefix + "v0.m3u8", method: .get) { #expect($0.status == .ok) }
            }
        }
    }
}
