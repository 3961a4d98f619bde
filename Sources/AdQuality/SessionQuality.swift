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
    /// Errors the player reported, fatal or not (a segment that answered 404 and was skipped).
    public let errors: Int
    /// A stream time (ms) watched inside the session's breaks.
    public let watchedInBreaksMilliseconds: Int64

    /// The session's views from every replica that served it, merged (``ServerView/merged(_:)``).
    public let server: ServerView?
    /// The figures are the server's estimates: the player reported nothing, so they come from
    /// what the replicas saw (``server``) — see ``init(session:events:now:)``.
    public let estimated: Bool

    /// The session's ads as their beacon links show them (server-side reporting; ``AdCounts``).
    public let ads: AdCounts

    /// A stretch of wall time beyond the stream time between two segment fetches longer than this
    /// is counted as an estimated stall (or pause): a player's buffer hides shorter ones.
    public static let driftTolerance: Int64 = 2_000
    /// A start with no media playlist (or, where the first segment is a beacon link, no first
    /// segment) this long after it is an abandoned, failed start.
    public static let abandonedAfter: Int64 = 60_000

    /// The figures of a session from its events. Where the player reported (events or an access
    /// log), its reports give them. Where it did not, the replicas' views do, as estimates
    /// (``estimated``): stalls where wall time ran ahead of stream time between two segments the
    /// session fetched through its beacon links by more than ``driftTolerance`` (a stall or a
    /// pause, small ones adding up; at least the CMCD `bs` starvations its requests announced), stream time watched up to
    /// the furthest of those segments (a live session: the wall time between its first playlist and
    /// its last refresh), the indicated bitrate from CMCD `br` or the video renditions fetched over
    /// wall time, and a failed start for a master with no media playlist after ``abandonedAfter``
    /// (judged only when `now` is given).
    public init(session: QualitySession, events: [QualityEvent], now: Int64? = nil) {
        self.session = session
        self.events = events
        let player = events.filter { $0.kind != .access && $0.kind != .server }
        let access = events.filter { $0.kind == .access }
        let server = ServerView.merged(events.compactMap { $0.kind == .server ? $0.view : nil })
        self.server = server
        let estimated = player.isEmpty && access.isEmpty && server != nil
        self.estimated = estimated
        let startup: Int64?
        let stalls: [Stall]
        let watched: Int64
        let twib: Int64?
        let failed: Bool
        if estimated, let view = server {
            startup = nil
            stalls = Self.estimatedStalls(view, in: session)
            watched = Self.estimatedWatched(view)
            twib = Self.estimatedTWIB(view)
            // A live interstitial session's media playlists are the channel's, which a CDN
            // answers: no replica need see one, so only what it does see counts.
            failed = now.map { Self.failedStart(view, now: $0, playlistsShared: view.live && session.insertion == "interstitials") } ?? false
        } else {
            // Player events say where and how long; the access log only counts. Each figure
            // comes from the player's events where they give it, else from the access log.
            startup = player.first { $0.kind == .startup }?.ms ?? access.lazy.compactMap(\.startup).first
            var reported = player.filter { $0.kind == .stall }.map { event in
                Stall(at: event.at, ms: event.ms, place: event.at.map { Self.place($0, in: session) })
            }
            if reported.isEmpty {
                let counted = access.reduce(0) { $0 + ($1.stalls ?? 0) }
                reported = Array(repeating: Stall(at: nil, ms: nil, place: nil), count: counted)
            }
            stalls = reported
            let furthest = player.reduce(Int64(0)) { max($0, $1.at ?? 0) }
            let accessWatched = access.reduce(Int64(0)) { $0 + ($1.ms ?? 0) }
            watched = furthest > 0 ? furthest : accessWatched
            twib = Self.twib(levels: player.filter { $0.kind == .level }, access: access, watched: watched)
            let started = startup != nil || watched > 0
            failed = player.contains { $0.kind == .error && ($0.fatal == true || !started) }
        }
        self.startupMilliseconds = startup
        self.stalls = stalls
        self.stallMilliseconds = stalls.reduce(0) { $0 + ($1.ms ?? 0) }
        self.watchedMilliseconds = watched
        self.twib = twib
        self.failed = failed
        self.errors = player.count { $0.kind == .error }
        self.watchedInBreaksMilliseconds = session.spans.reduce(0) { total, span in
            total + max(0, min(span.end, watched) - span.start)
        }
        self.ads = AdCounts(server?.ads ?? [], watched: watched)
    }

    /// Ad starts and completions as the session's beacon links show them: an ad **started** when
    /// the segment of its impression (or start) was fetched, **completed** when the segment of
    /// its complete was. Of the ads that started and track complete but never completed, those
    /// the session went past (it watched beyond the ad's end, or another ad after it started)
    /// are ad-start failures (**incomplete**: the player skipped or lost the ad's end), the rest
    /// **abandoned** (the viewer left during the ad). Impression and start fall in one segment, so
    /// a link cannot show one without the other. A live break's ads have no end on the session's
    /// timeline: counted as started and completed only.
    public struct AdCounts: Sendable, Hashable, Encodable {
        public var started = 0
        public var completed = 0
        public var incomplete = 0
        public var abandoned = 0

        public init(started: Int, completed: Int, incomplete: Int, abandoned: Int) {
            self.started = started
            self.completed = completed
            self.incomplete = incomplete
            self.abandoned = abandoned
        }

        init(_ ads: [ServerView.AdProgress], watched: Int64) {
            for ad in ads {
                if ad.started { self.started += 1 }
                if ad.completed { self.completed += 1 }
                guard ad.started, !ad.completed, ad.tracksCompletion, let end = ad.end else { continue }
                let past = watched >= end || ads.contains { $0.started && ($0.end ?? 0) > end }
                if past { self.incomplete += 1 } else { self.abandoned += 1 }
            }
        }

        public static func + (left: Self, right: Self) -> Self {
            var sum = left
            sum.started += right.started
            sum.completed += right.completed
            sum.incomplete += right.incomplete
            sum.abandoned += right.abandoned
            return sum
        }
    }

    /// The replica that served the session's start (else the first that saw it), or `unknown`.
    public var replica: String { self.server?.replica ?? "unknown" }

    /// Wall time ahead of stream time between the segments fetched: the drift (wall time since the
    /// first segment less stream time since it) falls while the player fills its buffer and rises
    /// while it stalls (or pauses). Each rise past ``driftTolerance`` above the lowest drift since
    /// the last stall is an estimated stall at the segment that shows it, as long as the rise —
    /// small rises add up until they pass it, so a player late by a second a segment is seen. At
    /// least as many as the player's CMCD `bs` announced (those unplaced).
    static func estimatedStalls(_ view: ServerView, in session: QualitySession) -> [Stall] {
        var stalls: [Stall] = []
        let points = view.segments.compactMap { segment in segment.stream.map { (at: segment.at, stream: $0) } }
        if let first = points.first {
            var base: Int64 = 0
            for point in points.dropFirst() {
                let drift = (point.at - first.at) - (point.stream - first.stream)
                if drift < base {
                    base = drift
                } else if drift - base > Self.driftTolerance {
                    stalls.append(Stall(at: point.stream, ms: drift - base, place: Self.place(point.stream, in: session)))
                    base = drift
                }
            }
        }
        let announced = view.cmcd?.starvations ?? 0
        if announced > stalls.count {
            stalls += Array(repeating: Stall(at: nil, ms: nil, place: nil), count: announced - stalls.count)
        }
        return stalls
    }

    /// The furthest segment seen (stream ms); a live session's wall time from its first playlist
    /// to its last fetch.
    static func estimatedWatched(_ view: ServerView) -> Int64 {
        let furthest = view.segments.compactMap(\.stream).max() ?? 0
        guard view.live, let first = view.firstPlaylist else { return furthest }
        return max(furthest, view.last - first)
    }

    /// CMCD's encoded bitrates, else the video renditions fetched, each weighted by the wall time
    /// until the next (the last until the last fetch).
    static func estimatedTWIB(_ view: ServerView) -> Int64? {
        let switches = view.cmcd.map { $0.bitrates.isEmpty ? view.switches : $0.bitrates } ?? view.switches
        guard let origin = switches.first?.at else { return nil }
        let levels = switches.map { QualityEvent(kind: .level, at: $0.at - origin, bandwidth: $0.bandwidth, received: $0.at) }
        return Self.twib(levels: levels, access: [], watched: view.last - origin)
    }

    /// A start abandoned: no media playlist (unless the session's are shared, `playlistsShared`:
    /// a live channel's primary playlists, which a CDN may answer), or no first segment where it
    /// is a beacon link, a while after.
    static func failedStart(_ view: ServerView, now: Int64, playlistsShared: Bool = false) -> Bool {
        if let master = view.master, view.firstPlaylist == nil { return !playlistsShared && now - master >= Self.abandonedAfter }
        if view.segmentAtStart, let played = view.firstPlaylist, view.segments.isEmpty, view.mediaSegments == 0 {
            return now - played >= Self.abandonedAfter
        }
        return false
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
        case campaign, session, device, insertion, stalls, failed, errors, estimated, events, breaks, experiment, replica, server, ads
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
        try container.encode(self.errors, forKey: .errors)
        try container.encode(self.estimated, forKey: .estimated)
        try container.encode(self.replica, forKey: .replica)
        try container.encodeIfPresent(self.server, forKey: .server)
        try container.encode(self.ads, forKey: .ads)
        try container.encode(
            self.session.spans.map { Span(breakID: $0.breakID, piece: $0.piece, start: Double($0.start) / 1000, end: Double($0.end) / 1000) },
            forKey: .breaks
        )
        let entries = self.events.filter { $0.kind != .server }.map { event in
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
