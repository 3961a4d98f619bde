import HLSPlaylist

/// A live channel's own numbering of its origin's windows (docs/design-decisions.md
/// "Live", "Origin faults"): what the break tracker and every viewer's numbering see instead of
/// the origin's numbers, so a viewer's playlist never goes back nor gives one number to two
/// segments, whatever the origin does (RFC 8216bis §6.2.1–6.2.2).
///
/// A segment is known by its date (`EXT-X-PROGRAM-DATE-TIME`): the one identity that survives an
/// origin renumbering itself. Each window of the first rendition is placed against the last one
/// accepted — its newest segment `L`:
///
/// - **the same numbering**: the window holds `L`'s origin number at `L`'s date (within half a
///   segment: dates that drift) — the channel's numbers are the origin's plus the channel's offset;
/// - **renumbered, same programme** (a second origin numbering otherwise, a renumbering): a segment
///   starts exactly at `L`'s date with `L`'s duration — the offset becomes `L`'s number less its;
/// - **older** (nothing placed, and its newest segment starts no later than `L`: a stale origin
///   replica, a reordered answer, numbers gone back with the dates): refused, the last window keeps
///   serving; an aligned window that ends before `L` is refused too;
/// - **newer, unplaced**: numbers still ahead (a forward jump, missed polls) keep the offset;
///   numbers gone back (an origin restart) continue the channel's numbering: the segments that
///   start after `L` are numbered from the larger of `L + 1` and the first one's date in whole
///   seconds since the epoch — a function of the restarted window alone, so two replicas polling
///   out of phase agree — with an `EXT-X-DISCONTINUITY` before the first.
///
/// Segments of an accepted window numbered before the last window's first, or under a number the
/// last window gave a segment of another date, are dropped. Discontinuity sequence numbers are
/// counted from the tags: a segment already accepted keeps its number and tag; a new one adds its
/// tag to the one before; a window that does not overlap the last starts from the origin's number
/// plus the channel's offset, never below the last.
///
/// Other renditions follow the first: a window is numbered by the first rendition's offset (it must
/// hold a segment of the first rendition's last window at its date, else it is refused until the
/// first catches up), its segments taking the first rendition's discontinuity numbers and tags.
public struct LiveOriginSequencer: Sendable {
    /// A segment as the channel numbers it.
    struct Numbered: Sendable, Hashable {
        let origin: Int
        let sequence: Int
        let start: ExactDecimal
        let duration: ExactDecimal
        let discontinuitySequence: Int
        let isDiscontinuity: Bool
        /// The origin's discontinuity sequence number (for the offset between the two).
        let originDiscontinuity: Int
    }

    /// One rendition's state: its last accepted window, consecutive channel numbers.
    struct Rendition: Sendable {
        var last: [Numbered] = []
    }

    /// The channel's number of a segment less the origin's, for the first rendition's current numbering.
    public private(set) var offset = 0
    /// The channel's discontinuity sequence number less the origin's, at the first rendition's last segment.
    private var discontinuityOffset = 0
    private var renditions: [Int: Rendition] = [:]
    /// The lowest number a first window may start at (``floor(after:)``): the channel's history.
    private var floor: Numbered?

    /// A window as the channel numbers it, or why it is not used.
    public struct Sequenced: Sendable {
        /// The window renumbered (the origin's own when nothing changed); nil when refused.
        public let playlist: MediaPlaylist?
        /// Why it was refused, or what was changed (a restart), for the log.
        public let note: String?
    }

    public init() {}

    /// Starts the channel's numbering after `sequence` (a break of the shared history, at `start`):
    /// a replica that starts after the origin restarted must not number below what others served.
    /// Used only before the first window.
    public mutating func floor(after sequence: Int, at start: ExactDecimal, discontinuitySequence: Int) {
        guard self.renditions.isEmpty else { return }
        if let floor = self.floor, floor.sequence >= sequence { return }
        self.floor = Numbered(
            origin: sequence,
            sequence: sequence,
            start: start,
            duration: .zero,
            discontinuitySequence: discontinuitySequence,
            isDiscontinuity: false,
            originDiscontinuity: 0
        )
    }

    /// The newest segment of rendition 0's last accepted window, in channel numbers.
    public var edge: Int? { self.renditions[0]?.last.last?.sequence }

    /// Numbers one window of rendition `rendition` (0: the first, whose windows place the others).
    public mutating func sequence(_ playlist: MediaPlaylist, rendition: Int = 0) -> Sequenced {
        guard let segments = LiveSegment.segments(of: playlist), !segments.isEmpty else {
            return Sequenced(playlist: nil, note: "the window has no dated segment (EXT-X-PROGRAM-DATE-TIME)")
        }
        if rendition == 0 { return self.lead(playlist, segments) }
        return self.follow(playlist, segments, rendition: rendition)
    }

