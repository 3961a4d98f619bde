import AdCampaign
import AdLive
import HLSPlaylist

/// One replica's view of a live channel (docs/design-decisions.md "Live: the cut"): each
/// rendition's windows as the channel numbers them, joined (``LiveRenditionWindow/merging(_:keep:)``);
/// the channel's breaks (its ``LiveBreakTracker``); and when each segment was first seen, which
/// sets the channel's clock. Pure: the poller (`LiveChannel`) feeds it what it fetched and when,
/// and shares the sightings through the break history; tests drive replicas of it at simulated
/// times.
///
/// The clock: an origin's program date-times may be hours off the wall clock (an encoder's clock
/// set wrong, or content time), or jump; cut against the wall clock, such a window keeps nothing
/// back and replicas polling out of phase end it at different segments. So the channel's clock is
/// the wall clock moved onto the origin's dates (``date(at:)``): by the largest difference any
/// segment showed between its end date and when it was first seen — the earliest sighting of
/// each, shared through PostgreSQL, so every replica reads the same clock. It goes back only
/// where the origin's dates do (by as much: the dates say it alike on every replica), and a
/// segment published late (an origin catching up after a stall) does not move it: cut on it,
/// windows stay on the dates breaks and fills are placed by. A window's start is then a function
/// of its end and of the segments' durations, which every replica holding the joined windows
/// agrees on.
public struct LiveChannelTimeline: Sendable {
    public private(set) var tracker: LiveBreakTracker
    /// Each rendition's joined windows, in the poller's order; nil until one is accepted.
    public private(set) var windows: [LiveRenditionWindow?]
    /// Each rendition's joined windows before its numbers jumped (an origin restart, numbers gone
    /// ahead): viewers' windows are cut from them until a segment after the jump is due on the
    /// channel's clock, as every replica's are (one that has not read the jump yet cuts there too).
    private var superseded: [LiveRenditionWindow?]
    /// When each segment of the first rendition was first seen, by its channel number: seconds
    /// since the epoch on the wall clock (this replica's sightings, lowered to any earlier one the
    /// history shares).
    public private(set) var seen: [Int: ExactDecimal] = [:]
    /// The first rendition's `EXT-X-TARGETDURATION`, within ``LiveLimits/targetDurations``.
    public private(set) var targetDuration = 6
    /// The origin's dates less the wall clock, as in force: the largest of any segment's end less
    /// its first sighting, once a hold-back has passed since that sighting (nil before the first).
    /// Lowered only where the origin's dates go back.
    public private(set) var offset: ExactDecimal?
    /// Raises of ``offset`` not in force yet, by segment: its end less its sighting, from a
    /// hold-back after the sighting — by then every replica has read the earliest sighting through
    /// the shared history, so every replica moves the clock at the same moment (an origin whose
    /// dates jump ahead moves it at once by the jump).
    private var raises: [Int: (at: ExactDecimal, value: ExactDecimal)] = [:]
    /// How long ended breaks are remembered (no older session plays); nil: always.
    let retention: ExactDecimal?
    /// When the first rendition's previous window was accepted: no segment new since was seen before.
    private var lastAccepted: ExactDecimal?
    /// How far the origin's dates went back at each segment of the joined window that starts before
    /// the previous one ends (the clock went back as much there).
    private var setBack: [Int: ExactDecimal] = [:]

    public init(renditions: Int, tracker: LiveBreakTracker, retention: ExactDecimal? = nil) {
        self.tracker = tracker
        self.windows = Array(repeating: nil, count: renditions)
        self.superseded = Array(repeating: nil, count: renditions)
        self.retention = retention
    }

    /// What became of a window offered to ``accept(_:rendition:at:)``.
    public struct Acceptance: Sendable {
        /// The window as the channel numbers it; nil when it is not used (``refusal``).
        public var playlist: MediaPlaylist?
        /// Why it is not used: the last window keeps serving.
        public var refusal: String?
        /// What the numbering changed (a restart), for the log.
        public var note: String?
        /// Breaks that opened or closed (the first rendition's markers).
        public var changed: [LiveBreak] = []
        /// Segments first seen now (by channel number), for the shared history.
        public var sightings: [Int: ExactDecimal] = [:]
    }

