/// What one replica saw of a session without its player's help (issue 55's third source;
/// docs/quality.md "The server's own view"): when it served the session's multivariant playlist,
/// which media playlists and when (a rendition switch is a fetch of another video rendition's
/// playlist), the segments it saw fetched through the session's beacon links (their stream time
/// against the wall time of the fetch), and the CMCD v1 keys players send on those requests.
/// Kept as one event per session and replica, replaced as it grows; the replicas' views of a
/// session are merged when its figures are made (``SessionQuality``).
///
/// Everything is bounded: at most ``maxSwitches`` rendition switches and CMCD bitrates, at most
/// ``maxSegments`` segments, identifiers of at most ``maxIdentifier`` bytes.
public struct ServerView: Sendable, Hashable, Codable {
    /// A video rendition switched to, or a CMCD bitrate first reported: when (ms since 1970, the
    /// server's clock) and its bits per second.
    public struct Switch: Sendable, Hashable, Codable {
        public var at: Int64
        /// `v2` (the session's rendition), or `cmcd` for a bitrate a request's CMCD `br` gave.
        public var rendition: String
        public var bandwidth: Int64?

        public init(at: Int64, rendition: String, bandwidth: Int64?) {
            self.at = at
            self.rendition = rendition
            self.bandwidth = bandwidth
        }
    }

    /// A segment fetched through a beacon link: when (server ms) and where it starts on the
    /// session's timeline (stream ms; nil in a live break, whose timeline is the channel's).
    public struct Segment: Sendable, Hashable, Codable {
        public var at: Int64
        public var stream: Int64?

        public init(at: Int64, stream: Int64?) {
            self.at = at
            self.stream = stream
        }
    }

    /// An ad whose beacon links the session fetched: which of its events have URLs (`tracked`,
    /// ``BeaconEvents`` bits: impression 1, start 2, quartiles 4, 8, 16, complete 32; 0 where the
    /// plan does not say — a live break's fill) and which links were fetched (`fetched`), and
    /// where it ends on the session's timeline (stream ms; nil in a live break).
    public struct AdProgress: Sendable, Hashable, Codable {
        /// The ad's place in the plan, and its live break.
        public var piece: Int
        public var breakID: String?
        public var tracked: Int
        public var fetched: Int
        public var end: Int64?

        public init(piece: Int, breakID: String?, tracked: Int, fetched: Int, end: Int64?) {
            self.piece = piece
            self.breakID = breakID
            self.tracked = tracked
            self.fetched = fetched
            self.end = end
        }

        enum CodingKeys: String, CodingKey {
            case piece, tracked, fetched, end
            case breakID = "break"
        }

        public static let impression = 1
        public static let start = 2
        public static let complete = 32

        /// Its first segment was fetched: the impression or start link.
        public var started: Bool { self.fetched & (Self.impression | Self.start) != 0 }
        /// Its complete link was fetched.
        public var completed: Bool { self.fetched & Self.complete != 0 }
        /// It tracks complete, so a start without one says something.
        public var tracksCompletion: Bool { self.tracked & Self.complete != 0 }
    }

    /// The CMCD v1 keys (CTA-5004) requests carried: `bs` (buffer starvation since the last
    /// request: a stall the player itself announces), `br` changes, the last `bl` and `mtp`.
    public struct CMCD: Sendable, Hashable, Codable {
        /// Requests that carried CMCD.
        public var requests = 0
        /// Requests with `bs`: each says the buffer ran dry since the one before.
        public var starvations = 0
        /// Requests with `su` (the player still starting).
        public var starting = 0
        /// Encoded bitrates (`br`, kbps → bits/s) as they changed.
        public var bitrates: [Switch] = []
        /// The last buffer length (`bl`, ms) and measured throughput (`mtp`, kbps) said.
        public var buffer: Int64?
        public var throughput: Int64?
        /// The player's own session id (`sid`), first said.
        public var session: String?

        public init() {}
    }

