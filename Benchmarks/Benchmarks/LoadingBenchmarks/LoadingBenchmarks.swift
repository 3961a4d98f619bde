import AdCampaign
import Benchmark
import BenchmarkCampaigns

/// Load a single programme asset that marks 10,000 breaks in 20,000 segments (two variants)
/// from memory (issue 26): parse and lint, read the markers, cut 10,000 virtual islands, validate.
/// No files: what is measured is the loader, not the disk.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident],
        warmupIterations: 1,
        scalingFactor: .one,
        maxDuration: .seconds(10),
        maxIterations: 20
    )

    for (shape, dateRanges) in [("CUE-OUT/CUE-IN", false), ("DATERANGE SCTE35-OUT/IN", true)] {
        let source = PlaylistSource.memory(MarkedProgramme.playlists(breaks: 10_000, dateRanges: dateRanges), root: MarkedProgramme.root)
        let file = MarkedProgramme.root.appendingPathComponent("campaign.yaml")
        let loaded = try! CampaignLoader.load(yaml: MarkedProgramme.campaign, file: file, source: source)
        precondition(loaded.breaks.count == 10_000, "\(loaded.breaks.count) breaks")

        Benchmark("Load a programme with 10,000 markers (\(shape))") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try! CampaignLoader.load(yaml: MarkedProgramme.campaign, file: file, source: source))
            }
        }
    }
}
