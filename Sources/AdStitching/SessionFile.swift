import AdCampaign
import AdDecision

/// One file of a stitched session, named as the session's URIs name it: what the server answers
/// under a session token, what `adstitch stitch` writes to a folder, what the tests read.
public enum SessionFile: Sendable, Hashable {
    /// `master.m3u8`: the multivariant playlist (the server answers it at the session start).
    case multivariant
    /// `v0.m3u8`, `a1.m3u8`, `s2.m3u8`, `i0.m3u8`: a rendition's stitched media playlist.
    case playlist(StitchRendition)
    /// `boundaries.json`: the boundary manifest.
    case boundaries
    /// `tracking.json`: the tracking document of a session that reports client-side
    /// (``TrackingDocument``).
    case tracking
    /// `empty.vtt`: the empty WebVTT that fills a subtitle rendition while an asset without one plays.
    case emptySubtitles
    /// `empty-imsc.mp4`: the empty IMSC (``IMSCFiller``) that fills an IMSC subtitle rendition so.
    case emptyIMSC
    /// `assets-{break id}.json`: an interstitial session's asset list of a break (RFC 8216bis
    /// Appendix D.3).
    case assetList(String)
    /// `ad-{piece}.m3u8` and `ad-{piece}-v{variant}.m3u8`: an interstitial session's own copy of
    /// a tracked ad's multivariant playlist and of its variants' media playlists, whose segments
    /// where the ad's events fall are beacon links (server-side reporting; ``BeaconLinks``). The
    /// piece is the ad's place in the plan, as beacon links name it.
    case adPlaylist(piece: Int, variant: Int?)

    /// The text of ``emptySubtitles``.
    public static let emptySubtitlesText = "WEBVTT\n"

    public var name: String {
        switch self {
        case .multivariant: "master.m3u8"
        case .playlist(let rendition): "\(rendition.id).m3u8"
        case .boundaries: "boundaries.json"
        case .tracking: "tracking.json"
        case .emptySubtitles: "empty.vtt"
        case .emptyIMSC: "empty-imsc.mp4"
        case .assetList(let breakID): SessionRenderer.assetListPrefix + breakID + ".json"
        case .adPlaylist(let piece, nil): "ad-\(piece).m3u8"
        case .adPlaylist(let piece, let variant?): "ad-\(piece)-v\(variant).m3u8"
        }
    }

    /// The ad playlist `name` names (``adPlaylist(piece:variant:)``), or nil: `ad-{piece}.m3u8` or
    /// `ad-{piece}-v{variant}.m3u8`, each number in decimal without leading zeros, below 100,000.
    static func adPlaylist(named name: String) -> SessionFile? {
        guard name.hasPrefix("ad-"), name.hasSuffix(".m3u8") else { return nil }
        let parts = name.dropFirst(3).dropLast(5).split(separator: "-", omittingEmptySubsequences: false)
        func number(_ text: Substring) -> Int? {
            guard (1...5).contains(text.count), text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber), text == "0" || text.first != "0" else {
                return nil
            }
            return Int(text)
        }
        switch parts.count {
        case 1: return number(parts[0]).map { .adPlaylist(piece: $0, variant: nil) }
        case 2 where parts[1].hasPrefix("v"):
            guard let piece = number(parts[0]), let variant = number(parts[1].dropFirst()) else { return nil }
            return .adPlaylist(piece: piece, variant: variant)
        default: return nil
        }
    }

    public var contentType: String {
        switch self {
        case .multivariant, .playlist, .adPlaylist: "application/vnd.apple.mpegurl"
        case .boundaries, .tracking, .assetList: "application/json"
        case .emptySubtitles: "text/vtt"
        case .emptyIMSC: "application/mp4"
        }
    }

    /// Whether the file is a subtitle filler (the same for every session).
    public var isFiller: Bool { self == .emptySubtitles || self == .emptyIMSC }
}

/// A file of a session as written: its bytes (UTF-8 text, or the IMSC filler's binary).
public struct RenderedFile: Sendable {
    public let file: SessionFile
    public let bytes: [UInt8]

    /// The bytes as text (a playlist, a manifest, an asset list).
    public var text: String { String(decoding: self.bytes, as: UTF8.self) }
}

