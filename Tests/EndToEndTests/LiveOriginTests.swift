import AdLive
import Foundation
import HLSPlaylist
import SCTE35
import Testing

/// The live origin the live tests and demo run on (`scripts/live-origin.py`), held to
/// what a packager's sliding window must be: polled as a live player polls it, read back with the
/// playlist engine and the SCTE-35 decoder.
@Suite("Live origin (test tool)", .serialized)
struct LiveOriginTests {
    /// The origin at 4× (a 1.92 s segment every 0.48 s), ten-segment windows (a segment stays
    /// 4.8 s: polls slowed by a busy machine still see every one), a break of three segments
    /// every eight from segment 3.
    final class Origin: Sendable {
        let process: BackgroundProcess
        let port: Int
        let epoch: Int

        init() async throws {
            // The channel starts two seconds from now, so the first poll sees its first break open
            // even on a busy machine.
            self.epoch = Int(Date().timeIntervalSince1970) + 2
            let script = Repository.root.appendingPathComponent("scripts/live-origin.py").path
            self.process = try BackgroundProcess(
                "python3",
                [
                    "-u", script, "--epoch", "\(self.epoch)", "--speed", "4", "--window", "10", "--first-break", "3", "--break-every", "8",
                    "--break-length", "3",
                ]
            )
            guard let line = await self.process.waitForLine(containing: "Serving HTTP"),
                let port = line.split(separator: " ").last.flatMap({ Int($0) })
            else { throw Tool.Missing(name: "scripts/live-origin.py") }
            self.port = port
        }

        /// Waits until the first rendition's window holds `count` segments (the channel has started).
        func waitForSegments(_ count: Int) async throws {
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                let body = try self.get("/240p/index.m3u8").body
                if body.components(separatedBy: "#EXTINF:").count > count { return }
                try await Task.sleep(for: .milliseconds(200))
            }
            throw Tool.Missing(name: "a live origin that publishes segments")
        }

