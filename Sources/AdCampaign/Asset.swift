import HLSPlaylist

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An HLS asset — an island, an ad or the slate: its multivariant playlist and every media
/// playlist it references, parsed once with variables resolved.
///
/// A class, immutable: plans hold an asset per piece, and copying one reference per piece keeps
/// planning cheap (a value would copy dozens of arrays). One instance per playlist URL per load.
public final class Asset: Sendable {
    /// The multivariant playlist's URL.
    public let url: URL
    public let multivariant: MultivariantPlaylist
    public let variants: [Variant]
    public let iFrameVariants: [IFrameVariant]
    /// `EXT-X-MEDIA` renditions; closed captions and renditions without URI have no playlist.
    public let renditions: [Rendition]
    /// The duration of the first variant: the asset's length on the main video timeline.
    public let duration: ExactDecimal
    public let segmentFormat: SegmentFormat
    /// Per variant, its family: video codec family and VIDEO-RANGE (`avc/SDR`, `hevc/PQ`), or
    /// `audio/SDR` for audio-only variants — worked out once, used for every startup decision.
    public let variantFamilies: [String]

    public struct Variant: Sendable {
        public let streamInf: StreamInf
        public let url: URL
        public let playlist: MediaPlaylist
    }

    public struct IFrameVariant: Sendable {
        public let streamInf: IFrameStreamInf
        public let url: URL
        public let playlist: MediaPlaylist
    }

    public struct Rendition: Sendable {
        public let media: Media
        public let url: URL?
        public let playlist: MediaPlaylist?
    }

    init(url: URL, multivariant: MultivariantPlaylist, variants: [Variant], iFrameVariants: [IFrameVariant], renditions: [Rendition]) {
        self.url = url
        self.multivariant = multivariant
        self.variants = variants
        self.iFrameVariants = iFrameVariants
        self.renditions = renditions
        self.duration = variants.first?.playlist.duration ?? .zero
        self.segmentFormat = variants.first?.playlist.segments.first?.map != nil ? .fragmentedMP4 : .mpegTS
        self.variantFamilies = variants.map { "\(CodecFamily.video(of: $0.streamInf.codecs) ?? "audio")/\($0.streamInf.videoRange ?? "SDR")" }
    }

    /// Audio renditions with their own playlists (demuxed audio).
    public var audioRenditions: [Rendition] { self.renditions.filter { $0.media.type == .audio && $0.playlist != nil } }
    public var subtitleRenditions: [Rendition] { self.renditions.filter { $0.media.type == .subtitles && $0.playlist != nil } }

    /// Whether any program segment is encrypted.
    public var isEncrypted: Bool {
        self.variants.contains { variant in variant.playlist.segments.contains { !$0.keys.isEmpty } }
    }
}

/// The container of an asset's segments; a playlist cannot switch from one to the other
/// (an `EXT-X-MAP` cannot be unset: docs/architecture.md invariant 6).
public enum SegmentFormat: String, Sendable, Hashable {
    case mpegTS = "MPEG-TS"
    case fragmentedMP4 = "fMP4"
}

/// The family of a CODECS entry: what a player must be able to decode.
public enum CodecFamily {
    /// `avc1.64001f` → `avc`, `hvc1`/`hev1` → `hevc`, `dvh1`/`dvhe` → `dolby-vision`, `av01` → `av1`, `mp4a.40.2` → `mp4a`.
    public static func of(_ codec: String) -> String {
        let prefix = codec.split(separator: ".").first.map(String.init) ?? codec
        switch prefix {
        case "avc1", "avc3": return "avc"
        case "hvc1", "hev1": return "hevc"
        case "dvh1", "dvhe", "dvav", "dva1": return "dolby-vision"
        case "av01": return "av1"
        case "vp09": return "vp9"
        default: return prefix
        }
    }

    /// The video family of a variant, by its CODECS (nil for audio-only or unknown).
    public static func video(of codecs: [String]) -> String? {
        let video: Set<String> = ["avc", "hevc", "dolby-vision", "av1", "vp9", "mp4v"]
        return codecs.map(Self.of).first { video.contains($0) }
    }
}
