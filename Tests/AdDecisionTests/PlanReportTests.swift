import AdCampaign
import AdDecision
import Foundation
import HLSPlaylist
import Testing

@Suite("Plan report")
struct PlanReportTests {
    /// A Spanish speaker who has seen delta, on Friday evening in Madrid: all three rules apply.
    func report() throws -> PlanReport {
        let campaign = try Fixture.decisionCampaign()
        let context = viewer(["locale": "es-ES", "seen": "delta"], session: "s-1", at: "2026-11-27T19:30:00+01:00")
        return PlanReport(Planner().plan(campaign, for: context))
    }

    func object(_ value: Any?) throws -> [String: Any] { try #require(value as? [String: Any]) }
    func objects(_ value: Any?) throws -> [[String: Any]] { try #require(value as? [[String: Any]]) }

    @Test func jsonHoldsEveryBreakAndCandidateWithTheExclusionReasons() throws {
        let report = try self.report()
        let plan = report.plan
        let json = try self.object(JSONSerialization.jsonObject(with: Data(report.json.text().utf8)))
        #expect(json["campaign"] as? String == "decision-news")
        #expect(json["revision"] as? String == plan.campaign.revision)
        #expect(json["session"] as? String == "s-1")
        #expect(json["at"] as? String == "2026-11-27T18:30:00Z")
        #expect(json["appliedRules"] as? [String] == ["spanish-speakers", "evening", "already-seen"])
        #expect(try self.object(json["attributes"]) as? [String: String] == ["locale": "es-ES", "seen": "delta"])

        let breaks = try self.objects(json["breaks"])
        #expect(breaks.map { $0["id"] as? String } == ["preroll", "mid-1", "postroll"])
        for (entry, planned) in zip(breaks, plan.breaks) {
            let candidates = try self.objects(entry["candidates"])
            let pools = planned.pools.compactMap(plan.campaign.pool)
            var expected: [String] = []
            for ad in pools.flatMap(\.ads) where !expected.contains(ad.id) { expected.append(ad.id) }
            #expect(candidates.map { $0["ad"] as? String } == expected)
            #expect(entry["restrict"] as? [String] == planned.adBreak.restrict.names)
            #expect(entry["slates"] as? Int == planned.slates)
            for candidate in candidates {
                switch candidate["ad"] as? String {
                case "bravo":
                    #expect(candidate["outcome"] as? String == "excluded")
                    #expect(candidate["rule"] as? String == "spanish-speakers")
                    #expect(candidate["reason"] as? String == "exclude '^bravo$'")
                case "delta":
                    #expect(candidate["outcome"] as? String == "excluded")
                    #expect(candidate["rule"] as? String == "already-seen")
                    #expect(candidate["reason"] as? String == "exclude_seen: the viewer has seen it")
                default:
                    #expect(["chosen", "not-chosen"].contains(candidate["outcome"] as? String))
                }
            }
            // Every chosen ad of the plan, at its position.
            let chosen = candidates.filter { $0["outcome"] as? String == "chosen" }
                .sorted { ($0["position"] as? Int ?? 0) < ($1["position"] as? Int ?? 0) }
            #expect(chosen.map { $0["ad"] as? String } == planned.ads.map(\.id))
        }
        let mid = try #require(breaks.first { $0["id"] as? String == "mid-1" })
        let alpha = try #require(try self.objects(mid["candidates"]).first { $0["ad"] as? String == "alpha" })
        #expect(alpha["weight"] as? Double == 6)
        #expect(try self.objects(alpha["boosts"]).map { $0["rule"] as? String } == ["evening"])

        let timeline = try self.objects(json["timeline"])
        #expect(timeline.map { $0["id"] as? String } == plan.pieces.map(\.id))
        #expect(timeline.map { $0["kind"] as? String }.filter { $0 == "island" }.count == 2)

        let startup = try self.object(json["startup"])
        #expect(startup["variant"] as? Int == plan.startup.variant)
        #expect(try self.objects(startup["order"]).map { $0["index"] as? Int } == plan.startup.order)
    }

    /// Times are written as exact decimals, not through `Double`.
    @Test func jsonTimesAreExactDecimals() throws {
        let report = try self.report()
        let text = report.json.text()
        #expect(text.contains("\"duration\": 7.68"))
        #expect(text.contains("\"duration\": 5.76"))
        #expect(text.contains("\"duration\": \(report.plan.duration)"))
        #expect(!text.contains("0000000"))
        #expect(!text.contains("9999999"))
        // Compact output parses too.
        #expect((try? JSONSerialization.jsonObject(with: Data(report.json.text(pretty: false).utf8))) != nil)
    }

    @Test func textNamesTheExcludingRules() throws {
        let text = try self.report().text
        #expect(text.contains("Campaign decision-news"))
        #expect(text.contains("Session s-1 at 2026-11-27T18:30:00Z with locale=es-ES seen=delta"))
        #expect(text.contains("Rules applied: spanish-speakers, evening, already-seen"))
        #expect(text.contains("✗ bravo: excluded by rule \"spanish-speakers\" — exclude '^bravo$'"))
        #expect(text.contains("✗ delta: excluded by rule \"already-seen\" — exclude_seen: the viewer has seen it"))
        for id in ["preroll", "mid-1", "postroll"] {
            #expect(text.contains("Break \(id):"))
        }
        #expect(text.contains("Startup variant: v0 320x180"))
        #expect(text.contains("Variant order:\n  1. v0 320x180"))
    }

    @Test func textListsTheTimeline() throws {
        let report = try self.report()
        for piece in report.plan.pieces {
            switch piece.kind {
            case .island: #expect(report.text.contains("island \(piece.id)"))
            case .ad(_, let breakID): #expect(report.text.contains("ad \(piece.id)  [\(breakID)]"))
            case .slate(let breakID): #expect(report.text.contains("slate  [\(breakID)]"))
            }
        }
    }
}
