import AdCampaign
import AdDecision
import AdLive
import AdStitching
import Foundation
import HLSPlaylist
import Testing

/// `live_stall` (docs/campaign-format.md "A stalled origin"): a simulated channel of 2 s segments
/// whose origin stands still for a while, polled every half target duration by one replica or two
/// out of phase (sharing a history where the first closing recorded wins), a viewer refreshing
/// every half second on each replica in turn. Both ways an origin comes back are tested: catching
/// up (it publishes the time it stood still, as a CDN serving a stale playlist does) and jumping
/// (an encoder restarted: the next segment is dated after the stall, after a discontinuity).
@Suite("Live stalls")
struct LiveStallTests {
    /// The channel: segment `k` dated `epoch + 2k` (plus `shift` from `resumed` on when it
    /// jumps), published once its end has passed on the origin's clock, which stands still from
    /// `stallFrom` to `stallUntil` (seconds after the epoch).
    struct StallingChannel {
        var stallFrom: Double
        var stallUntil: Double
        var jumps: Bool
        var window = 8

        /// The first segment published after the stall.
        var resumed: Int { Int(self.stallFrom / 2) }
        var shift: Int { self.jumps ? Int(((self.stallUntil - self.stallFrom) / 2).rounded(.up)) * 2 : 0 }

        func date(_ k: Int) -> Int { LiveSessionTests.epoch + 2 * k + (k >= self.resumed ? self.shift : 0) }

        /// The newest segment published at `t` seconds after the epoch.
        func newest(at t: Double) -> Int {
            let clock = t >= self.stallFrom && t < self.stallUntil ? self.stallFrom : t
            var k = 0
            while Double(self.date(k + 1) + 2 - LiveSessionTests.epoch) <= clock { k += 1 }
            return k
        }

        func playlist(_ rendition: String, at t: Double) -> String {
            let last = self.newest(at: t)
            let first = max(0, last - self.window + 1)
            let tagged = self.jumps && first > self.resumed ? 1 : 0
            var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(first)\n"
            text += "#EXT-X-DISCONTINUITY-SEQUENCE:\(tagged)\n"
            for k in first...last {
                if self.jumps, k == self.resumed { text += "#EXT-X-DISCONTINUITY\n" }
                text += "#EXT-X-PROGRAM-DATE-TIME:\(DateTime.iso8601(millisecondsSinceEpoch: Int64(self.date(k)) * 1000))\n"
                text += "#EXTINF:2.000,\n\(rendition)/s\(k).ts\n"
            }
            return text
        }
    }

    /// Plays the channel from 10 s to `until` s after the epoch on `replicas` replicas polling every
    /// second, half a second apart; returns every refresh.
    static func play(_ channel: StallingChannel, fill: String, replicas: Int, until: Double) throws -> [LiveFleet.Refresh] {
        var fleet = LiveFleet(replicas: replicas, phases: Array([0, 0.5].prefix(replicas)), until: until)
        fleet.campaign = "live_stall: { after: 3, fill: \(fill) }"
        let refreshes = try fleet.play { rendition, t in channel.playlist(rendition, at: t) }
        #expect(fleet.refusals.isEmpty, "\(fleet.refusals)")
        return refreshes
    }

    static func decimal(_ seconds: Double) -> ExactDecimal {
        ExactDecimal(significand: Int((seconds * 1000).rounded()), exponent: 3)
    }

