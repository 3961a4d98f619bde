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

        /// A signed start's query for `viewer`'s session `session` (`reporting=` when given).
        static func start(_ session: String, viewer: String, reporting: String? = nil) -> String {
            let exp = String(Int(Date().timeIntervalSince1970) + 300)
            let pairs = [("session", session), ("viewer", viewer)] + (reporting.map { [("reporting", $0)] } ?? []) + [("exp", exp)]
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

        /// Plays the mid-roll's alpha of the session under `prefix` as a player reaches it: its
        /// first segment's beacon link (alpha tracks its impression there), fetched from `server`.
        static func playAlpha(_ server: HardeningEndToEndTests.Server, prefix: String) throws {
            let playlist = try server.get(prefix + "v0.m3u8").body
            let link = try #require(
                playlist.split(separator: "\n").first { $0.hasPrefix("beacons/") && BeaconTests.target($0).contains("/alpha/") },
                "\(playlist)"
            )
            #expect(try server.get(prefix + link).status == 302)
        }

        /// The sessions whose impressions the preview on `server` lists behind viewer `viewer`'s
        /// cap, once they are `count` (or 15 s have passed: an impression is recorded after the
        /// beacon's `302`).
        static func impressions(_ server: HardeningEndToEndTests.Server, viewer: String, count: Int) async throws -> [String] {
            let deadline = Date().addingTimeInterval(15)
            var sessions: [String] = []
            while Date() < deadline {
                let report = try JSONSerialization.jsonObject(
                    with: Data(try server.get("/preview/evening-news/report.json?session=p&viewer=\(viewer)").body.utf8)
                )
                let cap = ((report as? [String: Any])?["frequencyCaps"] as? [String: Any])?["caps"] as? [[String: Any]]
                sessions = (cap?.first?["impressions"] as? [[String: Any]])?.compactMap { $0["session"] as? String } ?? []
                if sessions.count >= count { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            return sessions
        }

        @Test(
            "a viewer's sessions alternating between two replicas: an ad counts when the player reaches it (its beacon), not when a session starts; capped after two played, on either replica; the 10 s window passes and alpha returns"
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

            // Session 1 plays alpha (its beacon on the other replica): one impression.
            let first = try Self.midroll(a, Self.start("e2e-1", viewer: "v-9"))
            #expect(first.ads.contains("alpha"))
            try Self.playAlpha(b, prefix: first.prefix)
            #expect(try await Self.impressions(a, viewer: "v-9", count: 1) == ["e2e-1"])
            let firstPlayed = Date()
            // Session 2 starts with alpha but never reaches it; a replayed beacon adds nothing.
            #expect(try Self.midroll(b, Self.start("e2e-2", viewer: "v-9")).ads.contains("alpha"))
            try Self.playAlpha(a, prefix: first.prefix)
            // So session 3 still gets alpha, and plays it: two impressions.
            let third = try Self.midroll(a, Self.start("e2e-3", viewer: "v-9"))
            #expect(third.ads.contains("alpha"), "a start that did not play alpha does not count: \(third.ads)")
            try Self.playAlpha(a, prefix: third.prefix)
            #expect(try await Self.impressions(b, viewer: "v-9", count: 2) == ["e2e-1", "e2e-3"])
            // Capped, on either replica; the capped session reads alike on both.
            let fourth = try Self.midroll(a, Self.start("e2e-4", viewer: "v-9"), reader: b)
            #expect(!fourth.ads.contains("alpha") && !fourth.ads.isEmpty, "\(fourth.ads)")
            #expect(try a.get(fourth.prefix + "boundaries.json").body == b.get(fourth.prefix + "boundaries.json").body)
            #expect(try !Self.midroll(b, Self.start("e2e-5", viewer: "v-9")).ads.contains("alpha"), "capped on the other replica too")
            #expect(try Self.midroll(b, Self.start("e2e-6", viewer: "v-10")).ads.contains("alpha"), "another viewer is not capped")
            // The preview on either replica lists the two impressions behind the cap, and it is reached.
            let report = try JSONSerialization.jsonObject(with: Data(try a.get("/preview/evening-news/report.json?session=p&viewer=v-9").body.utf8))
            let cap = ((report as? [String: Any])?["frequencyCaps"] as? [String: Any])?["caps"] as? [[String: Any]]
            #expect(cap?.first?["reached"] as? Bool == true)
            #expect(try await Self.impressions(b, viewer: "v-9", count: 2) == ["e2e-1", "e2e-3"])
            // Ten seconds after the first impression, the window has left it behind: one counts.
            let wait = firstPlayed.addingTimeInterval(10.3).timeIntervalSinceNow
            if wait > 0 { try await Task.sleep(for: .milliseconds(Int(wait * 1000))) }
            #expect(try Self.midroll(a, Self.start("e2e-7", viewer: "v-9")).ads.contains("alpha"))
            // A session that reports client-side: AdStitch never sees its ads play, so its start counts.
            #expect(try Self.midroll(b, Self.start("e2e-8", viewer: "v-11", reporting: "client")).ads.contains("alpha"))
            #expect(try await Self.impressions(a, viewer: "v-11", count: 1) == ["e2e-8"])
            // Each replica counted its starts: a took e2e-1, -3, -4 (capped), -7; b e2e-2, -5 (capped), -6, -8.
            for (server, open) in [(a, 3), (b, 3)] {
                let metrics = try server.get("/metrics").body
                #expect(metrics.contains(#"adstitch_frequency_cap_starts_total{outcome="capped"} 1"#), "\(metrics)")
                #expect(metrics.contains(#"adstitch_frequency_cap_starts_total{outcome="open"} \#(open)"#), "\(metrics)")
            }
        }
    }
}

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
