import AdCampaign
import HLSPlaylist

/// The VAST events AdStitch fires on a viewer's behalf as playback reaches them (server-side
/// reporting, docs/campaign-format.md "Measurement"), as a set: an ad's segment may carry several
/// (a one-segment ad carries all six).
public struct BeaconEvents: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let impression = Self(rawValue: 1)
    public static let start = Self(rawValue: 2)
    public static let firstQuartile = Self(rawValue: 4)
    public static let midpoint = Self(rawValue: 8)
    public static let thirdQuartile = Self(rawValue: 16)
    public static let complete = Self(rawValue: 32)

    /// Each event and its VAST name (the key of ``Ad/tracking``), in the order playback reaches them.
    public static let named: [(event: Self, name: String)] = [
        (.impression, "impression"), (.start, "start"), (.firstQuartile, "firstQuartile"), (.midpoint, "midpoint"),
        (.thirdQuartile, "thirdQuartile"), (.complete, "complete"),
    ]

    /// The events of `tracking` that have a URL.
    public init(tracking: [String: [String]]) {
        self = []
        for (event, name) in Self.named where !(tracking[name] ?? []).isEmpty { self.insert(event) }
    }

    /// The names of the events in the set, in play order.
    public var names: [String] { Self.named.filter { self.contains($0.event) }.map(\.name) }

    /// Where each of `tracked` falls among an ad's segments of `durations` (one rendition's): the
    /// impression and start at the first segment, a quartile at the segment that crosses it (that
    /// starts before the point and ends at or after it), complete at the last. Exact times: the
    /// quartiles of the ad's duration in that rendition, summed as exact decimals.
    public static func schedule(_ tracked: Self, durations: [ExactDecimal]) -> [Int: Self] {
        guard !durations.isEmpty, !tracked.isEmpty else { return [:] }
        var schedule: [Int: Self] = [:]
        func add(_ events: Self, at index: Int) {
            let present = events.intersection(tracked)
            if !present.isEmpty { schedule[index, default: []].formUnion(present) }
        }
        add([.impression, .start], at: 0)
        add(.complete, at: durations.count - 1)
        let total = durations.reduce(ExactDecimal.zero, +)
        for (event, quarters) in [(Self.firstQuartile, 1), (.midpoint, 2), (.thirdQuartile, 3)] {
            // start < total × q/4 ≤ end, in quarters: exact, no division.
            let point = total * quarters
            var start = ExactDecimal.zero
            for (index, duration) in durations.enumerated() {
                let end = start + duration
                if start * 4 < point, point <= end * 4 || index == durations.count - 1 {
                    add(event, at: index)
                    break
                }
                start = end
            }
        }
        return schedule
    }
}

/// Which ad of a session a beacon link names: in a stitched or interstitial session a piece of
/// its plan; in a live session a piece of one break's fill (``LiveSchedule/LiveBreakFill``), by
/// the break's id — a live plan has no pieces, and a fill is the same on every replica.
public struct BeaconPlace: Sendable, Hashable, CustomStringConvertible {
    /// The live break; nil in a stitched or interstitial session.
    public let breakID: String?
    /// The plan's piece, or the live fill's.
    public let piece: Int

    public static func plan(_ piece: Int) -> Self { Self(breakID: nil, piece: piece) }
    public static func live(_ breakID: String, _ piece: Int) -> Self { Self(breakID: breakID, piece: piece) }

    public var description: String { self.breakID.map { "\($0)/\(self.piece)" } ?? "\(self.piece)" }
}

/// How a session's media playlists name the segments where its ads' events fall (server-side
/// reporting): given the ad's place in the session, the events and the segment's real URI, the
/// URI the playlist lists instead — one on AdStitch's beacon route that redirects to the real one
/// and fires the events (`adstitch serve`, docs/http-api.md "Beacons").
public struct BeaconLinks: Sendable {
    public let link: @Sendable (_ place: BeaconPlace, _ events: BeaconEvents, _ target: String) -> String

    public init(_ link: @escaping @Sendable (_ place: BeaconPlace, _ events: BeaconEvents, _ target: String) -> String) {
        self.link = link
    }

    /// `lines` (an ad's block in one rendition, as the viewer gets it) with the URI line of each
    /// segment where an event of `tracked` falls replaced by its beacon link.
    func rewrite(_ lines: [UInt8], place: BeaconPlace, tracked: BeaconEvents) -> [UInt8] {
        let rows = lines.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        var durations: [ExactDecimal] = []
        let extinf = Array("#EXTINF:".utf8)
        for row in rows where row.starts(with: extinf) {
            let value = row.dropFirst(extinf.count).prefix { $0 != UInt8(ascii: ",") }
            durations.append(ExactDecimal(String(decoding: value, as: UTF8.self)) ?? .zero)
        }
        let schedule = BeaconEvents.schedule(tracked, durations: durations)
        guard !schedule.isEmpty else { return lines }
        var output: [UInt8] = []
        output.reserveCapacity(lines.count + schedule.count * 160)
        var segment = 0
        for (position, row) in rows.enumerated() {
            if position > 0 { output.append(UInt8(ascii: "\n")) }
            guard let first = row.first, first != UInt8(ascii: "#") else {
                output.append(contentsOf: row)
                continue
            }
            defer { segment += 1 }
            guard let events = schedule[segment] else {
                output.append(contentsOf: row)
                continue
            }
            output.append(contentsOf: self.link(place, events, String(decoding: row, as: UTF8.self)).utf8)
        }
        return output
    }
}

extension SegmentLines {
    /// The segment's lines with its URI (the last line) replaced by what `link` makes of it.
    func replacingURI(_ link: (String) -> String) -> SegmentLines {
        guard let last = self.body.split(separator: UInt8(ascii: "\n")).last else { return self }
        var body = Array(self.body[..<last.startIndex])
        body.append(contentsOf: link(String(decoding: last, as: UTF8.self)).utf8)
        body.append(UInt8(ascii: "\n"))
        return SegmentLines(map: self.map, keys: self.keys, body: body, duration: self.duration)
    }
}
