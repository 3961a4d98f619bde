import AdCampaign
import AdDecision
import HLSPlaylist
import Testing

/// The fixture ladder, out of BANDWIDTH order on purpose:
///
/// | index | variant              | BANDWIDTH | family / range   |
/// |-------|----------------------|-----------|------------------|
/// | 0     | 1920x1080 avc1.6400  | 5 000 000 | avc / SDR        |
/// | 1     | 320x180 avc1.42c0    |   300 000 | avc / SDR        |
/// | 2     | 640x360 avc1.4d40    |   800 000 | avc / SDR        |
/// | 3     | 1280x720 avc1.4d40   | 2 000 000 | avc / SDR        |
/// | 4     | 1280x720 hvc1        | 1 600 000 | hevc / PQ        |
/// | 5     | 1920x1080 hvc1       | 3 500 000 | hevc / PQ        |
/// | 6     | 1920x1080 dvh1       | 3 400 000 | dolby-vision / PQ|
/// | 7     | 1280x720 hvc1        | 1 500 000 | hevc / SDR       |
@Suite("Startup variant")
struct StartupSelectorTests {
    /// The startup decision of a campaign over the ladder with these `startup:` entries.
    func decide(_ startup: String, _ attributes: [String: String] = [:]) throws -> StartupDecision {
        let campaign = try Fixture.campaign(
            """
            version: 1
            id: ladder
            program:
              islands:
                - { id: show, playlist: media/ladder/master.m3u8 }
            startup:
            \(startup.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
            """
        )
        #expect(campaign.islands[0].asset.variants.count == 8)
        return StartupSelector().decide(campaign, for: viewer(attributes))
    }

    @Test func lowest() throws {
        let decision = try self.decide("- pick: { lowest: true }")
        #expect(decision.variant == 1)
        #expect(decision.rule == 0)
        #expect(decision.reason == "the lowest BANDWIDTH")
    }

    @Test func maxBandwidthTakesTheHighestAtOrBelow() throws {
        #expect(try self.decide("- pick: { max_bandwidth: 3000000 }").variant == 3)
        #expect(try self.decide("- pick: { max_bandwidth: 2000000 }").variant == 3)
        #expect(try self.decide("- pick: { max_bandwidth: 1999999 }").variant == 4)
        #expect(try self.decide("- pick: { max_bandwidth: 1000000, lowest: true }").variant == 1)
        #expect(try self.decide("- pick: { max_bandwidth: 3000000 }").reason == "BANDWIDTH ≤ 3000000, the highest BANDWIDTH")
    }

    @Test func maxResolution() throws {
        #expect(try self.decide("- pick: { max_resolution: 1280x720 }").variant == 3)
        #expect(try self.decide("- pick: { max_resolution: 640x360 }").variant == 2)
        #expect(try self.decide("- pick: { max_resolution: 1280x720, lowest: true }").variant == 1)
    }

    @Test func codecsByPrefix() throws {
        #expect(try self.decide("- pick: { codecs: hvc1 }").variant == 5)
        #expect(try self.decide("- pick: { codecs: hvc1, lowest: true }").variant == 7)
        #expect(try self.decide("- pick: { codecs: dvh1 }").variant == 6)
        #expect(try self.decide("- pick: { codecs: avc1.4d }").variant == 3)
        #expect(try self.decide("- pick: { codecs: hvc1, video_range: PQ, lowest: true }").variant == 4)
        #expect(try self.decide("- pick: { video_range: SDR }").variant == 0)
    }

