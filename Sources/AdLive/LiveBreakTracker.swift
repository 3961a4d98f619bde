import AdCampaign
import HLSPlaylist

/// A live channel's breaks, from its origin's successive windows of one rendition (the first
/// video variant): what the break history keeps (docs/design-decisions.md "Live"). Live breaks
/// replace the marked stretch; they come from the markers `AdMarkerScan` reads (CUE-OUT/CUE-IN,
/// DATERANGE SCTE35-OUT/IN, SCTE-35 splice_insert and time_signal), seen again in every window
/// until they leave it, so every event is idempotent.
///
/// - A break opens at the segment its opening marker stands before; its id is the marker's (a
///   DATERANGE `ID`, `scte-<event id>`) or `seq-<origin sequence number>` — the same on every
///   replica polling the same origin.
/// - It closes where its end marker stands, or, without one, at the first segment that starts
///   once its duration (the marker's, else `marker_breaks`') has elapsed; a new opening closes
///   the open break where it stands.
/// - An end without an opening, an insertion point, or SCTE-35 that does not decode is a
///   problem: reported, and the break ignored.
public struct LiveBreakTracker: Sendable {
    public private(set) var breaks: [LiveBreak] = []
    /// What the last window had that could not be used, one message each.
    public private(set) var problems: [String] = []
    /// A break's duration when its marker gives none (`marker_breaks.duration`).
    public let defaultDuration: ExactDecimal?
    /// The channel's numbering of its origin's windows: the poller numbers every window with it
    /// before ``observe(_:)`` reads it (kept here, with the breaks it numbers, so a replica's
    /// numbering starts after the history's newest break).
    public var sequencer = LiveOriginSequencer()
    /// The durations of open breaks, by id.
    private var durations: [String: ExactDecimal] = [:]
    /// Ends of breaks never seen open, already reported; openings on served segments, likewise.
    private var ignoredEnds: Set<Int> = []
    private var ignoredOpenings: Set<Int> = []
    /// The newest segment of the last window read: viewers may have been served everything up to
    /// it, so no break opens or closes at or before it (that would renumber what was served).
    private var edge: Int?
    /// The latest end of the open break's segments seen so far: its closing is never earlier, so
    /// every fill segment listed while it was open stays listed (dates that go back inside a break).
    private var reach: ExactDecimal?
    /// ``breaks`` indexed: by id, by first segment; the segments ends stand at (closings, and end
    /// markers already handled), so each marker costs O(1) however many breaks a window holds.
    private var byID: [String: Int] = [:]
    private var byFirst: [Int: Int] = [:]
    private var ends: Set<Int> = []
    /// `live_stall.after`: target durations the newest segment may stand before a stall break
    /// opens (``stall(now:)``); nil: a standing origin opens none.
    public var stallAfter: Int?
    /// Whether a stall break's closing waits for the shared history's word (``confirm(_:)``)
    /// before viewers see it: set where replicas share a history, since the closing depends on
    /// when each poller saw the origin move again, and the first one recorded wins.
    public var confirmsStallClosings = false
    /// Stall breaks closed here that the history has not confirmed: open for viewers till then.
    public private(set) var unconfirmed: Set<String> = []
    /// The newest segment of the last window read, and the window's target duration.
    private var newest: LiveSegment?
    private var targetDuration = 6

    public init(defaultDuration: ExactDecimal? = nil, history: [LiveBreak] = []) {
        self.defaultDuration = defaultDuration
        self.breaks = history.sorted { $0.first < $1.first }
        // A break the history has open closes at its duration here too.
        for open in self.breaks where open.closing == nil {
            if let duration = open.duration ?? defaultDuration { self.durations[open.id] = duration }
        }
        self.reindex()
    }