extension SessionRenderer {
    /// Every file of a stitched session of this campaign: the multivariant playlist, each
    /// rendition's playlist, the boundary manifest, and the empty WebVTT or IMSC when a subtitle
    /// rendition may need it.
    public var files: [SessionFile] { self.files(.stitched) }

    /// Every file a session of this campaign may have in `insertion` mode, reporting as
    /// `reporting` says (nil: as the campaign does): an interstitial session has an asset list per
    /// break of the campaign too (one that does not play in the session answers 404) and no empty
    /// WebVTT (ads play their own renditions); a session that reports client-side has its
    /// tracking document.
    public func files(_ insertion: Insertion, reporting: Campaign.Reporting? = nil) -> [SessionFile] {
        var files: [SessionFile] = [.multivariant] + self.layout.renditions.map(SessionFile.playlist) + [.boundaries]
        if (reporting ?? self.layout.campaign.reporting) == .client { files.append(.tracking) }
        if insertion == .interstitials {
            files += self.layout.campaign.breaks.map { SessionFile.assetList($0.id) }
        } else {
            let program = self.layout.program
            for rendition in self.layout.renditions {
                guard case .subtitles(let index) = rendition.kind else { continue }
                let filler: SessionFile = program.format(of: program.renditions[index]).codec == .imsc ? .emptyIMSC : .emptySubtitles
                if !files.contains(filler) { files.append(filler) }
            }
        }
        return files
    }

    /// The file of a session in `insertion` mode, reporting as `reporting` says, called `name`,
    /// or nil when such sessions of this campaign have none.
    public func file(named name: String, insertion: Insertion = .stitched, reporting: Campaign.Reporting? = nil) -> SessionFile? {
        if insertion == .interstitials, name.hasPrefix(SessionRenderer.assetListPrefix), name.hasSuffix(".json") {
            let id = String(name.dropFirst(SessionRenderer.assetListPrefix.count).dropLast(".json".count))
            return self.layout.campaign.breaks.contains { $0.id == id } ? .assetList(id) : nil
        }
        if insertion == .interstitials, (reporting ?? self.layout.campaign.reporting) == .server, let file = SessionFile.adPlaylist(named: name) {
            return file
        }
        return self.files(insertion, reporting: reporting).first { $0.name == name }
    }

    /// The text of `file` for `plan` (planned only for the files that depend on it) in
    /// `insertion` mode, reporting as `reporting` says (nil: as the campaign does; a session that
    /// reports client-side has its boundary manifest name its tracking document). The
    /// multivariant playlist's URIs are `playlistURI` of each rendition and `boundariesURI`
    /// (default: the files' names, relative to the playlist); `base` makes the local URIs of asset
    /// lists absolute (``assetList(_:breakID:base:)``).
    public func render(
        _ file: SessionFile,
        _ plan: @autoclosure () -> Plan,
        insertion: Insertion = .stitched,
        reporting: Campaign.Reporting? = nil,
        playlistURI: (StitchRendition) -> String = { SessionFile.playlist($0).name },
        boundariesURI: String = SessionFile.boundaries.name,
        base: String? = nil
    ) throws(StitchError) -> String {
        if insertion == .interstitials {
            let schedule = self.schedule(plan())
            switch file {
            case .multivariant: return try self.multivariant(schedule, playlistURI: playlistURI, boundariesURI: boundariesURI)
            case .playlist(let rendition): return try self.primaryPlaylistBytes(schedule, rendition: rendition).text
            case .boundaries, .tracking: return self.manifestText(file, BoundaryManifest(schedule), reporting: reporting)
            case .assetList(let id):
                guard let list = self.assetList(schedule, breakID: id, base: base) else {
                    throw .notInLayout(asset: nil, "break \(id) does not play in this session: nothing filled it")
                }
                return list
            case .emptySubtitles: return SessionFile.emptySubtitlesText
            case .emptyIMSC: throw Self.binary
            case .adPlaylist: throw Self.beaconsOnly
            }
        }
        switch file {
        case .multivariant: return try self.multivariant(plan(), playlistURI: playlistURI, boundariesURI: boundariesURI)
        case .playlist(let rendition): return try self.mediaPlaylist(plan(), rendition: rendition)
        case .boundaries, .tracking: return self.manifestText(file, BoundaryManifest(plan()), reporting: reporting)
        case .emptySubtitles: return SessionFile.emptySubtitlesText
        case .emptyIMSC: throw Self.binary
        case .assetList(let id): throw .notInLayout(asset: nil, "a stitched session has no asset list (\(id)); its ads are in its playlists")
        case .adPlaylist: throw .notInLayout(asset: nil, "a stitched session's ads are in its playlists; it has no playlists of their own")
        }
    }

