import HLSPlaylist
import Testing

@testable import AdCampaign

/// Where a date falls on a playlist's PROGRAM-DATE-TIME timeline (date ranges placed by their
/// dates): found by binary search (docs/reliability.md), it must answer as the scan over every dated
/// segment it replaced did — including where date-times jump back at a discontinuity.
@Suite("Programme clock")
struct ProgrammeClockTests {
    /// 4 s segments (s3: 2.5 s) dated from 2026-11-24T00:00:00Z; after a discontinuity before s5
    /// the clock jumps an hour forward (01:00:00), or back (2026-11-23T23:00:00Z); s8 carries a
    /// date-time again, 1.5 s late.
    static func playlist(jumpingBack: Bool) -> MediaPlaylist {
        let (day, hour) = jumpingBack ? ("23", "23") : ("24", "01")
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        text += "#EXT-X-PROGRAM-DATE-TIME:2026-11-24T00:00:00.000Z\n"
        for index in 0..<9 {
            if index == 5 { text += "#EXT-X-DISCONTINUITY\n#EXT-X-PROGRAM-DATE-TIME:2026-11-\(day)T\(hour):00:00.000Z\n" }
            if index == 8 { text += "#EXT-X-PROGRAM-DATE-TIME:2026-11-\(day)T\(hour):00:13.500Z\n" }
            text += "#EXTINF:\(index == 3 ? "2.500" : "4.000"),\ns\(index).ts\n"
        }
        return try! PlaylistParser().parseMediaPlaylist(text + "#EXT-X-ENDLIST\n")
    }

    static func seconds(_ text: String) -> ExactDecimal { DateTime(text)!.secondsSinceEpoch }

    /// The scan the clock replaced: the last dated segment at or before the date (else the first
    /// dated one), then the last segment starting at or before the time, a millisecond's leeway.
    static func scanned(_ seconds: ExactDecimal, in playlist: MediaPlaylist) -> Int? {
        let segments = playlist.segments
        let dated = segments.indices.compactMap { index in
            segments[index].programDateTime.flatMap(DateTime.init).map { (start: segments[index].startTime, date: $0.secondsSinceEpoch) }
        }
        guard let anchor = dated.last(where: { $0.date <= seconds }) ?? dated.first else { return nil }
        let time = anchor.start + (seconds - anchor.date)
        let tolerance = ExactDecimal(significand: 1, exponent: 3)
        guard time >= -tolerance, time <= playlist.duration + tolerance else { return nil }
        if time >= playlist.duration - tolerance { return segments.count }
        return segments.indices.last { segments[$0].startTime <= time + tolerance }
    }

    @Test("dates on, between and near boundaries, after a jump forward, before the start and past the end")
    func placesDates() {
        let clock = ProgrammeClock(Self.playlist(jumpingBack: false))
        // Starts: s0 0, s1 4, s2 8, s3 12, s4 14.5, s5 18.5, s6 22.5, s7 26.5, s8 30.5; the end 34.5.
        let expected: [(String, Int?)] = [
            ("2026-11-24T00:00:00.000Z", 0),
            ("2026-11-24T00:00:07.999Z", 2),  // within a millisecond of s2's start
            ("2026-11-24T00:00:09.000Z", 2),  // between two boundaries: the one at or before
            ("2026-11-24T00:00:14.500Z", 4),  // after the 2.5 s segment
            ("2026-11-24T00:30:00.000Z", nil),  // in the jump: past the end of the first anchor's stretch
            ("2026-11-24T01:00:00.000Z", 5),  // s5's own date-time
            ("2026-11-24T01:00:13.000Z", 8),  // on s5's clock 31.5 s: within s8
            ("2026-11-24T01:00:13.500Z", 8),  // s8's own date-time
            ("2026-11-24T01:00:17.500Z", 9),  // the end
            ("2026-11-24T01:00:18.000Z", nil),  // past the end
            ("2026-11-23T23:59:59.000Z", nil),  // before every date-time: before the start
        ]
        for (date, segment) in expected {
            #expect(clock.segment(atSeconds: Self.seconds(date)) == segment, "\(date)")
        }
    }

    @Test(
        "the binary search answers as the scan over every dated segment did, every 500 ms, the clock jumping forward or back",
        arguments: [false, true]
    )
    func agreesWithTheScan(jumpingBack: Bool) {
        let playlist = Self.playlist(jumpingBack: jumpingBack)
        let clock = ProgrammeClock(playlist)
        let start = Self.seconds("2026-11-23T22:59:50.000Z")
        for step in 0..<(2 * 7_300) {
            let seconds = start + ExactDecimal(significand: step * 5, exponent: 1)
            #expect(clock.segment(atSeconds: seconds) == Self.scanned(seconds, in: playlist), "\(seconds)")
        }
    }
}
