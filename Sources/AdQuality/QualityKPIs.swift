/// A campaign's viewing-quality KPIs over its sessions (the talk's definitions, comparable across
/// sessions; docs/quality.md): startup time p50/p90/p99, stalls per hour watched, stall duration
/// (total, per stall, share of time), time-weighted indicated bitrate, failed sessions — each with
/// the count behind it — and for ads: stalls inside breaks against outside them and within 10 s of
/// a splice. Pure: sessions in, figures out; every sum in whole milliseconds.
public struct QualityKPIs: Sendable, Encodable {
    /// A stall this soon (stream ms) after a splice counts as following it.
    public static let afterSpliceWindow: Int64 = 10_000

    /// What `?by=` splits the KPIs by.
    public enum Dimension: String, Sendable, CaseIterable {
        case startupVariant = "startup_variant"
        case startupRule = "startup_rule"
        /// The arm of the campaign's startup experiment (sessions without one: `none`).
        case experiment
        case device
        case insertion
        /// Each break: the stalls inside it against the time watched inside it.
        case adBreak = "break"
        /// Each ad (or slate) of a break, likewise.
        case ad
        /// The replica that served the session's start (``SessionQuality/replica``).
        case replica
    }

    public struct Percentiles: Sendable, Encodable, Equatable {
        public var p50: Int64?
        public var p90: Int64?
        public var p99: Int64?
        /// Sessions that reported a startup time.
        public var count: Int
    }

    public struct StallRate: Sendable, Encodable, Equatable {
        /// Stalls per hour watched; nil with nothing watched.
        public var value: Double?
        public var stalls: Int
        public var hoursWatched: Double

        enum CodingKeys: String, CodingKey {
            case value, stalls
            case hoursWatched = "hours_watched"
        }
    }

    public struct StallTime: Sendable, Encodable, Equatable {
        public var total: Double
        /// Mean length of the stalls whose length is known.
        public var perStall: Double?
        /// The stalls' time over the time watched and stalled.
        public var share: Double?
        /// Stalls whose length is known.
        public var count: Int

        enum CodingKeys: String, CodingKey {
            case total, share, count
            case perStall = "per_stall"
        }
    }

    public struct Bitrate: Sendable, Encodable, Equatable {
        /// Over the sessions that said, weighted by their time watched.
        public var value: Int64?
        public var count: Int
    }

    public struct Failures: Sendable, Encodable, Equatable {
        public var value: Double?
        public var failed: Int
        public var count: Int
        /// Sessions whose player reported an error, fatal or not.
        public var withErrors: Int

        enum CodingKeys: String, CodingKey {
            case value, failed, count
            case withErrors = "with_errors"
        }
    }

    /// The figures of a set of sessions.
    public struct Figures: Sendable, Encodable, Equatable {
        public var sessions: Int
        /// Of them, those whose player reported nothing: their figures are the server's estimates
        /// (``SessionQuality/estimated``).
        public var estimated: Int
        public var startupMilliseconds: Percentiles
        public var stallsPerHour: StallRate
        public var stallSeconds: StallTime
        public var twib: Bitrate
        public var failedSessions: Failures
        /// Stalls in the first ``earlyWindow`` of stream time, over the sessions that watched it
        /// all or stalled in it: what a startup variant trades its startup time against.
        public var earlyStalls: EarlyStalls

        enum CodingKeys: String, CodingKey {
            case sessions, estimated
            case earlyStalls = "stalls_first_30s"
            case startupMilliseconds = "startup_ms"
            case stallsPerHour = "stalls_per_hour"
            case stallSeconds = "stall_seconds"
            case twib = "twib_bps"
            case failedSessions = "failed_sessions_pct"
        }
    }

    /// Stalls against time watched in one part of the timeline (inside breaks, outside them, one
    /// break, one ad).
    public struct Stretch: Sendable, Encodable, Equatable {
        /// Sessions that watched into it.
        public var sessions: Int
        public var stallsPerHour: StallRate
        public var stallSeconds: Double
        /// Of its stalls, those within ``afterSpliceWindow`` of a splice.
        public var afterSplice: Int

        enum CodingKeys: String, CodingKey {
            case sessions
            case stallsPerHour = "stalls_per_hour"
            case stallSeconds = "stall_seconds"
            case afterSplice = "after_splice"
        }
    }

