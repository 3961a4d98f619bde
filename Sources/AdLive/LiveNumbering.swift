import HLSPlaylist

/// The numbering of a viewer's live playlist (docs/design-decisions.md "Live"): a pure function of
/// the origin's window, the channel's break history and where the viewer joined, so every reload,
/// rendition and replica gives the same numbers.
///
/// Breaks that start at or after `joined` (the origin sequence number the viewer joined at) are
/// replaced by the viewer's fill; earlier ones play as programme. A fill segment is listed once
/// its end is within the break's time published so far (at the window's live edge) and until the
/// programme it stands for has left the window; when a break closes, the fill segments that end
/// within the replaced stretch are its part and the rest are cut (an early CUE-IN: the only cut).
/// So each entry's numbers are a function of the entry alone:
///
/// - a programme segment `n`: `n + Σ (k(b) − r(b))`, and its origin discontinuity number plus
///   `Σ (pieces(b) + (the return needs a tag ? 1 : 0) − replaced discontinuities(b))`, over the
///   replaced breaks `b` closed at or before `n` (`k` fill segments for `r` replaced ones);
/// - fill segment `j` of break `b` in piece `p`: `b.first + Σ…` over the breaks closed before it,
///   plus `j`; and `b`'s entering discontinuity number plus `Σ…` plus `p + 1`.
public enum LiveNumbering {
    /// - Parameters:
    ///   - window: the origin's window of one rendition: consecutive segments, in order.
    ///   - breaks: the channel's breaks — every one since `joined`, those that have left the
    ///     window included (the history); others are ignored.
    ///   - joined: the origin sequence number the viewer joined at.
    ///   - fill: the viewer's fill of a break, in play order (ads, then as many slates as the
    ///     caller likes: what ends past the break is never listed).
    ///   - span: how long a viewer's window is (``LiveRenditionWindow``'s span): the entries that
    ///     last it back from the last one are listed, those before left out — the rule the channel's cut
    ///     applies to the programme, applied to what the viewer lists, so a stall's fill past the
    ///     origin's window (or a break's fill whose programme is not in it yet) bounds it alike on
    ///     every replica.
    ///
    /// A stall break (``LiveBreak/Kind/stall``) starts after the origin's last segment: while it is
    /// open its fill (as long as the caller makes it: the clock) is listed after the window; once
    /// closed it replaces the segments the origin published for its time, or none (an insertion,
    /// listed between the segments it stands between).
    public static func window(
        _ window: [LiveSegment],
        breaks: [LiveBreak],
        joined: Int,
        span: ExactDecimal? = nil,
        fill: (LiveBreak) -> [LiveFill]
    ) -> LiveWindow {
        guard let first = window.first, let last = window.last else {
            return LiveWindow(entries: [], mediaSequence: 0, discontinuitySequence: 0)
        }
        // The viewer's breaks in order, each after the previous one's end: a break that overlaps an
        // earlier one (or follows one still open) cannot be told apart from it and plays as programme.
        var replaced: [LiveBreak] = []
        for adBreak in breaks.filter({ $0.first >= joined }).sorted(by: { $0.first < $1.first }) {
            if let closing = adBreak.closing, closing.end < adBreak.first || (closing.end == adBreak.first && adBreak.kind != .stall) {
                continue
            }
            if let previous = replaced.last, (previous.closing?.end).map({ adBreak.first < $0 }) ?? true { continue }
            replaced.append(adBreak)
        }
        // The latest end published from each segment on: what an open break's fill may reach.
        var reach = [ExactDecimal](repeating: .zero, count: window.count)
        for index in window.indices.reversed() {
            reach[index] = index + 1 < window.count ? max(window[index].end, reach[index + 1]) : window[index].end
        }
        // One pass over the window and the breaks together: each break's shift is added once the
        // window passes its end, so the work is linear in both (10,000 breaks in a window).
        var entries: [LiveWindow.Entry] = []
        entries.reserveCapacity(window.count)
        // Each entry's start and end dates, for the span.
        var starts: [ExactDecimal] = []
        var ends: [ExactDecimal] = []
        var next = 0
        var shift = (sequence: 0, discontinuity: 0)
        var listed = -1
        // The numbers the next entry would take: what an empty window says (never below what was served).
        var upcoming = (sequence: first.sequence, discontinuity: first.discontinuitySequence - (first.isDiscontinuity ? 1 : 0))
        /// Lists break `replaced[next]`'s fill from where `gone` of it has left the window.
        func list(within length: ExactDecimal, gone: ExactDecimal) {
            listed = next
            let adBreak = replaced[next]
            let items = Self.served(fill(adBreak), within: length)
            upcoming = (
                adBreak.first + shift.sequence + items.count,
                adBreak.enteringDiscontinuity + shift.discontinuity + (items.last.map { $0.piece + 1 } ?? 0)
            )
            var offset = ExactDecimal.zero
            for (position, item) in items.enumerated() {
                defer { offset += item.duration }
                guard offset + item.duration > gone else { continue }
                entries.append(
                    LiveWindow.Entry(
                        item: .fill(breakID: adBreak.id, position: position, item),
                        sequence: adBreak.first + shift.sequence + position,
                        discontinuitySequence: adBreak.enteringDiscontinuity + shift.discontinuity + item.piece + 1,
                        isDiscontinuity: item.index == 0
                    )
                )
                starts.append(adBreak.start + offset)
                ends.append(adBreak.start + offset + item.duration)
            }
        }
        /// What an open break's fill may run to: the origin's published time, or for a stall all
        /// the caller made (its clock).
        func openLength(_ adBreak: LiveBreak, reach: ExactDecimal) -> ExactDecimal {
            adBreak.kind == .stall ? LiveLimits.maxBreakDuration : reach - adBreak.start
        }
        for (index, segment) in window.enumerated() {
            while next < replaced.count, let closing = replaced[next].closing, closing.end <= segment.sequence {
                if replaced[next].kind == .stall, listed != next, closing.end == replaced[next].first {
                    // A stall that replaced nothing: its fill stands between the segments around
                    // it; once the programme before it has left, what of it ends within `span`
                    // of the window's end (the origin's window is cut so).
                    let adBreak = replaced[next]
                    if index > 0 {
                        list(within: adBreak.replacedDuration ?? .zero, gone: .zero)
                    } else if let span {
                        list(within: adBreak.replacedDuration ?? .zero, gone: last.end - span - adBreak.start)
                    }
                }
                // Back to back (the next break starts where this one ends): no return to the programme between.
                let backToBack = next + 1 < replaced.count && replaced[next + 1].first == closing.end
                let change = Self.shift(replaced[next], closing, returning: !backToBack, fill: fill)
                shift = (shift.sequence + change.sequence, shift.discontinuity + change.discontinuity)
                next += 1
            }
            guard next < replaced.count, replaced[next].replaces(segment.sequence) else {
                let returning = next > 0 && replaced[next - 1].closing?.end == segment.sequence
                entries.append(
                    LiveWindow.Entry(
                        item: .programme(segment.sequence),
                        sequence: segment.sequence + shift.sequence,
                        discontinuitySequence: segment.discontinuitySequence + shift.discontinuity,
                        isDiscontinuity: segment.isDiscontinuity || returning
                    )
                )
                starts.append(segment.start)
                ends.append(segment.end)
                upcoming = (segment.sequence + shift.sequence + 1, segment.discontinuitySequence + shift.discontinuity)
                continue
            }
            // The break's fill, listed where its first segment in this window stands; the break's
            // programme already out of the window is gone from it.
            guard listed != next else { continue }
            let adBreak = replaced[next]
            list(within: adBreak.replacedDuration ?? openLength(adBreak, reach: reach[index]), gone: segment.start - adBreak.start)
        }
        // A stall past the window's last segment (open, or closed where the window has not
        // reached yet): its fill after the window.
        if next < replaced.count, listed != next, replaced[next].kind == .stall, replaced[next].first > last.sequence {
            list(within: replaced[next].replacedDuration ?? openLength(replaced[next], reach: last.end), gone: .zero)
        }
        // The span, back from the last entry by durations (dates may jump in a window): what
        // starts before it has left.
        if let span {
            var kept = entries.count
            var total = ExactDecimal.zero
            while kept > 0, total + (ends[kept - 1] - starts[kept - 1]) <= span {
                kept -= 1
                total += ends[kept] - starts[kept]
            }
            entries.removeFirst(kept)
        }
        // A viewer's playlist is bounded (LiveLimits.maxViewerEntries): its live edge is kept, and
        // the entries dropped from the head keep their numbers, as if they had left the window.
        if entries.count > LiveLimits.maxViewerEntries { entries.removeFirst(entries.count - LiveLimits.maxViewerEntries) }
        guard let head = entries.first else {
            return LiveWindow(entries: [], mediaSequence: upcoming.sequence, discontinuitySequence: upcoming.discontinuity)
        }
        return LiveWindow(
            entries: entries,
            mediaSequence: head.sequence,
            discontinuitySequence: head.discontinuitySequence - (head.isDiscontinuity ? 1 : 0)
        )
    }

