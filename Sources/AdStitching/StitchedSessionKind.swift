import AdCampaign
import AdDecision

/// A session whose ads are stitched into its playlists (docs/architecture.md "Invariants of every
/// stitched output").
public struct StitchedSessionKind: SessionKind {
    public let renderer: SessionRenderer
    public let reporting: Campaign.Reporting
    public var name: String { "stitched" }

    public init(renderer: SessionRenderer, reporting: Campaign.Reporting) {
        self.renderer = renderer
        self.reporting = reporting
    }

    /// The common files and the subtitle fillers.
    public var files: [SessionFile] { self.commonFiles + self.subtitleFillers }

    /// A media playlist as its session's lines between the layout's shared blocks
    /// (``SessionRenderer/mediaPlaylistBytes(_:rendition:beacons:)``), with `links.beacons` its
    /// ads' event segments by their links; the other files in one piece.
    public func render(_ file: SessionFile, _ plan: @autoclosure () -> Plan, links: SessionLinks) throws(StitchError) -> RenderedBytes {
        switch file {
        case .multivariant:
            RenderedBytes(text: try self.renderer.multivariant(plan(), playlistURI: links.playlistURI, boundariesURI: links.boundariesURI))
        case .playlist(let rendition): try self.renderer.mediaPlaylistBytes(plan(), rendition: rendition, beacons: links.beacons)
        case .boundaries, .tracking: self.manifest(file, BoundaryManifest(plan()))
        case .emptySubtitles, .emptyIMSC: Self.filler(file)
        case .assetList(let id): throw .notInLayout("a stitched session has no asset list (\(id)); its ads are in its playlists")
        case .adPlaylist: throw .notInLayout("a stitched session's ads are in its playlists; it has no playlists of their own")
        }
    }
}
