import AdCampaign
import AdDecision
import Foundation
import HLSPlaylist
import Testing

/// Frequency caps as the planner applies them (docs/campaign-format.md "Frequency caps"): a cap
/// the viewer reached excludes every ad its pattern matches — pool ads and an ad server's alike,
/// in every break — and says why; the others play as they would.
@Suite("Frequency caps in the plan")
struct FrequencyCapPlanTests {
    static func campaign() throws -> Campaign {
        let yaml = try String(contentsOf: Bundle.module.url(forResource: "Fixtures/decision", withExtension: "yaml")!, encoding: .utf8)
        let capped = yaml + "\nfrequency_caps:\n  - { ads: '^alpha$', max: 3, per: 24h }\n  - { ads: '^(delta|uaid-.*)$', max: 1, per: 1h }\n"
        return try CampaignLoader.load(
            yaml: capped,
            file: Fixture.directory.appendingPathComponent("decision.yaml"),
            source: .memory(Media.playlists, root: Fixture.directory)
        )
    }

    @Test("a reached cap removes its ads from every break for every viewer, with the cap named; an unreached one changes nothing")
    func reachedCapsExclude() throws {
        let campaign = try Self.campaign()
        let creative = Ad(id: "uaid-7", asset: try #require(campaign.ads.first { $0.id == "charlie" }?.asset))
        var withAlpha = 0
        for context in (0..<40).map({ ViewerContext(session: "viewer-\($0)", milliseconds: 1_795_000_000_000 + Int64($0) * 3_600_000) }) {
            let free = Planner().plan(campaign, for: context, decided: ["mid-1": [creative]])
            if free.pieces.contains(where: { $0.id == "alpha" }) { withAlpha += 1 }
            for capped in [[0], [1], [0, 1]] {
                var viewer = context
                viewer.capped = capped
                let plan = Planner().plan(campaign, for: viewer, decided: ["mid-1": [creative]])
                let ids = Set(plan.pieces.map(\.id))
                #expect(ids.contains("alpha") == false || !capped.contains(0), "\(context.session) \(capped)")
                #expect(ids.isDisjoint(with: ["delta", "uaid-7"]) || !capped.contains(1), "\(context.session) \(capped)")
                for planned in plan.breaks {
                    for candidate in planned.candidates where ["alpha", "delta", "uaid-7"].contains(candidate.ad.id) {
                        let cap = candidate.ad.id == "alpha" ? 0 : 1
                        guard capped.contains(cap) else { continue }
                        guard case .excluded(let rule, let reason) = candidate.outcome else {
                            Issue.record("\(candidate.ad.id) in \(planned.adBreak.id) is not excluded: \(candidate.outcome)")
                            continue
                        }
                        #expect(rule == "frequency_caps[\(cap)]")
                        #expect(reason.contains(cap == 0 ? "3 impressions of '^alpha$' ads within 24h" : "1 impressions"), "\(reason)")
                    }
                }
                // The breaks still fill, from what the caps leave and then the slate, as without caps.
                #expect(plan.breaks.map(\.duration) == free.breaks.map(\.duration), "\(context.session) \(capped)")
            }
            // Caps the campaign does not have are no caps.
            var unknown = context
            unknown.capped = [7]
            #expect(Planner().plan(campaign, for: unknown, decided: ["mid-1": [creative]]).signature == free.signature)
        }
        #expect(withAlpha > 10, "alpha plays for uncapped viewers (\(withAlpha) of 40), so its absence means something")
    }
}
