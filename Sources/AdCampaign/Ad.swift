import HLSPlaylist

/// An ad creative: an HLS asset with a weight and tracking URLs.
public struct Ad: Sendable {
    public let id: String
    public let asset: Asset
    /// Relative likelihood of being chosen (default 1).
    public let weight: Double
    /// Tracking URLs by event (`impression`, `start`, `complete`…), carried into the boundary manifest.
    public let tracking: [String: [String]]
    /// Its verification scripts (an ad server creative's `<AdVerifications>`, its wrappers'
    /// included): passed to players that report client-side.
    public let verifications: [AdVerification]

    /// An ad of no pool: one an ad decision server chose (its creative's identity and asset).
    public init(id: String, asset: Asset, weight: Double = 1, tracking: [String: [String]] = [:], verifications: [AdVerification] = []) {
        self.id = id
        self.asset = asset
        self.weight = weight
        self.tracking = tracking
        self.verifications = verifications
    }
}
