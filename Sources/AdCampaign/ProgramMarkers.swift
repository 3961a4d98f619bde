import HLSPlaylist

/// An ad break a programme asset's playlist marks (issue 12): where it starts (a segment
/// boundary) and, for a replacement, the segments it replaces.
struct MarkedBreak: Sendable {
    /// From the marker (`scte-<event id>`, a DATERANGE `ID`) or from where it stands (`cue-<n>`).
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

/// Reads the ad markers of a media playlist (the programme's first variant) as breaks.
///
/// `EXT-X-CUE-OUT` (`:d`, `:DURATION=d`, bare) opens a break before the next segment and
/// `EXT-X-CUE-IN` closes it: the segments between are replaced. `EXT-X-CUE-OUT:0` directly
/// followed by `EXT-X-CUE-IN` (no segment between) is an insertion point. A CUE-OUT with a
/// duration and no CUE-IN replaces the whole segments that start within its duration.
/// `EXT-X-CUE-OUT-CONT` lines (progress through a break) are read past.
struct MarkerReader {
    private(set) var breaks: [MarkedBreak] = []
    /// Markers that cannot be used, with their line: each is skipped, the rest still count.
    private(set) var problems: [(line: Int, message: String)] = []

    init(_ playlist: MediaPlaylist) {
        var segment = 0
        var open: (segment: Int, duration: ExactDecimal?, line: Int)?
        for line in playlist.lines {
            switch line.content {
            case .uri:
                segment += 1
            case .tag(.cueOut(let cue)):
                if let open {
                    self.problems.append(
                        (line.number, "EXT-X-CUE-OUT while the break opened on line \(open.line) is still open; close it with EXT-X-CUE-IN first")
                    )
                    continue
                }
                open = (segment, cue.duration, line.number)
            case .tag(.cueIn):
                guard let opened = open else {
                    self.problems.append((line.number, "EXT-X-CUE-IN without an EXT-X-CUE-OUT before it"))
                    continue
                }
                let isPoint = opened.segment == segment
                self.breaks.append(
                    MarkedBreak(
                        id: "cue-\(opened.line)",
                        segment: opened.segment,
                        end: isPoint ? nil : segment,
                        duration: isPoint ? opened.duration.flatMap { $0 > .zero ? $0 : nil } : opened.duration,
                        line: opened.line
                    )
                )
                open = nil
            default:
                continue
            }
        }
        guard let opened = open else { return }
        // No CUE-IN: the marker's own duration says how much it replaces.
        guard let duration = opened.duration, duration > .zero else {
            self.problems.append(
                (opened.line, "EXT-X-CUE-OUT without a duration is never closed by an EXT-X-CUE-IN; add one, or give the break's duration")
            )
            return
        }
        let segments = playlist.segments
        var end = opened.segment
        let start = opened.segment < segments.count ? segments[opened.segment].startTime : playlist.duration
        while end < segments.count, segments[end].startTime < start + duration { end += 1 }
        self.breaks.append(MarkedBreak(id: "cue-\(opened.line)", segment: opened.segment, end: end, duration: duration, line: opened.line))
    }
}
