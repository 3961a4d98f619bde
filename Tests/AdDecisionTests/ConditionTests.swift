import AdCampaign
import AdDecision
import Testing

@Suite("Rule conditions")
struct ConditionTests {
    @Test func emptyConditionAlwaysHolds() throws {
        let condition = try Fixture.condition("{}")
        #expect(condition.isEmpty)
        #expect(condition.holds(for: viewer()))
    }

    @Test func everyAttributePatternMustMatch() throws {
        let condition = try Fixture.condition("{ attributes: { locale: '^es(-|$)', device: '(?i)tv' } }")
        #expect(condition.holds(for: viewer(["locale": "es-ES", "device": "AppleTV"])))
        #expect(condition.holds(for: viewer(["locale": "es", "device": "smart-tv", "market": "uk"])))
        #expect(!condition.holds(for: viewer(["locale": "es-ES", "device": "phone"])))
        #expect(!condition.holds(for: viewer(["locale": "en-GB", "device": "AppleTV"])))
        #expect(!condition.holds(for: viewer(["locale": "esperanto", "device": "tv"])))
    }

    /// Even a pattern that matches every string, the empty one included, needs the attribute.
    @Test func missingAttributeNeverMatches() throws {
        let condition = try Fixture.condition("{ attributes: { market: '^$|.*' } }")
        #expect(!condition.holds(for: viewer()))
        #expect(!condition.holds(for: viewer(["locale": "es-ES"])))
        #expect(condition.holds(for: viewer(["market": ""])))
        #expect(condition.holds(for: viewer(["market": "uk"])))
    }

