import AdCampaign
import AdDecision
import Testing

/// `startup: { experiment: { a, b, split } }` (docs/campaign-format.md "Startup variant"): each
/// session in one arm by a stable hash of its id, the arm's entries deciding its startup variant.
@Suite("Startup experiment")
struct StartupExperimentTests {
    /// The ladder of ``StartupSelectorTests``; arm `a` starts at the lowest variant (1), `b` at the
    /// highest at or below 2 Mbit/s (3).
    static func campaign(split: Int?) throws -> Campaign {
        try Fixture.campaign(
            """
            version: 1
            id: ladder
            program:
              islands:
                - { id: show, playlist: media/ladder/master.m3u8 }
            startup:
              experiment:
                a: [ { pick: { lowest: true } } ]
                b:
                  - when: { attributes: { device: tv } }
                    pick: { max_resolution: 640x360 }
                  - pick: { max_bandwidth: 2000000 }
            \(split.map { "    split: \($0)" } ?? "")
            """
        )
    }

    @Test("200 sessions split 50/50 within 10 %, each session's arm the same on every decision, each arm's entries deciding")
    func splitsSessions() throws {
        let campaign = try Self.campaign(split: nil)
        let experiment = try #require(campaign.startupExperiment)
        #expect(experiment.split == 50 && campaign.startup.isEmpty)
        var arms: [StartupExperiment.Arm: Int] = [:]
        for index in 0..<200 {
            let decision = StartupSelector().decide(campaign, for: viewer(session: "viewer-\(index)"))
            let arm = try #require(decision.arm)
            arms[arm, default: 0] += 1
            // Deterministic: the same session decides the same way, whenever it is planned.
            let again = StartupSelector().decide(campaign, for: viewer(session: "viewer-\(index)", at: "2026-12-01T08:00:00Z"))
            #expect(again.arm == arm && again.variant == decision.variant)
            #expect(decision.variant == (arm == .a ? 1 : 3), "\(decision)")
            #expect(decision.ruleName == (arm == .a ? "startup.experiment.a[0]" : "startup.experiment.b[1]"))
            #expect(decision.reason.hasPrefix("experiment arm \(arm.rawValue): "))
        }
        #expect((90...110).contains(arms[.a] ?? 0) && (90...110).contains(arms[.b] ?? 0), "\(arms)")
        // An arm's own conditions still hold per viewer: a TV in b takes b's first entry.
        let tv = (0..<50).map { viewer(["device": "tv"], session: "tv-\($0)") }
        let decisions = tv.map { StartupSelector().decide(campaign, for: $0) }
        #expect(decisions.filter { $0.arm == .b }.allSatisfy { $0.variant == 2 && $0.ruleName == "startup.experiment.b[0]" })
    }

    @Test("split 0 puts every session in a, 100 every session in b, 20 about a fifth in b")
    func splitShares() throws {
        let sessions = (0..<500).map { viewer(session: "s-\($0)") }
        func share(_ split: Int) throws -> Int {
            let campaign = try Self.campaign(split: split)
            return sessions.count { StartupSelector().decide(campaign, for: $0).arm == .b }
        }
        #expect(try share(0) == 0)
        #expect(try share(100) == 500)
        #expect((75...125).contains(try share(20)))
    }

    @Test("a plan without an experiment has no arm and names its entry as before")
    func noExperiment() throws {
        let campaign = try Fixture.campaign(
            """
            version: 1
            id: ladder
            program:
              islands:
                - { id: show, playlist: media/ladder/master.m3u8 }
            startup:
              - pick: { lowest: true }
            """
        )
        let decision = StartupSelector().decide(campaign, for: viewer())
        #expect(decision.arm == nil && decision.ruleName == "startup[0]" && campaign.startupExperiment == nil)
    }

    @Test("a bad experiment is refused with its field: an arm missing, a split past 100, a mapping without experiment")
    func refused() {
        func issues(_ startup: String) -> [String] {
            do {
                _ = try Fixture.campaign(
                    """
                    version: 1
                    id: ladder
                    program:
                      islands:
                        - { id: show, playlist: media/ladder/master.m3u8 }
                    startup:
                    \(startup)
                    """
                )
                return []
            } catch let error as CampaignError {
                return error.issues.map { "\($0.field): \($0.message)" }
            } catch {
                return ["\(error)"]
            }
        }
        #expect(
            issues("  experiment: { a: [ { pick: { lowest: true } } ] }") == [
                "startup.experiment.b: is required: each arm is a list of startup entries"
            ]
        )
        #expect(
            issues("  experiment: { a: [], b: [], split: 101 }")
                == ["startup.experiment.split: 101 is not a percentage: give the share of sessions in b, 0 to 100"]
        )
        #expect(issues("  lowest: true").first?.hasPrefix("startup.lowest") == true)
        #expect(
            issues("  experiment: { a: [ { pick: { fastest: true } } ], b: [] }").first?.hasPrefix("startup.experiment.a[0].pick.fastest") == true
        )
    }
}
