/// FNV-1a, 64 bits: a stable digest, the same on every machine and in every process (Swift's
/// `Hasher` is seeded per process). Not cryptographic — a campaign's revision only has to change
/// when its files do, and a plan's seed only has to spread sessions over the draws.
public struct FNV1a: Sendable, Hashable {
    public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    public init() {}

    public mutating func feed(_ bytes: some Sequence<UInt8>) {
        // Contiguous bytes (arrays, `Data`, native strings' UTF-8) are read in one loop over a
        // buffer; called across modules this function is not specialized, and walking a sequence
        // through its witness table one byte at a time was 2 % of the server's CPU when every
        // request planned a session (the plan's seed).
        if bytes.withContiguousStorageIfAvailable({ self.feed(UnsafeRawBufferPointer($0)) }) != nil { return }
        for byte in bytes {
            self.value = (self.value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
    }

    /// ``feed(_:)`` over a string's UTF-8.
    public mutating func feed(_ text: String) {
        var text = text
        text.withUTF8 { self.feed(UnsafeRawBufferPointer($0)) }
    }

    public mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        var value = self.value
        for byte in bytes {
            value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        self.value = value
    }

    /// The value as 16 hex digits.
    public var hex: String {
        let digits = String(self.value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