    @Test func bandwidthHintAppliesTheSafetyFactorToTheViewersBandwidth() throws {
        let entry = "- pick: { bandwidth_hint: 0.8 }"
        // 2 000 000 × 0.8 = 1 600 000: variant 4 exactly.
        let decision = try self.decide(entry, ["bandwidth": "2000000"])
        #expect(decision.variant == 4)
        #expect(decision.reason == "the viewer's 2000000 b/s × 0.8, BANDWIDTH ≤ 1600000, the highest BANDWIDTH")
        #expect(try self.decide(entry, ["bandwidth": "1999999"]).variant == 7)
        #expect(try self.decide(entry, ["bandwidth": "1000000"]).variant == 2)
        #expect(try self.decide(entry, ["bandwidth": "100000000"]).variant == 0)
        // The stricter of the hint and max_bandwidth wins.
        #expect(try self.decide("- pick: { bandwidth_hint: 0.8, max_bandwidth: 900000 }", ["bandwidth": "2000000"]).variant == 2)
        #expect(try self.decide("- pick: { bandwidth_hint: 0.5, max_bandwidth: 3000000 }", ["bandwidth": "2000000"]).variant == 2)
        // Combined with a codec family.
        #expect(try self.decide("- pick: { bandwidth_hint: 0.8, codecs: avc1 }", ["bandwidth": "3000000"]).variant == 3)
    }

    @Test func bandwidthHintWithoutAUsableMeasurementIsIgnored() throws {
        let entry = "- pick: { bandwidth_hint: 0.8, max_bandwidth: 1000000 }"
        for attributes in [[:], ["bandwidth": "fast"], ["bandwidth": "0"], ["bandwidth": "-5"]] {
            #expect(try self.decide(entry, attributes).variant == 2, "\(attributes)")
        }
    }

    @Test func firstMatchingEntryDecides() throws {
        let startup = """
            - when: { attributes: { device: '(?i)tv' } }
              pick: { max_bandwidth: 3000000 }
            - when: { attributes: { bandwidth: '^[0-9]+$' } }
              pick: { bandwidth_hint: 0.8 }
            - pick: { lowest: true }
            """
        let tv = try self.decide(startup, ["device": "AppleTV", "bandwidth": "900000"])
        #expect(tv.variant == 3)
        #expect(tv.rule == 0)
        let measured = try self.decide(startup, ["device": "phone", "bandwidth": "900000"])
        #expect(measured.variant == 1)
        #expect(measured.rule == 1)
        let other = try self.decide(startup, ["device": "phone"])
        #expect(other.variant == 1)
        #expect(other.rule == 2)
    }

    @Test func fallsBackToTheLowestWhenNoEntryMatches() throws {
        let decision = try self.decide(
            """
            - when: { attributes: { device: '(?i)tv' } }
              pick: { max_bandwidth: 3000000 }
            """
        )
        #expect(decision.variant == 1)
        #expect(decision.rule == nil)
        #expect(decision.reason == "no startup entry matched: the lowest BANDWIDTH")
    }

    @Test func fallsBackToTheLowestWhenNoVariantMeetsTheConstraints() throws {
        let decision = try self.decide("- pick: { max_bandwidth: 100000 }")
        #expect(decision.variant == 1)
        #expect(decision.rule == 0)
        #expect(decision.reason == "no variant has BANDWIDTH ≤ 100000: the lowest BANDWIDTH")
        #expect(try self.decide("- pick: { codecs: av01 }").variant == 1)
    }

    @Test func noStartupEntriesMeansTheLowest() throws {
        let campaign = try Fixture.campaign(
            """
            version: 1
            id: ladder
            program:
              islands:
                - { id: show, playlist: media/ladder/master.m3u8 }
            """
        )
        let decision = StartupSelector().decide(campaign, for: viewer())
        #expect(decision.variant == 1)
        #expect(decision.rule == nil)
    }

    /// Startup first, then per other family and range the variant closest in BANDWIDTH to the
    /// startup, then the rest in their original order.
    @Test(arguments: [
        ("- pick: { lowest: true }", [1, 4, 6, 7, 0, 2, 3, 5]),
        ("- pick: { max_bandwidth: 2000000 }", [3, 4, 6, 7, 0, 1, 2, 5]),
        ("- pick: { codecs: dvh1 }", [6, 3, 5, 7, 0, 1, 2, 4]),
        ("- pick: { codecs: hvc1, video_range: SDR }", [7, 3, 4, 6, 0, 1, 2, 5]),
    ])
    func variantOrderPutsStartupFirstThenOnePerFamily(_ startup: String, _ order: [Int]) throws {
        let decision = try self.decide(startup)
        #expect(decision.variant == order[0])
        #expect(decision.order == order)
        #expect(decision.order.sorted() == Array(0..<8))
    }
}
