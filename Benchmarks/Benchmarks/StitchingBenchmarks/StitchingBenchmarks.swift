import AdCampaign
import AdDecision
import AdStitching
import Benchmark
import BenchmarkCampaigns
import Foundation

/// Plan and render from an already loaded campaign (the per-request work of the server): a
/// two-hour programme in three 40-minute islands with a pre-roll and two mid-rolls, six
/// variants, 6 s segments (1,200 per variant), five ads and a slate.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal],
        warmupIterations: 10,
        scalingFactor: .one,
        maxDuration: .seconds(5),
        maxIterations: 20_000
    )

    let campaign = try! CampaignLoader.load(TwoHourCampaign.write(into: TwoHourCampaign.temporaryFolder()))
    let layout = try! StitchLayout(campaign: campaign, uris: .absolute)
    let renderer = SessionRenderer(layout: layout)
    let rendition = layout.renditions[3]
    let at = Date(timeIntervalSince1970: 1_795_800_000)

    Benchmark("Plan a session (3 breaks)") { benchmark in
        for iteration in benchmark.scaledIterations {
            blackHole(Planner().plan(campaign, for: ViewerContext(session: "s-\(iteration)", at: at, attributes: ["locale": "en-GB"])))
        }
    }

    Benchmark("Plan and render one media playlist (2 h, 6 variants)") { benchmark in
        for iteration in benchmark.scaledIterations {
            let plan = Planner().plan(campaign, for: ViewerContext(session: "s-\(iteration)", at: at, attributes: ["locale": "en-GB"]))
            blackHole(try! renderer.mediaPlaylist(plan, rendition: rendition))
        }
    }

    Benchmark("Plan and render the multivariant playlist") { benchmark in
        for iteration in benchmark.scaledIterations {
            let plan = Planner().plan(campaign, for: ViewerContext(session: "s-\(iteration)", at: at, attributes: ["locale": "en-GB"]))
            blackHole(try! renderer.multivariant(plan, playlistURI: { "\($0.id).m3u8" }, boundariesURI: "boundaries.json"))
        }
    }

    Benchmark("Load the campaign and build its stitch layout") { benchmark in
        let file = TwoHourCampaign.write(into: TwoHourCampaign.temporaryFolder())
        for _ in benchmark.scaledIterations {
            let campaign = try! CampaignLoader.load(file)
            blackHole(try! StitchLayout(campaign: campaign, uris: .absolute))
        }
    }
}
