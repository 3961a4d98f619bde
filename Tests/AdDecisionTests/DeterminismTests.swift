import AdCampaign
import AdDecision
import Foundation
import HLSPlaylist
import Testing

@Suite("Deterministic plans")
struct DeterminismTests {
    @Test func sameSessionGetsTheSamePlanEveryTime() throws {
        let campaign = try Fixture.decisionCampaign()
        let reloaded = try Fixture.decisionCampaign()
        for index in 0..<50 {
            let context = viewer(["locale": "en-GB"], session: "s-\(index)")
            let first = Planner().plan(campaign, for: context)
            for _ in 0..<5 {
                #expect(Planner().plan(campaign, for: context).signature == first.signature)
            }
            #expect(Planner().plan(reloaded, for: context).signature == first.signature)
            #expect(Planner().plan(reloaded, for: context).startup == first.startup)
        }
    }

    /// docs/architecture.md: the same session gets the same ads on any server replica, wherever it keeps the
    /// campaign.
    @Test func sameSessionGetsTheSamePlanFromACopyElsewhere() throws {
        let here = try Fixture.decisionCampaign()
        let there = try Fixture.decisionCampaign(in: URL(fileURLWithPath: "/elsewhere/\(UUID().uuidString)", isDirectory: true))
        #expect(here.revision == there.revision)
        for index in 0..<50 {
            let context = viewer(session: "s-\(index)")
            #expect(Planner().plan(here, for: context).signature == Planner().plan(there, for: context).signature)
        }
    }

    /// The decision does not depend on the time of the request beyond what rules look at.
    @Test func timeOnlyMattersThroughRules() throws {
        let campaign = try Fixture.decisionCampaign()
        let morning = Planner().plan(campaign, for: viewer(session: "s-7", at: "2026-11-25T08:00:00Z"))
        let noon = Planner().plan(campaign, for: viewer(session: "s-7", at: "2026-11-25T12:00:00Z"))
        #expect(morning.signature == noon.signature)
    }

    @Test func sessionsRotateThroughEveryEligibleAd() throws {
        let campaign = try Fixture.decisionCampaign()
        var pods: Set<[String]> = []
        var chosen: Set<String> = []
        for index in 0..<200 {
            let mid = try #require(Planner().plan(campaign, for: viewer(session: "s-\(index)")).planned("mid-1"))
            pods.insert(mid.ads.map(\.id))
            chosen.formUnion(mid.ads.map(\.id))
        }
        #expect(chosen == ["alpha", "bravo", "charlie", "delta"])
        #expect(pods.count >= 5)
    }

    @Test func breaksOfOneSessionAreDrawnIndependently() throws {
        // Two identical one-slot breaks: seeded by break id too, they do not always agree.
        let campaign = try Fixture.campaign(
            """
            version: 1
            id: twins
            program:
              islands:
                - { id: act-1, playlist: media/program/act-1/master.m3u8 }
            breaks:
              - { id: one, before: act-1, duration: 2, pools: [short] }
              - { id: two, after: act-1, duration: 2, pools: [short] }
            pools:
              short:
                - { id: charlie, playlist: media/ads/charlie/master.m3u8 }
                - { id: delta, playlist: media/ads/delta/master.m3u8 }
            """
        )
        let disagreements = (0..<100).filter { index in
            let plan = Planner().plan(campaign, for: viewer(session: "s-\(index)"))
            return plan.planned("one")?.ads.map(\.id) != plan.planned("two")?.ads.map(\.id)
        }
        #expect(disagreements.count > 25)
        #expect(disagreements.count < 75)
    }

    /// In a break with room for exactly one ad, each ad is drawn in proportion to its weight.
    @Test func weightsSetHowOftenAnAdIsChosen() throws {
        let campaign = try Fixture.campaign(
            """
            version: 1
            id: weights
            program:
              islands:
                - { id: act-1, playlist: media/program/act-1/master.m3u8 }
            breaks:
              - { id: mid, after: act-1, duration: 2, pools: [short] }
            pools:
              short:
                - { id: charlie, playlist: media/ads/charlie/master.m3u8, weight: 2 }
                - { id: delta, playlist: media/ads/delta/master.m3u8 }
                - { id: echo, playlist: media/ads/echo/master.m3u8 }
            """
        )
        let sessions = 1000
        var counts: [String: Int] = [:]
        for index in 0..<sessions {
            let ads = Planner().plan(campaign, for: viewer(session: "viewer-\(index)")).planned("mid")?.ads.map(\.id) ?? []
            #expect(ads.count == 1)
            for ad in ads { counts[ad, default: 0] += 1 }
        }
        let charlie = Double(counts["charlie"] ?? 0)
        let delta = Double(counts["delta"] ?? 0)
        let echo = Double(counts["echo"] ?? 0)
        #expect(charlie + delta + echo == Double(sessions))
        // Expected 500 : 250 : 250; the bounds are about three standard deviations wide.
        #expect((1.6...2.5).contains(charlie / ((delta + echo) / 2)), "\(counts)")
        #expect((0.75...1.33).contains(delta / echo), "\(counts)")
    }

