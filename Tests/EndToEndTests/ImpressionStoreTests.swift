import AdDecision
import AdLiveRuntime
import Foundation
import Logging
import PostgresNIO
import Testing

@testable import AdStitchServer

/// Viewers' impressions for frequency caps, in memory and in a real PostgreSQL
/// (docs/campaign-format.md "Frequency caps"): a plan's piece and live breaks' ads apart, each
/// counted once however often recorded; a table from before live sessions counted migrated.
@Suite("Impression stores", .serialized)
struct ImpressionStoreTests {
    static let logger = Logger(label: "impression-store-test")

    /// The same piece number as a plan's piece and in two live breaks: three impressions, each
    /// once however often recorded; another viewer's and another campaign's apart.
    static func placesApart(_ store: any ImpressionStore) async throws {
        for _ in 0..<3 {
            try await store.record(campaign: "c", viewer: "v", session: "s", breakID: "", ads: [(3, "alpha")], at: 1_000)
            try await store.record(campaign: "c", viewer: "v", session: "s", breakID: "seq-10", ads: [(3, "bravo")], at: 2_000)
            try await store.record(campaign: "c", viewer: "v", session: "s", breakID: "seq-50", ads: [(3, "alpha")], at: 3_000)
        }
        try await store.record(campaign: "c", viewer: "w", session: "s2", breakID: "seq-10", ads: [(3, "alpha")], at: 2_000)
        try await store.record(campaign: "d", viewer: "v", session: "s3", breakID: "seq-10", ads: [(3, "alpha")], at: 2_000)
        let found = try await store.impressions(campaign: "c", viewer: "v", since: 0)
        #expect(found.map(\.ad) == ["alpha", "bravo", "alpha"] && found.map(\.at) == [1_000, 2_000, 3_000], "\(found)")
        #expect(try await store.impressions(campaign: "c", viewer: "v", since: 2_500).map(\.at) == [3_000])
        #expect(try await store.impressions(campaign: "c", viewer: "w", since: 0).count == 1)
        #expect(try await store.impressions(campaign: "d", viewer: "v", since: 0).count == 1)
    }

    @Test("a plan's piece and two live breaks' ads of the same number are three impressions, each once: in memory and in PostgreSQL")
    func places() async throws {
        try await Self.placesApart(MemoryImpressionStore())
        try await BreakHistoryTests.withHistory { history, _ in
            try await Self.placesApart(PostgresImpressionStore(client: history.client, logger: Self.logger))
        }
    }

    @Test(
        "an impressions table made before live sessions counted (key campaign, viewer, session, piece) is migrated on first use: its rows kept, live breaks apart"
    )
    func migration() async throws {
        try await BreakHistoryTests.withHistory { history, _ in
            try await history.client.query(
                """
                CREATE TABLE adstitch_impressions (
                    campaign text NOT NULL, viewer text NOT NULL, session text NOT NULL, piece integer NOT NULL,
                    ad text NOT NULL, at_ms bigint NOT NULL, PRIMARY KEY (campaign, viewer, session, piece)
                )
                """,
                logger: Self.logger
            )
            try await history.client.query(
                "INSERT INTO adstitch_impressions (campaign, viewer, session, piece, ad, at_ms) VALUES ('c', 'v', 'old', 0, 'alpha', 1000)",
                logger: Self.logger
            )
            let store = PostgresImpressionStore(client: history.client, logger: Self.logger)
            #expect(try await store.impressions(campaign: "c", viewer: "v", since: 0).map(\.session) == ["old"])
            try await store.record(campaign: "c", viewer: "v", session: "old", breakID: "", ads: [(0, "alpha")], at: 5_000)
            try await store.record(campaign: "c", viewer: "v", session: "live", breakID: "a", ads: [(0, "alpha")], at: 2_000)
            try await store.record(campaign: "c", viewer: "v", session: "live", breakID: "b", ads: [(0, "alpha")], at: 3_000)
            #expect(try await store.impressions(campaign: "c", viewer: "v", since: 0).map(\.at) == [1_000, 2_000, 3_000])
            // A second process's store on the migrated table runs the migration again: a no-op.
            let again = PostgresImpressionStore(client: history.client, logger: Self.logger)
            try await again.record(campaign: "c", viewer: "v", session: "live", breakID: "c", ads: [(0, "alpha")], at: 4_000)
            #expect(try await again.impressions(campaign: "c", viewer: "v", since: 0).count == 4)
        }
    }
}