    /// Adds the breaks of `history` this tracker does not know (by id) — those a replica read from
    /// the shared history after it started polling (the database was away at start); what it saw
    /// itself stays as it saw it.
    public mutating func merge(history: [LiveBreak]) {
        let added = history.filter { self.byID[$0.id] == nil }
        guard !added.isEmpty else { return }
        self.breaks = (self.breaks + added).sorted { $0.first < $1.first }
        for open in added where open.closing == nil {
            if let duration = open.duration ?? self.defaultDuration { self.durations[open.id] = duration }
        }
        self.reindex()
    }

    /// The open break, if any.
    public var open: LiveBreak? { self.breaks.last.flatMap { $0.closing == nil ? $0 : nil } }

    /// Reads one window of the origin, numbered by ``sequencer``; returns the breaks it opened or
    /// closed (for the history).
    ///
    /// `now` (seconds since the epoch, the channel's clock) places the end of an open stall break
    /// (``stall(now:)``); without it the break ends at the first segment published again.
    @discardableResult
    public mutating func observe(_ playlist: MediaPlaylist, now: ExactDecimal? = nil) -> [LiveBreak] {
        self.problems = []
        guard let segments = LiveSegment.segments(of: playlist), let newest = segments.last else {
            if !playlist.segments.isEmpty {
                self.problems.append("the window has no segment with EXT-X-PROGRAM-DATE-TIME before its first undated one; live breaks need dates")
            }
            return []
        }
        defer {
            self.edge = max(self.edge ?? newest.sequence, newest.sequence)
            if newest.sequence >= self.newest?.sequence ?? .min { self.newest = newest }
        }
        if let target = playlist.targetDuration { self.targetDuration = target }
        let served = self.edge ?? Int.min
        var changed: [String] = []
        if let open = self.open, open.kind == .stall, segments.contains(where: { $0.sequence >= open.first }) {
            self.closeStall(open, in: segments, now: now)
            changed.append(open.id)
        }
        let scan = AdMarkerScan(playlist)
        self.problems += scan.problems.map { "line \($0.line): \($0.message); that marker is ignored" }
        for marker in scan.markers where marker.segment < segments.count {
            let segment = segments[marker.segment]
            if let last = self.breaks.last, last.kind == .stall, segment.sequence < last.closing?.end ?? .max {
                continue  // on what a stall's fill stands for: the viewers never see it
            }
            switch marker.event {
            case .out(let id, let announced):
                // A marker's duration is checked where it enters (LiveLimits): never negative, at most an hour.
                let (duration, durationProblem) = LiveLimits.breakDuration(announced)
                if let index = self.byFirst[segment.sequence] {
                    if self.durations[self.breaks[index].id] == nil, self.breaks[index].closing == nil, let duration {
                        self.durations[self.breaks[index].id] = duration
                    }
                    continue
                }
                guard self.breaks.last.map({ segment.sequence > $0.first }) ?? true else { continue }  // an older break's marker
                guard segment.sequence > served else {
                    // A marker on a segment viewers may have played as programme: opening there
                    // would renumber it. Reported once.
                    if self.ignoredOpenings.insert(segment.sequence).inserted {
                        self.problems.append(
                            "line \(marker.line): a break starts at segment \(segment.sequence), already served as programme; ignored"
                        )
                    }
                    continue
                }
                if let open = self.open {
                    // Back to back: the open break ends where the next starts.
                    guard segment.sequence > open.first else { continue }
                    self.close(open.id, at: segment, in: segments)
                    changed.append(open.id)
                }
                var breakID = id ?? "seq-\(segment.sequence)"
                if self.byID[breakID] != nil { breakID += "-\(segment.sequence)" }
                if self.byID[breakID] != nil { continue }  // an id taken twice over: the marker is ignored
                self.breaks.append(
                    LiveBreak(
                        id: breakID,
                        first: segment.sequence,
                        start: segment.start,
                        enteringDiscontinuity: segment.discontinuitySequence - (segment.isDiscontinuity ? 1 : 0),
                        duration: duration
                    )
                )
                self.byID[breakID] = self.breaks.count - 1
                self.byFirst[segment.sequence] = self.breaks.count - 1
                self.reach = nil
                if let duration = duration ?? self.defaultDuration { self.durations[breakID] = duration }
                if let durationProblem { self.problems.append("line \(marker.line): \(durationProblem)") }
                changed.append(breakID)
            case .in:
                if self.ends.contains(segment.sequence) { continue }  // seen already
                guard let open = self.open, segment.sequence >= open.first else {
                    // The end of a break this tracker never saw open (it started before the first
                    // window it read): reported once, however many windows still show it.
                    if self.ignoredEnds.insert(segment.sequence).inserted {
                        self.problems.append("line \(marker.line): a break ends at segment \(segment.sequence) but none is open; ignored")
                    }
                    continue
                }
                if segment.sequence == open.first, open.first > served {
                    // Opened and closed at one place, in this window: an insertion point, which live breaks are not.
                    self.breaks.removeLast()
                    self.byID[open.id] = nil
                    self.byFirst[open.first] = nil
                    self.durations[open.id] = nil
                    self.ends.insert(segment.sequence)
                    changed.removeAll { $0 == open.id }
                    self.problems.append(
                        "line \(marker.line): break \(open.id) ends where it starts; live breaks replace a stretch, so it is ignored"
                    )
                    continue
                }
                // An end on a segment already served (late, or where the break started) ends the
                // break at the first segment not served yet; none in this window: the next one.
                // (The window's numbers are consecutive: found by index, so 10,000 ends cost 10,000 steps.)
                let position = max(segment.sequence, served == .min ? segment.sequence : served + 1, open.first + 1) - segments[0].sequence
                guard position >= 0, position < segments.count else { continue }
                let end = segments[position]
                self.ends.insert(segment.sequence)
                self.close(open.id, at: end, in: segments)
                changed.append(open.id)
            case .point:
                self.problems.append("line \(marker.line): a placement opportunity; live breaks replace a marked stretch, so it is ignored")
            }
        }
        // An open break whose duration has elapsed within the window closes at the first segment
        // after it not served yet.
        if let open = self.open, let duration = self.durations[open.id],
            let end = segments.first(where: { $0.sequence > open.first && $0.sequence > served && $0.start >= open.start + duration })
        {
            self.close(open.id, at: end, in: segments)
            changed.append(open.id)
        }
        if let open = self.open {
            for segment in segments where segment.sequence >= open.first { self.reach = max(self.reach ?? segment.end, segment.end) }
        }
        return changed.isEmpty ? [] : Set(changed).compactMap { id in self.byID[id].map { self.breaks[$0] } }.sorted { $0.first < $1.first }
    }