    @Test func timeWindowIsLocalTimeInItsZone() throws {
        let evening = try Fixture.condition(#"{ time: { from: "18:00", to: "23:30", zone: Europe/Madrid } }"#)
        // Winter, CET = UTC+1: `from` inclusive, `to` exclusive.
        #expect(!evening.holds(for: viewer(at: "2026-11-27T16:59:59Z")))
        #expect(evening.holds(for: viewer(at: "2026-11-27T17:00:00Z")))
        #expect(evening.holds(for: viewer(at: "2026-11-27T19:30:00+01:00")))
        #expect(evening.holds(for: viewer(at: "2026-11-27T22:29:59Z")))
        #expect(!evening.holds(for: viewer(at: "2026-11-27T22:30:00Z")))
        // Summer, CEST = UTC+2: a fixed +1 offset would get both of these wrong.
        #expect(evening.holds(for: viewer(at: "2026-07-10T16:15:00Z")))
        #expect(!evening.holds(for: viewer(at: "2026-07-10T21:45:00Z")))
    }

    @Test func timeWindowFollowsDaylightSavingChanges() throws {
        // 2026-03-29: Madrid's clocks jump from 02:00 CET to 03:00 CEST at 01:00Z.
        let early = try Fixture.condition(#"{ time: { from: "03:00", to: "04:00", zone: Europe/Madrid } }"#)
        #expect(!early.holds(for: viewer(at: "2026-03-29T00:59:59Z")))
        #expect(early.holds(for: viewer(at: "2026-03-29T01:00:00Z")))
        #expect(early.holds(for: viewer(at: "2026-03-29T01:59:59Z")))
        #expect(!early.holds(for: viewer(at: "2026-03-29T02:00:00Z")))
        // 2026-10-25: back from 03:00 CEST to 02:00 CET at 01:00Z, so 02:00–03:00 local happens twice.
        let repeated = try Fixture.condition(#"{ time: { from: "02:00", to: "03:00", zone: Europe/Madrid } }"#)
        #expect(!repeated.holds(for: viewer(at: "2026-10-24T23:59:59Z")))
        #expect(repeated.holds(for: viewer(at: "2026-10-25T00:30:00Z")))
        #expect(repeated.holds(for: viewer(at: "2026-10-25T01:30:00Z")))
        #expect(!repeated.holds(for: viewer(at: "2026-10-25T02:00:00Z")))
    }

    @Test func timeWindowAcrossMidnight() throws {
        let night = try Fixture.condition(#"{ time: { from: "22:00", to: "02:00", zone: Europe/Madrid } }"#)
        #expect(!night.holds(for: viewer(at: "2026-11-27T20:59:59Z")))
        #expect(night.holds(for: viewer(at: "2026-11-27T21:00:00Z")))
        #expect(night.holds(for: viewer(at: "2026-11-27T23:30:00Z")))
        #expect(night.holds(for: viewer(at: "2026-11-28T00:59:59Z")))
        #expect(!night.holds(for: viewer(at: "2026-11-28T01:00:00Z")))
        #expect(!night.holds(for: viewer(at: "2026-11-28T12:00:00Z")))
    }

    @Test func timeWindowWithoutZoneIsUTC() throws {
        let window = try Fixture.condition(#"{ time: { from: "18:00", to: "19:00" } }"#)
        #expect(window.holds(for: viewer(at: "2026-11-27T18:30:00Z")))
        #expect(!window.holds(for: viewer(at: "2026-11-27T18:30:00+01:00")))
    }

    @Test func daysAreWeekdaysInTheWindowsZone() throws {
        // Friday 23:30Z is already Saturday 00:30 in Madrid.
        let saturday = try Fixture.condition(#"{ time: { from: "00:00", to: "24:00", zone: Europe/Madrid }, days: [sat] }"#)
        #expect(saturday.holds(for: viewer(at: "2026-11-27T23:30:00Z")))
        #expect(!saturday.holds(for: viewer(at: "2026-11-27T22:30:00Z")))
        #expect(saturday.holds(for: viewer(at: "2026-11-28T22:59:59Z")))
        #expect(!saturday.holds(for: viewer(at: "2026-11-28T23:00:00Z")))

        let friday = try Fixture.condition(#"{ time: { from: "00:00", to: "24:00", zone: Europe/Madrid }, days: [fri] }"#)
        #expect(!friday.holds(for: viewer(at: "2026-11-27T23:30:00Z")))
        #expect(friday.holds(for: viewer(at: "2026-11-27T22:30:00Z")))
    }

    @Test func daysWithoutATimeWindowAreUTCWeekdays() throws {
        let friday = try Fixture.condition("{ days: [fri] }")
        #expect(friday.holds(for: viewer(at: "2026-11-27T23:30:00Z")))
        #expect(!friday.holds(for: viewer(at: "2026-11-28T00:30:00Z")))
    }

    @Test func timeAndDaysTogether() throws {
        let evening = try Fixture.condition(#"{ time: { from: "18:00", to: "23:30", zone: Europe/Madrid }, days: [fri, sat] }"#)
        #expect(evening.holds(for: viewer(at: "2026-11-27T19:30:00+01:00")))  // Friday evening
        #expect(evening.holds(for: viewer(at: "2026-11-28T19:30:00+01:00")))  // Saturday evening
        #expect(!evening.holds(for: viewer(at: "2026-11-29T19:30:00+01:00")))  // Sunday evening
        #expect(!evening.holds(for: viewer(at: "2026-11-27T12:00:00+01:00")))  // Friday noon
    }

    @Test func flightFromIsInclusiveAndUntilExclusive() throws {
        // Bare dates are midnight in the flight's zone: 2026-12-01T00:00+01:00 = 2026-11-30T23:00Z.
        let december = try Fixture.condition("{ flight: { from: 2026-12-01, until: 2027-01-01, zone: Europe/Madrid } }")
        #expect(!december.holds(for: viewer(at: "2026-11-30T22:59:59Z")))
        #expect(!december.holds(for: viewer(at: "2026-11-30T22:59:59.900Z")))
        #expect(december.holds(for: viewer(at: "2026-11-30T23:00:00Z")))
        #expect(december.holds(for: viewer(at: "2026-12-15T12:00:00Z")))
        #expect(december.holds(for: viewer(at: "2026-12-31T22:59:59Z")))
        #expect(!december.holds(for: viewer(at: "2026-12-31T23:00:00Z")))
    }

    @Test func flightWithOneEnd() throws {
        let from = try Fixture.condition(#"{ flight: { from: "2026-12-01T18:00:00Z" } }"#)
        #expect(!from.holds(for: viewer(at: "2026-12-01T17:59:59Z")))
        #expect(from.holds(for: viewer(at: "2026-12-01T18:00:00Z")))
        #expect(from.holds(for: viewer(at: "2036-01-01T00:00:00Z")))

        let until = try Fixture.condition(#"{ flight: { until: "2026-12-01T18:00:00+01:00" } }"#)
        #expect(until.holds(for: viewer(at: "2020-01-01T00:00:00Z")))
        #expect(until.holds(for: viewer(at: "2026-12-01T16:59:59Z")))
        #expect(!until.holds(for: viewer(at: "2026-12-01T17:00:00Z")))
    }

    /// A date-time without an offset is wall-clock time in the flight's zone, like a bare date.
    @Test func flightDateTimeWithoutOffsetIsInTheFlightsZone() throws {
        // CET (UTC+1) in December, CEST (UTC+2) in July.
        let winter = try Fixture.condition(#"{ flight: { from: "2026-12-01T18:00:00", zone: Europe/Madrid } }"#)
        #expect(!winter.holds(for: viewer(at: "2026-12-01T16:59:59Z")))
        #expect(winter.holds(for: viewer(at: "2026-12-01T17:00:00Z")))
        let summer = try Fixture.condition(#"{ flight: { until: "2026-07-01T18:00:00", zone: Europe/Madrid } }"#)
        #expect(summer.holds(for: viewer(at: "2026-07-01T15:59:59Z")))
        #expect(!summer.holds(for: viewer(at: "2026-07-01T16:00:00Z")))
        // An explicit offset wins over the zone; without either it is UTC.
        let explicit = try Fixture.condition(#"{ flight: { from: "2026-12-01T18:00:00Z", zone: Europe/Madrid } }"#)
        #expect(!explicit.holds(for: viewer(at: "2026-12-01T17:59:59Z")))
        #expect(explicit.holds(for: viewer(at: "2026-12-01T18:00:00Z")))
        let utc = try Fixture.condition(#"{ flight: { from: "2026-12-01T18:00:00" } }"#)
        #expect(!utc.holds(for: viewer(at: "2026-12-01T17:59:59Z")))
        #expect(utc.holds(for: viewer(at: "2026-12-01T18:00:00Z")))
    }

    @Test func seenPatternMatchesAnySeenID() throws {
        let seenAlpha = try Fixture.condition("{ seen: '^alpha$' }")
        #expect(seenAlpha.holds(for: viewer(["seen": "alpha"])))
        #expect(seenAlpha.holds(for: viewer(["seen": "bravo,alpha"])))
        #expect(seenAlpha.holds(for: viewer(["seen": "bravo, alpha ,charlie"])))
        #expect(!seenAlpha.holds(for: viewer(["seen": "bravo"])))
        #expect(!seenAlpha.holds(for: viewer(["seen": "alphabet"])))
        #expect(!seenAlpha.holds(for: viewer(["seen": ""])))
        #expect(!seenAlpha.holds(for: viewer()))

        let seenAnything = try Fixture.condition("{ seen: '.' }")
        #expect(seenAnything.holds(for: viewer(["seen": "delta"])))
        #expect(!seenAnything.holds(for: viewer(["seen": " , "])))
    }

    @Test func everyPartMustHold() throws {
        let condition = try Fixture.condition(
            #"{ attributes: { locale: '^es' }, time: { from: "18:00", to: "23:30", zone: Europe/Madrid }, seen: '^alpha$' }"#
        )
        let evening = "2026-11-27T19:30:00+01:00"
        #expect(condition.holds(for: viewer(["locale": "es-ES", "seen": "alpha"], at: evening)))
        #expect(!condition.holds(for: viewer(["locale": "en-GB", "seen": "alpha"], at: evening)))
        #expect(!condition.holds(for: viewer(["locale": "es-ES", "seen": "alpha"], at: "2026-11-27T12:00:00+01:00")))
        #expect(!condition.holds(for: viewer(["locale": "es-ES"], at: evening)))
    }
}
