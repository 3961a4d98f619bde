import AdCampaign
import AdDecision
import HLSPlaylist
import Testing

/// Breaks filled by ads an ad decision server decided (docs/design-decisions.md "Next steps on
/// paper"): those first, in their order, each whole and under the viewer's `exclude` rules, then
/// the break's pools for what is left, then slate.
@Suite("Decided ads")
struct DecidedAdsTests {
    /// An ad of no pool playing `asset` under `id`, as a creative the ad server chose.
    static func creative(_ id: String, like ad: String, in campaign: Campaign) throws -> Ad {
        let asset = try #require(campaign.ads.first { $0.id == ad }?.asset)
        return Ad(id: id, asset: asset, tracking: ["impression": ["https://ads.example/imp?c=\(id)"]])
    }

    @Test("decided ads play first in their order, whole; the pools' draw fills what is left; candidates say what became of each")
    func decidedFirst() throws {
        let campaign = try Fixture.decisionCampaign()
        let long = try Self.creative("uaid-long", like: "alpha", in: campaign)
        let short = try Self.creative("uaid-short", like: "delta", in: campaign)
        let plan = Planner().plan(campaign, for: viewer(), decided: ["mid-1": [long, short]])
        let mid = try #require(plan.planned("mid-1"))
        #expect(Array(mid.ads.prefix(2)).map(\.id) == ["uaid-long", "uaid-short"])
        let decidedTime = long.asset.duration + short.asset.duration
        // What is left after them is drawn from the break's pools as usual, then slate.
        let drawn = mid.ads.dropFirst(2)
        #expect(drawn.allSatisfy { ["alpha", "bravo", "charlie", "delta"].contains($0.id) })
        #expect(drawn.map(\.asset.duration).sum() <= mid.adBreak.duration - decidedTime)
        #expect(mid.candidates.prefix(2).map(\.outcome) == [.chosen(position: 0), .chosen(position: 1)])
        // The pieces play the decided creatives, their tracking carried.
        let pieces = plan.pieces.filter { $0.breakID == "mid-1" }
        #expect(pieces.prefix(2).map(\.id) == ["uaid-long", "uaid-short"])
        // Other breaks, with nothing decided, are what they were.
        let plain = Planner().plan(campaign, for: viewer())
        #expect(plan.planned("preroll")?.ads.map(\.id) == plain.planned("preroll")?.ads.map(\.id))
        #expect(plan.planned("postroll")?.ads.map(\.id) == plain.planned("postroll")?.ads.map(\.id))
    }

    @Test("a decided ad that no longer fits is skipped with why, and a shorter one after it still plays")
    func decidedThatDoNotFit() throws {
        let campaign = try Fixture.decisionCampaign()
        // 5.76 s, 3.84 s, 5.76 s, 1.92 s for a 12 s break: the third no longer fits, the fourth does.
        let decided = [
            try Self.creative("first", like: "alpha", in: campaign), try Self.creative("second", like: "bravo", in: campaign),
            try Self.creative("third", like: "alpha", in: campaign), try Self.creative("fourth", like: "charlie", in: campaign),
        ]
        #expect(decided.map(\.asset.duration) == [decimal("5.76"), decimal("3.84"), decimal("5.76"), decimal("1.92")])
        let plan = Planner().plan(campaign, for: viewer(), decided: ["mid-1": decided])
        let mid = try #require(plan.planned("mid-1"))
        #expect(mid.ads.map(\.id) == ["first", "second", "fourth"])
        #expect(
            mid.candidates.first { $0.ad.id == "third" }?.outcome == .notChosen(reason: "the ad server's ads before it left less than its 5.76 s")
        )
        #expect(mid.unfilled == decimal("0.48"))
    }

    @Test("a rule's exclude applies to decided ads by their id; the break falls back to its pools")
    func rulesStillDecide() throws {
        let campaign = try Fixture.decisionCampaign()
        // The fixture excludes ^bravo$ for Spanish-speaking viewers: an ad server creative so named is excluded too.
        let bravo = try Self.creative("bravo", like: "alpha", in: campaign)
        let spanish = Planner().plan(campaign, for: viewer(["locale": "es-ES"]), decided: ["mid-1": [bravo]])
        let mid = try #require(spanish.planned("mid-1"))
        #expect(!mid.ads.contains { $0.id == "bravo" })
        #expect(mid.candidates.first?.outcome == .excluded(rule: "spanish-speakers", reason: "exclude '^bravo$'"))
        #expect(!mid.ads.isEmpty, "the pools fill the break instead")
        let english = Planner().plan(campaign, for: viewer(["locale": "en-GB"]), decided: ["mid-1": [bravo]])
        #expect(english.planned("mid-1")?.ads.first?.asset === bravo.asset)
    }

    @Test("nothing decided: every plan of 200 sessions is the plan without decisions")
    func nothingDecidedChangesNothing() throws {
        let campaign = try Fixture.decisionCampaign()
        for index in 0..<200 {
            let context = viewer(session: "s-\(index)")
            let plain = Planner().plan(campaign, for: context)
            let empty = Planner().plan(campaign, for: context, decided: ["mid-1": []])
            #expect(plain.pieces.map(\.id) == empty.pieces.map(\.id))
        }
    }
}
