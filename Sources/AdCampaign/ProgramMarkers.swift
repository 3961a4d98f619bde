import HLSPlaylist
import SCTE35

/// An ad break a programme asset's playlist marks (issue 12): where it starts (a segment
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
/// `EXT-X-CUE-IN`) is an insertion point; an opening with a duration and no close replaces the
/// whole segments starting within the duration. Several tags at one place describing one break
/// (a `CUE-OUT` with its `EXT-OATCLS-SCTE35`) make one break, its id from SCTE-35 where given.
/// SCTE-35 sections are decoded (module `SCTE35`): one that does not decode is a problem at its
/// line and is skipped.
struct MarkerReader {
    private(set) var breaks: [MarkedBreak] = []
    /// Markers that cannot be used, with their line: each is skipped, the rest still count.
    private(set) var problems: [(line: Int, message: String)] = []

    private struct Open {
        var segment: Int
        var id: String?
        var duration: ExactDecimal?
        var line: Int
    }

    init(_ playlist: MediaPlaylist) {
        let scan = AdMarkerScan(playlist)
        self.problems = scan.problems
        var open: Open?
        /// Where the last break closed: a second end tag there belongs to it.
        var lastClose: Int?
        for marker in scan.markers {
            let (segment, line, event) = (marker.segment, marker.line, marker.event)
            switch event {
            case .out(let id, let duration):
                if var current = open {
                    // Another tag of the same break, at the same place: it adds what it knows.
                    if current.segment == segment, id == nil || current.id == nil || id == current.id {
                        current.id = current.id ?? id
                        current.duration = current.duration ?? duration
                        open = current
                    } else {
                        self.problems.append((line, "a break starts here while the one opened on line \(current.line) is still open; close it first"))
                    }
                    continue
                }
                open = Open(segment: segment, id: id, duration: duration, line: line)
            case .in(let id):
                guard let opened = open else {
                    // The second end tag of a break just closed here (CUE-IN with its SCTE-35 twin).
                    if lastClose == segment { continue }
                    self.problems.append((line, "a break ends here but none is open"))
                    continue
                }
                if let id, let openID = opened.id, id != openID {
                    self.problems.append((line, "the break ending here (\(id)) is not the one open (\(openID), line \(opened.line))"))
                    continue
                }
                let isPoint = opened.segment == segment
                self.breaks.append(
                    MarkedBreak(
                        id: opened.id ?? "cue-\(opened.line)",
                        segment: opened.segment,
                        end: isPoint ? nil : segment,
                        duration: isPoint ? opened.duration.flatMap { $0 > .zero ? $0 : nil } : opened.duration,
                        line: opened.line
                    )
                )
                open = nil
                lastClose = segment
            case .point(let id, let duration):
                self.breaks.append(MarkedBreak(id: id ?? "cue-\(line)", segment: segment, end: nil, duration: duration, line: line))
            }
        }
        guard let opened = open else { return }
        // Never closed: the marker's own duration says how much it replaces.
        guard let duration = opened.duration, duration > .zero else {
            self.problems.append((opened.line, "a break starts here without a duration and nothing ends it; add its end marker or its duration"))
            return
        }
        let segments = playlist.segments
        var end = opened.segment
        let start = opened.segment < segments.count ? segments[opened.segment].startTime : playlist.duration
        while end < segments.count, segments[end].startTime < start + duration { end += 1 }
        self.breaks.append(
            MarkedBreak(id: opened.id ?? "cue-\(opened.line)", segment: opened.segment, end: end, duration: duration, line: opened.line)
        )
    }

}

/// What an ad marker of a programme's media playlist says.
public enum AdMarkerEvent: Sendable, Hashable {
    /// A break starts (its id and duration when the marker gives them).
    case out(id: String?, duration: ExactDecimal?)
    /// A break ends.
    case `in`(id: String?)
    /// An insertion point (`EXT-X-PLACEMENT-OPPORTUNITY`).
    case point(id: String?, duration: ExactDecimal?)
}

