import AdCampaign
import AdDecision
import AdLive
import AdStitching
import Foundation
import HLSPlaylist
import Testing

/// Hostile live origins (docs/reliability.md "Live origin faults"): windows whose markers or dates
/// hold absurd numbers are tracked, planned and rendered for a viewer without a trap, and every
/// playlist stays bounded and valid. Each case once trapped or grew a viewer's playlist to 833 MB.
@Suite("Live origin faults")
struct LiveOriginFaultTests {
    /// A window of 2 s segments `range`, dated from the epoch plus `date(n)`, with `markers` before the
    /// segments they name; nil when the poller would refuse it (LiveLimits).
    static func window(_ range: ClosedRange<Int>, rendition: String, markers: [Int: String], date: (Int) -> Int64) throws -> LiveRenditionWindow? {
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(range.lowerBound)\n"
        for sequence in range {
            if let marker = markers[sequence] { text += marker + "\n" }
            text += "#EXT-X-PROGRAM-DATE-TIME:\(DateTime.iso8601(millisecondsSinceEpoch: (Int64(LiveSessionTests.epoch) + date(sequence)) * 1000))\n"
            text += "#EXTINF:2.000,\n\(rendition)/s\(sequence).ts\n"
        }
        let playlist = try PlaylistParser().parseMediaPlaylist(text, url: URL(string: "https://origin.test/channel/\(rendition).m3u8")!)
        guard LiveLimits.problem(in: playlist) == nil else { return nil }
        return LiveRenditionWindow(playlist)
    }

    /// Polls windows `0…last` for every `last` in `polls`, as the poller and a viewer's refreshes
    /// would; returns the largest playlist rendered, checking each parses with no linter error and
    /// that numbers never go back.
    static func watch(markers: [Int: String], polls: ClosedRange<Int>, date: @escaping (Int) -> Int64 = { Int64(2 * $0) }) throws -> Int {
        let campaign = try LiveSessionTests.load(LiveSessionTests.campaign)
        let live = try #require(campaign.live)
        let layout = try StitchLayout(campaign: campaign, uris: .absolute)
        let renderer = SessionRenderer(layout: layout)
        let plan = Planner().plan(campaign, for: ViewerContext(session: "v", milliseconds: Int64(LiveSessionTests.epoch) * 1000, attributes: [:]))
        var tracker = LiveBreakTracker(defaultDuration: live.defaultDuration)
        var largest = 0
        var lastSequence = Int.min
        for last in polls {
            let range = max(0, last - 5)...last
            guard let v0 = try Self.window(range, rendition: "v0", markers: markers, date: date),
                let v1 = try Self.window(range, rendition: "v1", markers: markers, date: date)
            else { continue }
            var text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(range.lowerBound)\n"
            for sequence in range {
                if let marker = markers[sequence] { text += marker + "\n" }
                text +=
                    "#EXT-X-PROGRAM-DATE-TIME:\(DateTime.iso8601(millisecondsSinceEpoch: (Int64(LiveSessionTests.epoch) + date(sequence)) * 1000))\n"
                text += "#EXTINF:2.000,\ns\(sequence).ts\n"
            }
            tracker.observe(try PlaylistParser().parseMediaPlaylist(text))
            let edge = try #require(v0.segments.last?.end)
            let schedule = try LiveSchedule(plan: plan, live: live, layout: layout, breaks: tracker.breaks, joined: 1, liveEdge: edge)
            for (index, rendition) in layout.renditions.enumerated() {
                let bytes = try renderer.livePlaylist(schedule, rendition: rendition, window: index == 0 ? v0 : v1).bytes
                largest = max(largest, bytes.count)
                let playlist = try PlaylistParser().parseMediaPlaylist(String(decoding: bytes, as: UTF8.self))
                let errors = PlaylistLinter().lint(playlist).filter { $0.severity == .error }
                #expect(errors.isEmpty, "poll \(last): \(errors)")
                #expect(playlist.segments.count <= LiveLimits.maxViewerEntries)
                if index == 0 {
                    #expect(playlist.mediaSequence >= lastSequence, "poll \(last): the window went back")
                    lastSequence = playlist.mediaSequence
                }
            }
        }
        return largest
    }

    @Test("CUE-OUT:DURATION=9999999999999999999 with no CUE-IN: planned for an hour at most, no trap")
    func hugeAnnouncedDuration() throws {
        let largest = try Self.watch(markers: [3: "#EXT-X-CUE-OUT:DURATION=9999999999999999999"], polls: 2...12)
        #expect(largest < 1 << 20, "\(largest) bytes")
    }

    @Test("CUE-OUT:DURATION=-5 with no CUE-IN: planned for marker_breaks.duration, no trap")
    func negativeAnnouncedDuration() throws {
        _ = try Self.watch(markers: [3: "#EXT-X-CUE-OUT:DURATION=-5"], polls: 2...14)
    }

    @Test("dates that jump 10⁹ s (and 10⁷ s) inside a break: the viewer's fill stays within an hour, the playlist bounded")
    func jumpingDates() throws {
        for jump: Int64 in [1_000_000_000, 10_000_000] {
            let largest = try Self.watch(markers: [3: "#EXT-X-CUE-OUT:DURATION=8"], polls: 2...12) { sequence in
                Int64(2 * sequence) + (sequence >= 5 ? jump : 0)
            }
            // An hour of 2 s slate is 1,800 segments of ~100 bytes: far from the 833 MB an unbounded fill made.
            #expect(largest < 1 << 20, "jump \(jump): \(largest) bytes")
        }
    }
}
