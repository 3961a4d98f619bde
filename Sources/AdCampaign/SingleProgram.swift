import HLSPlaylist
import Yams

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One programme asset cut into virtual islands at its breaks (docs/campaign-format.md "One programme asset"): `program: { playlist:
/// …, breaks: markers }`, breaks `at:` a programme time, `marker_breaks` for what markers do
/// not say.
struct SingleProgram {
    var asset: Asset
    /// Breaks come from the asset's own markers too.
    var readsMarkers: Bool
    var node: Node
}

/// A `breaks:` entry of a single programme asset: at a programme time, or (without `at:`) the
/// settings of the marker break with the same id.
struct TimedBreak {
    var id: String
    var at: ExactDecimal?
    var settings: BreakSettings
    var node: Node
    var field: String
    /// Placed by a catalogue's `schedule:`, which cuts at the boundary at or before each time
    /// by design (no warning that it moved).
    var scheduled = false
}

/// What a `breaks:` entry (or `marker_breaks`) says of a break besides where it is.
struct BreakSettings {
    var duration: ExactDecimal?
    var pools: [String]
    var restrict: Restriction
    /// Nil when not given.
    var once: Bool?
    var skip: SkipControl? = nil
}
