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
    /// `empty.vtt`: the empty WebVTT that fills a subtitle rendition while an asset without one plays.
    case emptySubtitles

    /// The text of ``emptySubtitles``.
    public static let emptySubtitlesText = "WEBVTT\n"

    public var name: String {
        switch self {
        case .multivariant: "master.m3u8"
        case .playlist(let rendition): "\(rendition.id).m3u8"
        case .boundaries: "boundaries.json"
        case .emptySubtitles: "empty.vtt"
        }
    }

    public var contentType: String {
        switch self {
        case .multivariant, .playlist: "application/vnd.apple.mpegurl"
        case .boundaries: "application/json"
        case .emptySubtitles: "text/vtt"
        }
    }
}

extension SessionRenderer {
    /// Every file of a session of this campaign: the multivariant playlist, each rendition's
    /// playlist, the boundary manifest, and the empty WebVTT when a subtitle rendition may need it.
    public var files: [SessionFile] {
        var files: [SessionFile] = [.multivariant] + self.layout.renditions.map(SessionFile.playlist) + [.boundaries]
        if self.layout.renditions.contains(where: { if case .subtitles = $0.kind { true } else { false } }) { files.append(.emptySubtitles) }
        return files
    }

    /// The file of a session called `name`, or nil when sessions of this campaign have none.
    public func file(named name: String) -> SessionFile? {
        self.files.first { $0.name == name }
    }

    /// The text of `file` for `plan` (planned only for the files that depend on it). The
    /// multivariant playlist's URIs are `playlistURI` of each rendition and `boundariesURI`
    /// (default: the files' names, relative to the playlist).
    public func render(
        _ file: SessionFile,
        _ plan: @autoclosure () -> Plan,
        playlistURI: (StitchRendition) -> String = { SessionFile.playlist($0).name },
        boundariesURI: String = SessionFile.boundaries.name
    ) throws(StitchError) -> String {
        switch file {
        case .multivariant: try self.multivariant(plan(), playlistURI: playlistURI, boundariesURI: boundariesURI)
        case .playlist(let rendition): try self.mediaPlaylist(plan(), rendition: rendition)
        case .boundaries: BoundaryManifest(plan()).json.text()
        case .emptySubtitles: SessionFile.emptySubtitlesText
        }
    }

    /// ``render(_:_:playlistURI:boundariesURI:)`` as bytes: a media playlist as its session's
    /// lines between the layout's shared blocks (``SessionRenderer/mediaPlaylistBytes(_:rendition:)``),
    /// the other files in one piece.
    public func renderBytes(
        _ file: SessionFile,
        _ plan: @autoclosure () -> Plan,
        playlistURI: (StitchRendition) -> String = { SessionFile.playlist($0).name },
        boundariesURI: String = SessionFile.boundaries.name
    ) throws(StitchError) -> RenderedBytes {
        if case .playlist(let rendition) = file { return try self.mediaPlaylistBytes(plan(), rendition: rendition) }
        return RenderedBytes(text: try self.render(file, plan(), playlistURI: playlistURI, boundariesURI: boundariesURI))
    }

    /// Every file of the session `plan` describes, rendered, in ``files`` order.
    public func renderAll(_ plan: Plan) throws(StitchError) -> [(file: SessionFile, text: String)] {
        var rendered: [(file: SessionFile, text: String)] = []
        for file in self.files { rendered.append((file, try self.render(file, plan))) }
        return rendered
    }
}