    /// Takes rendition `index`'s window as fetched at `now` (wall-clock seconds): every number
    /// checked (``LiveLimits``), numbered by the channel (``LiveOriginSequencer``), joined to
    /// what was read before; the first rendition's also dates its new segments' sightings and
    /// feeds the break tracker.
    public mutating func accept(_ playlist: MediaPlaylist, rendition index: Int, at now: ExactDecimal) -> Acceptance {
        guard self.windows.indices.contains(index) else { return Acceptance(refusal: "no rendition \(index)") }
        if let problem = LiveLimits.problem(in: playlist) { return Acceptance(refusal: "window refused: \(problem)") }
        let sequenced = self.tracker.sequencer.sequence(playlist, rendition: index)
        guard let numbered = sequenced.playlist else { return Acceptance(refusal: "window not used: \(sequenced.note ?? "")", note: sequenced.note) }
        guard let window = LiveRenditionWindow(numbered) else {
            return Acceptance(refusal: "the window has no dated segment (EXT-X-PROGRAM-DATE-TIME)")
        }
        var acceptance = Acceptance(playlist: numbered, note: sequenced.note)
        if let old = self.windows[index] {
            if !old.isContinued(by: window) { self.superseded[index] = old }
            self.windows[index] = old.merging(window, keep: self.keep(window))
        } else {
            self.windows[index] = window
        }
        guard index == 0 else { return acceptance }
        self.targetDuration = min(
            max(numbered.targetDuration ?? self.targetDuration, LiveLimits.targetDurations.lowerBound),
            LiveLimits.targetDurations.upperBound
        )
        // A new segment was first seen now — or, when several are new at once, each a segment's
        // duration before the next (the origin published them in turn), never before the last
        // window without it.
        var after = ExactDecimal.zero
        for segment in window.segments.reversed() {
            defer { after += segment.duration }
            guard self.seen[segment.sequence] == nil else { continue }
            var sighted = now - after
            if let previous = self.lastAccepted { sighted = max(sighted, previous) }
            self.seen[segment.sequence] = sighted
            acceptance.sightings[segment.sequence] = sighted
        }
        // In play order: where the origin's dates go back against the segment before (a clock
        // set back, or EXTINFs longer than the dates step), the clock goes back with them — by
        // the dates alone, so every replica moves it alike; else each segment's end less its
        // sighting may only move it on.
        if let joined = self.windows[0] {
            for (segment, sighted) in acceptance.sightings.sorted(by: { $0.key < $1.key }).compactMap({ item in
                joined.segment(item.key).map { ($0, item.value) }
            }) {
                if let previous = joined.segment(segment.sequence - 1), segment.start < previous.end {
                    let back = previous.end - segment.start
                    self.setBack[segment.sequence] = back
                    self.offset = self.offset.map { $0 - back }
                    for (sequence, raise) in self.raises where sequence < segment.sequence {
                        self.raises[sequence] = (raise.at, raise.value - back)
                    }
                }
                self.raises[segment.sequence] = (sighted + joined.holdBack, segment.end - sighted)
            }
        }
        self.lastAccepted = now
        // The raises now in force.
        for (sequence, raise) in self.raises where raise.at <= now {
            self.offset = max(self.offset ?? raise.value, raise.value)
            self.raises[sequence] = nil
        }
        if let reference = self.windows[0], let oldest = reference.segments.first, oldest.end <= self.date(at: now) - reference.holdBack {
            self.superseded = Array(repeating: nil, count: self.superseded.count)
        }
        // What neither the joined windows nor those before a jump hold is forgotten.
        if let first = [self.windows[0], self.superseded[0]].compactMap({ $0?.segments.first?.sequence }).min() {
            self.seen = self.seen.filter { $0.key >= first }
            self.setBack = self.setBack.filter { $0.key >= first }
        }
        acceptance.changed = self.tracker.observe(numbered, now: self.date(at: now))
        if let retention = self.retention, let edge = window.segments.last?.end {
            self.tracker.forget(endedBefore: edge - retention)
        }
        return acceptance
    }