    public struct Ads: Sendable, Encodable, Equatable {
        public var inBreaks: Stretch
        public var outsideBreaks: Stretch
        /// Stalls with a place, and of them those within 10 s after a splice.
        public var stallsAfterSplice: Int
        public var placedStalls: Int
        /// The sessions' ad starts, completions and ad-start failures, from their beacon links
        /// (``SessionQuality/AdCounts``).
        public var adEvents: SessionQuality.AdCounts

        enum CodingKeys: String, CodingKey {
            case inBreaks = "in_breaks"
            case outsideBreaks = "outside_breaks"
            case stallsAfterSplice = "stalls_after_splice"
            case placedStalls = "placed_stalls"
            case adEvents = "ad_events"
        }
    }

    /// Stalls early in the sessions (``Figures/earlyStalls``).
    public struct EarlyStalls: Sendable, Encodable, Equatable {
        public var stalls: Int
        public var sessions: Int
        /// Stalls per session; nil without sessions.
        public var perSession: Double?

        enum CodingKeys: String, CodingKey {
            case stalls, sessions
            case perSession = "per_session"
        }
    }

    /// The stretch of stream time, from the start, whose stalls ``EarlyStalls`` counts.
    public static let earlyWindow: Int64 = 30_000

    /// One value of the dimension asked for, and its figures (``Figures`` for a session's
    /// dimension, ``Stretch`` for a break or an ad).
    public struct Group: Sendable, Encodable, Equatable {
        public var value: String
        public var figures: Figures?
        public var stretch: Stretch?

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: DynamicKey.self)
            try container.encode(self.value, forKey: DynamicKey("value"))
            try self.figures?.encode(to: encoder)
            try self.stretch?.encode(to: encoder)
        }
    }

    public var figures: Figures
    public var ads: Ads
    public var by: Dimension?
    public var groups: [Group]

    public init(_ sessions: [SessionQuality], by dimension: Dimension? = nil) {
        self.figures = Self.figures(sessions)
        let placed = sessions.flatMap(\.stalls).filter { $0.place != nil }
        self.ads = Ads(
            inBreaks: Self.stretch(sessions, stalls: { $0.place?.breakID != nil }, watched: { $0.watchedInBreaksMilliseconds }),
            outsideBreaks: Self.stretch(
                sessions,
                stalls: { $0.place?.breakID == nil },
                watched: { $0.watchedMilliseconds - $0.watchedInBreaksMilliseconds }
            ),
            stallsAfterSplice: placed.count { $0.place?.followsSplice == true },
            placedStalls: placed.count,
            adEvents: sessions.reduce(SessionQuality.AdCounts([], watched: 0)) { $0 + $1.ads }
        )
        self.by = dimension
        self.groups = dimension.map { Self.groups(sessions, by: $0) } ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        try self.figures.encode(to: encoder)
        var container = encoder.container(keyedBy: DynamicKey.self)
        try container.encode(self.ads, forKey: DynamicKey("ads"))
        if let by = self.by {
            try container.encode(by.rawValue, forKey: DynamicKey("by"))
            try container.encode(self.groups, forKey: DynamicKey("groups"))
        }
    }

    static func figures(_ sessions: [SessionQuality]) -> Figures {
        let startups = sessions.compactMap(\.startupMilliseconds).sorted()
        func percentile(_ p: Int) -> Int64? {
            // Nearest rank: the smallest value with at least p % of the values at or below it.
            guard !startups.isEmpty else { return nil }
            let rank = (p * startups.count + 99) / 100
            return startups[max(rank, 1) - 1]
        }
        let stalls = sessions.reduce(0) { $0 + $1.stalls.count }
        let watched = sessions.reduce(Int64(0)) { $0 + $1.watchedMilliseconds }
        let stallMilliseconds = sessions.reduce(Int64(0)) { $0 + $1.stallMilliseconds }
        let timed = sessions.reduce(0) { $0 + $1.stalls.count { $0.ms != nil } }
        var weighted: Int128 = 0
        var weights: Int64 = 0
        var rated = 0
        for session in sessions {
            guard let twib = session.twib else { continue }
            rated += 1
            let weight = max(session.watchedMilliseconds, 1)
            weighted += Int128(twib) * Int128(weight)
            weights += weight
        }
        let failed = sessions.count { $0.failed }
        var early = 0
        var earlySessions = 0
        for session in sessions {
            let stalls = session.stalls.count { ($0.at ?? .max) < Self.earlyWindow }
            guard stalls > 0 || session.watchedMilliseconds >= Self.earlyWindow else { continue }
            early += stalls
            earlySessions += 1
        }
        return Figures(
            sessions: sessions.count,
            estimated: sessions.count(where: \.estimated),
            startupMilliseconds: Percentiles(p50: percentile(50), p90: percentile(90), p99: percentile(99), count: startups.count),
            stallsPerHour: Self.rate(stalls: stalls, watched: watched),
            stallSeconds: StallTime(
                total: Double(stallMilliseconds) / 1000,
                perStall: timed > 0 ? Double(stallMilliseconds) / Double(timed) / 1000 : nil,
                share: watched + stallMilliseconds > 0 ? Double(stallMilliseconds) / Double(watched + stallMilliseconds) : nil,
                count: timed
            ),
            twib: Bitrate(value: weights > 0 ? Int64((weighted + Int128(weights / 2)) / Int128(weights)) : nil, count: rated),
            failedSessions: Failures(
                value: sessions.isEmpty ? nil : Double(failed) * 100 / Double(sessions.count),
                failed: failed,
                count: sessions.count,
                withErrors: sessions.count { $0.errors > 0 }
            ),
            earlyStalls: EarlyStalls(
                stalls: early,
                sessions: earlySessions,
                perSession: earlySessions > 0 ? Double(early) / Double(earlySessions) : nil
            )
        )
    }

    /// Stalls per hour over `watched` ms.
    public static func rate(stalls: Int, watched: Int64) -> StallRate {
        let hours = Double(watched) / 3_600_000
        return StallRate(value: watched > 0 ? Double(stalls) / hours : nil, stalls: stalls, hoursWatched: hours)
    }

    /// The stalls `stalls` picks against the time `watched` gives per session.
    static func stretch(
        _ sessions: [SessionQuality],
        stalls pick: (SessionQuality.Stall) -> Bool,
        watched: (SessionQuality) -> Int64
    ) -> Stretch {
        var count = 0
        var milliseconds: Int64 = 0
        var time: Int64 = 0
        var reached = 0
        var afterSplice = 0
        for session in sessions {
            let placed = session.stalls.filter { $0.place != nil && pick($0) }
            let seen = watched(session)
            if seen > 0 { reached += 1 }
            time += seen
            count += placed.count
            milliseconds += placed.reduce(0) { $0 + ($1.ms ?? 0) }
            afterSplice += placed.count { $0.place?.followsSplice == true }
        }
        return Stretch(
            sessions: reached,
            stallsPerHour: Self.rate(stalls: count, watched: time),
            stallSeconds: Double(milliseconds) / 1000,
            afterSplice: afterSplice
        )
    }

    static func groups(_ sessions: [SessionQuality], by dimension: Dimension) -> [Group] {
        func split(_ key: (QualitySession) -> String) -> [Group] {
            Dictionary(grouping: sessions) { key($0.session) }.sorted { $0.key < $1.key }.map {
                Group(value: $0.key, figures: Self.figures($0.value))
            }
        }
        switch dimension {
        case .startupVariant: return split { $0.startupVariant }
        case .startupRule: return split { $0.startupRule }
        case .experiment: return split { $0.experiment ?? "none" }
        case .device: return split { $0.device }
        case .insertion: return split { $0.insertion }
        case .replica:
            return Dictionary(grouping: sessions, by: \.replica).sorted { $0.key < $1.key }.map {
                Group(value: $0.key, figures: Self.figures($0.value))
            }
        case .adBreak, .ad:
            // Every break (or ad) any session had, with the time each session watched inside it.
            // In play order: by where each first starts on any session's timeline.
            var firstStart: [String: Int64] = [:]
            for session in sessions {
                for span in session.session.spans {
                    let name = dimension == .adBreak ? span.breakID : span.breakID + "/" + span.piece
                    firstStart[name] = min(firstStart[name] ?? .max, span.start)
                }
            }
            let names = firstStart.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.map(\.key)
            return names.map { name in
                let stretch = Self.stretch(sessions) { stall in
                    guard let place = stall.place, let breakID = place.breakID else { return false }
                    return (dimension == .adBreak ? breakID : breakID + "/" + (place.piece ?? "")) == name
                } watched: { session in
                    session.session.spans.reduce(Int64(0)) { total, span in
                        let spanName = dimension == .adBreak ? span.breakID : span.breakID + "/" + span.piece
                        guard spanName == name else { return total }
                        return total + max(0, min(span.end, session.watchedMilliseconds) - span.start)
                    }
                }
                return Group(value: name, stretch: stretch)
            }
        }
    }
}

/// A JSON key named at run time (the KPI document's flat shape: a group's value beside its figures).
struct DynamicKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) { self.stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
