/// FNV-1a, 64 bits: a stable digest, the same on every machine and in every process (Swift's
/// `Hasher` is seeded per process). Not cryptographic — a campaign's revision only has to change
/// when its files do, and a plan's seed only has to spread sessions over the draws.
public struct FNV1a: Sendable, Hashable {
    public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    public init() {}

    public mutating func feed(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            self.value = (self.value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
    }

    /// The value as 16 hex digits.
    public var hex: String {
        let digits = String(self.value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
