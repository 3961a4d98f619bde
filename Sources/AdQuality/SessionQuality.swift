import Foundation
import HLSPlaylist

/// One session's viewing quality, from its events (the talk's definitions, docs/quality.md): its
/// startup time, its stalls and their length, how much it watched, its time-weighted indicated
/// bitrate, whether it failed — and each stall placed on the session's timeline. Pure: a session
/// and its events in, figures out. Milliseconds throughout, summed as integers.
public struct SessionQuality: Sendable {
    /// Where on its timeline a stall happened.
    public struct Place: Sendable, Hashable {
        /// The break and its ad (or `slate`) the stall fell in; nil in programme.
        public var breakID: String?
        public var piece: String?
        /// Stream ms since the last splice before it (the start of the ad, slate or returning
        /// programme), if one lies before it.
        public var sinceSplice: Int64?

        /// Within ``QualityKPIs/afterSpliceWindow`` of a splice.
        public var followsSplice: Bool { self.sinceSplice.map { $0 < QualityKPIs.afterSpliceWindow } ?? false }
    }

    /// A stall as counted: where, when and how long (nil: an AVPlayer access entry counts stalls
    /// without saying where or how long).
    public struct Stall: Sendable, Hashable {
        public var at: Int64?
        public var ms: Int64?
        public var place: Place?
    }

    public let session: QualitySession
    /// Its events, received order (as stored).
    public let events: [QualityEvent]
    public let startupMilliseconds: Int64?
    public let stalls: [Stall]
    /// The stalls' total length, ms, over those whose length is known.
    public let stallMilliseconds: Int64
    /// Stream time watched, ms: the furthest stream time the player reported (an `ended`, or any
    /// event's time), else the access log's `durationWatched` summed. An estimate: a seek
    /// forward counts what it skipped.
    public let watchedMilliseconds: Int64
    /// The time-weighted indicated bitrate (bits/s): each variant's BANDWIDTH weighted by the
    /// stream time it played; nil without a level switch or an access entry with a bitrate.
    public let twib: Int64?
    /// A fatal error, or an error before playback ever started.
    public let failed: Bool
    /// A stream time (ms) watched inside the session's breaks.
    public let watchedInBreaksMilliseconds: Int64

    public init(session: QualitySession, events: [QualityEvent]) {
        self.session = session
        self.events = events
        let player = events.filter { $0.kind != .access }
        let access = events.filter { $0.kind == .access }
        // Player events say where and how long; the access log only counts. Each figure comes
        // from the player's events where they give it, else from the access log.
        self.startupMilliseconds = player.first { $0.kind == .startup }?.ms ?? access.lazy.compactMap(\.startup).first
        var stalls = player.filter { $0.kind == .stall }.map { event in
            Stall(at: event.at, ms: event.ms, place: event.at.map { Self.place($0, in: session) })
        }
        if stalls.isEmpty {
            let counted = access.reduce(0) { $0 + ($1.stalls ?? 0) }
            stalls = Array(repeating: Stall(at: nil, ms: nil, place: nil), count: counted)
        }
        self.stalls = stalls
        self.stallMilliseconds = stalls.reduce(0) { $0 + ($1.ms ?? 0) }
        let furthest = player.reduce(Int64(0)) { max($0, $1.at ?? 0) }
        let accessWatched = access.reduce(Int64(0)) { $0 + ($1.ms ?? 0) }
        self.watchedMilliseconds = furthest > 0 ? furthest : accessWatched
        self.twib = Self.twib(levels: player.filter { $0.kind == .level }, access: access, watched: self.watchedMilliseconds)
        let started = self.startupMilliseconds != nil || self.watchedMilliseconds > 0
        self.failed = player.contains { $0.kind == .error && ($0.fatal == true || !started) }
        let watched = self.watchedMilliseconds
        self.watchedInBreaksMilliseconds = session.spans.reduce(0) { total, span in
            total + max(0, min(span.end, watched) - span.start)
        }
    }

    /// Where stream time `at` lies on the session's timeline.
    static func place(_ at: Int64, in session: QualitySession) -> Place {
        let span = session.spans.first { $0.start <= at && at < $0.end }
        let splice = (session.spans.map(\.start) + session.returns).filter { $0 <= at }.max()
        return Place(breakID: span?.breakID, piece: span?.piece, sinceSplice: splice.map { at - $0 })
    }