/// The ad markers of a media playlist, decoded, each at the segment it stands before — date
/// ranges where their START-DATE (or END-DATE, for an end) falls on the playlist's
/// PROGRAM-DATE-TIME timeline, which need not be where they are written (packagers often list
/// them together) — in that order. What `MarkerReader` (a VOD programme) and the live channels'
/// break tracking (`AdLive`) read. Ids: a DATERANGE `ID` (as a break id), else `scte-<event id>`
/// from SCTE-35, else none.
public struct AdMarkerScan: Sendable {
    public struct Marker: Sendable, Hashable {
        /// The index of the segment it stands before (the playlist's segment count after the last).
        public let segment: Int
        /// Its line in the playlist.
        public let line: Int
        public let event: AdMarkerEvent
    }

    public private(set) var markers: [Marker] = []
    /// Markers that cannot be used (an SCTE-35 section that does not decode), with their line.
    public private(set) var problems: [(line: Int, message: String)] = []

    public init(_ playlist: MediaPlaylist) {
        let clock = ProgrammeClock(playlist)
        var segment = 0
        var found: [(segment: Int, order: Int, marker: Marker)] = []
        for line in playlist.lines {
            if case .uri = line.content { segment += 1 }
            guard let event = self.event(line) else { continue }
            var at = segment
            if case .tag(.dateRange(let range)) = line.content {
                // An end stands at END-DATE, else START-DATE + DURATION (§4.4.5.1), else START-DATE.
                let start = range.startDate.flatMap { DateTime($0)?.secondsSinceEpoch }
                var date = start
                if Self.isEnd(event) {
                    date =
                        range.endDate.flatMap { DateTime($0)?.secondsSinceEpoch } ?? range.duration.flatMap { duration in start.map { $0 + duration }
                        } ?? start
                }
                if let date, let placed = clock.segment(atSeconds: date) { at = placed }
            }
            found.append((at, found.count, Marker(segment: at, line: line.number, event: event)))
        }
        self.markers = found.sorted { ($0.segment, $0.order) < ($1.segment, $1.order) }.map(\.marker)
    }

    private static func isEnd(_ event: AdMarkerEvent) -> Bool {
        if case .in = event { true } else { false }
    }

    /// The event a line is, if any; a marker that does not decode is a problem and no event.
    private mutating func event(_ line: PlaylistLine) -> AdMarkerEvent? {
        switch line.content {
        case .tag(.cueOut(let cue)):
            return .out(id: nil, duration: cue.duration)
        case .tag(.cueIn):
            return .in(id: nil)
        case .tag(.dateRange(let range)):
            let id = range.id.map(Self.breakID)
            if let out = range.attributes["SCTE35-OUT"] {
                let section = self.section(out.rawValue, line: line.number)
                return .out(
                    id: id ?? section.flatMap(Self.eventID),
                    duration: range.duration ?? range.plannedDuration ?? section.flatMap(Self.duration)
                )
            }
            if range.attributes["SCTE35-IN"] != nil { return .in(id: id) }
            if let command = range.attributes["SCTE35-CMD"] {
                guard let section = self.section(command.rawValue, line: line.number) else { return nil }
                return Self.event(section, id: id, duration: range.duration ?? range.plannedDuration)
            }
            return nil
        case .tag(.oatclsSCTE35(let value)):
            guard let section = self.section(String(value), line: line.number) else { return nil }
            return Self.event(section, id: nil, duration: nil)
        case .tag(.unknown(let name, let value)):
            switch name {
            case "EXT-X-SPLICEPOINT-SCTE35":
                guard let value, let section = self.section(String(value), line: line.number) else { return nil }
                return Self.event(section, id: nil, duration: nil)
            case "EXT-X-PLACEMENT-OPPORTUNITY":
                return .point(id: nil, duration: nil)
            default:
                return nil
            }
        default:
            return nil
        }
    }

    private mutating func section(_ text: String, line: Int) -> SpliceInfoSection? {
        do {
            return try SpliceInfoSection(text)
        } catch {
            self.problems.append((line, "the SCTE-35 section does not decode: \(error.message) (byte \(error.byteOffset))"))
            return nil
        }
    }

