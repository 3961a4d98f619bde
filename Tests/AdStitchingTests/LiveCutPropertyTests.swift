import AdLive
import AdStitching
import Foundation
import HLSPlaylist
import Testing

/// The live cut (docs/design-decisions.md "Live: the cut") over the shapes live origins come in:
/// segment durations that are not whole target durations (1.92 s under 2, 5.005 under 6, 6.006
/// under 7) or vary from one to the next; program date-times on the wall clock, hours off it,
/// absent, or jumping; two and three replicas polling at every phase against each other; a viewer
/// refreshing every half second on each in turn — through an ad break, a stall the origin catches
/// up from, and an origin restart that numbers from 0 again. Whatever the shape, the viewer's
/// playlists keep RFC 8216bis §6.2.1–6.2.2 (``LiveFleet/checkNumbering(_:_:)``) and trail the
/// origin's live edge by at most three target durations.
///
/// Serialized, with the live interstitial primaries' cases (``LiveCutPropertyTests/primaries(shape:dates:)``,
/// in LiveInterstitialPropertyTests.swift): each case is seconds of CPU on one of Swift's two
/// cooperative threads here, and run side by side they held both, so the end-to-end tests' waits
/// (a file server's first line, a fetch's deadline) ran out.
@Suite("Live cut, over origin shapes", .serialized)
struct LiveCutPropertyTests {
    /// How an origin dates its segments.
    enum Dates: String, CaseIterable, CustomTestStringConvertible {
        /// On the wall clock.
        case clock
        /// Three hours ahead of it (an encoder's clock set wrong).
        case ahead
        /// Three hours behind it (dates that are content time).
        case behind
        /// No EXT-X-PROGRAM-DATE-TIME at all: refused (``undated()``).
        case absent
        /// On the clock, then 47 s ahead (a clock corrected), then three hours back (away from
        /// the break and the stall).
        case jumping

        var testDescription: String { self.rawValue }
        static let dated: [Dates] = [.clock, .ahead, .behind, .jumping]
    }

    /// Segment durations, repeated, and the target duration that bounds them.
    struct Shape: CustomTestStringConvertible, Sendable {
        let durations: [String]
        let targetDuration: Int
        var testDescription: String { "\(self.durations.joined(separator: "/")) under \(self.targetDuration)" }

        static let all = [
            Shape(durations: ["1.92"], targetDuration: 2), Shape(durations: ["2"], targetDuration: 2),
            Shape(durations: ["3.2"], targetDuration: 4), Shape(durations: ["5.005"], targetDuration: 6),
            Shape(durations: ["6.006"], targetDuration: 7), Shape(durations: ["10"], targetDuration: 10),
            Shape(durations: ["2", "1.92", "2.08", "1.5", "2.5", "0.96"], targetDuration: 3),
        ]
    }

    /// A live origin of `shape`: segment `k` published once its end has passed (plus 0.3 s of
    /// packaging), a window of about ten target durations; an ad break (CUE-OUT/CUE-IN) at a
    /// quarter of the run; the origin standing still for six target durations at a half, then
    /// catching up; restarting at three quarters — numbers from 0 again, its window emptied.
    struct ShapedOrigin {
        let shape: Shape
        let dates: Dates
        let run: Double
        let starts: [ExactDecimal]
        let durations: [ExactDecimal]
        /// ``starts`` as seconds, to compare with the simulation's clock.
        let seconds: [Double]
        let latency = 0.3
        let window: Int
        let stall: (from: Double, until: Double)
        let restartAt: Double
        /// The segments the CUE-OUT and the CUE-IN stand before.
        let breakAt: Int
        let breakEnd: Int
        /// The first segment the restarted origin publishes.
        private(set) var restarted = 0
        /// Where `.jumping` dates jump.
        let jumps: (Int, Int)

        /// The duration the CUE-OUT announces; the break lasts 16 s whatever it says (announcing
        /// more: an early return).
        let announced: Int

