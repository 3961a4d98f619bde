import Foundation

/// Why a session could not be stitched — always something about the media, said so a person
/// can fix it: what failed (``Reason``), the asset it is about and the stitched rendition it
/// would have played in, and the whole story in ``message``.
public struct StitchError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: Sendable, Hashable {
        /// The campaign has no programme to stitch into.
        case noProgramme
        /// An asset has no playlist to play in one of the programme's renditions.
        case noMatchingPlaylist
        /// An asset's renditions do not start and end together (docs/architecture.md invariant 2).
        case misaligned
        /// A plan names an asset or a rendition this layout does not have (another revision's plan).
        case notInLayout
        /// The session has no such file, though its kind may: an asset list of a break nothing
        /// filled (a server answers 404).
        case notInSession
        /// What the file is made from has not been read yet: a live channel's window (a server
        /// answers 503, to be asked again).
        case notReady
    }

    public var reason: Reason
    /// The asset's multivariant playlist, when the error is about one.
    public var asset: URL?
    /// The stitched rendition (`v0`, `a1`…), when the error is about one.
    public var rendition: String?
    public var message: String

    public init(_ reason: Reason, asset: URL? = nil, rendition: String? = nil, _ message: String) {
        self.reason = reason
        self.asset = asset
        self.rendition = rendition
        self.message = message
    }

    public var description: String { self.message }

    static func noProgramme() -> StitchError {
        StitchError(.noProgramme, "the campaign has no islands")
    }

    static func noMatchingPlaylist(_ asset: URL, rendition: StitchRendition, _ message: String) -> StitchError {
        StitchError(.noMatchingPlaylist, asset: asset, rendition: rendition.id, message)
    }

    static func notInLayout(asset: URL? = nil, rendition: String? = nil, _ message: String) -> StitchError {
        StitchError(.notInLayout, asset: asset, rendition: rendition, message)
    }
}