        /// Polls the first rendition's playlist every 100 ms until `done` holds (true) or 20 s pass (false).
        func poll(until done: ((status: Int, body: String)) -> Bool) async throws -> Bool {
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                if done(try self.get("/240p/index.m3u8")) { return true }
                try await Task.sleep(for: .milliseconds(100))
            }
            return false
        }

        func get(_ path: String) throws -> (status: Int, body: String) {
            let answer = try LoopbackHTTP.exchange("GET", port: self.port, path: path)
            return (answer.status, String(decoding: answer.body, as: UTF8.self))
        }
    }

    @Test("a sliding window: sequence numbers move by what left, segments keep their numbers, dates and discontinuities; SCTE-35 and CUE breaks")
    func slidingWindow() async throws {
        let origin = try await Origin()
        defer { origin.process.stop() }
        var uriBySequence: [Int: String] = [:]
        var dateBySequence: [Int: String] = [:]
        var discontinuityBySequence: [Int: Int] = [:]
        var previous: MediaPlaylist?
        var outs: [SpliceInsert] = []
        var ins: [SpliceInsert] = []
        var cueOuts = 0
        var cueIns = 0
        var polls = 0
        var tracker = LiveBreakTracker()
        var problems: [String] = []
        // Until the window has moved past two closed breaks (one of each marker style) and a wrap
        // of the loop: about 17 s of wall clock; a minute at most on a busy machine.
        // A poll that comes late on a busy machine (this loop shares two cores with the whole
        // suite; a window lasts 4.8 s at speed 4) may miss segments altogether, and with them a
        // break's end: the tracker can only know what it saw, so the exact ends are checked on
        // the breaks whose every segment some poll showed.
        func seenWhole(_ adBreak: LiveBreak) -> Bool {
            guard let end = adBreak.closing?.end else { return false }
            return (adBreak.first...end).allSatisfy { uriBySequence[$0] != nil }
        }
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline,
            uriBySequence.count < 40 || tracker.breaks.filter(seenWhole).count < 2 || Set(discontinuityBySequence.values).count < 2
        {
            try await Task.sleep(for: .milliseconds(200))
            let answer = try origin.get("/240p/index.m3u8")
            #expect(answer.status == 200)
            let playlist = try PlaylistParser().parseMediaPlaylist(answer.body)
            guard !playlist.segments.isEmpty else { continue }
            polls += 1
            #expect(!playlist.hasEndList, "a live window has no ENDLIST")
            #expect(playlist.segments.count <= 10)
            let first = playlist.mediaSequence
            for (offset, segment) in playlist.segments.enumerated() {
                let sequence = first + offset
                // A segment's number never changes, nor its URI or date.
                #expect(uriBySequence[sequence, default: String(segment.uri)] == String(segment.uri), "segment \(sequence)")
                uriBySequence[sequence] = String(segment.uri)
                let date = try #require(segment.programDateTime.map(String.init), "segment \(sequence) is dated")
                #expect(dateBySequence[sequence, default: date] == date)
                dateBySequence[sequence] = date
                // RFC 8216bis §6.2.2: the media and discontinuity sequences move by exactly what
                // left the window, so a segment keeps its discontinuity sequence number too.
                #expect(segment.mediaSequenceNumber == sequence)
                #expect(
                    discontinuityBySequence[sequence, default: segment.discontinuitySequenceNumber] == segment.discontinuitySequenceNumber,
                    "segment \(sequence)"
                )
                discontinuityBySequence[sequence] = segment.discontinuitySequenceNumber
            }
            if let previous { #expect(playlist.mediaSequence >= previous.mediaSequence) }
            for line in answer.body.split(separator: "\n") {
                if line.hasPrefix("#EXT-X-CUE-OUT:") { cueOuts += 1 }
                if line == "#EXT-X-CUE-IN" { cueIns += 1 }
            }
            for entry in playlist.dateRanges {
                for (name, into) in [("SCTE35-OUT", true), ("SCTE35-IN", false)] {
                    guard let hex = entry.dateRange.attributes.attributes.first(where: { $0.name == name })?.rawValue else { continue }
                    let section = try SpliceInfoSection(hex)
                    guard case .insert(let insert) = section.command else {
                        Issue.record("\(name) is not a splice_insert")
                        continue
                    }
                    if into { outs.append(insert) } else { ins.append(insert) }
                }
            }
            tracker.observe(playlist)
            problems += tracker.problems
            previous = playlist
        }
        #expect(polls > 2)
        #expect(uriBySequence.count >= 40, "the window moved: \(uriBySequence.count) segments seen")
        #expect(Set(discontinuityBySequence.values).count >= 2, "the loop wrapped (a discontinuity) while polling")
        #expect(cueOuts > 0 && cueIns > 0, "CUE-OUT/CUE-IN breaks seen")
        #expect(!outs.isEmpty && !ins.isEmpty, "SCTE-35 splice_insert breaks seen")
        for insert in outs {
            #expect(insert.outOfNetwork && insert.isImmediate && insert.breakDuration?.autoReturn == true)
            #expect(insert.breakDuration?.duration == 3 * 172_800, "three 1.92 s segments at 90 kHz")
        }
        #expect(ins.allSatisfy { !$0.outOfNetwork && $0.breakDuration == nil })
        // The break tracker reads the schedule back: a break of three segments every eight from
        // segment 3, CUE-marked ones named by their place, SCTE-35 ones by their DATERANGE ID.
        let closed = tracker.breaks.filter(seenWhole)
        #expect(closed.count >= 2, "\(tracker.breaks)")
        for adBreak in closed {
            let number = (adBreak.first - 3) / 8
            #expect(adBreak.first == 3 + 8 * number && adBreak.closing?.end == adBreak.first + 3, "\(adBreak)")
            #expect(adBreak.id == (number.isMultiple(of: 2) ? "seq-\(adBreak.first)" : "splice-\(1000 + number)"), "\(adBreak)")
            #expect(adBreak.replacedDuration == ExactDecimal("5.76"))
        }
        // The origin's SCTE-35 always decodes, and no break is taken for an insertion point. (A
        // poll that comes late on a busy machine may meet the end of a break whose opening left
        // the window: the tracker reports that once, as LiveBreakTrackerTests holds it to.)
        #expect(!problems.contains { $0.contains("SCTE-35") || $0.contains("ends where it starts") }, "\(problems)")
        // Dates: each segment 1.92 s after the one before it (the loop's discontinuities included).
        let dated = dateBySequence.keys.sorted().compactMap { sequence in dateBySequence[sequence].flatMap { DateTime($0) }.map { (sequence, $0) } }
        for (a, b) in zip(dated, dated.dropFirst()) where b.0 == a.0 + 1 {
            #expect(b.1.secondsSinceEpoch - a.1.secondsSinceEpoch == ExactDecimal("1.92"), "segments \(a.0) → \(b.0)")
        }
    }

    @Test("faults: a stall keeps the window, a failing origin answers 503, both end")
    func faults() async throws {
        let origin = try await Origin()
        defer { origin.process.stop() }
        try await origin.waitForSegments(2)
        // A fault a busy machine's delays cannot outlast (the full suite runs real clients
        // beside this), ended by the test; then one that ends by itself, polled for.
        #expect(try origin.get("/_/stall/60").status == 200)
        let stalled = try origin.get("/240p/index.m3u8").body
        try await Task.sleep(for: .milliseconds(700))  // without the stall, a segment every 0.48 s
        #expect(try origin.get("/240p/index.m3u8").body == stalled, "the window does not move while stalled")
        #expect(try origin.get("/_/stall/0").status == 200)
        #expect(try await origin.poll(until: { $0.status == 200 && $0.body != stalled }), "it moves again after the stall")

        let clock = ContinuousClock()
        let stallStart = clock.now
        #expect(try origin.get("/_/stall/2").status == 200)
        let held = try origin.get("/240p/index.m3u8").body
        #expect(try await origin.poll(until: { $0.status == 200 && $0.body != held }), "a stall ends by itself")
        #expect(clock.now - stallStart >= .seconds(2), "not before its time")

        #expect(try origin.get("/_/fail/60").status == 200)
        #expect(try origin.get("/240p/index.m3u8").status == 503)
        #expect(try origin.get("/_/fail/0").status == 200)
        #expect(try origin.get("/240p/index.m3u8").status == 200, "playlists answer again after the failure")

        let failStart = clock.now
        #expect(try origin.get("/_/fail/2").status == 200)
        #expect(try origin.get("/240p/index.m3u8").status == 503)
        #expect(try await origin.poll(until: { $0.status == 200 }), "a failure ends by itself")
        #expect(clock.now - failStart >= .seconds(2), "not before its time")
    }
}