        init(_ shape: Shape, dates: Dates, run: Double, announced: Int = 16) {
            self.announced = announced
            self.shape = shape
            self.dates = dates
            self.run = run
            let pattern = shape.durations.map { ExactDecimal($0)! }
            var starts: [ExactDecimal] = [.zero]
            var durations: [ExactDecimal] = []
            while starts[starts.count - 1].doubleValue < run + 60 {
                let duration = pattern[durations.count % pattern.count]
                durations.append(duration)
                starts.append(starts[starts.count - 1] + duration)
            }
            self.starts = starts
            self.durations = durations
            self.seconds = starts.map(\.doubleValue)
            let shortest = pattern.min()!
            self.window = Int((Double(10 * shape.targetDuration) / shortest.doubleValue).rounded(.up))
            self.stall = (run / 2, run / 2 + Double(6 * shape.targetDuration))
            self.restartAt = run * 3 / 4
            let seconds = self.seconds
            func segment(at t: Double) -> Int { seconds.lastIndex { $0 <= t } ?? 0 }
            self.breakAt = segment(at: run / 4)
            self.breakEnd = segment(at: seconds[self.breakAt] + 16 - 0.001) + 1
            // Both between the break and the stall (a date jump inside a break makes its length on
            // dates meaningless; one at a restart makes it an older window: not shapes this test holds).
            // The segments after the break is over and before the last published before the stall.
            let (quiet, still) = (segment(at: seconds[self.breakEnd] + Double(2 * shape.targetDuration)), segment(at: self.stall.from) - 2)
            self.jumps = (quiet + (still - quiet) / 4, quiet + (still - quiet) * 3 / 4)
            precondition(self.jumps.0 < self.jumps.1 && self.jumps.1 <= still)
            self.restarted = self.newest(at: self.restartAt) + 1
        }

        func end(_ k: Int) -> Double { self.seconds[k + 1] }

        /// The origin's clock: standing still during the stall, and for a target duration before
        /// the restart (an encoder takes seconds to restart; the old window stays up meanwhile — one
        /// that vanished within a poll of its newest segment could leave that segment read by some
        /// replicas only: docs/design-decisions.md "Live: the cut").
        func clock(_ t: Double) -> Double {
            if t >= self.stall.from && t < self.stall.until { return self.stall.from }
            let frozen = self.restartAt - Double(self.shape.targetDuration)
            return t >= frozen && t < self.restartAt ? frozen : t
        }

        /// The newest segment published at `t` (-1: none).
        func newest(at t: Double) -> Int {
            let clock = self.clock(t) - self.latency
            return (self.seconds.lastIndex { $0 <= clock } ?? 0) - 1
        }

        /// Segment `k`'s date, seconds since the epoch; nil when absent.
        func date(_ k: Int) -> ExactDecimal? {
            let base = ExactDecimal(LiveSessionTests.epoch) + self.starts[k]
            switch self.dates {
            case .clock: return base
            case .ahead: return base + 10_800
            case .behind: return base - 10_800
            case .absent: return nil
            case .jumping:
                if k < self.jumps.0 { return base }
                if k < self.jumps.1 { return base + 47 }
                return base - 10_800
            }
        }

        /// The live edge: the end of the newest segment published at `t`, on content time.
        func liveEdge(at t: Double) -> Double? {
            let newest = self.newest(at: t)
            return newest >= 0 ? self.end(newest) : nil
        }

        func playlist(_ rendition: String, at t: Double) -> String? {
            let last = self.newest(at: t)
            let restarted = t >= self.restartAt
            let first = max(restarted ? self.restarted : 0, last - self.window + 1)
            guard last >= first else { return nil }
            // After the restart the origin numbers from 0 (and counts discontinuities afresh).
            let numbering = restarted ? self.restarted : 0
            var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:\(self.shape.targetDuration)\n"
            text += "#EXT-X-MEDIA-SEQUENCE:\(first - numbering)\n"
            for k in first...last {
                if k == self.breakAt { text += "#EXT-X-CUE-OUT:DURATION=\(self.announced)\n" }
                if k == self.breakEnd { text += "#EXT-X-CUE-IN\n" }
                if let date = self.date(k) {
                    text += "#EXT-X-PROGRAM-DATE-TIME:\(DateTime.iso8601(millisecondsSinceEpoch: date.roundedMilliseconds))\n"
                }
                text += "#EXTINF:\(self.durations[k]),\n\(rendition)/s\(k).ts\n"
            }
            return text
        }
    }

