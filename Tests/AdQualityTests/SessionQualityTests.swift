import Foundation
import Testing

@testable import AdQuality

/// One session's figures and a campaign's KPIs (docs/quality.md "KPIs"): the talk's definitions,
/// each stall placed in its break and ad or in programme, and sums of whole milliseconds — checked
/// on worked examples and as properties over generated sessions of every shape.
@Suite("Session quality and KPIs")
struct SessionQualityTests {
    /// A session of two breaks: `mid-1` (alpha 10–25 s, slate 25–30 s) and `mid-2` (bravo 60–75 s),
    /// programme returning at 30 s and 75 s.
    static func session(_ id: String = "s", device: String = "tv", variant: String = "v2") -> QualitySession {
        QualitySession(
            campaign: "c",
            session: id,
            first: 0,
            device: device,
            startupVariant: variant,
            startupBandwidth: 1_200_000,
            startupRule: "default",
            insertion: "stitched",
            spans: [
                .init(breakID: "mid-1", piece: "alpha", start: 10_000, end: 25_000),
                .init(breakID: "mid-1", piece: "slate", start: 25_000, end: 30_000),
                .init(breakID: "mid-2", piece: "bravo", start: 60_000, end: 75_000),
            ],
            returns: [30_000, 75_000]
        )
    }

    static func event(_ kind: QualityEvent.Kind, at: Int64? = nil, ms: Int64? = nil, bandwidth: Int64? = nil, fatal: Bool? = nil) -> QualityEvent {
        QualityEvent(kind: kind, at: at, ms: ms, bandwidth: bandwidth, fatal: fatal, received: 0)
    }

    @Test("a worked session: startup, stalls placed in an ad, the slate, programme after a return and plain programme, TWIB, watched time")
    func workedSession() {
        let quality = SessionQuality(
            session: Self.session(),
            events: [
                Self.event(.startup, ms: 900),
                Self.event(.level, at: 0, bandwidth: 1_000_000),
                Self.event(.stall, at: 12_000, ms: 1_500),
                Self.event(.stall, at: 25_000, ms: 500),
                Self.event(.level, at: 40_000, bandwidth: 3_000_000),
                Self.event(.stall, at: 33_000, ms: 250),
                Self.event(.stall, at: 50_000, ms: 750),
                Self.event(.ended, at: 80_000),
            ]
        )
        #expect(quality.startupMilliseconds == 900)
        #expect(quality.stalls.count == 4 && quality.stallMilliseconds == 3_000)
        #expect(quality.watchedMilliseconds == 80_000)
        // 1 Mbit/s for 40 s, 3 Mbit/s for 40 s.
        #expect(quality.twib == 2_000_000)
        #expect(!quality.failed)
        // Watched inside breaks: alpha 15 s, the slate 5 s, bravo 15 s.
        #expect(quality.watchedInBreaksMilliseconds == 35_000)
        let places = quality.stalls.map(\.place)
        #expect(places[0] == SessionQuality.Place(breakID: "mid-1", piece: "alpha", sinceSplice: 2_000))
        // A span's start belongs to it (half-open): the slate's first instant is the slate's.
        #expect(places[1] == SessionQuality.Place(breakID: "mid-1", piece: "slate", sinceSplice: 0))
        #expect(places[2] == SessionQuality.Place(breakID: nil, piece: nil, sinceSplice: 3_000))
        #expect(places[2]?.followsSplice == true)
        #expect(places[3] == SessionQuality.Place(breakID: nil, piece: nil, sinceSplice: 20_000))
        #expect(places[3]?.followsSplice == false)
    }

    @Test("a fatal error fails a session; an error before any playback does too; a non-fatal error after startup does not")
    func failures() {
        #expect(SessionQuality(session: Self.session(), events: [Self.event(.startup, ms: 1), Self.event(.error, at: 5_000, fatal: true)]).failed)
        #expect(SessionQuality(session: Self.session(), events: [Self.event(.error, fatal: false)]).failed)
        #expect(!SessionQuality(session: Self.session(), events: [Self.event(.startup, ms: 1), Self.event(.error, at: 5_000, fatal: false)]).failed)
    }

    @Test("AVPlayer's access log gives startup, stall count, watched time and TWIB where no player events do")
    func accessLog() {
        var first = Self.event(.access, at: 0, ms: 30_000, bandwidth: 1_000_000)
        first.startup = 700
        first.stalls = 2
        var second = Self.event(.access, at: 30_000, ms: 10_000, bandwidth: 5_000_000)
        second.stalls = 1
        let quality = SessionQuality(session: Self.session(), events: [first, second])
        #expect(quality.startupMilliseconds == 700 && quality.stalls.count == 3 && quality.stallMilliseconds == 0)
        #expect(quality.watchedMilliseconds == 40_000 && quality.twib == 2_000_000)
        #expect(quality.stalls.allSatisfy { $0.place == nil })
    }

