import HLSPlaylist

/// What a campaign plays between its ads (`program:`, docs/campaign-format.md): exactly one of
/// four shapes, so no code has to know which fields exclude which.
public enum Programme: Sendable {
    /// Islands of their own, each its own HLS asset, in play order (`program: { islands: … }`).
    case islands([Island])
    /// One programme asset and the virtual islands its breaks cut it into (`program: { playlist: … }`).
    case asset(Asset, cuts: [Island])
    /// A live channel, whose breaks come from its markers as they appear (`program: { live: URL }`).
    case live(LiveProgram)
    /// Every title below an origin prefix (`program: { catalogue: URL }`): the campaign is a
    /// template, and each title loads as a campaign of its own with an ``asset(_:cuts:)``
    /// programme when a viewer starts it.
    case catalogue(Catalogue)
}
