import HLSPlaylist
import SCTE35

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
