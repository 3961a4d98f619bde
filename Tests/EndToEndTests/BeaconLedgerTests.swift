import AdLiveRuntime
import AdStitching
import Foundation
import Logging
import PostgresNIO
import Testing

@testable import AdStitchServer

/// The beacon ledger in a real PostgreSQL (docs/design-decisions.md "Server-side beacons"): a
/// segment's events claimed together and in play order, whichever of many concurrent claims
/// comes first; live places apart from VOD ones; a table from before live beacons migrated.
@Suite("Beacon ledger in PostgreSQL", .serialized)
struct BeaconLedgerTests {
    static let logger = Logger(label: "beacon-ledger-test")
    static let events = ["impression", "start", "firstQuartile", "midpoint"]

    @Test(
        "concurrent claims of one segment's events: one claim takes them all, in play order; live breaks' pieces and a VOD piece of the same number are apart; the listing keeps play order"
    )
    func claims() async throws {
        try await BreakHistoryTests.withHistory { history, _ in
            let ledger = PostgresBeaconLedger(client: history.client, logger: Self.logger)
            for round in 0..<10 {
                let session = "claims-\(round)"
                let claims = await withTaskGroup(of: [String].self) { group in
                    for _ in 0..<8 {
                        group.addTask { (try? await ledger.claim(session: session, place: .plan(3), ad: "alpha", events: Self.events)) ?? ["failed"] }
                    }
                    return await group.reduce(into: []) { $0.append($1) }
                }
                #expect(claims.filter { !$0.isEmpty } == [Self.events], "round \(round): \(claims)")
                // The same piece number in two live breaks, and the VOD piece: three places.
                for place in [BeaconPlace.live("seq-10", 3), .live("seq-50", 3)] {
                    #expect(try await ledger.claim(session: session, place: place, ad: "bravo", events: ["impression"]) == ["impression"])
                }
                #expect(try await ledger.claim(session: session, place: .live("seq-10", 3), ad: "bravo", events: ["impression"]).isEmpty)
                let listed = try await ledger.events(session: session)
                #expect(listed.prefix(4).map(\.event) == Self.events && listed.prefix(4).allSatisfy { $0.place == .plan(3) && $0.ad == "alpha" })
                #expect(Set(listed.dropFirst(4).map(\.place)) == [.live("seq-10", 3), .live("seq-50", 3)], "\(listed)")
            }
        }
    }

    @Test("a ledger table made before live beacons (key session, piece, event) is migrated on first use: its rows kept, live breaks apart")
    func migration() async throws {
        try await BreakHistoryTests.withHistory { history, _ in
            try await history.client.query(
                """
                CREATE TABLE adstitch_beacon_ledger (
                    session text NOT NULL, piece integer NOT NULL, event text NOT NULL,
                    claimed_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (session, piece, event)
                )
                """,
                logger: Self.logger
            )
            try await history.client.query(
                "INSERT INTO adstitch_beacon_ledger (session, piece, event) VALUES ('old', 0, 'impression')",
                logger: Self.logger
            )
            let ledger = PostgresBeaconLedger(client: history.client, logger: Self.logger)
            let old = try await ledger.events(session: "old")
            #expect(old.map(\.place) == [.plan(0)] && old.map(\.event) == ["impression"] && old.first?.ad == "")
            #expect(try await ledger.claim(session: "old", place: .plan(0), ad: "alpha", events: ["impression", "start"]) == ["start"])
            #expect(try await ledger.claim(session: "live", place: .live("a", 0), ad: "alpha", events: ["impression"]) == ["impression"])
            #expect(try await ledger.claim(session: "live", place: .live("b", 0), ad: "alpha", events: ["impression"]) == ["impression"])
            // A second process's ledger on the migrated table runs the migration again: a no-op.
            let again = PostgresBeaconLedger(client: history.client, logger: Self.logger)
            #expect(try await again.events(session: "live").count == 2)
        }
    }
}
