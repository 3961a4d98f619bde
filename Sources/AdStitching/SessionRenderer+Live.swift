import AdCampaign
import AdDecision
import AdLive
import HLSPlaylist

/// One segment's lines on their own (a live session lists part of an asset, or part of a
/// channel's window): the `EXT-X-MAP` and `EXT-X-KEY` lines in force at it, and its own lines
/// (`EXT-X-BYTERANGE`, `EXT-X-GAP`, `EXTINF`, URI), each ending in LF.
struct SegmentLines: Sendable, Hashable {
    let map: String?
    let keys: [String]
    let body: [UInt8]
    let duration: ExactDecimal
}

/// One rendition of a live channel as its poller has read it (docs/design-decisions.md "Live"),
/// its windows joined (``merging(_:keep:)``), made once per new window and shared by every
/// viewer's refresh: the dated segments, and each one's lines with its URIs made absolute against
/// the origin.
public struct LiveRenditionWindow: Sendable {
    public let segments: [LiveSegment]
    let lines: [SegmentLines]
    /// The EXT-X-VERSION its lines need.
    let version: Int
    public let targetDuration: Int

    private init(segments: [LiveSegment], lines: [SegmentLines], version: Int, targetDuration: Int) {
        self.segments = segments
        self.lines = lines
        self.version = version
        self.targetDuration = targetDuration
    }

    /// These segments from origin sequence `first` to `last` (both held, `first <= last`).
    func slice(_ first: Int, _ last: Int) -> LiveRenditionWindow? {
        guard let head = self.segments.first?.sequence, first >= head, last >= first, last - head < self.segments.count else { return nil }
        let range = (first - head)...(last - head)
        return LiveRenditionWindow(
            segments: Array(self.segments[range]),
            lines: Array(self.lines[range]),
            version: self.version,
            targetDuration: self.targetDuration
        )
    }

    /// This window with `newer` (a later window of the same rendition, as the channel numbers
    /// it) joined on: the segments before `newer`'s first kept, `newer`'s as they are — back to
    /// `keep` seconds (by durations) before the newest end. An origin's window is often shorter
    /// than what every replica must agree on, and replicas polling out of phase each saw a
    /// slightly different one: joined windows hold what each saw since, so the start of a
    /// viewer's window is a function of its end, not of the poll (docs/design-decisions.md
    /// "Live: the cut"). A window that does not reach this one (missed polls, a restart's
    /// renumbering) starts over from `newer`.
    func merging(_ newer: LiveRenditionWindow, keep: ExactDecimal) -> LiveRenditionWindow {
        guard self.isContinued(by: newer) else { return newer.trimmed(keep) }
        let (head, first) = (self.segments[0].sequence, newer.segments[0].sequence)
        let kept = first - head
        return LiveRenditionWindow(
            segments: Array(self.segments[..<kept]) + newer.segments,
            lines: Array(self.lines[..<kept]) + newer.lines,
            version: max(self.version, newer.version),
            targetDuration: newer.targetDuration
        ).trimmed(keep)
    }

    /// Whether `newer` carries these segments' numbers on: it starts within them or right after
    /// them (else the channel's numbers jumped, and ``merging(_:keep:)`` keeps `newer` alone).
    func isContinued(by newer: LiveRenditionWindow) -> Bool {
        guard let head = self.segments.first?.sequence, let tail = self.segments.last?.sequence, let first = newer.segments.first?.sequence else {
            return false
        }
        return first >= head && first <= tail + 1
    }

    /// The shortest tail of these segments that lasts `keep` seconds (all of them when shorter).
    private func trimmed(_ keep: ExactDecimal) -> LiveRenditionWindow {
        var start = self.segments.count
        var total = ExactDecimal.zero
        while start > 0, total < keep {
            start -= 1
            total += self.segments[start].duration
        }
        guard start > 0 else { return self }
        return LiveRenditionWindow(
            segments: Array(self.segments[start...]),
            lines: Array(self.lines[start...]),
            version: self.version,
            targetDuration: self.targetDuration
        )
    }

    /// How long after a segment was first seen a viewer's window may end with it
    /// (``LiveChannelTimeline/cut(at:)``): one and a half target durations — every replica polls
    /// every half target duration, so each has read the segment by then with a target duration to
    /// spare for a slow fetch; and the window's end then trails the live edge by at most three.
    public var holdBack: ExactDecimal { ExactDecimal(significand: 15 * self.targetDuration, exponent: 1) }

    /// How long a viewer's window is: six target durations — twice the three RFC 8216bis §6.2.2
    /// asks for — back from its last segment's end, so every replica that holds the same segments
    /// lists the same window.
    public var span: ExactDecimal {
        ExactDecimal(6 * self.targetDuration)
    }