    // MARK: - The first rendition

    private mutating func lead(_ playlist: MediaPlaylist, _ segments: [LiveSegment]) -> Sequenced {
        let last = self.renditions[0]?.last ?? []
        guard let newest = last.last ?? self.floorSegment(segments) else {
            // The first window: the origin's numbers.
            return self.accept(playlist, segments, from: 0, offset: 0, restart: false, rendition: 0, note: nil)
        }
        let first = segments[0].sequence
        let fromHistory = last.isEmpty
        // The same numbering: the newest accepted segment, under its number, at its date.
        let index = newest.origin - first
        let same = index >= 0 && index < segments.count && Self.agree(segments[index], newest)
        if fromHistory {
            // A replica's first window after the history's newest break: the origin's numbers,
            // unless they went back while the dates went forward (a restart since).
            let restarted = !same && first <= newest.sequence && segments[segments.count - 1].start > newest.start
            if !restarted { return self.accept(playlist, segments, from: 0, offset: 0, restart: false, rendition: 0, note: nil) }
        } else if same {
            return self.aligned(playlist, segments, offset: self.offset, last: last, note: nil)
        } else if let renumbered = segments.first(where: { $0.start == newest.start && $0.duration == newest.duration }) {
            // Renumbered: a segment exactly at the newest's date and of its duration.
            let offset = newest.sequence - renumbered.sequence
            return self.aligned(
                playlist,
                segments,
                offset: offset,
                last: last,
                note: "the origin renumbered its segments; the channel's numbers go on"
            )
        }
        guard let latest = segments.last, latest.start > newest.start else {
            return Sequenced(playlist: nil, note: "an older window than the one serving (a stale origin replica or a reordered answer); ignored")
        }
        if !fromHistory, first + self.offset > newest.sequence {
            // Numbers still ahead: missed polls or a forward jump.
            return self.accept(playlist, segments, from: 0, offset: self.offset, restart: false, rendition: 0, note: nil)
        }
        // Numbers gone back, dates forward: the origin restarted. What starts after the newest
        // served segment continues the channel's numbering.
        guard let from = segments.firstIndex(where: { $0.start > newest.start }) else {
            return Sequenced(playlist: nil, note: "an older window than the one serving; ignored")
        }
        let count = segments.count - from
        var start = newest.sequence + 1
        if let seconds = Self.wholeSeconds(segments[from].start), seconds > start, seconds <= LiveLimits.maxSequence - count { start = seconds }
        guard start <= LiveLimits.maxSequence - count else {
            return Sequenced(playlist: nil, note: "the channel's numbers would pass 2⁵³; the window is refused")
        }
        return self.accept(
            playlist,
            segments,
            from: from,
            offset: start - segments[from].sequence,
            restart: true,
            rendition: 0,
            note: "the origin's media sequence went back (\(newest.origin) → \(first)) with its dates forward: a restart; "
                + "the channel's numbers go on from \(start)"
        )
    }

    /// A window placed against the last accepted one: refused when it ends before it; otherwise
    /// what precedes the last window, or contradicts it, is dropped.
    private mutating func aligned(_ playlist: MediaPlaylist, _ segments: [LiveSegment], offset: Int, last: [Numbered], note: String?) -> Sequenced {
        guard let newest = last.last, let firstKnown = last.first else { return Sequenced(playlist: nil, note: nil) }
        guard let latest = segments.last, latest.sequence + offset >= newest.sequence else {
            return Sequenced(playlist: nil, note: "an older window than the one serving (a stale origin replica or a reordered answer); ignored")
        }
        var from = 0
        for (index, segment) in segments.enumerated() {
            let sequence = segment.sequence + offset
            if sequence < firstKnown.sequence {
                from = index + 1
            } else if sequence <= newest.sequence, !Self.agree(segment, last[sequence - firstKnown.sequence]) {
                from = index + 1  // another segment under a number already given
            }
        }
        guard from < segments.count else { return Sequenced(playlist: nil, note: "the window holds nothing new; ignored") }
        return self.accept(playlist, segments, from: from, offset: offset, restart: false, rendition: 0, note: note)
    }

    // MARK: - Other renditions

