import AdCampaign

/// Deterministic randomness for plans: no global state, the same seed gives the same choices
/// on every machine (Swift's `Hasher` and `SystemRandomNumberGenerator` are per process, so
/// neither may be used here).
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    /// Seeds from the parts with FNV-1a (each part followed by a 0 byte, so ("ab","c") ≠ ("a","bc")).
    init(seed parts: String...) {
        var hash = FNV1a()
        for part in parts {
            hash.feed(part)
            withUnsafeBytes(of: UInt8(0)) { hash.feed($0) }
        }
        self.state = hash.value
    }

    /// SplitMix64.
    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in [0, 1) with 53 bits.
    mutating func unit() -> Double {
        Double(self.next() >> 11) * 0x1.0p-53
    }
}