    /// Nil when the window is empty or undated (live breaks and programme dates need dates).
    public init?(_ playlist: MediaPlaylist) {
        guard let segments = LiveSegment.segments(of: playlist), !segments.isEmpty else { return nil }
        let block = SegmentBlock(playlist, uris: .absolute, perSegment: true)
        self.segments = segments
        self.lines = block.segments
        self.version = block.version
        self.targetDuration = max(playlist.targetDuration ?? 1, block.maxRoundedDuration)
    }

    /// The lines of origin segment `sequence` (the window's numbers are consecutive).
    func lines(of sequence: Int) -> SegmentLines? {
        guard let first = self.segments.first?.sequence, sequence >= first, sequence - first < self.lines.count else { return nil }
        return self.lines[sequence - first]
    }

    /// Origin segment `sequence`, when in the window.
    public func segment(_ sequence: Int) -> LiveSegment? {
        guard let first = self.segments.first?.sequence, sequence >= first, sequence - first < self.segments.count else { return nil }
        return self.segments[sequence - first]
    }
}

/// A viewer's live session at one refresh: their plan, where they joined, and the fill of each
/// break they get (docs/design-decisions.md "Live").
public struct LiveSchedule: Sendable {
    public let plan: Plan
    public let live: LiveProgram
    /// The breaks that play as the viewer's fill, by id.
    public let fills: [String: LiveBreakFill]
    /// The breaks the channel knows, in order.
    public let breaks: [LiveBreak]
    /// The origin sequence number numbering starts replacing breaks at (``LiveNumbering``).
    public let replacingFrom: Int

    /// A break as a viewer gets it: the ads planned for it, then slate; pieces in play order.
    public struct LiveBreakFill: Sendable {
        public let adBreak: LiveBreak
        /// The ads and slate repeats, each whole, in order (what ends past the break is cut).
        public let pieces: [LivePiece]
        /// The segments on the numbering timeline (the first video variant's), in order.
        public let items: [LiveFill]
        /// Each item's start within the break.
        public let offsets: [ExactDecimal]
        /// The viewer joined while the break played: slate only (`join_mid_break: slate`).
        public let joinedMidBreak: Bool
        /// What the ads were planned for: the marker's duration, else `marker_breaks.duration`.
        public let nominalDuration: ExactDecimal
        /// A stall's fill written as `EXT-X-GAP` segments (`live_stall.fill: gap`).
        public let gap: Bool
    }

    public struct LivePiece: Sendable {
        /// Nil for the slate.
        public let ad: Ad?
        public let asset: Asset
        public let start: ExactDecimal
    }

    /// - Parameters:
    ///   - joined: the origin sequence number after the channel's last segment when the session
    ///     started (signed into its token): breaks that open from there are replaced.
    ///   - liveEdge: the end of the channel's published time (seconds since the epoch): an open
    ///     break's fill is made that long.
    ///   - decided: what the viewer's ad decision server chose for each break, by break id (the
    ///     layout holds their creatives): played first, then the fallback pools, then slate.
    ///   - clock: where every window is cut now (the clock less the hold-back) and the channel's
    ///     target duration: a stall break's fill runs to the cut, listed once the stall has lasted
    ///     `live_stall.after` target durations plus one (every replica's poller has seen it by
    ///     then); nil: stall breaks fill nothing.
    public init(
        plan: Plan,
        live: LiveProgram,
        layout: StitchLayout,
        breaks: [LiveBreak],
        joined: Int,
        liveEdge: ExactDecimal,
        decided: [String: [Ad]] = [:],
        clock: (cutoff: ExactDecimal, targetDuration: Int)? = nil
    ) throws(StitchError) {
        self.plan = plan
        self.live = live
        self.breaks = breaks
        // The break airing when the viewer joined: its rest is slate, or the channel's own.
        let airing = breaks.first { $0.first < joined && ($0.closing?.end ?? .max) >= joined }
        let midBreak = live.joinMidBreak == .slate ? airing : nil
        self.replacingFrom = midBreak?.first ?? joined
        var fills: [String: LiveBreakFill] = [:]
        for adBreak in breaks where adBreak.first >= self.replacingFrom {
            // Both bounded by LiveLimits.maxBreakDuration: an open break whose origin's dates jump
            // (or a history row from before the bound) must not fill days of slate per refresh.
            var needed = adBreak.replacedDuration ?? min(max(.zero, liveEdge - adBreak.start), LiveLimits.maxBreakDuration)
            // A stall's fill: only what the clock has reached (every replica cuts at the same one).
            var reached: ExactDecimal?
            if adBreak.kind == .stall {
                // Nothing until the stall has lasted `after` + 1 target durations, then up to the
                // cut; once closed (as the cut knows it: the window has reached its end, so the
                // cut has passed it), its whole length — whatever the clock does after (an
                // origin's dates going back move the cut back).
                var cut = ExactDecimal.zero
                if let clock, clock.cutoff >= adBreak.start + ExactDecimal(((live.stall?.after ?? 3) - 1) * clock.targetDuration) {
                    cut = clock.cutoff - adBreak.start
                }
                let limit = min(adBreak.replacedDuration ?? cut, LiveLimits.maxBreakDuration)
                reached = limit
                needed = limit
            }
            let nominal = Self.plannedDuration(adBreak, live: live) ?? min(needed, LiveLimits.maxBreakDuration)
            let pieces = Self.pieces(
                adBreak,
                plan: plan,
                live: live,
                nominal: nominal,
                upTo: needed,
                ads: adBreak.id != midBreak?.id && adBreak.kind == .marker,
                decided: decided[adBreak.id] ?? []
            )
            var items: [LiveFill] = []
            var offsets: [ExactDecimal] = []
            var offset = ExactDecimal.zero
            pieces: for (index, piece) in pieces.enumerated() {
                // The numbering follows the first video variant; the layout checked every
                // rendition of a live campaign's assets has its segments.
                for (position, segment) in try layout.block(piece.asset, 0).segments.enumerated() {
                    if let reached, offset + segment.duration > reached { break pieces }
                    items.append(LiveFill(duration: segment.duration, piece: index, index: position))
                    offsets.append(offset)
                    offset += segment.duration
                }
            }
            fills[adBreak.id] = LiveBreakFill(
                adBreak: adBreak,
                pieces: pieces,
                items: items,
                offsets: offsets,
                joinedMidBreak: adBreak.id == midBreak?.id,
                // A stall plans nothing: what it is is what the clock has listed of it.
                nominalDuration: adBreak.kind == .stall ? offset : nominal,
                gap: adBreak.kind == .stall && live.stall?.fill == .gap
            )
        }
        self.fills = fills
    }