    /// Each level's BANDWIDTH weighted by the stream time until the next level (or the end of what
    /// was watched); else the access entries' indicated bitrates weighted by their watched time.
    static func twib(levels: [QualityEvent], access: [QualityEvent], watched: Int64) -> Int64? {
        var weighted: Int128 = 0
        var total: Int64 = 0
        let sorted = levels.sorted { ($0.at ?? 0) < ($1.at ?? 0) }
        for (index, level) in sorted.enumerated() {
            guard let bandwidth = level.bandwidth else { continue }
            let start = level.at ?? 0
            let end = index + 1 < sorted.count ? (sorted[index + 1].at ?? 0) : max(watched, start)
            let span = max(0, end - start)
            weighted += Int128(bandwidth) * Int128(span)
            total += span
        }
        // Nothing watched after the levels (a report before playback moved): the one playing.
        if total == 0, let last = sorted.last?.bandwidth { return last }
        if total == 0 {
            for entry in access {
                guard let bandwidth = entry.bandwidth, let ms = entry.ms, ms > 0 else { continue }
                weighted += Int128(bandwidth) * Int128(ms)
                total += ms
            }
        }
        guard total > 0 else { return nil }
        return Int64((weighted + Int128(total / 2)) / Int128(total))
    }
}

extension SessionQuality: Encodable {
    enum CodingKeys: String, CodingKey {
        case campaign, session, device, insertion, stalls, failed, estimated, events, breaks, experiment
        case startupVariant = "startup_variant"
        case startupRule = "startup_rule"
        case startupMilliseconds = "startup_ms"
        case stallSeconds = "stall_seconds"
        case watchedSeconds = "watched_seconds"
        case twib = "twib_bps"
    }

    /// An event on the session's timeline, as `GET …/sessions/{token}/qoe` lists it: stream times
    /// in seconds, the receive time as ISO 8601, a stall's place.
    struct Entry: Encodable {
        var type: String
        var at: Double?
        var duration: Double?
        var ms: Int64?
        var bandwidth: Int64?
        var fatal: Bool?
        var code: String?
        var stalls: Int?
        var received: String
        var breakID: String?
        var ad: String?
        var sinceSplice: Double?

        enum CodingKeys: String, CodingKey {
            case type, at, duration, ms, bandwidth, fatal, code, stalls, received, ad
            case breakID = "break"
            case sinceSplice = "since_splice"
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.session.campaign, forKey: .campaign)
        try container.encode(self.session.session, forKey: .session)
        try container.encode(self.session.device, forKey: .device)
        try container.encode(self.session.insertion, forKey: .insertion)
        try container.encode(self.session.startupVariant, forKey: .startupVariant)
        try container.encode(self.session.startupRule, forKey: .startupRule)
        try container.encodeIfPresent(self.session.experiment, forKey: .experiment)
        try container.encode(self.startupMilliseconds, forKey: .startupMilliseconds)
        try container.encode(self.stalls.count, forKey: .stalls)
        try container.encode(Double(self.stallMilliseconds) / 1000, forKey: .stallSeconds)
        try container.encode(Double(self.watchedMilliseconds) / 1000, forKey: .watchedSeconds)
        try container.encode(self.twib, forKey: .twib)
        try container.encode(self.failed, forKey: .failed)
        // Every figure here comes from the player's own reports; the server's estimates (issue
        // 55's third source) are not recorded yet.
        try container.encode(false, forKey: .estimated)
        try container.encode(
            self.session.spans.map { Span(breakID: $0.breakID, piece: $0.piece, start: Double($0.start) / 1000, end: Double($0.end) / 1000) },
            forKey: .breaks
        )
        let entries = self.events.map { event in
            let place = event.kind == .stall ? event.at.map { Self.place($0, in: self.session) } : nil
            return Entry(
                type: event.kind.rawValue,
                at: event.at.map { Double($0) / 1000 },
                duration: event.kind == .stall || event.kind == .access ? event.ms.map { Double($0) / 1000 } : nil,
                ms: event.kind == .startup ? event.ms : event.startup,
                bandwidth: event.bandwidth,
                fatal: event.fatal,
                code: event.code,
                stalls: event.stalls,
                received: DateTime.iso8601(millisecondsSinceEpoch: event.received),
                breakID: place?.breakID,
                ad: place?.piece,
                sinceSplice: place?.sinceSplice.map { Double($0) / 1000 }
            )
        }
        try container.encode(entries, forKey: .events)
    }

    /// A break's ad or slate as listed: stream seconds (whole milliseconds).
    struct Span: Encodable {
        var breakID: String
        var piece: String
        var start: Double
        var end: Double

        enum CodingKeys: String, CodingKey {
            case piece, start, end
            case breakID = "break"
        }
    }
}
