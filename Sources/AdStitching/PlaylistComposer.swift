import HLSPlaylist

/// The one writer of a per-viewer media playlist's structure, for every kind of session (a
/// stitched playlist, an interstitial session's primary playlist, a live playlist, an ad's own
/// playlist): the header, `EXT-X-DISCONTINUITY` between pieces (docs/architecture.md invariant 2),
/// the key state carried across them (invariant 5), the map after every discontinuity (6), the
/// programme date-times and `EXT-X-ENDLIST`. A renderer lists its entries — whole pieces (a
/// layout's shared segment block) or single segments — and its own tags before each (date ranges,
/// cues, gaps); the syntax of every tag is ``TagBytes``'.
struct PlaylistComposer {
    /// What a media playlist's header states.
    struct Header {
        var version: Int
        var targetDuration: Int
        /// A live playlist's first media sequence number and discontinuity sequence number
        /// (RFC 8216bis §4.4.3.2–3); nil for a VOD playlist, which says `EXT-X-PLAYLIST-TYPE:VOD`
        /// and ends with `EXT-X-ENDLIST`.
        var sequence: (media: Int, discontinuity: Int)?
        var iFramesOnly = false
        var independentSegments: Bool
    }

    private var output: RenderedBytes
    private let live: Bool
    /// The viewer's values for rewrite templates' slots (``URIRewriter``), by slot number.
    private let values: [[UInt8]]
    /// Whether every piece states its date (``startPiece(at:)``).
    private let dated: Bool
    /// The `EXT-X-KEY` lines in force after the lines so far; empty: the clear.
    private var keys: [String] = []
    /// The `EXT-X-MAP` line in force after the lines so far (single segments only: a piece's
    /// block states its own map).
    private var map: String?
    /// Pieces or segments written so far.
    private var entries = 0
    /// The date stated for the next entry, once stated (and until that entry is written).
    private var statedDate: Int64?

    /// Starts a playlist with `header`. `date`: the playlist is dated — the programme date-time of
    /// its start is stated here, and each piece's after its discontinuity (``startPiece(at:)``).
    init(_ header: Header, date: Int64? = nil, values: [[UInt8]] = [], literalCapacity: Int, parts: Int) {
        self.output = RenderedBytes(literalCapacity: literalCapacity, parts: parts)
        self.output.fill(with: values)
        self.values = values
        self.live = header.sequence != nil
        self.dated = date != nil
        self.output.appendLiteral { bytes in
            TagBytes.m3u(into: &bytes)
            TagBytes.version(header.version, into: &bytes)
            TagBytes.targetDuration(header.targetDuration, into: &bytes)
            if let sequence = header.sequence {
                TagBytes.mediaSequence(sequence.media, into: &bytes)
                TagBytes.discontinuitySequence(sequence.discontinuity, into: &bytes)
            } else {
                TagBytes.playlistType(.vod, into: &bytes)
            }
            if header.iFramesOnly { TagBytes.iFramesOnly(into: &bytes) }
            if header.independentSegments { TagBytes.independentSegments(into: &bytes) }
        }
        // RFC 8216bis §4.4.5.1: date ranges need a programme date-time to anchor them.
        if let date { self.date(date) }
    }

    /// The renderer's own lines before the next entry (date ranges, cues, gaps).
    mutating func tags(_ write: (inout [UInt8]) -> Void) {
        self.output.appendLiteral(write)
    }

    /// Starts the next piece: `EXT-X-DISCONTINUITY` before every piece after the first, then, in
    /// a dated playlist, the piece's date `milliseconds` — after every discontinuity, not only at
    /// the start, on the session's one timeline (every rendition alike): a player that reads dates
    /// per discontinuity sequence (Shaka, Media3) otherwise loses wall-clock time across every ad.
    mutating func startPiece(at milliseconds: @autoclosure () -> Int64) {
        if self.entries > 0 { self.output.appendLiteral { TagBytes.discontinuity(into: &$0) } }
        if self.dated { self.date(milliseconds()) }
    }

    /// A piece's segments: the layout's shared lines of `row`'s block in `rendition` (or, with
    /// `lines`, the viewer's copy of them), after the key lines that change the state in force to
    /// its first segment's. The block is read in place (a copy of a ``SegmentBlock`` retains each
    /// of its fields: a third of a stitched playlist's render).
    mutating func piece(_ row: BlockRow, _ rendition: Int, lines: [UInt8]? = nil) {
        self.transition(to: row.startKeys(rendition))
        self.keys = row.endKeys(rendition)
        if let lines {
            self.output.appendLiteral { $0.append(contentsOf: lines) }
        } else {
            self.output.append(row.bytes(rendition))
        }
        self.entered()
    }

    /// One segment on its own (a live window lists part of an asset): `EXT-X-DISCONTINUITY` when
    /// `discontinuity` (on the first segment too: `EXT-X-DISCONTINUITY-SEQUENCE` counts the tags
    /// that left, not this one); its map after every discontinuity and wherever it changes
    /// (RFC 8216bis §4.4.4.5), its keys wherever they change (§4.4.4.4), the first segment's from
    /// the clear; its date; its lines.
    mutating func segment(_ lines: SegmentLines, discontinuity: Bool, at milliseconds: Int64) {
        if discontinuity { self.output.appendLiteral { TagBytes.discontinuity(into: &$0) } }
        if let map = lines.map, self.entries == 0 || discontinuity || map != self.map {
            // The keys in force at the map apply to it (§4.4.4.4).
            self.transition(to: lines.keys)
            self.output.append(map + "\n")
            self.map = map
        }
        self.transition(to: lines.keys)
        self.date(milliseconds)
        self.output.appendLiteral { $0.append(contentsOf: lines.body) }
        self.entered()
    }

    /// The playlist: a VOD playlist ends with `EXT-X-ENDLIST`; a live one goes on.
    consuming func finish() -> RenderedBytes {
        if !self.live { self.output.appendLiteral { TagBytes.endList(into: &$0) } }
        return self.output
    }

    /// `EXT-X-PROGRAM-DATE-TIME` of the next entry, once.
    private mutating func date(_ milliseconds: Int64) {
        guard self.statedDate != milliseconds else { return }
        self.output.appendLiteral { TagBytes.programDateTime(milliseconds, into: &$0) }
        self.statedDate = milliseconds
    }

    /// The lines that change the key state to `keys` (``SegmentBlock/keyTransition(from:to:)``).
    private mutating func transition(to keys: [String]) {
        let text = SegmentBlock.keyTransition(from: self.keys, to: keys)
        self.keys = keys
        guard !text.isEmpty else { return }
        if self.values.isEmpty { self.output.append(text) } else { self.output.append(text, filling: self.values) }
    }

    private mutating func entered() {
        self.entries += 1
        self.statedDate = nil
    }
}
