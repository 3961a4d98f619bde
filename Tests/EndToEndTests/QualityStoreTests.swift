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
            try await store.record(s1, events: [QualityEvent(kind: .startup, ms: 800, received: 10 * day)], replacing: nil, forgetBefore: 0)
                == 1
        )
        let access = [
            QualityEvent(kind: .access, at: 0, ms: 5_000, bandwidth: 800_000, stalls: 1, startup: 700, received: 10 * day + 1),
            QualityEvent(kind: .access, at: 5_000, ms: 1_000, bandwidth: 1_600_000, stalls: 0, received: 10 * day + 1),
        ]
        #expect(try await store.record(s1, events: access, replacing: .accessLog, forgetBefore: 0) == 2)
        // The next whole log replaces the first: its last entry grew.
        var grown = access
        grown[1].ms = 9_000
        #expect(try await store.record(s1, events: grown, replacing: .accessLog, forgetBefore: 0) == 2)
        let (kept, events) = try #require(try await store.session(campaign: "c", session: "s1"))
        #expect(kept == s1)
        #expect(events.map(\.kind) == [.startup, .access, .access] && events.last?.ms == 9_000, "\(events)")
        #expect(events[1] == grown[0])

        // Each replica's view of a session replaces that replica's last one, not another's nor
        // the player's events.
        func view(_ replica: String, fetches: Int) -> QualityEvent {
            var seen = ServerView(replica: replica, at: 10 * day, live: false, segmentAtStart: true)
            for index in 0..<fetches { seen.add(.init(.video("v\(index % 2)", bandwidth: 800_000), at: 10 * day + Int64(index))) }
            return QualityEvent(kind: .server, received: 10 * day + 2, view: seen)
        }
        for (replica, fetches) in [("r1", 1), ("r2", 2), ("r1", 3)] {
            #expect(
                try await store.record(s1, events: [view(replica, fetches: fetches)], replacing: .serverView(replica: replica), forgetBefore: 0) == 1
            )
        }
        let viewed = try #require(try await store.session(campaign: "c", session: "s1")).1
        #expect(viewed.count == 5 && viewed.filter { $0.kind == .access }.count == 2, "\(viewed.map(\.kind))")
        #expect(viewed.compactMap(\.view).sorted { $0.replica < $1.replica } == [view("r1", fetches: 3).view, view("r2", fetches: 2).view])

        // A session's bound: what comes past 1,000 events is dropped.
        let s2 = Self.session("s2", first: 11 * day)
        let levels = (0..<600).map { QualityEvent(kind: .level, at: Int64($0), bandwidth: 500_000, received: 11 * day) }
        #expect(try await store.record(s2, events: levels, replacing: nil, forgetBefore: 0) == 600)
        #expect(try await store.record(s2, events: levels, replacing: nil, forgetBefore: 0) == 400)
        #expect(try await store.record(s2, events: levels, replacing: nil, forgetBefore: 0) == 0)
        #expect(try await store.session(campaign: "c", session: "s2")?.1.count == 1_000)

        // Another campaign's session apart; the latest first; a window.
        _ = try await store.record(Self.session("s3", campaign: "d", first: 12 * day), events: [], replacing: nil, forgetBefore: 0)
        #expect(try await store.sessions(campaign: "c", since: 0).map(\.0.session) == ["s2", "s1"])
        #expect(try await store.sessions(campaign: "c", since: 11 * day).map(\.0.session) == ["s2"])
        #expect(try await store.sessions(campaign: "d", since: 0).map(\.0.session) == ["s3"])

        // Retention: a report a week later forgets what came before its window.
        let late = Self.session("s4", first: 20 * day)
        #expect(
            try await store.record(
                late,
                events: [QualityEvent(kind: .ended, at: 1, received: 20 * day)],
                replacing: nil,
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
