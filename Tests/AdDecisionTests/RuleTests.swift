import AdCampaign
import AdDecision
import Testing

@Suite("Rules")
struct RuleTests {
    /// Friday 19:30 in Madrid: the fixture's `evening` rule holds.
    static let fridayEvening = "2026-11-27T19:30:00+01:00"

    @Test func everyMatchingRuleAppliesInCampaignOrder() throws {
        let campaign = try Fixture.decisionCampaign()
        let planner = Planner()
        #expect(planner.plan(campaign, for: viewer()).appliedRules == [])
        #expect(planner.plan(campaign, for: viewer(["locale": "es-ES"])).appliedRules == ["spanish-speakers"])
        #expect(planner.plan(campaign, for: viewer(["seen": "delta"], at: Self.fridayEvening)).appliedRules == ["evening", "already-seen"])
        // The attribute order of the request does not matter; the campaign's rule order does.
        #expect(
            planner.plan(campaign, for: viewer(["seen": "delta", "locale": "es"], at: Self.fridayEvening)).appliedRules
                == ["spanish-speakers", "evening", "already-seen"]
        )
    }

    @Test func excludePatternKeepsAnAdOutOfEveryBreak() throws {
        let campaign = try Fixture.decisionCampaign()
        for index in 0..<100 {
            let plan = Planner().plan(campaign, for: viewer(["locale": "es-ES"], session: "s-\(index)"))
            for planned in plan.breaks {
                #expect(!planned.ads.contains { $0.id == "bravo" })
                #expect(planned.candidate("bravo")?.outcome == .excluded(rule: "spanish-speakers", reason: "exclude '^bravo$'"))
            }
            #expect(!plan.pieces.contains { $0.id == "bravo" })
        }
        // Without the rule, bravo plays for some sessions.
        let unrestricted = (0..<100).map { Planner().plan(campaign, for: viewer(session: "s-\($0)")) }
        #expect(unrestricted.contains { $0.pieces.contains { $0.id == "bravo" } })
    }

    @Test func excludePatternsMatchAnywhereUnlessAnchored() throws {
        let campaign = try Fixture.campaign(
            Self.oneBreak(
                pools: "[prime]",
                rules: """
                    - name: no-a
                      then: { exclude: ['a$', '^charlie'] }
                    """
            )
        )
        let planned = try #require(Planner().plan(campaign, for: viewer()).planned("mid"))
        #expect(planned.candidate("alpha")?.outcome == .excluded(rule: "no-a", reason: "exclude 'a$'"))
        #expect(planned.candidate("delta")?.outcome == .excluded(rule: "no-a", reason: "exclude 'a$'"))
        #expect(planned.candidate("charlie")?.outcome == .excluded(rule: "no-a", reason: "exclude '^charlie'"))
        #expect(planned.ads.map(\.id) == ["bravo"])
    }

    @Test func theFirstExcludingRuleIsTheReason() throws {
        let campaign = try Fixture.decisionCampaign()
        let plan = Planner().plan(campaign, for: viewer(["locale": "es-ES", "seen": "bravo,delta"]))
        let mid = try #require(plan.planned("mid-1"))
        #expect(mid.candidate("bravo")?.outcome == .excluded(rule: "spanish-speakers", reason: "exclude '^bravo$'"))
        #expect(mid.candidate("delta")?.outcome == .excluded(rule: "already-seen", reason: "exclude_seen: the viewer has seen it"))
    }

    @Test func excludeSeenDropsWhatTheViewerSaw() throws {
        let campaign = try Fixture.decisionCampaign()
        for index in 0..<100 {
            let plan = Planner().plan(campaign, for: viewer(["seen": "alpha,delta"], session: "s-\(index)"))
            #expect(!plan.pieces.contains { $0.id == "alpha" || $0.id == "delta" })
            let mid = try #require(plan.planned("mid-1"))
            #expect(mid.candidate("alpha")?.outcome == .excluded(rule: "already-seen", reason: "exclude_seen: the viewer has seen it"))
            #expect(mid.candidate("delta")?.outcome == .excluded(rule: "already-seen", reason: "exclude_seen: the viewer has seen it"))
            if case .excluded = mid.candidate("bravo")?.outcome { Issue.record("bravo was not seen") }
        }
    }

    @Test func boostMultipliesTheWeight() throws {
        let campaign = try Fixture.decisionCampaign()
        let plain = try #require(Planner().plan(campaign, for: viewer()).planned("mid-1"))
        #expect(plain.candidate("alpha")?.weight == 2)
        #expect(plain.candidate("alpha")?.boosts.isEmpty == true)

        let evening = try #require(Planner().plan(campaign, for: viewer(at: Self.fridayEvening)).planned("mid-1"))
        let alpha = try #require(evening.candidate("alpha"))
        #expect(alpha.weight == 6)
        #expect(alpha.boosts.map(\.rule) == ["evening"])
        #expect(alpha.boosts.map(\.factor) == [3])
        #expect(evening.candidate("bravo")?.weight == 1)
    }

    @Test func boostsOfSeveralRulesMultiply() throws {
        let campaign = try Fixture.campaign(
            Self.oneBreak(
                pools: "[prime]",
                rules: """
                    - name: triple
                      then: { boost: { alpha: 3 } }
                    - name: halve
                      then: { boost: { alpha: 0.5, bravo: 4 } }
                    """
            )
        )
        let planned = try #require(Planner().plan(campaign, for: viewer()).planned("mid"))
        #expect(planned.candidate("alpha")?.weight == 1.5)
        #expect(planned.candidate("alpha")?.boosts.map(\.rule) == ["triple", "halve"])
        #expect(planned.candidate("bravo")?.weight == 4)
        #expect(planned.candidate("charlie")?.weight == 1)
    }

    /// The boost changes the draw, not only the report: in a break with room for one ad, alpha
    /// boosted ninefold wins about nine times in ten.
    @Test func boostChangesTheDraw() throws {
        let campaign = try Fixture.campaign(
            """
            version: 1
            id: boosted
            program:
              islands:
                - { id: act-1, playlist: media/program/act-1/master.m3u8 }
            breaks:
              - { id: mid, after: act-1, duration: 2, pools: [short] }
            pools:
              short:
                - { id: charlie, playlist: media/ads/charlie/master.m3u8 }
                - { id: delta, playlist: media/ads/delta/master.m3u8 }
            rules:
              - name: push-charlie
                when: { attributes: { push: '^yes$' } }
                then: { boost: { charlie: 9 } }
            """
        )
        func charlieShare(_ attributes: [String: String]) -> Double {
            let wins = (0..<400).filter { index in
                Planner().plan(campaign, for: viewer(attributes, session: "s-\(index)")).planned("mid")?.ads.first?.id == "charlie"
            }
            return Double(wins.count) / 400
        }
        let plain = charlieShare([:])
        let pushed = charlieShare(["push": "yes"])
        #expect((0.4...0.6).contains(plain))
        #expect((0.84...0.96).contains(pushed))
    }

    @Test func zeroBoostMeansNeverChosen() throws {
        let campaign = try Fixture.campaign(
            Self.oneBreak(
                pools: "[prime]",
                rules: """
                    - name: mute-alpha
                      then: { boost: { alpha: 0 } }
                    """
            )
        )
        for index in 0..<50 {
            let planned = try #require(Planner().plan(campaign, for: viewer(session: "s-\(index)")).planned("mid"))
            #expect(planned.candidate("alpha")?.outcome == .notChosen(reason: "its weight is 0"))
        }
    }

    @Test func poolOverrideForOneBreak() throws {
        let campaign = try Fixture.campaign(
            """
            version: 1
            id: override
            program:
              islands:
                - { id: act-1, playlist: media/program/act-1/master.m3u8 }
            breaks:
              - { id: preroll, before: act-1, duration: 6, pools: [house] }
              - { id: mid, after: act-1, duration: 12, pools: [prime] }
            pools:
              prime:
                - { id: alpha, playlist: media/ads/alpha/master.m3u8 }
                - { id: bravo, playlist: media/ads/bravo/master.m3u8 }
              house:
                - { id: charlie, playlist: media/ads/charlie/master.m3u8 }
                - { id: delta, playlist: media/ads/delta/master.m3u8 }
              uk:
                - { id: echo, playlist: media/ads/echo/master.m3u8 }
            rules:
              - name: uk-house
                when: { attributes: { market: '^uk$' } }
                then: { pools: { mid: [house, uk] } }
              - name: uk-only-late
                when: { attributes: { market: '^uk$' }, time: { from: "22:00", to: "02:00", zone: Europe/London } }
                then: { pools: { mid: [uk] } }
            """
        )
        let plain = Planner().plan(campaign, for: viewer())
        #expect(plain.planned("mid")?.pools == ["prime"])
        #expect(plain.planned("mid")?.candidates.map(\.ad.id) == ["alpha", "bravo"])

        let uk = Planner().plan(campaign, for: viewer(["market": "uk"]))
        #expect(uk.planned("mid")?.pools == ["house", "uk"])
        #expect(uk.planned("mid")?.candidates.map(\.ad.id) == ["charlie", "delta", "echo"])
        // Only the break named is overridden.
        #expect(uk.planned("preroll")?.pools == ["house"])

        // Every matching rule applies in order, so the later override wins.
        let late = Planner().plan(campaign, for: viewer(["market": "uk"], at: "2026-11-25T23:00:00Z"))
        #expect(late.appliedRules == ["uk-house", "uk-only-late"])
        #expect(late.planned("mid")?.pools == ["uk"])
        #expect(late.planned("mid")?.ads.map(\.id) == ["echo"])
    }

    /// One island, one 12 s break `mid` from `pools`; prime holds alpha 5.76 s, bravo 3.84 s,
    /// charlie 1.92 s and delta 1.92 s, all weight 1; no slate.
    static func oneBreak(pools: String, rules: String) -> String {
        """
        version: 1
        id: one-break
        program:
          islands:
            - { id: act-1, playlist: media/program/act-1/master.m3u8 }
        breaks:
          - { id: mid, after: act-1, duration: 12, pools: \(pools) }
        pools:
          prime:
            - { id: alpha, playlist: media/ads/alpha/master.m3u8 }
            - { id: bravo, playlist: media/ads/bravo/master.m3u8 }
            - { id: charlie, playlist: media/ads/charlie/master.m3u8 }
            - { id: delta, playlist: media/ads/delta/master.m3u8 }
        rules:
        \(rules.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
        """
    }
}