    /// Opens a stall break when `live_stall` is set, no break is open and the newest segment read
    /// ended `stallAfter` target durations before `now` (seconds since the epoch, the channel's
    /// clock): `stall-<n>` at `n`, the sequence number after the newest segment, starting at its
    /// end — the same on every replica that read the same window, whenever its poller noticed.
    /// Returns the break opened.
    public mutating func stall(now: ExactDecimal) -> LiveBreak? {
        guard let after = self.stallAfter, self.open == nil, let newest = self.newest,
            now >= newest.end + ExactDecimal(after * self.targetDuration)
        else { return nil }
        let id = "stall-\(newest.sequence + 1)"
        guard self.byID[id] == nil, self.breaks.last.map({ $0.first <= newest.sequence }) ?? true else { return nil }
        let opened = LiveBreak(
            id: id,
            first: newest.sequence + 1,
            start: newest.end,
            enteringDiscontinuity: newest.discontinuitySequence,
            kind: .stall
        )
        self.breaks.append(opened)
        self.byID[id] = self.breaks.count - 1
        self.byFirst[opened.first] = self.breaks.count - 1
        self.reach = nil
        return opened
    }

    /// Ends open stall break `open` in the window that moved again: the fill lasts until `now`
    /// less a target duration — past all a viewer was listed by any replica's clock (a window
    /// trails it by two) — or until the first segment published again when that starts later; it
    /// stands for the segments that start before (an origin that catches up publishes the time it
    /// stood still), and the programme returns at the first that does not (or the newest).
    private mutating func closeStall(_ open: LiveBreak, in segments: [LiveSegment], now: ExactDecimal?) {
        guard let index = self.byID[open.id], let resumed = segments.firstIndex(where: { $0.sequence >= open.first }) else { return }
        let threshold = now.map { $0 - ExactDecimal(self.targetDuration) } ?? segments[resumed].start
        let back = segments[resumed...].first { $0.start >= threshold } ?? segments[segments.count - 1]
        self.breaks[index].closing = LiveBreak.Closing(
            end: back.sequence,
            time: max(open.start, back.start, threshold),
            discontinuitySequence: back.discontinuitySequence,
            isDiscontinuity: back.isDiscontinuity
        )
        self.ends.insert(back.sequence)
        if self.confirmsStallClosings { self.unconfirmed.insert(open.id) }
        self.reach = nil
    }

