import AdCampaign
import AdDecision
import HLSPlaylist
import Testing

@Suite("Pod filling")
struct PodFillingTests {
    /// Viewers the fixture's rules treat differently: none, Spanish, seen some ads, Friday evening.
    static let viewers: [(attributes: [String: String], at: String)] = [
        ([:], "2026-11-25T12:00:00Z"),
        (["locale": "es-ES"], "2026-11-25T12:00:00Z"),
        (["seen": "alpha,delta"], "2026-11-25T12:00:00Z"),
        (["seen": "charlie"], "2026-11-27T19:30:00+01:00"),
    ]

    /// The rules of pod filling, checked on every break of 4 × 200 plans.
    @Test func everyBreakFollowsThePodRules() throws {
        let campaign = try Fixture.decisionCampaign()
        let slate = try #require(campaign.slate)
        for (attributes, at) in Self.viewers {
            for index in 0..<200 {
                let plan = Planner().plan(campaign, for: viewer(attributes, session: "s-\(index)", at: at))
                for planned in plan.breaks {
                    let pieces = plan.pieces.filter { $0.breakID == planned.adBreak.id }
                    let adIDs = planned.ads.map(\.id)
                    // The ads, then the slate repeated whole: nothing else, in that order.
                    #expect(pieces.map(\.id) == adIDs + Array(repeating: "slate", count: planned.slates))
                    #expect(pieces.filter { $0.id == "slate" }.allSatisfy { $0.duration == slate.duration })
                    // An ad at most once per break.
                    #expect(Set(adIDs).count == adIDs.count)
                    // Never beyond the nominal duration; what is left is the break's unfilled time.
                    let filled = pieces.map(\.duration).sum()
                    #expect(filled == planned.duration)
                    #expect(planned.duration <= planned.adBreak.duration)
                    #expect(planned.duration + planned.unfilled == planned.adBreak.duration)
                    // Nothing that could still play fits what is left.
                    let eligible = planned.candidates.filter {
                        if case .notChosen = $0.outcome { $0.weight > 0 } else { false }
                    }
                    let shortest = (eligible.map(\.ad.asset.duration) + [slate.duration]).min()!
                    #expect(planned.unfilled < shortest, "\(planned.adBreak.id) of \(plan.context.session) leaves \(planned.unfilled) s")
                    // Candidates and chosen ads agree.
                    for (position, ad) in planned.ads.enumerated() {
                        #expect(planned.candidate(ad.id)?.outcome == .chosen(position: position))
                    }
                }
            }
        }
    }

    @Test func adsComeFromTheBreaksPoolsInPoolOrder() throws {
        let campaign = try Fixture.decisionCampaign()
        let plan = Planner().plan(campaign, for: viewer())
        #expect(plan.planned("preroll")?.candidates.map(\.ad.id) == ["delta", "bravo"])
        // bravo is in both pools of mid-1 and is a candidate once.
        #expect(plan.planned("mid-1")?.candidates.map(\.ad.id) == ["alpha", "bravo", "charlie", "delta"])
        #expect(plan.planned("postroll")?.candidates.map(\.ad.id) == ["delta", "bravo"])
    }

    @Test func poolTooSmallLeavesTheRestToTheSlate() throws {
        let campaign = try Fixture.campaign(Self.smallPool(slate: true))
        let planned = try #require(Planner().plan(campaign, for: viewer()).planned("mid"))
        #expect(planned.ads.map(\.id) == ["charlie"])
        // 12 − 1.92 = 10.08 leaves room for five whole 1.92 s slates.
        #expect(planned.slates == 5)
        #expect(planned.duration == decimal("11.52"))
        #expect(planned.unfilled == decimal("0.48"))
    }

