import AdCampaign
import AdDecision
import AdStitching
import Foundation
import HLSPlaylist
import Testing

/// Where an ad's VAST events fall among its segments (docs/http-api.md "Beacons"), and how a
/// session's playlists list those segments by their links: nothing else of the playlist changes.
@Suite("Beacon events")
struct BeaconEventsTests {
    static func seconds(_ values: [String]) -> [ExactDecimal] { values.compactMap { ExactDecimal($0) } }

    @Test(
        "the first segment carries impression and start, the last complete, a quartile the segment that crosses it (a boundary: the one ending there)",
        arguments: [
            (["6"], [0: 63]),
            (["1.92", "1.92"], [0: 15, 1: 48]),
            (["1", "1", "6"], [0: 3, 1: 4, 2: 56]),
            (["2", "2", "2", "2"], [0: 7, 1: 8, 2: 16, 3: 32]),
            (["0.1", "0.1", "0.1"], [0: 7, 1: 8, 2: 48]),
            (["3.84", "0.04"], [0: 31, 1: 32]),
        ]
    )
    func schedule(durations: [String], expected: [Int: Int]) {
        let schedule = BeaconEvents.schedule(BeaconEvents(rawValue: 63), durations: Self.seconds(durations))
        #expect(schedule.mapValues(\.rawValue) == expected, "\(durations)")
        // Every event exactly once.
        #expect(schedule.values.reduce(0) { $0 + $1.rawValue } == 63 && schedule.values.allSatisfy { !$0.isEmpty })
    }

    @Test("only the events an ad has URLs for; an empty ad has none")
    func tracked() {
        let tracked = BeaconEvents(tracking: ["impression": ["https://t.example/i"], "midpoint": ["https://t.example/m"], "complete": []])
        #expect(tracked == [.impression, .midpoint] && tracked.names == ["impression", "midpoint"])
        #expect(BeaconEvents.schedule(tracked, durations: Self.seconds(["2", "2", "2"])).mapValues(\.rawValue) == [0: 1, 1: 8])
        #expect(BeaconEvents.schedule(tracked, durations: []).isEmpty)
        #expect(BeaconEvents.schedule([], durations: Self.seconds(["2"])).isEmpty)
    }

    @Test("a session's video playlists list the event segments by their links and are otherwise the same bytes; other renditions are untouched")
    func playlists() throws {
        var linked = 0
        for demo in Demo.allCases {
            let campaign = try demo.campaign()
            let renderer = SessionRenderer(layout: try StitchLayout(campaign: campaign, uris: Demo.uris(for: campaign)))
            let links = BeaconLinks { piece, events, target in "BEACON \(piece) \(events.rawValue) \(target)" }
            for context in variedViewers(20) {
                let plan = Planner().plan(campaign, for: context)
                for rendition in renderer.layout.renditions {
                    let plain = try renderer.mediaPlaylistBytes(plan, rendition: rendition).text
                    let text = try renderer.mediaPlaylistBytes(plan, rendition: rendition, beacons: links).text
                    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
                    let restored = lines.map { line in line.hasPrefix("BEACON ") ? line.split(separator: " ", maxSplits: 3)[3] : line }
                    #expect(restored.joined(separator: "\n") == plain, "\(demo) \(rendition.id): only the links differ")
                    let beacons = lines.filter { $0.hasPrefix("BEACON ") }
                    guard case .video = rendition.kind else {
                        #expect(beacons.isEmpty, "\(demo) \(rendition.id): only video playlists carry links")
                        continue
                    }
                    // One link per ad with tracking that plays (all its events on one segment or more).
                    let tracked = plan.pieces.enumerated().filter { _, piece in
                        if case .ad(let ad, _) = piece.kind { !BeaconEvents(tracking: ad.tracking).isEmpty } else { false }
                    }
                    for (position, piece) in tracked {
                        guard case .ad(let ad, _) = piece.kind else { continue }
                        let mine = beacons.filter { $0.split(separator: " ")[1] == "\(position)" }
                        let events = mine.reduce(0) { $0 | (Int($1.split(separator: " ")[2]) ?? 0) }
                        #expect(events == BeaconEvents(tracking: ad.tracking).rawValue, "\(demo) \(rendition.id) piece \(position)")
                    }
                    #expect(beacons.count >= tracked.count)
                    linked += beacons.count
                }
            }
        }
        #expect(linked > 0, "no demo ad with tracking played: the test checks nothing")
    }
}