    /// The replica that saw it (`serve --replica`).
    public var replica: String
    /// When this replica served the session's multivariant playlist (its start), if it did.
    public var master: Int64?
    /// This replica's first and last fetch of any of the session's files, and how many.
    public var first: Int64
    public var last: Int64
    public var fetches: Int
    /// Media playlists fetched: the first of each, and every return to a rendition after
    /// another, in order (a live session refreshes one: counted in ``fetches``, not listed).
    public var switches: [Switch]
    /// When the first media playlist (of any kind) was fetched.
    public var firstPlaylist: Int64?
    public var segments: [Segment]
    /// The ads whose beacon links were fetched, in the order first fetched.
    public var ads: [AdProgress]
    /// Segments fetched from AdStitch's media route, joined to the session by CMCD's `sid`.
    public var mediaSegments: Int
    public var cmcd: CMCD?
    /// Apple players' `X-Playback-Session-Id`, first sent.
    public var playbackSession: String?
    /// A live session (its playlists are refreshed; wall time watched counts).
    public var live: Bool
    /// The session's first segment is a beacon link (a pre-roll whose impression AdStitch
    /// fires): a start that never fetches it did not play.
    public var segmentAtStart: Bool

    enum CodingKeys: String, CodingKey {
        case replica, master, first, last, fetches, switches, segments, ads, cmcd, live
        case firstPlaylist = "first_playlist"
        case mediaSegments = "media_segments"
        case playbackSession = "playback_session"
        case segmentAtStart = "segment_at_start"
    }

    public static let maxSwitches = 64
    public static let maxSegments = 128
    public static let maxIdentifier = 64

    public init(replica: String, at: Int64, live: Bool, segmentAtStart: Bool) {
        self.replica = replica
        self.first = at
        self.last = at
        self.fetches = 0
        self.switches = []
        self.segments = []
        self.ads = []
        self.mediaSegments = 0
        self.live = live
        self.segmentAtStart = segmentAtStart
    }

    /// One request of the session, as the replica answered it.
    public struct Observation: Sendable {
        public enum What: Sendable, Hashable {
            case master
            /// A video rendition's media playlist (`v2`) and its BANDWIDTH.
            case video(String, bandwidth: Int64?)
            /// Another media playlist (audio, subtitles, an ad's playlist).
            case playlist
            /// A session file that is not a media playlist (the boundary manifest, an asset list).
            case file
            /// A segment of the media route, joined by CMCD's `sid` (no stream time).
            case media
            /// A segment through a beacon link, at its stream ms: where the `fetched` events of
            /// an ad (``AdProgress``, its `fetched` that link's) fall.
            case segment(stream: Int64?, ad: AdProgress)
        }

        public var what: What
        /// Server ms; a run of the same request: the first, and the last at `last`.
        public var at: Int64
        public var last: Int64
        /// Requests in the run.
        public var count: Int
        public var cmcd: CMCDRequest?
        public var playbackSession: String?

        public init(_ what: What, at: Int64, last: Int64? = nil, count: Int = 1, cmcd: CMCDRequest? = nil, playbackSession: String? = nil) {
            self.what = what
            self.at = at
            self.last = max(at, last ?? at)
            self.count = max(1, count)
            self.cmcd = cmcd
            self.playbackSession = playbackSession
        }
    }

    /// Adds a request; returns whether the view changed in a way its figures read (anything but
    /// the time of the last fetch and the count), so an unchanged view is not written again.
    @discardableResult
    public mutating func add(_ observation: Observation) -> Bool {
        let at = observation.at
        var changed = self.fetches == 0
        self.fetches += observation.count
        self.first = min(self.first, at)
        self.last = max(self.last, observation.last)
        switch observation.what {
        case .master:
            if self.master.map({ at < $0 }) ?? true {
                self.master = at
                changed = true
            }
        case .video(let rendition, let bandwidth):
            changed = self.notePlaylist(at) || changed
            if self.switches.last?.rendition != rendition, self.switches.count < Self.maxSwitches {
                self.switches.append(Switch(at: at, rendition: rendition, bandwidth: bandwidth))
                changed = true
            }
        case .playlist:
            changed = self.notePlaylist(at) || changed
        case .file:
            break
        case .media:
            if self.mediaSegments == 0 { changed = true }
            self.mediaSegments += observation.count
        case .segment(let stream, let ad):
            // The same segment fetched again (a retry, another replica's redirect) is one segment.
            if !self.segments.contains(where: { $0.stream == stream && stream != nil }), self.segments.count < Self.maxSegments {
                self.segments.append(Segment(at: at, stream: stream))
                changed = true
            }
            changed = self.note(ad) || changed
        }
        if let cmcd = observation.cmcd {
            var kept = self.cmcd ?? CMCD()
            kept.requests += 1
            if cmcd.starved { kept.starvations += 1 }
            if cmcd.starting { kept.starting += 1 }
            if let kbps = cmcd.bitrate, kept.bitrates.last?.bandwidth != kbps * 1000, kept.bitrates.count < Self.maxSwitches {
                kept.bitrates.append(Switch(at: at, rendition: "cmcd", bandwidth: kbps * 1000))
            }
            kept.buffer = cmcd.buffer ?? kept.buffer
            kept.throughput = cmcd.throughput ?? kept.throughput
            kept.session = kept.session ?? cmcd.session.map { String($0.prefix(Self.maxIdentifier)) }
            changed = changed || kept != self.cmcd
            self.cmcd = kept
        }
        if self.playbackSession == nil, let id = observation.playbackSession {
            self.playbackSession = String(id.prefix(Self.maxIdentifier))
            changed = true
        }
        return changed
    }

