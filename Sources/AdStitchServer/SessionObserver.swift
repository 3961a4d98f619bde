import AdQuality
import HTTPTypes
import Synchronization

/// What the server sees of its viewers' sessions without their players' help (docs/quality.md
/// "The server's own view"): each answered request of a session — its start, its files, its
/// beacon links — noted as it is answered, with the CMCD v1 payload and the
/// `X-Playback-Session-Id` it carried, for ``ServerViews`` to read into each session's
/// ``AdQuality/ServerView`` away from the answer.
///
/// Noting one is a lookup and an append under a lock: requests are kept by session (one copy of
/// its token), and a request that repeats the one before it (the same file, nothing from the
/// player) only counts — a viewer fetching one playlist again and again holds one entry. At most
/// ``capacity`` entries wait, past which they are dropped and counted: a flood of requests never
/// grows a replica.
final class SessionObserver: Sendable {
    /// What a request was.
    enum What: Sendable, Hashable {
        /// The session's start: its multivariant playlist.
        case master
        /// A session file, by its name (`v0.m3u8`).
        case file(String)
        /// A beacon link: a segment where the ad `piece`'s `events` fall (of live break `breakID`).
        case beacon(piece: Int, events: Int, breakID: String?)
        /// A file of the media route (a segment), joined to its session by its CMCD `sid`.
        case media
    }

    /// What stands for the token of a media request, joined by its player's CMCD `sid` (the
    /// media route's URIs carry no token): this prefix and the sid. No token begins so.
    static let sidPrefix = "cmcd-sid:"

    /// Requests of one kind in a row: when the first and the last were answered (server ms),
    /// how many, and what the first said of its player.
    struct Seen: Sendable {
        var what: What
        var at: Int64
        var last: Int64
        var count: Int
        var clues: Clues?
    }

    /// One session's requests since the last take, in the order answered.
    struct Batch: Sendable {
        var campaign: String
        var token: String
        var seen: [Seen]
    }

    /// What a request says of its player: its CMCD (the query argument, still percent-encoded,
    /// or the `CMCD-*` headers' values) and its playback session id (Apple's
    /// `X-Playback-Session-Id` header, else the `_HLS_primary_id` argument players add to
    /// interstitial requests).
    struct Clues: Sendable {
        var cmcdQuery: String?
        var cmcdHeaders: [String] = []
        var playbackSession: String?

        static let playbackSessionHeader = HTTPField.Name("X-Playback-Session-Id")!

        /// Read off a request: a look at the path only when it has a query, one pass over the
        /// header fields; nil when the request says nothing.
        init?(_ head: HTTPRequest) {
            if let path = head.path, let query = CMCDRequest.query(inPath: path) {
                for argument in query {
                    if argument.hasPrefix("CMCD=") {
                        self.cmcdQuery = String(argument.dropFirst(5))
                    } else if argument.hasPrefix("_HLS_primary_id=") {
                        // What a player that cannot send X-Playback-Session-Id sends instead
                        // (draft-pantos-hls-rfc8216bis Appendix D.4: on interstitial requests).
                        self.playbackSession = String(argument.dropFirst(16))
                    }
                }
            }
            for field in head.headerFields {
                let name = field.name.canonicalName
                if name.utf8.first == UInt8(ascii: "c"), name.hasPrefix("cmcd-") {
                    if self.cmcdHeaders.count < 4 { self.cmcdHeaders.append(field.value) }
                } else if field.name == Self.playbackSessionHeader {
                    self.playbackSession = field.value
                }
            }
            guard self.cmcdQuery != nil || !self.cmcdHeaders.isEmpty || self.playbackSession != nil else { return nil }
        }
    }

    /// Entries waiting to be read (a run of repeats is one).
    static let capacity = 50_000

    private struct Pending {
        var sessions: [String: Int] = [:]
        var batches: [Batch] = []
        var entries = 0
        var dropped = 0
    }

    private let pending = Mutex(Pending())

    func note(campaign: String, token: String, _ what: What, at: Int64, clues: Clues?) {
        self.pending.withLock { pending in
            if let index = pending.sessions[token] {
                let last = pending.batches[index].seen.count - 1
                if clues == nil, last >= 0, pending.batches[index].seen[last].clues == nil, pending.batches[index].seen[last].what == what {
                    pending.batches[index].seen[last].count += 1
                    pending.batches[index].seen[last].last = at
                    return
                }
                guard pending.entries < Self.capacity else {
                    pending.dropped += 1
                    return
                }
                pending.batches[index].seen.append(Seen(what: what, at: at, last: at, count: 1, clues: clues))
            } else {
                guard pending.entries < Self.capacity else {
                    pending.dropped += 1
                    return
                }
                pending.sessions[token] = pending.batches.count
                pending.batches.append(Batch(campaign: campaign, token: token, seen: [Seen(what: what, at: at, last: at, count: 1, clues: clues)]))
            }
            pending.entries += 1
        }
    }

    /// What waited, by session in the order first answered, and how many requests were dropped
    /// since the last take.
    func take() -> (batches: [Batch], dropped: Int) {
        self.pending.withLock { pending in
            defer { pending = Pending() }
            return (pending.batches, pending.dropped)
        }
    }
}
