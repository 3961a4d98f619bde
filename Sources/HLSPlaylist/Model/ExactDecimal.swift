/// An exact decimal number, such as an `EXTINF` duration or a `TIME-OFFSET`.
///
/// HLS writes durations as decimal text (`10.010010`). Binary floating point cannot hold most
/// of them exactly, and summing thousands of `Double`s drifts, so AdStitch keeps every duration
/// as an integer count of 10⁻¹⁸ units in an `Int128`: parsing is exact for up to 18 fractional
/// digits, and sums are exact integer additions (docs/architecture.md invariant 1). The text as written is
/// kept beside the value wherever it is written back (see ``Inf/durationText``).
public struct ExactDecimal: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Fractional digits the representation holds exactly.
    public static let fractionDigits = 18
    static let unit: Int128 = 1_000_000_000_000_000_000

    /// The value multiplied by 10¹⁸.
    public var scaledValue: Int128

    public init(scaledValue: Int128) {
        self.scaledValue = scaledValue
    }

    /// A whole number of units, e.g. `ExactDecimal(10)` is ten seconds.
    public init(_ integer: Int) {
        self.scaledValue = Int128(integer) * Self.unit
    }

    /// `numerator / 10^exponent` exactly, e.g. `ExactDecimal(significand: 576, exponent: 2)` is 5.76.
    public init(significand: Int, exponent: Int) {
        precondition((0...Self.fractionDigits).contains(exponent), "exponent must be 0...18")
        self.scaledValue = Int128(significand) * Self.power(Self.fractionDigits - exponent)
    }

    public static let zero = ExactDecimal(scaledValue: 0)

    /// Parses decimal positional notation: optional `-`, digits, optional `.` and digits.
    /// Returns nil for anything else (exponents, `+`, spaces, more than 18 significant
    /// fractional digits, magnitudes of 10¹⁹ and above).
    public init?(_ text: some StringProtocol) {
        let utf8 = text.utf8
        guard let value = utf8.withContiguousStorageIfAvailable({ Self.parse($0) }) ?? Self.parse(Array(utf8)) else {
            return nil
        }
        self.scaledValue = value
    }

    /// Parses the bytes of a decimal number; see ``init(_:)``.
    static func parse(_ bytes: some Collection<UInt8>) -> Int128? {
        var index = bytes.startIndex
        guard index != bytes.endIndex else { return nil }
        var negative = false
        if bytes[index] == UInt8(ascii: "-") {
            negative = true
            index = bytes.index(after: index)
        }
        var integer: UInt64 = 0
        var integerDigits = 0
        var significantDigits = 0
        while index != bytes.endIndex, case let byte = bytes[index], byte &- 48 < 10 {
            integerDigits += 1
            if integer != 0 || byte != 48 {
                significantDigits += 1
                guard significantDigits <= 19 else { return nil }  // 10¹⁹ and above: out of range
                integer = integer &* 10 &+ UInt64(byte &- 48)
            }
            index = bytes.index(after: index)
        }
        var fraction: UInt64 = 0
        var fractionDigits = 0
        if index != bytes.endIndex, bytes[index] == UInt8(ascii: ".") {
            index = bytes.index(after: index)
            while index != bytes.endIndex, case let byte = bytes[index], byte &- 48 < 10 {
                if fractionDigits < fractionDigitsLimit {
                    fraction = fraction &* 10 &+ UInt64(byte &- 48)
                    fractionDigits += 1
                } else if byte != 48 {
                    return nil  // a non-zero digit beyond 10⁻¹⁸ cannot be held exactly
                }
                index = bytes.index(after: index)
            }
        }
        guard index == bytes.endIndex, integerDigits > 0 || fractionDigits > 0 else { return nil }
        var value = Int128(integer) * unit + Int128(fraction) * power(fractionDigitsLimit - fractionDigits)
        if negative { value = -value }
        return value
    }

    private static let fractionDigitsLimit = 18

    /// 10⁰ … 10¹⁸.
    private static let powers: [Int128] = (0...18).map { exponent in
        (0..<exponent).reduce(Int128(1)) { value, _ in value * 10 }
    }

    static func power(_ exponent: Int) -> Int128 {
        Self.powers[exponent]
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.scaledValue < rhs.scaledValue }
    public static func + (lhs: Self, rhs: Self) -> Self { Self(scaledValue: lhs.scaledValue + rhs.scaledValue) }
    public static func - (lhs: Self, rhs: Self) -> Self { Self(scaledValue: lhs.scaledValue - rhs.scaledValue) }
    public static func += (lhs: inout Self, rhs: Self) { lhs.scaledValue += rhs.scaledValue }
    public static func -= (lhs: inout Self, rhs: Self) { lhs.scaledValue -= rhs.scaledValue }
    public static func * (lhs: Self, rhs: Int) -> Self { Self(scaledValue: lhs.scaledValue * Int128(rhs)) }
    public static prefix func - (value: Self) -> Self { Self(scaledValue: -value.scaledValue) }

    /// The magnitude.
    public var magnitude: Self { self.scaledValue < 0 ? -self : self }

    /// Rounded to the nearest integer, halves away from zero — the rounding RFC 8216bis
    /// §4.4.3.1 applies when it compares `EXTINF` durations with `EXT-X-TARGETDURATION`.
    /// Clamped to `Int`'s range: a parsed value can reach 10¹⁹, beyond `Int.max`.
    public var roundedToInteger: Int {
        let half = Self.unit / 2
        let adjusted = self.scaledValue >= 0 ? self.scaledValue + half : self.scaledValue - half
        return Int(clamping: adjusted / Self.unit)
    }

    /// The smallest integer not below the value, clamped to `Int`'s range like ``roundedToInteger``.
    public var ceiling: Int {
        let (quotient, remainder) = self.scaledValue.quotientAndRemainder(dividingBy: Self.unit)
        return Int(clamping: remainder > 0 ? quotient + 1 : quotient)
    }

    /// True when the value has no fractional part.
    public var isInteger: Bool { self.scaledValue % Self.unit == 0 }

    /// The nearest `Double`, for presentation and for media tools that want one — never for sums.
    public var doubleValue: Double {
        let (quotient, remainder) = self.scaledValue.quotientAndRemainder(dividingBy: Self.unit)
        return Double(quotient) + Double(remainder) / 1e18
    }

    /// The shortest exact decimal text: `5.76`, `10`, `-0.5`, `0.000011`.
    public var description: String { self.formatted(minimumFractionDigits: 0) }

    /// Exact decimal text with at least `minimumFractionDigits` digits after the point
    /// (trailing zeros beyond them are dropped; the value is never rounded).
    public func formatted(minimumFractionDigits: Int) -> String {
        // In integers, without intermediate strings: durations are written per request.
        let (integer, fraction) = self.scaledValue.magnitude.quotientAndRemainder(dividingBy: Self.unit.magnitude)
        var digits = UInt64(fraction)  // below 10^18
        var keep = Self.fractionDigits
        while keep > minimumFractionDigits, keep > 0, digits % 10 == 0 {
            digits /= 10
            keep -= 1
        }
        var text = self.scaledValue < 0 ? "-" : ""
        text += integer <= UInt64.max ? String(UInt64(integer)) : String(integer)
        if keep > 0 {
            text += "."
            text += String(unsafeUninitializedCapacity: keep) { buffer in
                for position in stride(from: keep - 1, through: 0, by: -1) {
                    buffer[position] = UInt8(ascii: "0") + UInt8(digits % 10)
                    digits /= 10
                }
                return keep
            }
        }
        return text
    }
}

extension ExactDecimal {
    /// The value in whole milliseconds, rounded to the nearest one (halves up), exactly: no
    /// `Double` on the way (one writes a millisecond early).
    public var roundedMilliseconds: Int64 {
        let millisecond = Self.unit / 1000
        return Int64(clamping: (self.scaledValue + millisecond / 2) / millisecond)
    }
}

extension ExactDecimal: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int) { self.init(value) }
}

extension Sequence where Element == ExactDecimal {
    /// The exact sum.
    public func sum() -> ExactDecimal { self.reduce(.zero, +) }
}
