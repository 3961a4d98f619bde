import AdStitchServer
import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
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

    /// Polls twice, as the reloader does: a change is loaded once it has stayed the same for a poll.
    static func settle(_ store: CampaignStore, logger: Logger) -> Bool {
        let first = store.reload(logger: logger)
        return store.reload(logger: logger) || first
    }

    @Test("an edited campaign reloads; its old sessions keep their ads; a broken edit keeps the last good revision")
    func reload() async throws {
        let (folder, file, yaml) = try self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let logger = Logger(label: "test")
        let store = CampaignStore(folder: folder, logger: logger)
        let app = Application(router: buildRouter(store: store, policy: SessionPolicy(secret: RouteTests.secret)))
        try await app.test(.router) { client in
            let route = RouteTests()
            let (_, oldPrefix) = try await route.startSession(client, query: "session=r-1")
            let before = try await client.execute(uri: oldPrefix + "v0.m3u8", method: .get) { String(buffer: $0.body) }
            let firstRevision = try #require(store.statuses.first?.serving)

            // An edit: every ad but delta excluded, so new sessions differ.
            try Data((yaml + "\n# edited\n").replacingOccurrences(of: "then: { exclude: ['^bravo$'] }", with: "then: { exclude: ['^(alpha|bravo|charlie)$'] }")
                .replacingOccurrences(of: "attributes: { locale: '^es(-|$)' }", with: "attributes: { locale: '.' }").utf8).write(to: file)
            #expect(Self.settle(store, logger: logger))
            let secondRevision = try #require(store.statuses.first?.serving)
            #expect(secondRevision != firstRevision)
            let after = try await client.execute(uri: oldPrefix + "v0.m3u8", method: .get) { response in
                #expect(response.status == .ok)
                return String(buffer: response.body)
            }
            #expect(after == before, "a session started before the reload changed its playlist")
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
}