    /// A break's pieces as a viewer gets them: with `ads`, the ads planned for `nominal` seconds
    /// (`decided` first: what the viewer's ad decision server chose), then slate repeats until
    /// `needed` seconds are filled (a slate the loader accepted lasts more than 0 s) — the one
    /// home of a live break's fill, stitched (``LiveSchedule``) or as an asset list
    /// (``SessionRenderer/liveAssetList(_:live:adBreak:decided:startOffset:trackers:base:)``).
    public static func pieces(
        _ adBreak: LiveBreak,
        plan: Plan,
        live: LiveProgram,
        nominal: ExactDecimal,
        upTo needed: ExactDecimal,
        ads: Bool,
        decided: [Ad]
    ) -> [LivePiece] {
        var pieces: [LivePiece] = []
        var total = ExactDecimal.zero
        if ads {
            let planned = Planner().fill(live.adBreak(id: adBreak.id, duration: nominal), for: plan, decided: decided)
            for ad in planned.ads {
                pieces.append(LivePiece(ad: ad, asset: ad.asset, start: total))
                total += ad.asset.duration
            }
        }
        if let slate = plan.campaign.slate, slate.duration > .zero {
            while total < needed {
                pieces.append(LivePiece(ad: nil, asset: slate, start: total))
                total += slate.duration
            }
        }
        return pieces
    }

    /// What a break's ads are planned for (and its ad server asked for): its marker's duration,
    /// else `marker_breaks.duration`; nil when neither says, and the fill runs to the live edge.
    public static func plannedDuration(_ adBreak: LiveBreak, live: LiveProgram) -> ExactDecimal? {
        (adBreak.duration ?? live.defaultDuration).map { min($0, LiveLimits.maxBreakDuration) }
    }

    /// A rendition's window numbered for this viewer.
    public func window(_ window: LiveRenditionWindow) -> LiveWindow {
        LiveNumbering.window(window.segments, breaks: self.breaks, joined: self.replacingFrom, span: window.span) {
            self.fills[$0.id]?.items ?? []
        }
    }
}

