import HLSPlaylist
import Testing

/// ``ExactDecimal`` holds HLS durations exactly: no binary floating point anywhere.
@Suite("ExactDecimal")
struct ExactDecimalTests {
    @Test(
        "parses decimal positional notation exactly",
        arguments: [
            ("10", ExactDecimal(scaledValue: 10_000_000_000_000_000_000)),
            ("10.010010", ExactDecimal(scaledValue: 10_010_010_000_000_000_000)),
            ("0.000011", ExactDecimal(scaledValue: 11_000_000_000_000)),
            ("-12.5", ExactDecimal(scaledValue: -12_500_000_000_000_000_000)),
            ("007.50", ExactDecimal(scaledValue: 7_500_000_000_000_000_000)),
            (".5", ExactDecimal(scaledValue: 500_000_000_000_000_000)),
            ("1.", ExactDecimal(scaledValue: 1_000_000_000_000_000_000)),
            ("0.000000000000000001", ExactDecimal(scaledValue: 1)),
            ("0.1000000000000000000000", ExactDecimal(scaledValue: 100_000_000_000_000_000)),
            ("9999999999999999999", ExactDecimal(scaledValue: 9_999_999_999_999_999_999 * 1_000_000_000_000_000_000)),
            ("-0", ExactDecimal.zero),
        ]
    )
    func parses(text: String, expected: ExactDecimal) throws {
        let value = try #require(ExactDecimal(text))
        #expect(value == expected)
    }

    @Test(
        "rejects anything but decimal positional notation",
        arguments: [
            "1e3", "1E3", "+1", "", ".", "-", "1.2.3", " 1", "1 ", "1,5", "0x10", "ten", "NaN", "inf", "--1", "1-",
            "0.1234567890123456789",  // 19 nonzero fractional digits cannot be held exactly
            "0.0000000000000000001",  // nor can 10⁻¹⁹
            "10000000000000000000",  // 10¹⁹ is out of range
            "١٢",  // non-ASCII digits
        ]
    )
    func rejectsGarbage(text: String) {
        #expect(ExactDecimal(text) == nil)
    }

    @Test(
        "formats as the shortest exact text",
        arguments: [
            (ExactDecimal(significand: 576, exponent: 2), "5.76"),
            (ExactDecimal(10), "10"),
            (ExactDecimal(significand: -5, exponent: 1), "-0.5"),
            (ExactDecimal(significand: 11, exponent: 6), "0.000011"),
            (ExactDecimal(significand: 10_010_010, exponent: 6), "10.01001"),
            (ExactDecimal(scaledValue: 1), "0.000000000000000001"),
            (ExactDecimal.zero, "0"),
        ]
    )
    func formatsShortest(value: ExactDecimal, expected: String) {
        #expect(value.description == expected)
        // And the text parses back to the same value.
        #expect(ExactDecimal(expected) == value)
    }

    @Test("formats with a minimum number of fractional digits, never rounding")
    func formatsWithMinimumDigits() {
        #expect(ExactDecimal(6).formatted(minimumFractionDigits: 3) == "6.000")
        #expect(ExactDecimal(significand: 45, exponent: 1).formatted(minimumFractionDigits: 3) == "4.500")
        #expect(ExactDecimal(significand: 123_456, exponent: 5).formatted(minimumFractionDigits: 3) == "1.23456")
        #expect(ExactDecimal(significand: -25, exponent: 2).formatted(minimumFractionDigits: 3) == "-0.250")
    }

    @Test("sums are exact: three times 0.1 is 0.3, unlike Double")
    func sumsAreExact() throws {
        let tenth = try #require(ExactDecimal("0.1"))
        let threeTenths = try #require(ExactDecimal("0.3"))
        #expect(tenth + tenth + tenth == threeTenths)
        #expect([tenth, tenth, tenth].sum() == threeTenths)
        #expect(tenth * 3 == threeTenths)
        // The reason this type exists:
        let doubleSum: Double = 0.1 + 0.1 + 0.1
        #expect(doubleSum != 0.3)
    }

    @Test("ten thousand 10.010010 s segments sum to exactly 100100.1 s")
    func longSumsDoNotDrift() throws {
        let duration = try #require(ExactDecimal("10.010010"))
        let total = Array(repeating: duration, count: 10_000).sum()
        #expect(total == ExactDecimal(significand: 1_001_001, exponent: 1))
        #expect(total.description == "100100.1")
        var doubleTotal = 0.0
        for _ in 0..<10_000 { doubleTotal += 10.010010 }
        #expect(doubleTotal != 100_100.1)
    }

    @Test("subtraction, negation and magnitude are exact")
    func arithmetic() throws {
        let a = try #require(ExactDecimal("10.010010"))
        let b = try #require(ExactDecimal("0.000011"))
        #expect(a - b == ExactDecimal(significand: 10_009_999, exponent: 6))
        #expect(b - a == -(a - b))
        #expect((b - a).magnitude == a - b)
        var running = a
        running -= a
        running += b
        #expect(running == b)
    }

    @Test(
        "rounds to the nearest integer, halves away from zero",
        arguments: [
            ("10.4", 10), ("10.5", 11), ("10.49999", 10), ("10.500000000000000001", 11), ("-10.5", -11), ("-10.4", -10),
            ("0.5", 1), ("-0.5", -1), ("0", 0), ("9.999999999999999999", 10),
        ]
    )
    func roundsHalfAwayFromZero(text: String, expected: Int) throws {
        #expect(try #require(ExactDecimal(text)).roundedToInteger == expected)
    }

    @Test("ceiling and isInteger")
    func ceilingAndIsInteger() throws {
        #expect(try #require(ExactDecimal("10.000001")).ceiling == 11)
        #expect(try #require(ExactDecimal("10")).ceiling == 10)
        #expect(try #require(ExactDecimal("-0.5")).ceiling == 0)
        #expect(try #require(ExactDecimal("10.000")).isInteger)
        #expect(try #require(ExactDecimal("10.001")).isInteger == false)
    }

    @Test("rounding and ceiling of the largest values do not trap")
    func roundingLargeValuesDoesNotTrap() throws {
        let largest = try #require(ExactDecimal("9999999999999999999.5"))
        #expect(largest.roundedToInteger == Int.max)
        #expect(largest.ceiling == Int.max)
        #expect((-largest).roundedToInteger == Int.min)
    }

    @Test("comparisons follow the numbers, not the text")
    func comparisons() throws {
        let values = try ["10", "9.999", "10.000", "-1", "0.000011", "10.01"].map { try #require(ExactDecimal($0)) }
        #expect(values[0] == values[2])
        #expect(values[1] < values[0])
        #expect(values[3] < values[4])
        #expect(values[0] < values[5])
        #expect(values.sorted().map(\.description) == ["-1", "0.000011", "9.999", "10", "10", "10.01"])
        #expect(values.max() == values[5])
        // Equal values hash alike, whatever their text.
        #expect(Set([values[0], values[2]]).count == 1)
    }

    @Test("the Double value is for presentation only, and close")
    func doubleValue() throws {
        let value = try #require(ExactDecimal("10.010010")).doubleValue
        #expect(abs(value - 10.01001) < 1e-12)
        #expect(try #require(ExactDecimal("-0.25")).doubleValue == -0.25)
    }

    @Test("integer literals and whole numbers")
    func integerLiterals() {
        let ten: ExactDecimal = 10
        #expect(ten == ExactDecimal(10))
        #expect(ten == ExactDecimal(significand: 1000, exponent: 2))
        #expect(ten.scaledValue == Int128(10) * 1_000_000_000_000_000_000)
    }
}
