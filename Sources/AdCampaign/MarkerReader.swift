import HLSPlaylist
import SCTE35

/// An ad break a programme asset's playlist marks (docs/campaign-format.md "One programme asset"): where it starts (a segment
/// boundary) and, for a replacement, the segments it replaces.
struct MarkedBreak: Sendable {
    /// From the marker (`scte-<event id>`, a DATERANGE `ID`) or from where it stands (`cue-<line>`).
    var id: String
    /// The first segment of the break (insertion: the segment it is inserted before).
    var segment: Int
    /// Replacement: the segment after the replaced stretch; nil for an insertion point.
    var end: Int?
    /// The duration the marker gives, if any.
    var duration: ExactDecimal?
    /// The playlist line of the marker, for messages.
    var line: Int
}

/// Reads the ad markers of a media playlist (the programme's first variant) as breaks, in the
/// shapes packagers write them:
///
/// - `EXT-X-CUE-OUT` (`:d`, `:DURATION=d`, bare) … `EXT-X-CUE-IN`; `EXT-X-CUE-OUT-CONT` is read past.
/// - `EXT-X-DATERANGE` with `SCTE35-OUT` (and `DURATION`/`PLANNED-DURATION`) … one with
///   `SCTE35-IN` (the same `ID`), or with `SCTE35-CMD` alone.
/// - `EXT-OATCLS-SCTE35` and `EXT-X-SPLICEPOINT-SCTE35` (a base64 `splice_info_section`).
/// - `EXT-X-PLACEMENT-OPPORTUNITY`: an insertion point.
///
/// A break opens before the next segment and closes where its end marker stands: the segments
/// between are replaced. An opening directly followed by its close (`EXT-X-CUE-OUT:0` +
/// `EXT-X-CUE-IN`) is an insertion point, and so is an opening whose duration is zero
/// (`EXT-X-CUE-OUT:0`, a DATERANGE `PLANNED-DURATION=0` or `DURATION=0`) with or without its
/// close; an opening with a duration and no close replaces the whole segments starting within
/// the duration. Several tags at one place describing one break (a `CUE-OUT` with its
/// `EXT-OATCLS-SCTE35`) make one break, its id from SCTE-35 where given. SCTE-35 sections are
/// decoded (module `SCTE35`): one that does not decode is a problem at its line and is skipped.
///
/// One marker that cannot be used never costs the breaks after it: a marker that opens a break
/// while another is open settles the open one — closed where its duration ends if that is
/// before this marker, else abandoned with a problem saying so — and reading goes on from it.
///
/// Linear in the markers after the scan's sort: each marker is looked at once, and where a
/// duration ends is found by binary search over the segments' start times.
struct MarkerReader {
    private(set) var breaks: [MarkedBreak] = []
    /// Markers that cannot be used, with their line and what happens to them (the message says).
    private(set) var problems: [(line: Int, message: String)] = []

    private struct Open {
        var segment: Int
        var id: String?
        var duration: ExactDecimal?
        var line: Int

        /// A zero duration: an insertion point, whatever follows.
        var isPoint: Bool { self.duration == .zero }

        /// Whether a marker at the same place with `id` describes this break too.
        func isSame(_ id: String?) -> Bool { id == nil || self.id == nil || id == self.id }
    }

    /// Each segment's start in the playlist, and its end: where a duration ends is looked up here.
    private let starts: [ExactDecimal]
    private let end: ExactDecimal
    private var open: Open?
    /// Where the last break closed: a second end tag there belongs to it.
    private var lastClose: Int?
    /// The index in `breaks` of the last insertion point made by a zero duration, for messages.
    private var lastZeroPoint: Int?

    init(_ playlist: MediaPlaylist) {
        let scan = AdMarkerScan(playlist)
        self.problems = scan.problems.map { ($0.line, $0.message + "; that break is skipped") }
        self.starts = playlist.segments.map(\.startTime)
        self.end = playlist.duration
        for marker in scan.markers {
            self.read(marker)
        }
        guard let opened = self.open else { return }
        self.open = nil
        // Never closed: an insertion point, or the marker's own duration says how much it replaces.
        if opened.isPoint {
            self.addPoint(opened)
            return
        }
        guard let duration = opened.duration, duration > .zero else {
            self.problems.append(
                (opened.line, "a break starts here without a duration and nothing ends it; add its end marker or its duration; that break is skipped")
            )
            return
        }
        self.addReplacement(opened, to: self.segment(after: opened, duration), duration: duration)
    }