    /// A fleet of `replicas` whose polls start `phases` of a poll interval apart.
    struct Fleet: CustomTestStringConvertible, Sendable {
        let phases: [Double]
        var testDescription: String { "\(self.phases.count) replicas at \(self.phases.map { "\($0)" }.joined(separator: "/"))" }

        /// Two replicas in phase, a quarter and half a poll apart; three evenly apart.
        static let all = [Fleet(phases: [0, 0]), Fleet(phases: [0, 0.25]), Fleet(phases: [0, 0.5]), Fleet(phases: [0, 1 / 3.0, 2 / 3.0])]
    }

    @Test(
        "the viewer's playlists never go back, whichever replica answers, and trail the live edge by at most three target durations",
        arguments: Shape.all,
        Dates.dated
    )
    func cut(shape: Shape, dates: Dates) throws {
        let run = Double(max(160, 32 * shape.targetDuration))
        let origin = ShapedOrigin(shape, dates: dates, run: run)
        let poll = max(0.25, Double(shape.targetDuration) / 2)
        for fleet in Fleet.all {
            let context = "\(shape.testDescription), dates \(dates), \(fleet.testDescription)"
            var replicas = LiveFleet(
                replicas: fleet.phases.count,
                phases: fleet.phases.map { ($0 * poll / LiveFleet.tick).rounded() * LiveFleet.tick },
                targetDuration: shape.targetDuration,
                until: run
            )
            replicas.campaign = "live_stall: { after: 3, fill: slate }"
            replicas.checkEvery = 8
            // The origin's dates going back are its mapping of dates to segments: passed on.
            if dates == .jumping { replicas.passedOn = ["program-date-time"] }
            let refreshes = try replicas.play { rendition, t in origin.playlist(rendition, at: t) }
            #expect(refreshes.count > Int(run - 40), "\(context): \(refreshes.count) refreshes")
            LiveFleet.checkNumbering(refreshes, context)
            // The window's end trails the live edge, while the origin is well (not in its stall
            // nor around its restart), by at most three target durations.
            let target = Double(shape.targetDuration)
            for refresh in refreshes where refresh.t > 30 {
                let troubled = (origin.stall.from - target)...(origin.stall.until + 6 * target)
                guard !troubled.contains(refresh.t), !(origin.restartAt...(origin.restartAt + 12 * target)).contains(refresh.t) else { continue }
                guard let last = refresh.playlist.segments.last, let edge = origin.liveEdge(at: refresh.t) else { continue }
                let name = LiveFleet.identity(last)
                guard name.hasPrefix("s"), !name.hasPrefix("slate"), let k = Int(name.dropFirst().dropLast(3)) else { continue }
                #expect(
                    edge - origin.end(k) <= 3 * target + 0.001,
                    "\(context) t=\(refresh.t): the window ends at \(k), \(edge - origin.end(k)) s behind\n\(refresh.text)"
                )
            }
            // What the replicas refused: only the restarted origin's first windows (a restart
            // continues on the next window), never a well origin's.
            #expect(replicas.refusals.isEmpty, "\(context): \(replicas.refusals.prefix(5))")
        }
    }

    /// Dates are how the channel knows a segment across an origin's renumbering and restarts,
    /// and where breaks and fills stand: an origin without them is refused, poll after poll, with
    /// the reason (logged by the poller, and `/readyz` stays unready), never served undated.
    @Test("an origin without EXT-X-PROGRAM-DATE-TIME is refused with the reason, and nothing is served")
    func undated() throws {
        let shape = Shape(durations: ["1.92"], targetDuration: 2)
        let origin = ShapedOrigin(shape, dates: .absent, run: 160)
        var replicas = LiveFleet(replicas: 2, phases: [0, 0.5], until: 40)
        let refreshes = try replicas.play { rendition, t in origin.playlist(rendition, at: t) }
        #expect(refreshes.isEmpty)
        #expect(replicas.refusals.count >= 2 * 30 * 2, "\(replicas.refusals.count) polls refused")
        #expect(replicas.refusals.allSatisfy { $0.why.contains("no dated segment (EXT-X-PROGRAM-DATE-TIME)") }, "\(replicas.refusals.prefix(3))")
    }
}
