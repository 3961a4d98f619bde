import Foundation
import HLSPlaylist

/// One entry of `startup`: the first whose condition holds picks the startup variant.
public struct StartupRule: Sendable {
    public let condition: Condition
    public let pick: StartupPick
}

/// How to pick the startup variant (seed 002: start at a variant the network can sustain, then
/// adapt). Constraints narrow the candidates; `lowest` then takes the lowest BANDWIDTH, otherwise
/// the highest. With no candidate left, the lowest variant overall.
public struct StartupPick: Sendable, Hashable {
    public var lowest = false
    /// BANDWIDTH at most this.
    public var maxBandwidth: Int?
    /// RESOLUTION within this.
    public var maxResolution: Resolution?
    /// A codec family the variant's CODECS must include (`avc1`, `hvc1`, `dvh1`, `av01`…, by prefix).
    public var codecs: String?
    /// VIDEO-RANGE (`SDR`, `PQ`, `HLG`).
    public var videoRange: VideoRange?
    /// Use the viewer's `bandwidth` attribute (bits/s measured last time) times this factor as
    /// the BANDWIDTH ceiling, when the viewer sends one.
    public var bandwidthSafety: Double?

    public init() {}
}
