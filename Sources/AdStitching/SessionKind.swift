import AdCampaign
import AdDecision

/// How a session's files name each other and what is around them, as the place that serves them
/// says: each rendition's playlist and the boundary manifest from the multivariant playlist; the
/// base of local media in an asset list; an ad's own session playlist; beacon links.
public struct SessionLinks {
    /// A rendition's media playlist as the multivariant playlist names it.
    public var playlistURI: (StitchRendition) -> String
    /// The boundary manifest as the multivariant playlist names it.
    public var boundariesURI: String
    /// Makes the URIs of local media in an asset list absolute (``SessionRenderer/assetList(_:breakID:base:adPlaylistURI:)``).
    public var base: String?
    /// The URI of a tracked ad's own session playlist, by its place in the plan (server-side
    /// reporting in an interstitial session).
    public var adPlaylistURI: ((Int) -> String)?
    /// The ads' event segments by their links (server-side reporting).
    public var beacons: BeaconLinks?

    /// The files' own names, relative to each other (a session folder).
    public init(
        playlistURI: @escaping (StitchRendition) -> String = { SessionFile.playlist($0).name },
        boundariesURI: String = SessionFile.boundaries.name,
        base: String? = nil,
        adPlaylistURI: ((Int) -> String)? = nil,
        beacons: BeaconLinks? = nil
    ) {
        self.playlistURI = playlistURI
        self.boundariesURI = boundariesURI
        self.base = base
        self.adPlaylistURI = adPlaylistURI
        self.beacons = beacons
    }
}

/// A kind of session — stitched, interstitials, live — as one type each: which files a session
/// of the kind has, which file a name names, and how each is made. Chosen once, when a session
/// is served (``SessionRenderer/session(_:reporting:)``); nothing after asks the insertion mode
/// again.
public protocol SessionKind: Sendable {
    /// The renderer of the campaign load the session plays on.
    var renderer: SessionRenderer { get }
    /// How the session's ads' events are reported.
    var reporting: Campaign.Reporting { get }
    /// What the kind is called in messages: `stitched`, `interstitial`, `live`.
    var name: String { get }
    /// Every file a session of this kind may have, the multivariant playlist first.
    var files: [SessionFile] { get }
    /// The file called `name`, or nil when a session of this kind has none.
    func file(named name: String) -> SessionFile?
    /// The files of the session `plan` describes (an interstitial session's asset lists: those of
    /// the breaks that play).
    func files(playing plan: Plan) -> [SessionFile]
    /// `file` of the session `plan` describes (planned only for the files that depend on it),
    /// its URIs as `links` say.
    func render(_ file: SessionFile, _ plan: @autoclosure () -> Plan, links: SessionLinks) throws(StitchError) -> RenderedBytes
}

extension SessionKind {
    public func file(named name: String) -> SessionFile? { self.files.first { $0.name == name } }

    public func files(playing plan: Plan) -> [SessionFile] { self.files }

    /// ``render(_:_:links:)`` with the files' own names as links (a session folder).
    public func render(_ file: SessionFile, _ plan: @autoclosure () -> Plan) throws(StitchError) -> RenderedBytes {
        try self.render(file, plan(), links: SessionLinks())
    }

    /// Every file of the session `plan` describes, rendered, in ``files(playing:)`` order.
    public func renderAll(_ plan: Plan) throws(StitchError) -> [RenderedFile] {
        var rendered: [RenderedFile] = []
        for file in self.files(playing: plan) { rendered.append(RenderedFile(file: file, bytes: try self.render(file, plan).bytes)) }
        return rendered
    }

    /// The files every kind has: the multivariant playlist, each rendition's media playlist, the
    /// boundary manifest, and the tracking document of a session that reports client-side.
    var commonFiles: [SessionFile] {
        var files: [SessionFile] = [.multivariant] + self.renderer.layout.renditions.map(SessionFile.playlist) + [.boundaries]
        if self.reporting == .client { files.append(.tracking) }
        return files
    }

    /// The empty WebVTT or IMSC a subtitle rendition needs while an asset without one plays.
    var subtitleFillers: [SessionFile] {
        let program = self.renderer.layout.program
        var fillers: [SessionFile] = []
        for rendition in self.renderer.layout.renditions {
            guard case .subtitles(let index) = rendition.kind else { continue }
            let filler: SessionFile = program.format(of: program.renditions[index]).codec == .imsc ? .emptyIMSC : .emptySubtitles
            if !fillers.contains(filler) { fillers.append(filler) }
        }
        return fillers
    }

    /// A subtitle filler's bytes (the same in every session).
    static func filler(_ file: SessionFile) -> RenderedBytes {
        file == .emptyIMSC ? RenderedBytes(bytes: IMSCFiller.bytes) : RenderedBytes(text: SessionFile.emptySubtitlesText)
    }

    /// The boundary manifest, naming the tracking document when the session reports client-side
    /// (and listing the ads' tracking URLs only then), or the tracking document made from it.
    func manifest(_ file: SessionFile, _ manifest: BoundaryManifest) -> RenderedBytes {
        if file == .tracking { return RenderedBytes(text: TrackingDocument(manifest).json.text()) }
        var manifest = manifest
        if self.reporting == .client { manifest.trackingURI = SessionFile.tracking.name }
        manifest.listsTrackers = self.reporting.handsTrackersToPlayer
        return RenderedBytes(text: manifest.json.text())
    }
}

extension SessionRenderer {
    /// The kind of a session of this campaign load that gets its ads as `insertion` says (a live
    /// campaign's sessions are live: stitched, or as the channel's interstitials), reporting as
    /// `reporting` says (nil: as the campaign does).
    public func session(_ insertion: Insertion, reporting: Campaign.Reporting? = nil) -> any SessionKind {
        let reporting = reporting ?? self.layout.campaign.reporting
        if self.layout.campaign.live != nil {
            return insertion == .interstitials
                ? LiveInterstitialSessionKind(renderer: self, reporting: reporting) : LiveSessionKind(renderer: self, reporting: reporting)
        }
        return insertion == .interstitials
            ? InterstitialSessionKind(renderer: self, reporting: reporting) : StitchedSessionKind(renderer: self, reporting: reporting)
    }
}
