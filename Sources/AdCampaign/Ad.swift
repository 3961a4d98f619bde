import HLSPlaylist

/// An ad creative: an HLS asset with a weight and tracking URLs.
public struct Ad: Sendable {
    public let id: String
    public let asset: Asset
    /// Relative likelihood of being chosen (default 1).
    public let weight: Double
    /// Tracking URLs by event (`impression`, `start`, `complete`…), carried into the boundary manifest.
    public let tracking: [String: [String]]

    /// An ad of no pool: one an ad decision server chose (its creative's identity and asset).
    public init(id: String, asset: Asset, weight: Double = 1, tracking: [String: [String]] = [:]) {
        self.id = id
        self.asset = asset
        self.weight = weight
        self.tracking = tracking
    }
}
