/// Fast writers of the tags a stitched, interstitial or live playlist carries per viewer, straight
/// into a playlist's bytes: each renderer writes several per request, so no ``AttributeList`` or
/// string per attribute. Each method is the one home of its tag's syntax and attribute order, and
/// `TagBytesTests` parses every line it writes back through the tag model (``DateRange``) to the
/// same values.
///
/// Inlinable, so each renderer gets them specialized for its own id and list types (unspecialized,
/// the generic sequences cost a stitched playlist 47 more allocations).
///
/// Quoted values are written as given: the callers' ids are validated at load (no quote, no line
/// break can occur in them), and base64 has neither.
public enum TagBytes {
    /// The `CUE` attribute of an `EXT-X-DATERANGE` (RFC 8216bis Appendix D.2).
    public struct Cue: OptionSet, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// Before the primary asset plays.
        public static let pre = Cue(rawValue: 1)
        /// After the primary asset ends.
        public static let post = Cue(rawValue: 2)
        /// Once per playback session.
        public static let once = Cue(rawValue: 4)
    }

    /// One `EXT-X-DATERANGE` line (RFC 8216bis §4.4.5.1), its attributes in this order: `ID` (the
    /// concatenation of `id`'s pieces), `CLASS`, `START-DATE` (`start` milliseconds since 1970,
    /// ISO 8601 with milliseconds), `CUE`, `DURATION`, `PLANNED-DURATION`, then the client-defined
    /// `X-` attributes `client` writes (with ``quoted(_:_:into:)``, ``decimal(_:_:into:)``,
    /// ``quotedList(_:_:into:)``, ``quoted(_:into:value:)``), in its order.
    @inlinable
    public static func dateRange(
        id: some Sequence<String>,
        class dateRangeClass: StaticString,
        start: Int64,
        cue: Cue = [],
        duration: ExactDecimal?,
        plannedDuration: ExactDecimal? = nil,
        into bytes: inout [UInt8],
        client: (inout [UInt8]) -> Void = { _ in }
    ) {
        Self.add("#EXT-X-DATERANGE:ID=\"", to: &bytes)
        for piece in id { bytes.append(contentsOf: piece.utf8) }
        Self.add("\",CLASS=\"", to: &bytes)
        Self.add(dateRangeClass, to: &bytes)
        Self.add("\",START-DATE=\"", to: &bytes)
        DateTime.appendISO8601(millisecondsSinceEpoch: start, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        if !cue.isEmpty {
            Self.add(",CUE=\"", to: &bytes)
            var first = true
            for (flag, name) in [(Cue.pre, "PRE"), (.post, "POST"), (.once, "ONCE")] where cue.contains(flag) {
                if !first { bytes.append(UInt8(ascii: ",")) }
                bytes.append(contentsOf: name.utf8)
                first = false
            }
            bytes.append(UInt8(ascii: "\""))
        }
        if let duration { Self.decimal("DURATION", duration, into: &bytes) }
        if let plannedDuration { Self.decimal("PLANNED-DURATION", plannedDuration, into: &bytes) }
        client(&bytes)
        bytes.append(UInt8(ascii: "\n"))
    }

    /// `#EXT-X-DEFINE:QUERYPARAM="name"` (RFC 8216bis §4.4.2.3; EXT-X-VERSION 11, §8): a variable
    /// whose value is the query parameter `name` of the playlist's own URI. `name` is a variable
    /// name (`A-Z`, `a-z`, `0-9`, `-`, `_`), a constant of the caller's.
    @inlinable
    public static func defineQueryParameter(_ name: String, into bytes: inout [UInt8]) {
        Self.add("#EXT-X-DEFINE:QUERYPARAM=\"", to: &bytes)
        bytes.append(contentsOf: name.utf8)
        Self.add("\"\n", to: &bytes)
    }

    /// `#EXT-X-PROGRAM-DATE-TIME:` (RFC 8216bis §4.4.4.6) for `milliseconds` since 1970, ISO 8601
    /// with milliseconds, and its line break.
    @inlinable
    public static func programDateTime(_ milliseconds: Int64, into bytes: inout [UInt8]) {
        Self.add("#EXT-X-PROGRAM-DATE-TIME:", to: &bytes)
        DateTime.appendISO8601(millisecondsSinceEpoch: milliseconds, to: &bytes)
        bytes.append(UInt8(ascii: "\n"))
    }

    /// `,NAME="value"`, the value as a quoted-string may hold it (``AttributeList/quotable(_:name:)``).
    @inlinable
    public static func quoted(_ name: StaticString, _ value: String, into bytes: inout [UInt8]) {
        Self.quoted(name, into: &bytes) { bytes in
            if value.utf8.contains(where: { $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }) {
                AttributeList.appendQuotable(value, uri: AttributeList.holdsURI(name.description), to: &bytes)
            } else {
                bytes.append(contentsOf: value.utf8)
            }
        }
    }

    /// `,NAME="…"`, the value written by `value`.
    @inlinable
    public static func quoted(_ name: StaticString, into bytes: inout [UInt8], value: (inout [UInt8]) -> Void) {
        bytes.append(UInt8(ascii: ","))
        Self.add(name, to: &bytes)
        Self.add("=\"", to: &bytes)
        value(&bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    /// `,NAME="a,b,c"`; nothing when `values` is empty.
    @inlinable
    public static func quotedList(_ name: StaticString, _ values: some Collection<String>, into bytes: inout [UInt8]) {
        guard !values.isEmpty else { return }
        Self.quoted(name, into: &bytes) { bytes in
            for (index, value) in values.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                AttributeList.appendQuotable(value, uri: false, to: &bytes)
            }
        }
    }

    /// `,NAME=value` for a decimal-floating-point (or signed) value, exactly as ``ExactDecimal`` writes it.
    @inlinable
    public static func decimal(_ name: StaticString, _ value: ExactDecimal, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: ","))
        Self.add(name, to: &bytes)
        bytes.append(UInt8(ascii: "="))
        bytes.append(contentsOf: value.description.utf8)
    }

    /// Standard base64 with padding (RFC 4648 §4: what `atob` reads) of `input`, appended: the
    /// one base64 writer of playlists (`X-AD-CREATIVE-SIGNALING`).
    @inlinable
    public static func base64(_ input: [UInt8], into bytes: inout [UInt8]) {
        let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
        let table = UnsafeBufferPointer(start: alphabet.utf8Start, count: 64)
        bytes.reserveCapacity(bytes.count + (input.count + 2) / 3 * 4)
        var index = 0
        while index < input.count {
            let count = min(3, input.count - index)
            var value = UInt32(input[index]) << 16
            if count > 1 { value |= UInt32(input[index + 1]) << 8 }
            if count > 2 { value |= UInt32(input[index + 2]) }
            bytes.append(table[Int(value >> 18 & 63)])
            bytes.append(table[Int(value >> 12 & 63)])
            bytes.append(count > 1 ? table[Int(value >> 6 & 63)] : UInt8(ascii: "="))
            bytes.append(count > 2 ? table[Int(value & 63)] : UInt8(ascii: "="))
            index += 3
        }
    }

    @usableFromInline
    static func add(_ text: StaticString, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}
