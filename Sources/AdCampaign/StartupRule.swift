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

/// `startup: { experiment: { a: [...], b: [...], split: 50 } }`: two startup rule sets compared on
/// live traffic. Each new session is in one arm by a stable hash of its id (FNV-1a of the session
/// id: the same arm on every replica, every reload and every replan of the session); `split` is
/// the percentage of sessions in `b`. The quality KPIs split by arm (docs/quality.md).
public struct StartupExperiment: Sendable {
    public enum Arm: String, Sendable, CaseIterable {
        case a, b
    }

    public let a: [StartupRule]
    public let b: [StartupRule]
    /// Percent of sessions in `b`, 0 to 100.
    public let split: Int

    public init(a: [StartupRule], b: [StartupRule], split: Int) {
        self.a = a
        self.b = b
        self.split = split
    }

    /// The arm of session `session`.
    public func arm(session: String) -> Arm {
        var hash = FNV1a()
        hash.feed("startup-experiment\u{0}")
        hash.feed(session)
        return Int(hash.value % 100) < self.split ? .b : .a
    }

    /// The rules of `arm`.
    public func rules(_ arm: Arm) -> [StartupRule] { arm == .a ? self.a : self.b }
}