    @Test func streamTimesAreExactSumsAndPiecesAreContiguous() throws {
        let campaign = try Fixture.decisionCampaign()
        for index in 0..<100 {
            let plan = Planner().plan(campaign, for: viewer(session: "s-\(index)"))
            var time = ExactDecimal.zero
            for piece in plan.pieces {
                #expect(piece.start == time)
                time += piece.duration
            }
            #expect(plan.duration == time)
            #expect(plan.duration == plan.pieces.map(\.asset.duration).sum())
            // The programme plus what each break filled.
            let islands = campaign.islands.map(\.asset.duration).sum()
            #expect(plan.duration == islands + plan.breaks.map(\.duration).sum())
            for planned in plan.breaks {
                let pieces = plan.pieces.filter { $0.breakID == planned.adBreak.id }
                if let first = pieces.first, let last = pieces.last {
                    #expect(planned.start == first.start)
                    #expect(planned.end == last.start + last.duration)
                }
            }
        }
    }

    @Test func streamTimesOfAKnownPlan() throws {
        // Each break has one possible fill, up to the order of alpha and bravo: preroll 4 s = charlie
        // and a slate, mid 10 s = alpha and bravo, postroll 3 s = charlie alone.
        let campaign = try Fixture.campaign(
            """
            version: 1
            id: known
            program:
              islands:
                - { id: act-1, playlist: media/program/act-1/master.m3u8 }
                - { id: act-2, playlist: media/program/act-2/master.m3u8 }
            breaks:
              - { id: preroll, before: act-1, duration: 4, pools: [short] }
              - { id: mid, after: act-1, duration: 10, pools: [prime] }
              - { id: postroll, after: act-2, duration: 3, pools: [short] }
            slate: { playlist: media/slate/master.m3u8 }
            pools:
              short:
                - { id: charlie, playlist: media/ads/charlie/master.m3u8 }
              prime:
                - { id: alpha, playlist: media/ads/alpha/master.m3u8 }
                - { id: bravo, playlist: media/ads/bravo/master.m3u8 }
            """
        )
        let plan = Planner().plan(campaign, for: viewer())
        let mid = try #require(plan.planned("mid"))
        let order = mid.ads.map(\.id)
        #expect(Set(order) == ["alpha", "bravo"])
        let first = order[0]
        let second = order[1]
        let secondStart = first == "alpha" ? "17.28" : "15.36"
        #expect(
            plan.signature == [
                "charlie@0", "slate@1.92", "act-1@3.84", "\(first)@11.52", "\(second)@\(secondStart)", "act-2@21.12", "charlie@26.88",
            ]
        )
        #expect(plan.duration == decimal("28.8"))
        #expect(plan.planned("preroll")?.start == .zero)
        #expect(plan.planned("preroll")?.end == decimal("3.84"))
        #expect(mid.start == decimal("11.52"))
        #expect(mid.end == decimal("21.12"))
        #expect(mid.duration == decimal("9.6"))
        #expect(mid.unfilled == decimal("0.4"))
        #expect(plan.planned("postroll")?.start == decimal("26.88"))
        #expect(plan.planned("postroll")?.unfilled == decimal("1.08"))
    }

    /// Exact arithmetic over a long stream: 500 slates of 1.92 s fill 960 s exactly, with nothing
    /// lost or gained to rounding.
    @Test func longBreaksStayExact() throws {
        let campaign = try Fixture.campaign(
            """
            version: 1
            id: long-break
            program:
              islands:
                - { id: act-1, playlist: media/program/act-1/master.m3u8 }
            breaks:
              - { id: marathon, after: act-1, duration: 960, pools: [none] }
            slate: { playlist: media/slate/master.m3u8 }
            pools:
              none: []
            """
        )
        let plan = Planner().plan(campaign, for: viewer())
        let marathon = try #require(plan.planned("marathon"))
        #expect(marathon.slates == 500)
        #expect(marathon.duration == decimal("960"))
        #expect(marathon.unfilled == .zero)
        #expect(plan.pieces.last?.start == decimal("965.76"))
        #expect(plan.duration == decimal("967.68"))
    }
}