    private mutating func read(_ marker: AdMarkerScan.Marker) {
        let (segment, line) = (marker.segment, marker.line)
        // An insertion point by its zero duration is made once reading has passed its place.
        if let current = self.open, current.isPoint, current.segment != segment {
            self.open = nil
            self.addPoint(current)
        }
        switch marker.event {
        case .out(let id, let duration):
            if var current = self.open {
                // Another tag of the same break, at the same place: it adds what it knows.
                if current.segment == segment, current.isSame(id) {
                    current.id = current.id ?? id
                    current.duration = current.duration ?? duration
                    self.open = current
                    return
                }
                self.settle(current, before: marker)
            }
            self.open = Open(segment: segment, id: id, duration: duration, line: line)
        case .point(let id, let duration):
            if var current = self.open {
                if current.segment == segment {
                    current.id = current.id ?? id
                    self.open = current
                    return
                }
                self.settle(current, before: marker)
            } else if self.mergeIntoPoint(at: segment, id: id) {
                return
            }
            self.breaks.append(MarkedBreak(id: id ?? "cue-\(line)", segment: segment, end: nil, duration: duration, line: line))
            self.lastClose = segment
        case .in(let id):
            guard let opened = self.open else {
                // The second end tag of a break just closed here (CUE-IN with its SCTE-35 twin).
                if self.lastClose == segment { return }
                if let point = self.lastZeroPoint, point == self.breaks.indices.last {
                    let opening = self.breaks[point].line
                    let message = "a break ends here but none is open (the one on line \(opening) has duration 0: an insertion point)"
                    self.problems.append((line, message + "; that break is skipped"))
                    return
                }
                self.problems.append((line, "a break ends here but none is open; that break is skipped"))
                return
            }
            if let id, let openID = opened.id, id != openID {
                self.problems.append(
                    (
                        line,
                        "the break ending here (\(id)) is not the one open (\(openID), line \(opened.line)); "
                            + "this end marker is skipped and the break opened at line \(opened.line) stays open"
                    )
                )
                return
            }
            self.open = nil
            guard opened.segment != segment else {
                self.addPoint(opened)
                return
            }
            self.addReplacement(opened, to: segment, duration: opened.duration)
        }
    }

    /// The break open when `marker` opens another: closed where its duration ends when that is
    /// at or before the marker, else abandoned with a problem at the marker's line.
    private mutating func settle(_ opened: Open, before marker: AdMarkerScan.Marker) {
        self.open = nil
        if let duration = opened.duration, duration > .zero {
            let end = self.segment(after: opened, duration)
            if end <= marker.segment {
                self.addReplacement(opened, to: end, duration: duration)
                return
            }
        }
        let why =
            if opened.segment == marker.segment {
                "the new one starts at the same place with another id"
            } else if let duration = opened.duration {
                "nothing ended it and its \(duration) s run past here"
            } else {
                "nothing ended it and it has no duration"
            }
        self.problems.append(
            (
                marker.line,
                "a break starts here while the one opened on line \(opened.line) is still open (\(why)); "
                    + "reading resumes at line \(marker.line) and the break opened at line \(opened.line) is abandoned; that break is skipped"
            )
        )
    }

    /// A replacement of the segments from where `opened` opens to `end`.
    private mutating func addReplacement(_ opened: Open, to end: Int, duration: ExactDecimal?) {
        let id = opened.id ?? "cue-\(opened.line)"
        self.breaks.append(MarkedBreak(id: id, segment: opened.segment, end: end, duration: duration, line: opened.line))
        self.lastClose = end
    }

    /// An insertion point from an opening (its duration zero, or closed where it opened).
    private mutating func addPoint(_ opened: Open) {
        self.breaks.append(
            MarkedBreak(
                id: opened.id ?? "cue-\(opened.line)",
                segment: opened.segment,
                end: nil,
                duration: opened.duration.flatMap { $0 > .zero ? $0 : nil },
                line: opened.line
            )
        )
        self.lastClose = opened.segment
        if opened.isPoint { self.lastZeroPoint = self.breaks.count - 1 }
    }

    /// A placement opportunity at the place of the insertion point just made (`EXT-X-CUE-OUT:0`
    /// + `EXT-X-CUE-IN` before it) describes that point: it gives it its id, if it had only its
    /// line's.
    private mutating func mergeIntoPoint(at segment: Int, id: String?) -> Bool {
        guard self.lastClose == segment, let index = self.breaks.indices.last, self.breaks[index].segment == segment,
            self.breaks[index].end == nil
        else { return false }
        let last = self.breaks[index]
        if let id {
            guard last.id == "cue-\(last.line)" || last.id == id else { return false }
            self.breaks[index].id = id
        }
        return true
    }

    /// The segment after the whole segments starting within `duration` of where `opened` opens:
    /// the first one starting at or after its end (binary search; starts never decrease).
    private func segment(after opened: Open, _ duration: ExactDecimal) -> Int {
        let start = opened.segment < self.starts.count ? self.starts[opened.segment] : self.end
        let target = start + duration
        var low = opened.segment
        var high = self.starts.count
        while low < high {
            let middle = (low + high) / 2
            if self.starts[middle] < target { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