    /// What closed break `adBreak` changes in both numberings for everything after it: its fill
    /// segments less the segments it replaces; the discontinuities its fill adds (one per piece,
    /// one back to the programme unless the origin's segment has one or the next break follows at
    /// once) less those of the replaced segments.
    static func shift(
        _ adBreak: LiveBreak,
        _ closing: LiveBreak.Closing,
        returning: Bool,
        fill: (LiveBreak) -> [LiveFill]
    ) -> (sequence: Int, discontinuity: Int) {
        let items = Self.served(fill(adBreak), within: adBreak.replacedDuration ?? .zero)
        let replacedDiscontinuities = closing.discontinuitySequence - (closing.isDiscontinuity ? 1 : 0) - adBreak.enteringDiscontinuity
        let back = returning && !closing.isDiscontinuity ? 1 : 0
        return (items.count - (closing.end - adBreak.first), Self.pieces(items) + back - replacedDiscontinuities)
    }

    /// The fill segments that end within `length` of the break's start, in order.
    static func served(_ fill: [LiveFill], within length: ExactDecimal) -> [LiveFill] {
        var total = ExactDecimal.zero
        var served: [LiveFill] = []
        for item in fill {
            total += item.duration
            guard total <= length else { break }
            served.append(item)
        }
        return served
    }

    /// The pieces a fill's segments begin (each after a discontinuity).
    static func pieces(_ items: [LiveFill]) -> Int {
        items.count { $0.index == 0 }
    }
}