    @Test func withoutASlateTheBreakIsShorter() throws {
        let campaign = try Fixture.campaign(Self.smallPool(slate: false))
        let plan = Planner().plan(campaign, for: viewer())
        let planned = try #require(plan.planned("mid"))
        #expect(planned.ads.map(\.id) == ["charlie"])
        #expect(planned.slates == 0)
        #expect(planned.duration == decimal("1.92"))
        #expect(planned.unfilled == decimal("10.08"))
        // The programme resumes when the ads end, not at the nominal end.
        #expect(plan.signature == ["act-1@0", "charlie@7.68", "act-2@9.6"])
    }

    @Test func everyAdExcludedMeansAllSlate() throws {
        let campaign = try Fixture.campaign(
            Self.smallPool(slate: true)
                + """

                rules:
                  - name: nothing
                    then: { exclude: ['.'] }
                """
        )
        let planned = try #require(Planner().plan(campaign, for: viewer()).planned("mid"))
        #expect(planned.ads.isEmpty)
        #expect(planned.slates == 6)
        #expect(planned.duration == decimal("11.52"))
        #expect(planned.unfilled == decimal("0.48"))
    }

    @Test func anAdLongerThanTheBreakIsNotChosen() throws {
        let campaign = try Fixture.campaign(
            """
            version: 1
            id: long-ad
            program:
              islands:
                - { id: act-1, playlist: media/program/act-1/master.m3u8 }
            breaks:
              - { id: preroll, before: act-1, duration: 6, pools: [prime] }
              - { id: mid, after: act-1, duration: 10, pools: [prime] }
            pools:
              prime:
                - { id: long, playlist: media/ads/long/master.m3u8 }
            """
        )
        for index in 0..<20 {
            let plan = Planner().plan(campaign, for: viewer(session: "s-\(index)"))
            let preroll = try #require(plan.planned("preroll"))
            #expect(preroll.ads.isEmpty)
            #expect(preroll.candidate("long")?.outcome == .notChosen(reason: "it runs 7.68 s, longer than the break's 6 s"))
            #expect(plan.planned("mid")?.ads.map(\.id) == ["long"])
        }
    }

    @Test func theDrawFillsTheBreakWhileSomethingFits() throws {
        // 4 s with bravo (3.84 s) and two 1.92 s ads: bravo alone, or both short ones in either
        // order — bravo never follows a short one (1.92 + 3.84 > 4) and a short one never follows bravo.
        let campaign = try Fixture.campaign(
            """
            version: 1
            id: draw
            program:
              islands:
                - { id: act-1, playlist: media/program/act-1/master.m3u8 }
            breaks:
              - { id: mid, after: act-1, duration: 4, pools: [prime] }
            pools:
              prime:
                - { id: bravo, playlist: media/ads/bravo/master.m3u8 }
                - { id: charlie, playlist: media/ads/charlie/master.m3u8 }
                - { id: delta, playlist: media/ads/delta/master.m3u8 }
            """
        )
        var pods: Set<[String]> = []
        for index in 0..<200 {
            let planned = try #require(Planner().plan(campaign, for: viewer(session: "s-\(index)")).planned("mid"))
            pods.insert(planned.ads.map(\.id))
            #expect(planned.duration == decimal("3.84"))
            #expect(planned.unfilled == decimal("0.16"))
        }
        #expect(pods == [["bravo"], ["charlie", "delta"], ["delta", "charlie"]])
    }

    /// One island (7.68 s) and act-2 (5.76 s), a 12 s break after act-1 filled from a pool of one
    /// 1.92 s ad, with or without the 1.92 s slate.
    static func smallPool(slate: Bool) -> String {
        """
        version: 1
        id: small-pool
        program:
          islands:
            - { id: act-1, playlist: media/program/act-1/master.m3u8 }
            - { id: act-2, playlist: media/program/act-2/master.m3u8 }
        breaks:
          - { id: mid, after: act-1, duration: 12, pools: [tiny] }
        pools:
          tiny:
            - { id: charlie, playlist: media/ads/charlie/master.m3u8 }
        \(slate ? "slate: { playlist: media/slate/master.m3u8 }" : "")
        """
    }
}