    @Test("KPIs over worked sessions: nearest-rank percentiles, stalls per hour, stall share, TWIB weighted by watch time, failed %")
    func kpis() throws {
        var sessions: [SessionQuality] = []
        for index in 1...10 {
            var events: [QualityEvent] = [
                Self.event(.startup, ms: Int64(index) * 100),
                Self.event(.level, at: 0, bandwidth: index <= 5 ? 1_000_000 : 2_000_000),
                Self.event(.ended, at: 1_800_000),
            ]
            if index == 1 { events += [Self.event(.stall, at: 12_000, ms: 2_000), Self.event(.stall, at: 600_000, ms: 1_000)] }
            if index == 10 { events.append(Self.event(.error, at: 900_000, fatal: true)) }
            // A segment that answered 404, skipped: an error, not a failure.
            if index == 9 { events.append(Self.event(.error, at: 300_000, fatal: false)) }
            sessions.append(SessionQuality(session: Self.session("s\(index)", variant: index <= 5 ? "v1" : "v2"), events: events))
        }
        let kpis = QualityKPIs(sessions, by: .startupVariant)
        #expect(kpis.figures.sessions == 10)
        #expect(kpis.figures.startupMilliseconds == .init(p50: 500, p90: 900, p99: 1_000, count: 10))
        #expect(kpis.figures.stallsPerHour.stalls == 2 && kpis.figures.stallsPerHour.hoursWatched == 5)
        #expect(kpis.figures.stallsPerHour.value == 0.4)
        #expect(kpis.figures.stallSeconds.total == 3 && kpis.figures.stallSeconds.perStall == 1.5 && kpis.figures.stallSeconds.count == 2)
        #expect(kpis.figures.twib == .init(value: 1_500_000, count: 10))
        #expect(kpis.figures.failedSessions == .init(value: 10, failed: 1, count: 10, withErrors: 2))
        #expect(sessions[8].errors == 1 && !sessions[8].failed && sessions[9].errors == 1 && sessions[9].failed)
        // Only s1's stall at 12 s falls in the first 30 s; every session watched them.
        #expect(kpis.figures.earlyStalls == .init(stalls: 1, sessions: 10, perSession: 0.1))
        #expect(kpis.ads.inBreaks.stallsPerHour.stalls == 1 && kpis.ads.outsideBreaks.stallsPerHour.stalls == 1)
        #expect(kpis.ads.stallsAfterSplice == 1 && kpis.ads.placedStalls == 2)
        #expect(kpis.groups.map(\.value) == ["v1", "v2"])
        #expect(kpis.groups.map { $0.figures?.sessions } == [5, 5])
        #expect(kpis.groups.map { $0.figures?.twib.value } == [1_000_000, 2_000_000])
        let json = String(decoding: try JSONEncoder().encode(kpis), as: UTF8.self)
        for key in [
            "\"sessions\":10", "\"startup_ms\"", "\"stalls_per_hour\"", "\"stall_seconds\"", "\"twib_bps\"", "\"failed_sessions_pct\"",
            "\"by\":\"startup_variant\"",
        ] {
            #expect(json.contains(key), "\(key) in \(json)")
        }
        let byBreak = QualityKPIs(sessions, by: .adBreak)
        #expect(byBreak.groups.map(\.value) == ["mid-1", "mid-2"])
        #expect(byBreak.groups.first?.stretch?.stallsPerHour.stalls == 1 && byBreak.groups.last?.stretch?.stallsPerHour.stalls == 0)
        // Each session watched 20 s of mid-1 and 15 s of mid-2.
        #expect(byBreak.groups.first?.stretch?.stallsPerHour.hoursWatched == 200.0 / 3_600)
    }

    @Test(
        "by experiment: each arm's startup percentiles and early stalls side by side, with the sessions behind them; sessions without an experiment apart"
    )
    func experimentArms() {
        var sessions: [SessionQuality] = []
        for index in 0..<30 {
            var session = Self.session("s\(index)")
            session.experiment = index < 10 ? "a" : index < 20 ? "b" : nil
            // Arm a starts fast and stalls early; arm b starts slower and does not.
            let events: [QualityEvent] =
                index < 10
                ? [Self.event(.startup, ms: 400), Self.event(.stall, at: 5_000, ms: 800), Self.event(.ended, at: 60_000)]
                : [Self.event(.startup, ms: 1_200), Self.event(.ended, at: 60_000)]
            sessions.append(SessionQuality(session: session, events: events))
        }
        let kpis = QualityKPIs(sessions, by: .experiment)
        #expect(kpis.groups.map(\.value) == ["a", "b", "none"])
        let a = kpis.groups[0].figures
        let b = kpis.groups[1].figures
        #expect(a?.startupMilliseconds.p50 == 400 && b?.startupMilliseconds.p50 == 1_200)
        #expect(a?.earlyStalls == .init(stalls: 10, sessions: 10, perSession: 1) && b?.earlyStalls == .init(stalls: 0, sessions: 10, perSession: 0))
        #expect(kpis.groups.map { $0.figures?.sessions } == [10, 10, 10])
    }

