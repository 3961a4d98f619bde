import AdStitchServer
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension RealClients {
    /// Frequency caps across replicas (docs/campaign-format.md "Frequency caps"): two `serve`
    /// replicas sharing PostgreSQL, a viewer's signed starts alternating between them, count one
    /// viewer's impressions together — a balancer may send each start anywhere.
    @Suite("Frequency caps across replicas", .serialized)
    struct FrequencyCapEndToEndTests {
        static let startKey = "caps-e2e-start-key"

        /// A signed start's query for `viewer`'s session `session`.
        static func start(_ session: String, viewer: String) -> String {
            let exp = String(Int(Date().timeIntervalSince1970) + 300)
            let pairs = [("session", session), ("viewer", viewer), ("exp", exp)]
            let sig = SessionPolicy.signature(of: pairs.map { (name: $0.0, value: $0.1) }, key: Data(Self.startKey.utf8))
            return (pairs + [("sig", sig)]).map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        }

        /// The mid-roll's ads of the session `query` starts on `server`, read from `reader`.
        static func midroll(
            _ server: HardeningEndToEndTests.Server,
            _ query: String,
            reader: HardeningEndToEndTests.Server? = nil
        ) throws -> (ads: [String], prefix: String) {
            let master = try server.get("/v1/campaigns/evening-news/master.m3u8?" + query)
            try #require(master.status == 200, "\(master.body)")
            let v0 = try #require(master.body.split(separator: "\n").first { $0.hasPrefix("sessions/") })
            let prefix = "/v1/campaigns/evening-news/" + v0.split(separator: "/").prefix(2).joined(separator: "/") + "/"
            let manifest = try (reader ?? server).get(prefix + "boundaries.json").body
            let ads = AdServerServeTests.ads(manifest)["mid-1"] ?? []
            return (ads, prefix)
        }

        @Test(
            "a viewer's starts alternating between two replicas: capped after two, on either; the capped session reads alike on both; the 10 s window passes and alpha returns"
        )
        func acrossReplicas() async throws {
            let database = try await PostgresServer()
            let root = try EveningNewsFolder.make { $0 + "\nfrequency_caps:\n  - { ads: '^alpha$', max: 2, per: 10s }\n" }
            defer { try? FileManager.default.removeItem(at: root) }
            let extra = ["--database", database.url, "--start-key", Self.startKey]
            let a = try await HardeningEndToEndTests.Server(campaigns: root, extra: extra)
            defer { kill(a.process.pid, SIGKILL) }
            let b = try await HardeningEndToEndTests.Server(campaigns: root, extra: extra)
            defer { kill(b.process.pid, SIGKILL) }

            #expect(try Self.midroll(a, Self.start("e2e-1", viewer: "v-9")).ads.contains("alpha"))
            // The first impression was counted at its start, before its answer came back.
            let firstAnswered = Date()
            #expect(try Self.midroll(b, Self.start("e2e-2", viewer: "v-9")).ads.contains("alpha"))
            let third = try Self.midroll(a, Self.start("e2e-3", viewer: "v-9"), reader: b)
            #expect(!third.ads.contains("alpha") && !third.ads.isEmpty, "\(third.ads)")
            #expect(try a.get(third.prefix + "boundaries.json").body == b.get(third.prefix + "boundaries.json").body)
            #expect(try !Self.midroll(b, Self.start("e2e-4", viewer: "v-9")).ads.contains("alpha"), "capped on the other replica too")
            #expect(try Self.midroll(b, Self.start("e2e-5", viewer: "v-10")).ads.contains("alpha"), "another viewer is not capped")
            // The preview on either replica lists the two impressions behind the cap.
            let report = try JSONSerialization.jsonObject(with: Data(try b.get("/preview/evening-news/report.json?session=p&viewer=v-9").body.utf8))
            let cap = ((report as? [String: Any])?["frequencyCaps"] as? [String: Any])?["caps"] as? [[String: Any]]
            #expect(cap?.first?["reached"] as? Bool == true)
            #expect((cap?.first?["impressions"] as? [[String: Any]])?.compactMap { $0["session"] as? String } == ["e2e-1", "e2e-2"])
            // Ten seconds after the first, the window has left it behind: one impression counts.
            let wait = firstAnswered.addingTimeInterval(10.3).timeIntervalSinceNow
            if wait > 0 { try await Task.sleep(for: .milliseconds(Int(wait * 1000))) }
            #expect(try Self.midroll(a, Self.start("e2e-6", viewer: "v-9")).ads.contains("alpha"))
            // Each replica counted its starts: a took e2e-1, -3 (capped), -6; b e2e-2, -4 (capped), -5.
            for server in [a, b] {
                let metrics = try server.get("/metrics").body
                #expect(metrics.contains(#"adstitch_frequency_cap_starts_total{outcome="capped"} 1"#), "\(metrics)")
                #expect(metrics.contains(#"adstitch_frequency_cap_starts_total{outcome="open"} 2"#))
            }
        }
    }
}

/// A campaigns folder holding the demo's evening-news, its mid-roll 20 s so that every ad of its
/// pools (19.2 s) plays in it — alpha is certain until something excludes it — and `edit` applied
/// to its campaign file.
enum EveningNewsFolder {
    static func make(_ edit: (String) -> String) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("adstitch-news-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let folder = root.appendingPathComponent("evening-news")
        try FileManager.default.copyItem(at: Repository.campaign("evening-news").deletingLastPathComponent(), to: folder)
        let file = folder.appendingPathComponent("campaign.yaml")
        let yaml = try String(contentsOf: file, encoding: .utf8)
        let mid = "{ id: mid-1,    after: act-1,  duration: 12,"
        guard yaml.contains(mid) else { throw CocoaError(.fileReadCorruptFile) }
        try Data(edit(yaml.replacingOccurrences(of: mid, with: "{ id: mid-1,    after: act-1,  duration: 20,")).utf8).write(to: file)
        return root
    }
}