    private mutating func follow(_ playlist: MediaPlaylist, _ segments: [LiveSegment], rendition: Int) -> Sequenced {
        guard let lead = self.renditions[0]?.last, let leadFirst = lead.first else {
            return Sequenced(playlist: nil, note: "the first rendition has no window yet; this rendition waits for it")
        }
        let offset = self.offset
        // In step with the first rendition: one of its segments, under its number, at its date.
        let placed = segments.contains { segment in
            let index = segment.sequence + offset - leadFirst.sequence
            return index >= 0 && index < lead.count && Self.agree(segment, lead[index], tolerance: 1)
        }
        guard placed else {
            return Sequenced(playlist: nil, note: "the window is not in step with the first rendition's; the last window keeps serving")
        }
        let own = self.renditions[rendition]?.last ?? []
        guard let latest = segments.last, latest.sequence + offset >= (own.last?.sequence ?? .min) else {
            return Sequenced(playlist: nil, note: "an older window than the one serving; ignored")
        }
        guard let from = segments.firstIndex(where: { $0.sequence + offset >= leadFirst.sequence }) else {
            return Sequenced(playlist: nil, note: "the window is older than the first rendition's; ignored")
        }
        return self.accept(playlist, segments, from: from, offset: offset, restart: false, rendition: rendition, note: nil)
    }

    // MARK: - Numbering

    /// Numbers `segments[from...]` with `offset`, counts their discontinuities, records them as
    /// rendition `rendition`'s last window and rewrites the playlist when anything differs.
    private mutating func accept(
        _ playlist: MediaPlaylist,
        _ segments: [LiveSegment],
        from: Int,
        offset: Int,
        restart: Bool,
        rendition: Int,
        note: String?
    ) -> Sequenced {
        guard let lastSegment = segments.last, lastSegment.sequence + offset <= LiveLimits.maxSequence, segments[from].sequence + offset >= 0 else {
            return Sequenced(playlist: nil, note: "the channel's numbers would leave 0–2⁵³; the window is refused")
        }
        let lead = self.renditions[0]?.last ?? []
        let own = self.renditions[rendition]?.last ?? []
        func known(_ sequence: Int) -> Numbered? {
            // Rendition 0's numbers rule every rendition; a rendition's own for what goes past them.
            for list in rendition == 0 ? [own] : [lead, own] {
                guard let first = list.first?.sequence, sequence >= first, sequence - first < list.count else { continue }
                return list[sequence - first]
            }
            return nil
        }
        let ceiling = own.last ?? (rendition == 0 ? self.floorSegment(segments) : nil)
        var numbered: [Numbered] = []
        numbered.reserveCapacity(segments.count - from)
        for index in from..<segments.count {
            let segment = segments[index]
            let sequence = segment.sequence + offset
            let discontinuity: Int
            let tag: Bool
            if !restart, let known = known(sequence), Self.agree(segment, known, tolerance: rendition == 0 ? 0 : 1) {
                (discontinuity, tag) = (known.discontinuitySequence, known.isDiscontinuity)
            } else {
                tag = segment.isDiscontinuity || (restart && index == from)
                if let previous = numbered.last {
                    discontinuity = previous.discontinuitySequence + (tag ? 1 : 0)
                } else {
                    // No overlap: the origin's number with the channel's offset, never below the last.
                    let fromOrigin = segment.discontinuitySequence + (tag && !segment.isDiscontinuity ? 1 : 0) + self.discontinuityOffset
                    let lowest = (ceiling?.discontinuitySequence ?? Int.min / 2) + (tag ? 1 : 0)
                    discontinuity = ceiling == nil ? segment.discontinuitySequence : max(fromOrigin, lowest)
                }
            }
            numbered.append(
                Numbered(
                    origin: segment.sequence,
                    sequence: sequence,
                    start: segment.start,
                    duration: segment.duration,
                    discontinuitySequence: discontinuity,
                    isDiscontinuity: tag,
                    originDiscontinuity: segment.discontinuitySequence
                )
            )
        }
        guard let head = numbered.first, let tail = numbered.last,
            head.discontinuitySequence >= 0, tail.discontinuitySequence <= LiveLimits.maxSequence
        else {
            return Sequenced(playlist: nil, note: "the channel's discontinuity numbers would leave 0–2⁵³; the window is refused")
        }
        guard let rewritten = Self.rewrite(playlist, segments, from: from, numbered) else {
            return Sequenced(playlist: nil, note: "the window cannot be renumbered; ignored")
        }
        if rendition == 0 {
            self.offset = offset
            self.discontinuityOffset = tail.discontinuitySequence - tail.originDiscontinuity
        }
        self.renditions[rendition, default: Rendition()].last = numbered
        return Sequenced(playlist: rewritten, note: note)
    }