    /// A splitmix64 generator: the same sessions on every run.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            self.state &+= 0x9E37_79B9_7F4A_7C15
            var z = self.state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E9B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test(
        "properties over 500 generated sessions of every shape: stalls counted and summed exactly, placed in the span that holds them, TWIB within the levels played, KPI groups adding up"
    )
    func properties() {
        var random = Generator(state: 55)
        var sessions: [SessionQuality] = []
        for index in 0..<500 {
            // Breaks anywhere, back to back or apart, zero to four of them, ads of 1–30 s.
            var spans: [QualitySession.Span] = []
            var returns: [Int64] = []
            var cursor: Int64 = Int64.random(in: 0...20_000, using: &random)
            for breakIndex in 0..<Int.random(in: 0...4, using: &random) {
                for adIndex in 0..<Int.random(in: 1...3, using: &random) {
                    let length = Int64.random(in: 1_000...30_000, using: &random)
                    spans.append(.init(breakID: "b\(breakIndex)", piece: "ad\(adIndex)", start: cursor, end: cursor + length))
                    cursor += length
                }
                returns.append(cursor)
                cursor += Int64.random(in: 0...60_000, using: &random)
            }
            let session = QualitySession(
                campaign: "c",
                session: "s\(index)",
                first: Int64(index),
                device: ["tv", "phone", "web"][index % 3],
                startupVariant: "v\(index % 4)",
                startupBandwidth: nil,
                startupRule: "default",
                insertion: index % 2 == 0 ? "stitched" : "interstitials",
                spans: spans,
                returns: returns
            )
            var events: [QualityEvent] = []
            if Bool.random(using: &random) { events.append(Self.event(.startup, ms: Int64.random(in: 0...20_000, using: &random))) }
            for _ in 0..<Int.random(in: 0...6, using: &random) {
                // Stalls on a span's first instant, zero-length ones, ones past every break.
                let at =
                    Bool.random(using: &random) && !spans.isEmpty
                    ? spans.randomElement(using: &random)!.start : Int64.random(in: 0...cursor + 10_000, using: &random)
                events.append(Self.event(.stall, at: at, ms: Int64.random(in: 0...5_000, using: &random)))
            }
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                events.append(
                    Self.event(
                        .level,
                        at: Int64.random(in: 0...cursor, using: &random),
                        bandwidth: Int64.random(in: 100_000...8_000_000, using: &random)
                    )
                )
            }
            if Bool.random(using: &random) { events.append(Self.event(.ended, at: cursor + 1_000)) }
            if Int.random(in: 0..<10, using: &random) == 0 { events.append(Self.event(.error, at: 1, fatal: true)) }
            events.shuffle(using: &random)
            let quality = SessionQuality(session: session, events: events)
            sessions.append(quality)

            let stallEvents = events.filter { $0.kind == .stall }
            #expect(quality.stalls.count == stallEvents.count)
            #expect(quality.stallMilliseconds == stallEvents.reduce(0) { $0 + $1.ms! })
            for stall in quality.stalls {
                let at = stall.at!
                let holder = spans.first { $0.start <= at && at < $0.end }
                #expect(stall.place?.breakID == holder?.breakID && stall.place?.piece == holder?.piece)
                if let since = stall.place?.sinceSplice { #expect(since >= 0 && since <= at) }
            }
            let levels = events.filter { $0.kind == .level }.compactMap(\.bandwidth)
            if let twib = quality.twib {
                #expect(levels.min()! <= twib && twib <= levels.max()!)
            } else {
                #expect(levels.isEmpty)
            }
            #expect(quality.watchedInBreaksMilliseconds <= quality.watchedMilliseconds)
        }
        for dimension in QualityKPIs.Dimension.allCases {
            let kpis = QualityKPIs(sessions, by: dimension)
            let figures = kpis.figures
            if let p50 = figures.startupMilliseconds.p50, let p90 = figures.startupMilliseconds.p90, let p99 = figures.startupMilliseconds.p99 {
                #expect(p50 <= p90 && p90 <= p99)
            }
            #expect(kpis.ads.inBreaks.stallsPerHour.stalls + kpis.ads.outsideBreaks.stallsPerHour.stalls == figures.stallsPerHour.stalls)
            switch dimension {
            case .adBreak, .ad:
                #expect(kpis.groups.reduce(0) { $0 + ($1.stretch?.stallsPerHour.stalls ?? 0) } == kpis.ads.inBreaks.stallsPerHour.stalls)
            default:
                #expect(kpis.groups.reduce(0) { $0 + ($1.figures?.sessions ?? 0) } == 500)
                #expect(kpis.groups.reduce(0) { $0 + ($1.figures?.failedSessions.failed ?? 0) } == figures.failedSessions.failed)
            }
        }
        #expect(QualityKPIs(sessions).figures.failedSessions.failed > 0)
    }
}