    @Test(
        "a stall: the window goes on with the fill on the clock, the programme returns after it; numbers hold across replicas",
        arguments: [
            (false, "slate", 1), (false, "slate", 2), (true, "slate", 1), (true, "slate", 2), (false, "gap", 2), (true, "gap", 1),
        ]
    )
    func stall(jumps: Bool, fill: String, replicas: Int) throws {
        // The origin stands still from 40 s to 70 s: 30 s, fifteen target durations.
        let channel = StallingChannel(stallFrom: 40, stallUntil: 70, jumps: jumps)
        let refreshes = try Self.play(channel, fill: fill, replicas: replicas, until: 100)
        LiveFleet.checkNumbering(refreshes)
        for refresh in refreshes where refresh.t > 20 {
            // RFC 8216bis §6.2.2: never less than three target durations listed.
            #expect(refresh.playlist.segments.map(\.duration).sum() >= 6, "t=\(refresh.t)\n\(refresh.text)")
        }

        func newestEnd(_ refresh: LiveFleet.Refresh) -> ExactDecimal? {
            guard let last = refresh.playlist.segments.last, let date = last.programDateTime.flatMap({ DateTime($0)?.secondsSinceEpoch }) else {
                return nil
            }
            return date + last.duration
        }
        let epoch = ExactDecimal(LiveSessionTests.epoch)
        let frozen = epoch + 40  // the end of the last segment before the stall
        // Before the fill: the window ends where the origin stopped. From after + 1 target
        // durations (48 s), the window advances on the clock, within a slate segment of the cut.
        for refresh in refreshes where refresh.t >= 48 && refresh.t < 70 {
            let end = try #require(newestEnd(refresh))
            let cut = epoch + Self.decimal(refresh.t) - 3
            #expect(end > frozen && end <= cut && end > cut - 2, "t=\(refresh.t): the window ends at \(end), the cut is \(cut)\n\(refresh.text)")
            let fillSegments = refresh.playlist.segments.filter { LiveFleet.identity($0).hasPrefix("slate") }
            #expect(!fillSegments.isEmpty && fillSegments.allSatisfy { $0.isGap == (fill == "gap") }, "t=\(refresh.t)\n\(refresh.text)")
            #expect(!refresh.text.contains("CUE-OUT") && !refresh.text.contains("EXT-X-DATERANGE"), "a stall is no ad break\n\(refresh.text)")
            #expect(refresh.manifest.contains("\"stall\":true"), "\(refresh.manifest)")
            // The span bounds the window by dates: 12 s, and the entry that straddles its start.
            let length = refresh.playlist.segments.map(\.duration).sum()
            #expect(length <= 14, "t=\(refresh.t): \(length) s listed\n\(refresh.text)")
        }
        for refresh in refreshes where refresh.t > 41 && refresh.t < 45 {
            #expect(
                try #require(newestEnd(refresh)) <= frozen,
                "t=\(refresh.t): no fill before the stall has lasted after + 1 target durations\n\(refresh.text)"
            )
        }

        // Every programme segment listed, in play order: increasing, and after the stall the
        // origin's own again.
        var order: [String] = []
        var numbers: [Int: String] = [:]
        for refresh in refreshes { for segment in refresh.playlist.segments { numbers[segment.mediaSequenceNumber] = LiveFleet.identity(segment) } }
        for number in numbers.keys.sorted() { order.append(numbers[number] ?? "") }
        let programme = order.compactMap { $0.hasPrefix("s") && !$0.hasPrefix("slate") ? Int($0.dropFirst().dropLast(3)) : nil }
        #expect(programme == programme.sorted() && Set(programme).count == programme.count, "\(order)")
        let back = try #require(programme.first { $0 >= channel.resumed }, "the programme returns: \(order)")
        let last = try #require(refreshes.last)
        #expect(!LiveFleet.identity(try #require(last.playlist.segments.last)).hasPrefix("slate"), "\(last.text)")
        if jumps {
            #expect(back == channel.resumed, "an origin that jumps past the stall: nothing of it is replaced (\(programme))")
        } else {
            // Caught up: what the origin published for the time the fill played is replaced.
            #expect(back > channel.resumed + 10, "\(programme)")
        }
        // The fill stands between the programme before and after, one stretch.
        let fillStart = try #require(order.firstIndex { $0.hasPrefix("slate") })
        let fillEnd = try #require(order.lastIndex { $0.hasPrefix("slate") })
        #expect(order[fillStart...fillEnd].allSatisfy { $0.hasPrefix("slate") }, "\(order)")
        #expect(order[fillStart - 1] == "s\(channel.resumed - 1).ts" && order[fillEnd + 1] == "s\(back).ts", "\(order)")
    }

    @Test("live_stall's mistakes name the field and what to do")
    func mistakes() throws {
        for (yaml, field) in [
            ("live_stall: { after: 1 }", "live_stall.after"), ("live_stall: { fill: black }", "live_stall.fill"),
            ("live_stall: { after: 3, every: 2 }", "live_stall"),
        ] {
            #expect(throws: CampaignError.self) { try LiveSessionTests.load(LiveSessionTests.campaign + "\n" + yaml) }
            do {
                _ = try LiveSessionTests.load(LiveSessionTests.campaign + "\n" + yaml)
            } catch {
                #expect(error.issues.contains { $0.field.hasPrefix(field) }, "\(yaml): \(error)")
            }
        }
        #expect(try LiveSessionTests.load(LiveSessionTests.campaign + "\nlive_stall: {}").live?.stall == LiveStall())
        #expect(try LiveSessionTests.load(LiveSessionTests.campaign).live?.stall == nil, "absent: the last window keeps serving")
    }
}