    /// `playlist` with the channel's numbers: segments before `from` dropped (their lines but the
    /// ones in force — keys, maps, header), the media and discontinuity sequence numbers and every
    /// segment's `EXT-X-DISCONTINUITY` as `numbered` says. The playlist itself when nothing differs.
    static func rewrite(_ playlist: MediaPlaylist, _ segments: [LiveSegment], from: Int, _ numbered: [Numbered]) -> MediaPlaylist? {
        guard let head = numbered.first else { return nil }
        let unchanged =
            from == 0 && head.sequence == segments[0].sequence
            && zip(segments, numbered).allSatisfy { $0.discontinuitySequence == $1.discontinuitySequence && $0.isDiscontinuity == $1.isDiscontinuity }
        if unchanged { return playlist }
        let mediaSegments = playlist.segments
        guard mediaSegments.count == segments.count else { return nil }
        // Each line's segment: the segment whose lines (after the previous URI) hold it.
        var owner = [Int](repeating: mediaSegments.count, count: playlist.lines.count)
        for index in mediaSegments.indices {
            for line in mediaSegments[index].lineIndices where line < owner.count { owner[line] = index }
        }
        var lines: [PlaylistLine] = []
        lines.reserveCapacity(playlist.lines.count + numbered.count)
        var wroteSequence = false
        var wroteDiscontinuitySequence = false
        let header = head.discontinuitySequence - (head.isDiscontinuity ? 1 : 0)
        for (index, line) in playlist.lines.enumerated() {
            let segment = owner[index]
            switch line.content {
            case .tag(.mediaSequence):
                if !wroteSequence { lines.append(PlaylistLine(.tag(.mediaSequence(head.sequence)))) }
                wroteSequence = true
                continue
            case .tag(.discontinuitySequence):
                if !wroteDiscontinuitySequence { lines.append(PlaylistLine(.tag(.discontinuitySequence(header)))) }
                wroteDiscontinuitySequence = true
                continue
            case .tag(.discontinuity):
                continue  // written below, as the channel counts them
            case .tag(.inf):
                guard segment >= from, segment < mediaSegments.count else { continue }
                if numbered[segment - from].isDiscontinuity { lines.append(PlaylistLine(.tag(.discontinuity))) }
                if segment == from, from > 0, mediaSegments[segment].programDateTime == nil {
                    // Its date came from a dropped segment's: written on it.
                    let milliseconds = Int64(clamping: numbered[0].start.scaledValue / 1_000_000_000_000_000)
                    lines.append(PlaylistLine(.tag(.programDateTime(Substring(DateTime.iso8601(millisecondsSinceEpoch: milliseconds))))))
                }
            case .tag(.key), .tag(.map), .tag(.m3u), .tag(.version), .tag(.targetDuration), .tag(.independentSegments), .tag(.start),
                .tag(.define), .tag(.playlistType), .tag(.partInf), .tag(.serverControl), .tag(.bitrate), .comment:
                break  // in force for what follows, or the header's
            default:
                // The dropped segments' own lines (date, URI, byte range, markers) go with them.
                if segment < from { continue }
            }
            lines.append(line)
            if case .tag(.m3u) = line.content {
                if !wroteSequence, !playlist.lines.contains(where: { if case .tag(.mediaSequence) = $0.content { true } else { false } }) {
                    lines.append(PlaylistLine(.tag(.mediaSequence(head.sequence))))
                    wroteSequence = true
                }
                if !wroteDiscontinuitySequence,
                    !playlist.lines.contains(where: { if case .tag(.discontinuitySequence) = $0.content { true } else { false } })
                {
                    lines.append(PlaylistLine(.tag(.discontinuitySequence(header))))
                    wroteDiscontinuitySequence = true
                }
            }
        }
        guard let rewritten = try? MediaPlaylist(lines: lines, url: playlist.url), rewritten.segments.count == numbered.count else { return nil }
        return rewritten
    }

    /// The channel's history as the last window, for a replica's first: its newest break.
    private func floorSegment(_ segments: [LiveSegment]) -> Numbered? {
        self.renditions[0] == nil ? self.floor : nil
    }

    /// Whether two views of a segment are the same segment: dates within half the shorter (drift).
    static func agree(_ segment: LiveSegment, _ known: Numbered, tolerance: Int) -> Bool {
        let difference = (segment.start - known.start).magnitude
        if difference == .zero { return true }
        let shorter = min(segment.duration, known.duration)
        // Other renditions' segments may start a frame or more apart: within a whole segment.
        return tolerance > 0 ? difference < max(shorter, ExactDecimal(1)) : difference * 2 < shorter
    }

    static func agree(_ segment: LiveSegment, _ known: Numbered) -> Bool { Self.agree(segment, known, tolerance: 0) }

    /// Whole seconds since the epoch of a date, when within 0–2⁵³.
    static func wholeSeconds(_ date: ExactDecimal) -> Int? {
        let unit = Int128(1_000_000_000_000_000_000)
        let seconds = date.scaledValue / unit
        guard date.scaledValue >= 0, seconds <= Int128(LiveLimits.maxSequence) else { return nil }
        return Int(seconds)
    }
}