    /// What to keep of a rendition's joined windows: a viewer's window and its hold-back, with
    /// two target durations to spare — and as long again as the origin's window, which an origin
    /// catching up may publish at once: its segments are due only a hold-back later
    /// (``newestDue(in:cutoff:now:sightings:)``, for the primary playlists), and until then viewers' windows end before them, starting
    /// where every replica's do.
    private func keep(_ window: LiveRenditionWindow) -> ExactDecimal {
        window.span + window.holdBack + ExactDecimal(2 * window.targetDuration) + window.segments.map(\.duration).sum()
    }

    /// Other replicas' sightings (the shared history's): each segment's earliest is kept, and the
    /// clock moves on by any earlier one.
    public mutating func share(_ sightings: [Int: ExactDecimal]) {
        guard let reference = self.windows[0] else { return }
        for (sequence, time) in sightings {
            if let known = self.seen[sequence], known <= time { continue }
            guard let segment = reference.segment(sequence) else { continue }
            self.seen[sequence] = time
            // Less what the clock went back since that segment.
            let since = self.setBack.reduce(ExactDecimal.zero) { $0 + ($1.key > sequence ? $1.value : .zero) }
            self.raises[sequence] = (time + reference.holdBack, segment.end - time - since)
        }
    }

    /// Wall-clock `now` on the origin's dates (``offset``): where the channel is now. Windows are
    /// cut, stalls opened and their fills measured on it, so dates hours off the wall clock stall
    /// nothing (nor fail to), and replicas out of phase cut at the same date.
    public func date(at now: ExactDecimal) -> ExactDecimal {
        var offset = self.offset
        for raise in self.raises.values where raise.at <= now || self.offset == nil {
            // Before any is in force (a replica's first window): every one.
            offset = max(offset ?? raise.value, raise.value)
        }
        return now + (offset ?? .zero)
    }

    /// Opens a stall break when the channel's clock has passed the newest segment's end by
    /// `live_stall.after` target durations (``LiveBreakTracker/stall(now:)`` on ``date(at:)``).
    public mutating func stall(at now: ExactDecimal) -> LiveBreak? {
        self.tracker.stall(now: self.date(at: now))
    }

    /// The shared history's record of a stall's closing (``LiveBreakTracker/confirm(_:)``).
    public mutating func confirm(_ stored: [LiveBreak]) {
        self.tracker.confirm(stored)
    }

    /// The shared history's breaks, merged into what this replica saw (``LiveBreakTracker/merge(history:)``).
    public mutating func merge(history: [LiveBreak]) {
        self.tracker.merge(history: history)
    }

    /// A viewer's refresh as every replica answers it at one instant (``cut(at:)``).
    public struct Cut: Sendable {
        /// Every rendition's window, listing the same numbers.
        public let windows: [LiveRenditionWindow?]
        /// Where the windows are cut on the origin's dates (stall fills reach it) and the channel's
        /// target duration.
        public let clock: (cutoff: ExactDecimal, targetDuration: Int)
        /// The channel's breaks as the windows know them: a closing read from segments past the
        /// cut is not known yet (an open break's fill runs to the window's end instead).
        public let breaks: [LiveBreak]
    }