    /// What a section says: a splice out (`splice_insert` out of network, a segmentation start)
    /// or back in (the opposite); nothing for others (a heartbeat, a program start…).
    private static func event(_ section: SpliceInfoSection, id: String?, duration: ExactDecimal?) -> AdMarkerEvent? {
        let sectionID = Self.eventID(section)
        switch section.command {
        case .insert(let insert) where !insert.isCancelled:
            return insert.outOfNetwork ? .out(id: id ?? sectionID, duration: duration ?? Self.duration(section)) : .in(id: id ?? sectionID)
        case .timeSignal:
            guard let segmentation = section.segmentations.first(where: { !$0.isCancelled && ($0.startsBreak || $0.endsBreak) }) else { return nil }
            return segmentation.startsBreak ? .out(id: id ?? sectionID, duration: duration ?? Self.duration(section)) : .in(id: id ?? sectionID)
        default:
            return nil
        }
    }

    /// `scte-<event id>` of the section's splice event or first break segmentation.
    private static func eventID(_ section: SpliceInfoSection) -> String? {
        if case .insert(let insert) = section.command { return "scte-\(insert.eventID)" }
        return section.segmentations.first { $0.startsBreak || $0.endsBreak }.map { "scte-\($0.eventID)" }
    }

    /// The break's duration a section gives (splice_insert's break_duration, else the break
    /// segmentation's), in seconds to the microsecond (90 kHz ticks are not decimal).
    private static func duration(_ section: SpliceInfoSection) -> ExactDecimal? {
        var ticks: UInt64?
        if case .insert(let insert) = section.command { ticks = insert.breakDuration?.duration }
        ticks = ticks ?? section.segmentations.first { $0.startsBreak }?.duration
        guard let ticks, ticks > 0, ticks < 1 << 40 else { return nil }
        let microseconds = (Int(ticks) * 1_000_000 + 45_000) / 90_000
        return ExactDecimal(significand: microseconds, exponent: 6)
    }

    /// A DATERANGE `ID` as a break id: letters, digits, `.`, `_`, `-` (others become `-`), at
    /// most 64 characters.
    static func breakID(_ id: String) -> String {
        let allowed = id.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "._-".unicodeScalars.contains(scalar))
                ? Character(scalar) : "-"
        }
        let text = String(allowed.prefix(64))
        return text.first.map { $0.isLetter || $0.isNumber } == true ? text : "d" + text.prefix(63)
    }
}

/// The programme time of a PROGRAM-DATE-TIME date in a playlist: the segment boundary a date
/// falls on, from the nearest segment at or before it that carries a date-time.
struct ProgrammeClock {
    /// Each dated segment: its index, start time in the playlist and date-time in seconds.
    private var dated: [(segment: Int, start: ExactDecimal, date: ExactDecimal)] = []
    private let starts: [ExactDecimal]
    private let end: ExactDecimal

    init(_ playlist: MediaPlaylist) {
        self.end = playlist.duration
        var starts: [ExactDecimal] = []
        for (index, segment) in playlist.segments.enumerated() {
            starts.append(segment.startTime)
            if let text = segment.programDateTime, let date = DateTime(text) { self.dated.append((index, segment.startTime, date.secondsSinceEpoch)) }
        }
        self.starts = starts
    }

    /// The index of the segment starting at `seconds` since the epoch (a boundary at or before
    /// it when between two), or nil without date-times, or outside the playlist.
    func segment(atSeconds seconds: ExactDecimal) -> Int? {
        guard let anchor = self.dated.last(where: { $0.date <= seconds }) ?? self.dated.first else { return nil }
        let time = anchor.start + (seconds - anchor.date)
        // Within a millisecond of a boundary counts as on it (date-times carry milliseconds).
        let tolerance = ExactDecimal(significand: 1, exponent: 3)
        guard time >= -tolerance, time <= self.end + tolerance else { return nil }
        if time >= self.end - tolerance { return self.starts.count }
        return self.starts.lastIndex { $0 <= time + tolerance }
    }
}
