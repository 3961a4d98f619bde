import HLSPlaylist
import Testing

/// `DateTime.iso8601(millisecondsSinceEpoch:)`: the date-times of stitched playlists, written
/// from integer milliseconds (proleptic Gregorian, UTC), checked against Python's datetime.
@Suite("ISO 8601 date-times")
struct DateTimeTests {
    @Test(
        "milliseconds since the epoch as YYYY-MM-DDTHH:MM:SS.mmmZ, clamped to years 0000–9999",
        arguments: [
            (Int64(0), "1970-01-01T00:00:00.000Z"), (1_795_800_000_123, "2026-11-27T17:20:00.123Z"),
            (951_782_400_000, "2000-02-29T00:00:00.000Z"), (-1, "1969-12-31T23:59:59.999Z"),
            (4_102_444_799_999, "2099-12-31T23:59:59.999Z"), (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
            (Int64.max, "9999-12-31T23:59:59.999Z"), (Int64.min, "0000-01-01T00:00:00.000Z"),
        ]
    )
    func written(_ milliseconds: Int64, _ text: String) {
        #expect(DateTime.iso8601(millisecondsSinceEpoch: milliseconds) == text)
        // Whole seconds may drop the fraction; the value reads back the same.
        let short = DateTime.iso8601(millisecondsSinceEpoch: milliseconds, alwaysMilliseconds: false)
        #expect(short == (text.hasSuffix(".000Z") ? String(text.dropLast(5)) + "Z" : text))
        #expect(DateTime(short)?.secondsSinceEpoch == DateTime(text)?.secondsSinceEpoch)
    }
}