    /// Takes the shared history's closings of stall breaks (`stored`: as recorded, the first
    /// closing written winning) in place of this replica's own, and lets viewers see them.
    public mutating func confirm(_ stored: [LiveBreak]) {
        for item in stored where item.kind == .stall {
            guard let closing = item.closing, let index = self.byID[item.id], self.breaks[index].closing != nil else { continue }
            self.breaks[index].closing = closing
            self.ends.insert(closing.end)
            self.unconfirmed.remove(item.id)
        }
    }

    /// The breaks as viewers get them: a stall break whose closing the history has not confirmed
    /// stays open (its fill goes on by the clock) until it does.
    public var published: [LiveBreak] {
        guard !self.unconfirmed.isEmpty else { return self.breaks }
        return self.breaks.map { item in
            guard self.unconfirmed.contains(item.id) else { return item }
            var open = item
            open.closing = nil
            return open
        }
    }

    /// Forgets the breaks that ended before `time` (seconds since the epoch, on the channel's
    /// clock): no session still playing joined before them, so no viewer's numbering needs them
    /// (the poller passes its live edge less the session TTL). Open breaks are kept.
    public mutating func forget(endedBefore time: ExactDecimal) {
        let count = self.breaks.count
        self.breaks.removeAll { $0.closing.map { $0.time < time } ?? false }
        if self.breaks.count != count { self.reindex() }
    }

    private mutating func reindex() {
        self.byID = [:]
        self.byFirst = [:]
        for (index, item) in self.breaks.enumerated() {
            self.byID[item.id] = index
            self.byFirst[item.first] = index
            if let closing = item.closing { self.ends.insert(closing.end) }
        }
        if let last = self.breaks.last {
            self.sequencer.floor(
                after: last.closing?.end ?? last.first,
                at: last.closing?.time ?? last.start,
                discontinuitySequence: last.closing?.discontinuitySequence ?? last.enteringDiscontinuity
            )
        }
    }

    /// Closes break `id` at `segment`, no earlier than the end of anything seen of it (``reach``)
    /// nor than the segments before `segment` in `window`.
    private mutating func close(_ id: String, at segment: LiveSegment, in window: [LiveSegment]) {
        guard let index = self.byID[id] else { return }
        var time = max(segment.start, self.reach ?? segment.start)
        if let base = window.first?.sequence {
            let from = max(0, self.breaks[index].first - base)
            let to = min(window.count, segment.sequence - base)
            if from < to { for item in window[from..<to] { time = max(time, item.end) } }
        }
        self.breaks[index].closing = LiveBreak.Closing(
            end: segment.sequence,
            time: time,
            discontinuitySequence: segment.discontinuitySequence,
            isDiscontinuity: segment.isDiscontinuity
        )
        self.ends.insert(segment.sequence)
        self.durations[id] = nil
        self.reach = nil
    }
}