extension SessionRenderer {
    /// A viewer's live media playlist of one rendition (docs/design-decisions.md "Live"): the
    /// channel's window with the breaks the viewer gets replaced by their fill; media and
    /// discontinuity sequence numbers from ``LiveNumbering``; the origin's dates on programme
    /// segments, the break's date plus the fill's offset on ads; the map and keys stated after
    /// every discontinuity and wherever they change; no `EXT-X-ENDLIST`.
    ///
    /// With `beacons` (server-side reporting), a video rendition's segments where a filled ad's
    /// tracked events fall are listed by their beacon links, placed by the break's id and the
    /// ad's place in its fill (``BeaconPlace/live(_:_:)``): the same segments as a stitched
    /// session's (``BeaconEvents/schedule(_:durations:)`` over the ad's whole length, so an ad a
    /// break's early end cuts short never reaches its later events).
    public func livePlaylist(
        _ schedule: LiveSchedule,
        rendition: StitchRendition,
        window: LiveRenditionWindow,
        beacons: BeaconLinks? = nil
    ) throws(StitchError) -> RenderedBytes {
        guard let index = self.layout.renditions.firstIndex(of: rendition) else {
            throw .notInLayout(rendition: rendition.id, "rendition \(rendition.id) is not part of this campaign")
        }
        let numbered = schedule.window(window)
        let campaign = schedule.plan.campaign
        // The layout's target duration covers every ad and the slate in this rendition.
        let target = max(self.layout.targetDurations[index], window.targetDuration)
        var version = window.version
        for fill in schedule.fills.values {
            for piece in fill.pieces { version = max(version, try self.layout.block(piece.asset, index).version) }
        }
        var playlist = PlaylistComposer(
            PlaylistComposer.Header(
                version: version,
                targetDuration: target,
                sequence: (numbered.mediaSequence, numbered.discontinuitySequence),
                independentSegments: self.layout.program.multivariant.hasIndependentSegments
            ),
            literalCapacity: 256 + numbered.entries.count * 160,
            parts: 1
        )
        let cue = campaign.markers.contains(.cue)
        if campaign.markers.contains(.daterange) {
            // RFC 8216bis §4.4.5.1: one per break in the window, the same attributes on every
            // refresh but DURATION, added once the break has closed.
            var listed: Set<String> = []
            for entry in numbered.entries {
                guard case .fill(let breakID, _, _) = entry.item, listed.insert(breakID).inserted, let fill = schedule.fills[breakID],
                    fill.adBreak.kind == .marker
                else {
                    continue  // a stall is no ad break: players are not told of one
                }
                playlist.tags { Self.liveDateRange(fill, into: &$0) }
            }
        }
        var video = false
        if case .video = rendition.kind { video = true }
        // Each tracked ad's event segments, by its place: worked out once per playlist.
        var eventSegments: [BeaconPlace: [Int: BeaconEvents]] = [:]
        for (position, entry) in numbered.entries.enumerated() {
            var lines: SegmentLines
            let date: ExactDecimal
            switch entry.item {
            case .programme(let sequence):
                guard let found = window.lines(of: sequence), let segment = window.segment(sequence) else { continue }
                lines = found
                date = segment.start
                if cue, position > 0,
                    schedule.breaks.contains(where: { $0.closing?.end == sequence && $0.kind == .marker && schedule.fills[$0.id] != nil })
                {
                    playlist.tags { TagBytes.cueIn(into: &$0) }
                }
            case .fill(let breakID, let itemPosition, let item):
                guard let fill = schedule.fills[breakID] else { continue }
                let block = try self.layout.block(fill.pieces[item.piece].asset, index)
                lines = block.segments[item.index]
                if let beacons, video, let ad = fill.pieces[item.piece].ad, case let tracked = BeaconEvents(tracking: ad.tracking),
                    !tracked.isEmpty
                {
                    let place = BeaconPlace.live(breakID, item.piece)
                    if eventSegments[place] == nil {
                        eventSegments[place] = BeaconEvents.schedule(tracked, durations: block.segments.map(\.duration))
                    }
                    if let events = eventSegments[place]?[item.index] {
                        lines = lines.replacingURI { beacons.link(place, events, $0) }
                    }
                }
                date = fill.adBreak.start + fill.offsets[itemPosition]
                if cue, itemPosition == 0, fill.adBreak.kind == .marker {
                    let duration = fill.nominalDuration
                    playlist.tags { TagBytes.cueOut(duration: duration, into: &$0) }
                }
                if fill.gap { playlist.tags { TagBytes.gap(into: &$0) } }  // RFC 8216bis §4.4.4.7: the slate's timing, nothing fetched
            }
            playlist.segment(lines, discontinuity: entry.isDiscontinuity, at: Self.milliseconds(0, plus: date))
        }
        return playlist.finish()
    }

    /// `EXT-X-DATERANGE` of a live break: its id, start date on the channel's timeline, planned
    /// duration, and once it has closed the duration the viewer's fill runs.
    private static func liveDateRange(_ fill: LiveSchedule.LiveBreakFill, into output: inout [UInt8]) {
        TagBytes.dateRange(
            id: CollectionOfOne(fill.adBreak.id),
            class: "com.adstitch.break",
            start: Self.milliseconds(0, plus: fill.adBreak.start),
            duration: fill.adBreak.replacedDuration,
            plannedDuration: fill.nominalDuration,
            into: &output
        ) { TagBytes.quotedList("X-AD-ID", fill.pieces.compactMap { $0.ad?.id }, into: &$0) }
    }
}