    /// ``render(_:_:insertion:reporting:playlistURI:boundariesURI:base:)`` as bytes: a media playlist as its
    /// session's lines between the layout's shared blocks (``SessionRenderer/mediaPlaylistBytes(_:rendition:beacons:)``),
    /// with `beacons` its ads' event segments by their links; the other files in one piece.
    public func renderBytes(
        _ file: SessionFile,
        _ plan: @autoclosure () -> Plan,
        insertion: Insertion = .stitched,
        reporting: Campaign.Reporting? = nil,
        playlistURI: (StitchRendition) -> String = { SessionFile.playlist($0).name },
        boundariesURI: String = SessionFile.boundaries.name,
        base: String? = nil,
        beacons: BeaconLinks? = nil
    ) throws(StitchError) -> RenderedBytes {
        if file == .emptyIMSC { return RenderedBytes(bytes: IMSCFiller.bytes) }
        if case .adPlaylist(let piece, let variant) = file, insertion == .interstitials {
            guard let beacons else { throw Self.beaconsOnly }
            return RenderedBytes(text: try self.adPlaylist(plan(), piece: piece, variant: variant, beacons: beacons))
        }
        if case .playlist(let rendition) = file {
            return insertion == .interstitials
                ? try self.primaryPlaylistBytes(self.schedule(plan()), rendition: rendition)
                : try self.mediaPlaylistBytes(plan(), rendition: rendition, beacons: beacons)
        }
        return RenderedBytes(
            text: try self.render(
                file,
                plan(),
                insertion: insertion,
                reporting: reporting,
                playlistURI: playlistURI,
                boundariesURI: boundariesURI,
                base: base
            )
        )
    }

    /// The boundary manifest, naming the tracking document when the session reports client-side,
    /// or the tracking document made from it.
    private func manifestText(_ file: SessionFile, _ manifest: BoundaryManifest, reporting: Campaign.Reporting?) -> String {
        if file == .tracking { return TrackingDocument(manifest).json.text() }
        var manifest = manifest
        if (reporting ?? self.layout.campaign.reporting) == .client { manifest.trackingURI = SessionFile.tracking.name }
        return manifest.json.text()
    }

    /// A plan as interstitials, with the `X-SNAP`s this campaign's programme needs.
    public func schedule(_ plan: Plan) -> InterstitialSchedule {
        InterstitialSchedule(plan, snaps: self.layout.interstitialSnaps.value)
    }

    /// Every file of the session `plan` describes in `insertion` mode, rendered, in ``files(_:)``
    /// order (an interstitial session's asset lists: those of the breaks that play).
    public func renderAll(_ plan: Plan, insertion: Insertion = .stitched) throws(StitchError) -> [RenderedFile] {
        var rendered: [RenderedFile] = []
        let playing = insertion == .interstitials ? Set(self.schedule(plan).interstitials.map(\.id)) : []
        for file in self.files(insertion) {
            if case .assetList(let id) = file, !playing.contains(id) { continue }
            let bytes = file == .emptyIMSC ? IMSCFiller.bytes : Array(try self.render(file, plan, insertion: insertion).utf8)
            rendered.append(RenderedFile(file: file, bytes: bytes))
        }
        return rendered
    }

    /// What rendering says of an ad's session playlist without beacon links: only a server that
    /// fires beacons lists them (``SessionRenderer/adPlaylist(_:piece:variant:beacons:)``).
    static let beaconsOnly = StitchError(
        .notInLayout,
        asset: nil,
        rendition: nil,
        "an ad's own session playlist exists only where AdStitch fires its beacons (adstitch serve, server-side reporting)"
    )

    /// What ``render(_:_:insertion:reporting:playlistURI:boundariesURI:base:)`` says of a binary file.
    static let binary = StitchError(.notInLayout, asset: nil, rendition: nil, "the IMSC filler is binary: render it with renderBytes")
}
