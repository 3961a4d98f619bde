/// An ISO 8601 date-time as HLS writes it (`EXT-X-PROGRAM-DATE-TIME`, `START-DATE`):
/// `YYYY-MM-DDThh:mm:ss[.fraction][Z|±hh:mm|±hhmm|±hh]`.
///
/// Parsed to exact seconds since 1970-01-01T00:00:00Z for comparisons; the text itself is
/// always kept verbatim where it is written back.
public struct DateTime: Sendable, Hashable, Comparable {
    /// Exact seconds since the Unix epoch, UTC.
    public var secondsSinceEpoch: ExactDecimal
    /// Whether the text named a time zone (RFC 8216bis §4.4.4.6: it SHOULD).
    public var hasTimeZone: Bool

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.secondsSinceEpoch < rhs.secondsSinceEpoch }

    public init?(_ text: some StringProtocol) {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ digits: Int) -> Int? {
            guard index + digits <= bytes.count else { return nil }
            var value = 0
            for _ in 0..<digits {
                let digit = bytes[index] &- 48
                guard digit < 10 else { return nil }
                value = value * 10 + Int(digit)
                index += 1
            }
            return value
        }
        func expect(_ character: Character) -> Bool {
            guard index < bytes.count, bytes[index] == character.asciiValue else { return false }
            index += 1
            return true
        }
        func expectSeparator() -> Bool {  // `T` or `t` between date and time
            guard index < bytes.count, bytes[index] == UInt8(ascii: "T") || bytes[index] == UInt8(ascii: "t") else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2), expectSeparator(),
            let hour = number(2), expect(":"), let minute = number(2), expect(":"),
            let second = number(2),
            (1...12).contains(month), (1...Self.daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60,
            second < 61
        else { return nil }
        var fraction = ExactDecimal.zero
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            let start = index
            index += 1
            while index < bytes.count, bytes[index] &- 48 < 10 { index += 1 }
            guard index - start > 1, let value = ExactDecimal("0" + String(decoding: bytes[start..<index], as: UTF8.self)) else {
                return nil
            }
            fraction = value
        }
        var offsetSeconds = 0
        var hasTimeZone = false
        if index < bytes.count {
            hasTimeZone = true
            if bytes[index] == UInt8(ascii: "Z") || bytes[index] == UInt8(ascii: "z") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
                index += 1
                guard let offsetHours = number(2), offsetHours < 24 else { return nil }
                var offsetMinutes = 0
                if index < bytes.count {
                    _ = expect(":")
                    guard let minutes = number(2), minutes < 60 else { return nil }
                    offsetMinutes = minutes
                }
                offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
            } else {
                return nil
            }
        }
        guard index == bytes.count else { return nil }
        let days = Self.daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        self.secondsSinceEpoch = ExactDecimal(seconds) + fraction
        self.hasTimeZone = hasTimeZone
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// `milliseconds` since the Unix epoch as `2026-11-23T06:00:05.760Z` (UTC), by integer
    /// arithmetic — exact, and cheap enough for a date-time per stitched piece. The fraction is
    /// written always, or (`alwaysMilliseconds: false`) only when there is one. Years are
    /// clamped to 0000…9999, the four digits ISO 8601 allows without agreement.
    public static func iso8601(millisecondsSinceEpoch milliseconds: Int64, alwaysMilliseconds: Bool = true) -> String {
        let parts = Self.iso8601Parts(milliseconds)
        return String(unsafeUninitializedCapacity: 24) { buffer in
            Self.write(
                year: parts.year,
                month: parts.month,
                day: parts.day,
                millis: parts.millis,
                alwaysMilliseconds: alwaysMilliseconds,
                into: buffer
            )
        }
    }

    /// The civil date (proleptic Gregorian, UTC) and the milliseconds into its day, years clamped
    /// to 0000…9999.
    private static func iso8601Parts(_ milliseconds: Int64) -> (year: Int, month: Int, day: Int, millis: Int) {
        let lowest: Int64 = -62_167_219_200_000  // 0000-01-01T00:00:00.000Z
        let highest: Int64 = 253_402_300_799_999  // 9999-12-31T23:59:59.999Z
        let clamped = Int(min(max(milliseconds, lowest), highest))
        let (days, millisOfDay) = clamped.quotientAndRemainder(dividingBy: 86_400_000)
        let (day, millis) = millisOfDay < 0 ? (days - 1, millisOfDay + 86_400_000) : (days, millisOfDay)
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
        let z = day + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let dayOfMonth = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, dayOfMonth, millis)
    }

    /// ``iso8601(millisecondsSinceEpoch:alwaysMilliseconds:)`` appended to `bytes` (UTF-8), with no
    /// string in between: stitched playlists write several per request.
    public static func appendISO8601(millisecondsSinceEpoch milliseconds: Int64, alwaysMilliseconds: Bool = true, to bytes: inout [UInt8]) {
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: 24))
        let written = bytes.withUnsafeMutableBufferPointer { all in
            let text = Self.iso8601Parts(milliseconds)
            return Self.write(
                year: text.year,
                month: text.month,
                day: text.day,
                millis: text.millis,
                alwaysMilliseconds: alwaysMilliseconds,
                into: UnsafeMutableBufferPointer(rebasing: all[start...])
            )
        }
        bytes.removeLast(24 - written)
    }

    /// Digits written in place: `YYYY-MM-DDTHH:MM:SS[.mmm]Z`, 20 or 24 bytes.
    private static func write(
        year: Int,
        month: Int,
        day: Int,
        millis: Int,
        alwaysMilliseconds: Bool,
        into buffer: UnsafeMutableBufferPointer<UInt8>
    ) -> Int {
        let (hour, minute, second) = (millis / 3_600_000, millis / 60_000 % 60, millis / 1000 % 60)
        let withMilliseconds = alwaysMilliseconds || millis % 1000 != 0
        do {
            var position = 0
            func put(_ value: Int, _ width: Int, then separator: UInt8?) {
                var rest = value
                for offset in stride(from: width - 1, through: 0, by: -1) {
                    buffer[position + offset] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
                position += width
                if let separator {
                    buffer[position] = separator
                    position += 1
                }
            }
            put(year, 4, then: UInt8(ascii: "-"))
            put(month, 2, then: UInt8(ascii: "-"))
            put(day, 2, then: UInt8(ascii: "T"))
            put(hour, 2, then: UInt8(ascii: ":"))
            put(minute, 2, then: UInt8(ascii: ":"))
            if withMilliseconds {
                put(second, 2, then: UInt8(ascii: "."))
                put(millis % 1000, 3, then: UInt8(ascii: "Z"))
            } else {
                put(second, 2, then: UInt8(ascii: "Z"))
            }
            return position
        }
    }
}
