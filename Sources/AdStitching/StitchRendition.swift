import AdCampaign
import HLSPlaylist

/// One stitched media playlist of a session: a programme variant, I-frame variant, or
/// audio/subtitle rendition, named for its URI (`v0`, `i0`, `a0`, `s0`).
public struct StitchRendition: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// Index into the programme's variants.
        case video(Int)
        /// Index into the programme's I-frame variants.
        case iFrame(Int)
        /// Index into the programme's renditions (`EXT-X-MEDIA` with a URI).
        case audio(Int)
        case subtitles(Int)
    }

    public let kind: Kind

    /// `v0`, `i0`, `a0`, `s0`: the playlist's name in the session (`v0.m3u8`).
    public var id: String {
        switch self.kind {
        case .video(let index): "v\(index)"
        case .iFrame(let index): "i\(index)"
        case .audio(let index): "a\(index)"
        case .subtitles(let index): "s\(index)"
        }
    }

    /// Video and audio playlists share one target duration (docs/architecture.md invariant 3); subtitle and
    /// I-frame playlists may differ (RFC 8216bis §6.2.4).
    var sharesTargetDuration: Bool {
        switch self.kind {
        case .video, .audio: true
        case .iFrame, .subtitles: false
        }
    }
}
