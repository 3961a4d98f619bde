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
    /// A plan as interstitials, with the `X-SNAP`s this campaign's programme needs.
    public func schedule(_ plan: Plan) -> InterstitialSchedule {
        InterstitialSchedule(plan, snaps: self.layout.interstitialSnaps.value)
    }

    /// What rendering says of an ad's session playlist without beacon links: only a server that
    /// fires beacons lists them (``SessionRenderer/adPlaylist(_:piece:variant:beacons:)``).
    static let beaconsOnly = StitchError(
        .notInLayout,
        asset: nil,
        rendition: nil,
        "an ad's own session playlist exists only where AdStitch fires its beacons (adstitch serve, server-side reporting)"
    )
}
