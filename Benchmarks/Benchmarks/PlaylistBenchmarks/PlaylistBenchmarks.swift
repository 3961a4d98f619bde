import Benchmark
import HLSPlaylist

/// Parse and write VOD media playlists of the sizes the issue names: a two-hour programme in
/// 1,200 six-second segments, and 40,000 segments (about 111 hours at 10 s).
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident],
        warmupIterations: 3,
        scalingFactor: .one,
        maxDuration: .seconds(5),
        maxIterations: 1_000
    )

    for segments in [1_200, 40_000] {
        let text = VODPlaylist.text(segments: segments)
        let parsed = try! PlaylistParser().parseMediaPlaylist(text)
        precondition(parsed.segments.count == segments)

        Benchmark("Parse \(segments)-segment media playlist") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try! PlaylistParser().parseMediaPlaylist(text))
            }
        }

        Benchmark("Write \(segments)-segment media playlist") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(PlaylistWriter().write(parsed))
            }
        }
    }
}

/// A VOD media playlist shaped like ffmpeg's HLS muxer output: six-decimal EXTINFs that vary
/// around the segment length, relative segment URIs, a discontinuity every 300 segments.
enum VODPlaylist {
    static func text(segments: Int) -> String {
        let length = segments > 2_000 ? 10 : 6
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:\(length)\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        for index in 0..<segments {
            if index > 0, index % 300 == 0 { text += "#EXT-X-DISCONTINUITY\n" }
            // Durations in microseconds, varying deterministically just below the segment length.
            let micros = length * 1_000_000 - 80_000 + (index * 7_919) % 80_000
            let fraction = String(micros % 1_000_000 + 1_000_000).dropFirst()
            let formatted = "\(micros / 1_000_000).\(fraction)"
            text += "#EXTINF:\(formatted),\nsegment_\(String(index + 100_000).dropFirst()).ts\n"
        }
        text += "#EXT-X-ENDLIST\n"
        return text
    }
}
