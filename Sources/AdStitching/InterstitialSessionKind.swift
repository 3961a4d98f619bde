import AdCampaign
import AdDecision

/// A session whose ads are HLS Interstitials (RFC 8216bis Appendix D; docs/architecture.md
/// "Interstitial sessions").
public struct InterstitialSessionKind: SessionKind {
    public let renderer: SessionRenderer
    public let reporting: Campaign.Reporting
    public var name: String { "interstitial" }

    public init(renderer: SessionRenderer, reporting: Campaign.Reporting) {
        self.renderer = renderer
        self.reporting = reporting
    }

    /// The common files and an asset list per break of the campaign (one that does not play in
    /// the session answers 404); no subtitle filler (ads play their own renditions).
    public var files: [SessionFile] { self.commonFiles + self.renderer.layout.campaign.breaks.map { SessionFile.assetList($0.id) } }

    /// Besides ``files``, a tracked ad's own playlists when the session reports server-side.
    public func file(named name: String) -> SessionFile? {
        if name.hasPrefix(SessionRenderer.assetListPrefix), name.hasSuffix(".json") {
            let id = String(name.dropFirst(SessionRenderer.assetListPrefix.count).dropLast(".json".count))
            return self.renderer.layout.campaign.breaks.contains { $0.id == id } ? .assetList(id) : nil
        }
        if self.reporting == .server, let file = SessionFile.adPlaylist(named: name) { return file }
        return self.files.first { $0.name == name }
    }

    public func files(playing plan: Plan) -> [SessionFile] {
        let playing = Set(self.renderer.schedule(plan).interstitials.map(\.id))
        return self.files.filter { if case .assetList(let id) = $0 { playing.contains(id) } else { true } }
    }

    public func render(_ file: SessionFile, _ plan: @autoclosure () -> Plan, links: SessionLinks) throws(StitchError) -> RenderedBytes {
        switch file {
        case .multivariant:
            let schedule = self.renderer.schedule(plan())
            return RenderedBytes(text: try self.renderer.multivariant(schedule, playlistURI: links.playlistURI, boundariesURI: links.boundariesURI))
        case .playlist(let rendition):
            return try self.renderer.primaryPlaylistBytes(
                self.renderer.schedule(plan()),
                rendition: rendition,
                trackers: self.reporting.handsTrackersToPlayer
            )
        case .boundaries, .tracking: return self.manifest(file, BoundaryManifest(self.renderer.schedule(plan())))
        case .assetList(let id):
            let schedule = self.renderer.schedule(plan())
            guard
                let list = self.renderer.assetList(
                    schedule,
                    breakID: id,
                    trackers: self.reporting.handsTrackersToPlayer,
                    base: links.base,
                    adPlaylistURI: links.adPlaylistURI
                )
            else {
                throw StitchError(.notInSession, "break \(id) does not play in this session (nothing filled it), so it has no asset list")
            }
            return RenderedBytes(text: list)
        case .adPlaylist(let piece, let variant):
            guard let beacons = links.beacons else { throw SessionRenderer.beaconsOnly }
            return RenderedBytes(text: try self.renderer.adPlaylist(plan(), piece: piece, variant: variant, beacons: beacons))
        case .emptySubtitles, .emptyIMSC: return Self.filler(file)
        }
    }
}