    /// Every rendition's window as a viewer's refresh at `now` lists it, the same on every replica
    /// that holds the segments: it ends at the first rendition's newest segment that ends a
    /// hold-back before the channel's clock (``date(at:)``), starts where the segments since last
    /// the span, and every rendition lists those numbers. After the channel's
    /// numbers jumped, the windows from before the jump until a segment after it is due; the oldest
    /// segment alone while none is due (a fresh channel).
    ///
    /// The breaks are cut too: a replica that has read a break's CUE-IN lists its closed fill whole,
    /// one that has not yet lists it to the window's end; so a closing counts from the refresh whose
    /// window reaches the break's last segment, on every replica alike.
    ///
    /// `sightings`: each segment is due a hold-back after its first sighting too
    /// (``newestDue(in:cutoff:now:sightings:)``) — a live channel's primary playlists, the same
    /// bytes on every replica even while an origin catches up.
    public func cut(at now: ExactDecimal, sightings: Bool = false) -> Cut {
        let published = self.tracker.published
        guard let current = self.windows[0] else {
            return Cut(windows: self.windows, clock: (self.date(at: now), self.targetDuration), breaks: published)
        }
        let cutoff = self.date(at: now) - current.holdBack
        let clock = (cutoff, current.targetDuration)
        var reference = current
        var last = self.newestDue(in: current, cutoff: cutoff, now: now, sightings: sightings)
        if last == nil, let old = self.superseded[0], let index = self.newestDue(in: old, cutoff: cutoff, now: now, sightings: sightings) {
            (reference, last) = (old, index)
        }
        // Nothing due yet (a channel's first segments): its oldest segment, which every replica
        // read (a fresh origin's first window holds it), and no more.
        let due = last ?? 0

        // Back from there by the span, by durations (dates may jump inside a window; the
        // viewer's entries are bounded by dates again, fills included: LiveNumbering).
        var first = due
        var total = reference.segments[due].duration
        while first > 0, total + reference.segments[first - 1].duration <= reference.span {
            first -= 1
            total += reference.segments[first].duration
        }
        let (from, to) = (reference.segments[first].sequence, reference.segments[due].sequence)
        let windows = self.windows.indices.map { index -> LiveRenditionWindow? in
            // Each rendition's joined windows, or those before its own jump: whichever holds the range.
            for window in [self.windows[index], self.superseded[index]].compactMap({ $0 }) {
                guard let head = window.segments.first?.sequence, let tail = window.segments.last?.sequence, head <= to, tail >= from else {
                    continue
                }
                if let slice = window.slice(max(from, head), min(to, tail)) { return slice }
            }
            return self.windows[index]
        }
        return Cut(windows: windows, clock: clock, breaks: self.known(published, from: from, through: to, cutoff: cutoff))
    }

    /// The index of `window`'s newest segment that ends by `cutoff` — each on the clock as it
    /// stood when the segment was new (where the origin's dates went back since, the segment is
    /// compared that much later).
    ///
    /// With `sightings`, also first seen (the earliest sighting, shared) a hold-back before `now`.
    /// By its date alone, a segment published late — an origin catching up after a stall
    /// publishes a run of them at once — is due at once on whichever replica read it first, while
    /// one that has not polled since cuts before it: viewers' windows differ for a poll, which a
    /// stitched session's numbering bears (its numbers never go back) but a live interstitial
    /// session's primary playlist, which a CDN keeps for every viewer, must not. A hold-back after
    /// its earliest sighting every replica has read the segment and that sighting. A segment
    /// published on time is due by its date a poll at most earlier than by its sighting.
    private func newestDue(in window: LiveRenditionWindow, cutoff: ExactDecimal, now: ExactDecimal, sightings: Bool) -> Int? {
        var since = ExactDecimal.zero
        for index in window.segments.indices.reversed() {
            let segment = window.segments[index]
            if segment.end <= cutoff + since, !sightings || self.seen[segment.sequence].map({ $0 + window.holdBack <= now }) ?? true {
                return index
            }
            since += self.setBack[segment.sequence] ?? .zero
        }
        return nil
    }

    /// The breaks as a window from segment `first` to `last`, cut at `cutoff`, knows them: a closing is
    /// left out while the break's last segment is past the window, or — a stall's, whose fill runs
    /// on the clock — while the cut has not reached its end (each on the clock as it stood at the
    /// break: ``setBack``).
    private func known(_ breaks: [LiveBreak], from first: Int, through last: Int, cutoff: ExactDecimal) -> [LiveBreak] {
        breaks.map { adBreak in
            // One that ended before the window is known whatever the clock says now.
            guard let closing = adBreak.closing, closing.end > first else { return adBreak }
            let since = self.setBack.reduce(ExactDecimal.zero) { $0 + ($1.key > adBreak.first ? $1.value : .zero) }
            guard closing.end - 1 > last || (adBreak.kind == .stall && closing.time > cutoff + since) else { return adBreak }
            var open = adBreak
            open.closing = nil
            return open
        }
    }

    /// Whether this replica's first rendition holds a whole viewer's window and its hold-back:
    /// before that (a replica started on an origin whose window is shorter) its viewers' windows
    /// start later than other replicas' (`/readyz` says so, and a balancer waits).
    public var isWarm: Bool {
        guard let reference = self.windows[0] else { return false }
        return reference.segments.map(\.duration).sum() >= reference.span + reference.holdBack
    }
}