    /// An ad's link fetched: its events added to what was fetched of it.
    private mutating func note(_ ad: AdProgress) -> Bool {
        if let index = self.ads.firstIndex(where: { $0.piece == ad.piece && $0.breakID == ad.breakID }) {
            let before = self.ads[index].fetched
            self.ads[index].fetched |= ad.fetched
            self.ads[index].tracked |= ad.tracked
            return self.ads[index].fetched != before
        }
        guard self.ads.count < Self.maxSwitches else { return false }
        self.ads.append(ad)
        return true
    }

    private mutating func notePlaylist(_ at: Int64) -> Bool {
        guard self.firstPlaylist.map({ at < $0 }) ?? true else { return false }
        self.firstPlaylist = at
        return true
    }

    /// The views of one session from every replica, as one: the earliest start and first
    /// fetches, the switches and segments of all in time order, the counts summed.
    public static func merged(_ views: [ServerView]) -> ServerView? {
        guard var merged = views.first else { return nil }
        for view in views.dropFirst() {
            merged.master = [merged.master, view.master].compactMap { $0 }.min()
            merged.firstPlaylist = [merged.firstPlaylist, view.firstPlaylist].compactMap { $0 }.min()
            merged.first = min(merged.first, view.first)
            merged.last = max(merged.last, view.last)
            merged.fetches += view.fetches
            merged.mediaSegments += view.mediaSegments
            merged.switches += view.switches
            merged.segments += view.segments
            for ad in view.ads { _ = merged.note(ad) }
            merged.live = merged.live || view.live
            merged.segmentAtStart = merged.segmentAtStart || view.segmentAtStart
            merged.playbackSession = merged.playbackSession ?? view.playbackSession
            if let cmcd = view.cmcd {
                var kept = merged.cmcd ?? CMCD()
                kept.requests += cmcd.requests
                kept.starvations += cmcd.starvations
                kept.starting += cmcd.starting
                kept.bitrates += cmcd.bitrates
                kept.session = kept.session ?? cmcd.session
                kept.buffer = kept.buffer ?? cmcd.buffer
                kept.throughput = kept.throughput ?? cmcd.throughput
                merged.cmcd = kept
            }
        }
        // In time order; a switch to the rendition already playing (two replicas each saw it
        // first) is no switch.
        var switches: [Switch] = []
        for entry in merged.switches.sorted(by: { ($0.at, $0.rendition) < ($1.at, $1.rendition) }) where switches.last?.rendition != entry.rendition {
            switches.append(entry)
        }
        merged.switches = switches
        var segments: [Segment] = []
        for segment in merged.segments.sorted(by: { ($0.at, $0.stream ?? 0) < ($1.at, $1.stream ?? 0) })
        where segment.stream == nil || !segments.contains(where: { $0.stream == segment.stream }) {
            segments.append(segment)
        }
        merged.segments = segments
        merged.cmcd?.bitrates.sort { $0.at < $1.at }
        // The replica that served the start names the session's replica.
        if let starter = views.first(where: { $0.master != nil && $0.master == merged.master }) { merged.replica = starter.replica }
        return merged
    }
}
