import AdCampaign
import HLSPlaylist

extension LiveSegment {
    /// The segments of an origin's live window, dated: each from its own
    /// `EXT-X-PROGRAM-DATE-TIME`, or the last dated one before it plus the durations between.
    /// Nil when no segment before the first undated one carries a date (live breaks are placed by
    /// date, so a window without dates cannot be used).
    public static func segments(of playlist: MediaPlaylist) -> [LiveSegment]? {
        var segments: [LiveSegment] = []
        var next: ExactDecimal?
        for segment in playlist.segments {
            guard let start = segment.programDateTime.flatMap({ DateTime($0)?.secondsSinceEpoch }) ?? next else { return nil }
            segments.append(
                LiveSegment(
                    sequence: segment.mediaSequenceNumber,
                    discontinuitySequence: segment.discontinuitySequenceNumber,
                    isDiscontinuity: segment.isDiscontinuity,
                    duration: segment.duration,
                    start: start
                )
            )
            next = start + segment.duration
        }
        return segments
    }
}

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
    /// The durations of open breaks, by id.
    private var durations: [String: ExactDecimal] = [:]
    /// Ends of breaks never seen open, already reported.
    private var ignoredEnds: Set<Int> = []

    public init(defaultDuration: ExactDecimal? = nil, history: [LiveBreak] = []) {
        self.defaultDuration = defaultDuration
        self.breaks = history.sorted { $0.first < $1.first }
        // A break the history has open closes at its duration here too.
        for open in self.breaks where open.closing == nil {
            if let duration = open.duration ?? defaultDuration { self.durations[open.id] = duration }
        }
    }

    /// Adds the breaks of `history` this tracker does not know (by id) — those a replica read from
    /// the shared history after it started polling (the database was away at start); what it saw
    /// itself stays as it saw it.
    public mutating func merge(history: [LiveBreak]) {
        let known = Set(self.breaks.map(\.id))
        let added = history.filter { !known.contains($0.id) }
        guard !added.isEmpty else { return }
        self.breaks = (self.breaks + added).sorted { $0.first < $1.first }
        for open in added where open.closing == nil {
            if let duration = open.duration ?? self.defaultDuration { self.durations[open.id] = duration }
        }
    }

    /// The open break, if any.
    public var open: LiveBreak? { self.breaks.last.flatMap { $0.closing == nil ? $0 : nil } }

    /// Reads one window of the origin; returns the breaks it opened or closed (for the history).
    @discardableResult
    public mutating func observe(_ playlist: MediaPlaylist) -> [LiveBreak] {
        self.problems = []
        guard let segments = LiveSegment.segments(of: playlist), !segments.isEmpty else {
            if !playlist.segments.isEmpty {
                self.problems.append("the window has segments without EXT-X-PROGRAM-DATE-TIME; live breaks need dates")
            }
            return []
        }
        let scan = AdMarkerScan(playlist)
        self.problems += scan.problems.map { "line \($0.line): \($0.message); that marker is ignored" }
        var changed: [String] = []
        for marker in scan.markers where marker.segment < segments.count {
            let segment = segments[marker.segment]
            switch marker.event {
            case .out(let id, let announced):
                // A marker's duration is checked where it enters (LiveLimits): never negative, at most an hour.
                let (duration, durationProblem) = LiveLimits.breakDuration(announced)
                if let index = self.breaks.firstIndex(where: { $0.first == segment.sequence }) {
                    if self.durations[self.breaks[index].id] == nil, let duration { self.durations[self.breaks[index].id] = duration }
                    continue
                }
                guard self.breaks.last.map({ segment.sequence > $0.first }) ?? true else { continue }  // an older break's marker
                if let open = self.open {
                    self.close(open.id, at: segment)
                    changed.append(open.id)
                }
                var breakID = id ?? "seq-\(segment.sequence)"
                if self.breaks.contains(where: { $0.id == breakID }) { breakID += "-\(segment.sequence)" }
                self.breaks.append(
                    LiveBreak(
                        id: breakID,
                        first: segment.sequence,
                        start: segment.start,
                        enteringDiscontinuity: segment.discontinuitySequence - (segment.isDiscontinuity ? 1 : 0),
                        duration: duration
                    )
                )
                if let duration = duration ?? self.defaultDuration { self.durations[breakID] = duration }
                if let durationProblem { self.problems.append("line \(marker.line): \(durationProblem)") }
                changed.append(breakID)
            case .in:
                if self.breaks.contains(where: { $0.closing?.end == segment.sequence }) { continue }  // seen already
                guard let open = self.open, segment.sequence >= open.first else {
                    // The end of a break this tracker never saw open (it started before the first
                    // window it read): reported once, however many windows still show it.
                    if self.ignoredEnds.insert(segment.sequence).inserted {
                        self.problems.append("line \(marker.line): a break ends at segment \(segment.sequence) but none is open; ignored")
                    }
                    continue
                }
                guard segment.sequence > open.first else {
                    // Opened and closed at one place: an insertion point, which live breaks are not.
                    self.breaks.removeLast()
                    self.problems.append(
                        "line \(marker.line): break \(open.id) ends where it starts; live breaks replace a stretch, so it is ignored"
                    )
                    continue
                }
                self.close(open.id, at: segment)
                changed.append(open.id)
            case .point:
                self.problems.append("line \(marker.line): a placement opportunity; live breaks replace a marked stretch, so it is ignored")
            }
        }
        // An open break whose duration has elapsed within the window closes at the first segment after it.
        if let open = self.open, let duration = self.durations[open.id],
            let end = segments.first(where: { $0.sequence > open.first && $0.start >= open.start + duration })
        {
            self.close(open.id, at: end)
            changed.append(open.id)
        }
        return self.breaks.filter { changed.contains($0.id) }
    }

    /// Forgets the breaks that ended before `time` (seconds since the epoch, on the channel's
    /// clock): no session still playing joined before them, so no viewer's numbering needs them
    /// (the poller passes its live edge less the session TTL). Open breaks are kept.
    public mutating func forget(endedBefore time: ExactDecimal) {
        self.breaks.removeAll { $0.closing.map { $0.time < time } ?? false }
    }

    private mutating func close(_ id: String, at segment: LiveSegment) {
        guard let index = self.breaks.firstIndex(where: { $0.id == id }) else { return }
        self.breaks[index].closing = LiveBreak.Closing(
            end: segment.sequence,
            time: segment.start,
            discontinuitySequence: segment.discontinuitySequence,
            isDiscontinuity: segment.isDiscontinuity
        )
        self.durations[id] = nil
    }
}
