import AdCampaign
import AdDecision
import AdLive
import HLSPlaylist

extension LiveSchedule {
    /// The live boundary manifest (docs/http-api.md "Live sessions", docs/live-boundary-manifest.schema.json): the breaks in the viewer's
    /// current window of `window`'s rendition, each with its programme date-time and its stream
    /// time — seconds from the start of the window the playlist lists now (negative: it began
    /// before) — and its ads; an ad an early end of the break cut short says `"cut": true`; with
    /// `trackers` (a session its player reports: ``Campaign/Reporting/handsTrackersToPlayer``),
    /// each ad's tracking URLs.
    public func manifest(_ window: LiveRenditionWindow, trackers: Bool) -> JSONValue {
        let numbered = self.window(window)
        var time = ExactDecimal.zero
        var starts: [String: ExactDecimal] = [:]
        var order: [String] = []
        var windowStart: ExactDecimal?
        for entry in numbered.entries {
            switch entry.item {
            case .programme(let sequence):
                if windowStart == nil { windowStart = window.segment(sequence)?.start }
                time += window.segment(sequence)?.duration ?? .zero
            case .fill(let breakID, let position, let item):
                if let fill = self.fills[breakID] {
                    if windowStart == nil { windowStart = fill.adBreak.start + fill.offsets[position] }
                    if starts[breakID] == nil {
                        starts[breakID] = time - fill.offsets[position]
                        order.append(breakID)
                    }
                }
                time += item.duration
            }
        }
        var breaks: [JSONValue] = []
        var boundaries: [ExactDecimal] = []
        for breakID in order {
            guard let fill = self.fills[breakID], let start = starts[breakID] else { continue }
            // What plays of the fill: all of it while open (so far), what fits once closed; a
            // stall's, what the clock has listed.
            let length = fill.adBreak.kind == .stall ? fill.nominalDuration : fill.adBreak.replacedDuration
            var served = ExactDecimal.zero
            for item in fill.items {
                guard length.map({ served + item.duration <= $0 }) ?? true else { break }
                served += item.duration
            }
            var ads: [JSONValue] = []
            for (index, piece) in fill.pieces.enumerated() {
                guard length == nil || piece.start < served else { break }  // never plays: the break ended before
                if piece.ad == nil, index > 0, fill.pieces[index - 1].ad == nil { continue }  // slate repeats: one stretch
                var duration = piece.asset.duration
                if piece.ad == nil {
                    duration = fill.pieces[index...].prefix { $0.ad == nil }.map(\.asset.duration).sum()
                }
                let cut = length != nil && piece.ad != nil && piece.start + duration > served
                if length != nil { duration = min(duration, served - piece.start) }
                var members: [(String, JSONValue)] = [
                    ("id", .string(piece.ad?.id ?? "slate")), ("start", .decimal(start + piece.start)), ("duration", .decimal(duration)),
                    ("programDateTime", .string(Self.iso(fill.adBreak.start + piece.start))),
                ]
                if piece.ad == nil { members.append(("slate", .bool(true))) }
                if cut { members.append(("cut", .bool(true))) }
                if trackers, let tracking = piece.ad?.tracking, !tracking.isEmpty {
                    members.append(("tracking", .object(tracking.keys.sorted().map { ($0, .array((tracking[$0] ?? []).map(JSONValue.string))) })))
                }
                ads.append(.object(members))
                boundaries.append(start + piece.start)
            }
            var members: [(String, JSONValue)] = [
                ("id", .string(breakID)), ("start", .decimal(start)), ("programDateTime", .string(Self.iso(fill.adBreak.start))),
                ("open", .bool(fill.adBreak.closing == nil)),
                ("duration", .decimal(served)), ("plannedDuration", .decimal(fill.nominalDuration)),
                ("restrict", .array(fill.adBreak.kind == .stall ? [] : self.live.restrict.names.map(JSONValue.string))),
            ]
            if fill.adBreak.kind == .stall { members.append(("stall", .bool(true))) }
            if fill.gap { members.append(("gap", .bool(true))) }
            if fill.adBreak.closing != nil {
                members.insert(("end", .decimal(start + served)), at: 2)
                boundaries.append(start + served)
            }
            if fill.joinedMidBreak { members.append(("joinedMidBreak", .bool(true))) }
            members.append(("ads", .array(ads)))
            breaks.append(.object(members))
        }
        return .object([
            ("version", .integer(1)),
            ("live", .bool(true)),
            ("insertion", .string(Insertion.stitched.rawValue)),
            ("campaign", .string(self.plan.campaign.id)),
            ("session", .string(self.plan.context.session)),
            ("mediaSequence", .integer(numbered.mediaSequence)),
            ("windowStart", .string(Self.iso(windowStart ?? window.segments.first?.start ?? .zero))),
            ("duration", .decimal(time)),
            ("breaks", .array(breaks)),
            ("boundaries", .array(boundaries.map(JSONValue.decimal))),
        ])
    }

    private static func iso(_ seconds: ExactDecimal) -> String {
        DateTime.iso8601(millisecondsSinceEpoch: SessionRenderer.milliseconds(0, plus: seconds))
    }
}
