import AdLiveRuntime
import AdQuality
import Foundation
import Logging
import PostgresNIO
import Testing

/// Viewing-quality reports kept in memory and in a real PostgreSQL (docs/quality.md "Where reports
/// are kept"): the same answers from both — a session's events in the order received, AVPlayer's
/// access log replaced by the next whole log, a session's bound, the retention, the latest first.
@Suite("Quality stores", .serialized)
struct QualityStoreTests {
    static let logger = Logger(label: "quality-store-test")

    static func session(_ id: String, campaign: String = "c", first: Int64) -> QualitySession {
        QualitySession(
            campaign: campaign,
            session: id,
            first: first,
            device: "tv",
            startupVariant: "v1",
            startupBandwidth: 800_000,
            startupRule: "default",
            insertion: "stitched",
            spans: [.init(breakID: "mid-1", piece: "alpha", start: 10_000, end: 25_000)],
            returns: [25_000]
        )
    }

    static func behaves(_ store: any QualityStore) async throws {
        let day: Int64 = 86_400_000
        let s1 = Self.session("s1", first: 10 * day)
        #expect(
            try await store.record(s1, events: [QualityEvent(kind: .startup, ms: 800, received: 10 * day)], replacingAccess: false, forgetBefore: 0)
                == 1
        )
        let access = [
            QualityEvent(kind: .access, at: 0, ms: 5_000, bandwidth: 800_000, stalls: 1, startup: 700, received: 10 * day + 1),
            QualityEvent(kind: .access, at: 5_000, ms: 1_000, bandwidth: 1_600_000, stalls: 0, received: 10 * day + 1),
        ]
        #expect(try await store.record(s1, events: access, replacingAccess: true, forgetBefore: 0) == 2)
        // The next whole log replaces the first: its last entry grew.
        var grown = access
        grown[1].ms = 9_000
        #expect(try await store.record(s1, events: grown, replacingAccess: true, forgetBefore: 0) == 2)
        let (kept, events) = try #require(try await store.session(campaign: "c", session: "s1"))
        #expect(kept == s1)
        #expect(events.map(\.kind) == [.startup, .access, .access] && events.last?.ms == 9_000, "\(events)")
        #expect(events[1] == grown[0])

        // A session's bound: what comes past 1,000 events is dropped.
        let s2 = Self.session("s2", first: 11 * day)
        let levels = (0..<600).map { QualityEvent(kind: .level, at: Int64($0), bandwidth: 500_000, received: 11 * day) }
        #expect(try await store.record(s2, events: levels, replacingAccess: false, forgetBefore: 0) == 600)
        #expect(try await store.record(s2, events: levels, replacingAccess: false, forgetBefore: 0) == 400)
        #expect(try await store.record(s2, events: levels, replacingAccess: false, forgetBefore: 0) == 0)
        #expect(try await store.session(campaign: "c", session: "s2")?.1.count == 1_000)

        // Another campaign's session apart; the latest first; a window.
        _ = try await store.record(Self.session("s3", campaign: "d", first: 12 * day), events: [], replacingAccess: false, forgetBefore: 0)
        #expect(try await store.sessions(campaign: "c", since: 0).map(\.0.session) == ["s2", "s1"])
        #expect(try await store.sessions(campaign: "c", since: 11 * day).map(\.0.session) == ["s2"])
        #expect(try await store.sessions(campaign: "d", since: 0).map(\.0.session) == ["s3"])

        // Retention: a report a week later forgets what came before its window.
        let late = Self.session("s4", first: 20 * day)
        #expect(
            try await store.record(
                late,
                events: [QualityEvent(kind: .ended, at: 1, received: 20 * day)],
                replacingAccess: false,
                forgetBefore: 13 * day
            )
                == 1
        )
        #expect(try await store.sessions(campaign: "c", since: 0).map(\.0.session) == ["s4"])
        #expect(try await store.session(campaign: "c", session: "s1") == nil)
    }

    @Test(
        "a session's events, AVPlayer's log replaced whole, a session's bound, campaigns apart, the latest first and the retention: in memory and in PostgreSQL"
    )
    func stores() async throws {
        try await Self.behaves(MemoryQualityStore())
        try await BreakHistoryTests.withHistory { history, _ in
            try await Self.behaves(PostgresQualityStore(client: history.client, logger: Self.logger))
        }
    }
}
