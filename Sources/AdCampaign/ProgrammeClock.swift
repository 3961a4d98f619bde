import HLSPlaylist

/// The programme time of a PROGRAM-DATE-TIME date in a playlist: the segment boundary a date
/// falls on, from the last segment carrying a date-time at or before it (the first such segment
/// when every date-time is after it).
///
/// Each lookup is two binary searches, so reading n date ranges costs n log n however many
/// segments carry dates (a linear scan per date range made a 10,000-marker programme
/// take minutes).
struct ProgrammeClock {
    /// Each dated segment, in playlist order: its start time in the playlist and date-time in seconds.
    private var dated: [(start: ExactDecimal, date: ExactDecimal)] = []
    /// `laterMinimum[i]`: the earliest date-time of `dated[i...]`. It never decreases, so the last
    /// dated segment at or before a date is found by binary search even when date-times jump
    /// back (a discontinuity with an earlier clock).
    private var laterMinimum: [ExactDecimal] = []
    private let starts: [ExactDecimal]
    private let end: ExactDecimal

    init(_ playlist: MediaPlaylist) {
        self.end = playlist.duration
        var starts: [ExactDecimal] = []
        starts.reserveCapacity(playlist.segments.count)
        for segment in playlist.segments {
            starts.append(segment.startTime)
            if let text = segment.programDateTime, let date = DateTime(text) { self.dated.append((segment.startTime, date.secondsSinceEpoch)) }
        }
        self.starts = starts
        var laterMinimum: [ExactDecimal] = []
        laterMinimum.reserveCapacity(self.dated.count)
        for entry in self.dated.reversed() {
            laterMinimum.append(min(laterMinimum.last ?? entry.date, entry.date))
        }
        self.laterMinimum = Array(laterMinimum.reversed())
    }

    /// The index of the segment starting at `seconds` since the epoch (a boundary at or before
    /// it when between two), or nil without date-times, or outside the playlist.
    func segment(atSeconds seconds: ExactDecimal) -> Int? {
        guard let anchor = self.anchor(atOrBefore: seconds) else { return nil }
        let time = anchor.start + (seconds - anchor.date)
        // Within a millisecond of a boundary counts as on it (date-times carry milliseconds).
        let tolerance = ExactDecimal(significand: 1, exponent: 3)
        guard time >= -tolerance, time <= self.end + tolerance else { return nil }
        if time >= self.end - tolerance { return self.starts.count }
        // The last segment starting at or before the time: one before the first starting after it.
        let limit = time + tolerance
        var low = 0
        var high = self.starts.count
        while low < high {
            let middle = (low + high) / 2
            if self.starts[middle] <= limit { low = middle + 1 } else { high = middle }
        }
        return low > 0 ? low - 1 : nil
    }

    /// The last dated segment whose date-time is at or before `seconds`, else the first dated one.
    private func anchor(atOrBefore seconds: ExactDecimal) -> (start: ExactDecimal, date: ExactDecimal)? {
        guard let first = self.dated.first else { return nil }
        // The first index whose later minimum is after `seconds`; the one before it is dated at or before.
        var low = 0
        var high = self.laterMinimum.count
        while low < high {
            let middle = (low + high) / 2
            if self.laterMinimum[middle] <= seconds { low = middle + 1 } else { high = middle }
        }
        return low > 0 ? self.dated[low - 1] : first
    }
}
