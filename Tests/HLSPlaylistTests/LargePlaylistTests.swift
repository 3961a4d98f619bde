import Foundation
import HLSPlaylist
import Testing

/// A long VOD playlist — a day of 2 s segments plus change — parses exactly and round-trips.
@Suite("Large playlists")
struct LargePlaylistTests {
    static let segmentCount = 40_000
    /// Durations as an encoder writes them, and their value in microseconds.
    static let durations: [(text: String, microseconds: Int)] = [
        ("2.002", 2_002_000), ("2.002000", 2_002_000), ("1.968633", 1_968_633), ("2", 2_000_000), ("2.00200", 2_002_000), ("0.033367", 33_367),
    ]

    /// The playlist text and the exact total duration in microseconds.
    static func generate() -> (text: String, microseconds: Int) {
        var lines = [
            "#EXTM3U", "#EXT-X-VERSION:6", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:VOD",
            "#EXT-X-INDEPENDENT-SEGMENTS", "#EXT-X-MAP:URI=\"init.mp4\"",
        ]
        lines.reserveCapacity(Self.segmentCount * 2 + 20)
        var total = 0
        for index in 0..<Self.segmentCount {
            let duration = Self.durations[index % Self.durations.count]
            if index % 1_000 == 0 { lines.append("#EXT-X-PROGRAM-DATE-TIME:2026-11-23T00:00:00.000Z") }
            if index % 5_000 == 4_999 { lines.append("## chapter \(index / 5_000 + 1)") }
            lines.append("#EXTINF:\(duration.text),")
            lines.append("seg_\(index).m4s")
            total += duration.microseconds
        }
        lines.append("#EXT-X-ENDLIST")
        return (lines.joined(separator: "\n") + "\n", total)
    }

    @Test("a 40,000-segment VOD playlist parses to 40,000 segments with the exact total duration and round-trips")
    func fortyThousandSegments() throws {
        let (text, microseconds) = Self.generate()
        let playlist = try parseMedia(text)
        #expect(playlist.segments.count == Self.segmentCount)
        let expected = ExactDecimal(scaledValue: Int128(microseconds) * 1_000_000_000_000)
        #expect(playlist.duration == expected)
        #expect(playlist.segments.map(\.duration).sum() == expected)
        #expect(playlist.segments.last?.startTime == expected - playlist.segments[Self.segmentCount - 1].duration)
        #expect(playlist.segments.last?.mediaSequenceNumber == Self.segmentCount - 1)
        #expect(playlist.segments.last?.uri == "seg_39999.m4s")
        #expect(bytes(PlaylistWriter().write(playlist)) == bytes(text))
    }
}
