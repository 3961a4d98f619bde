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
    public let variantFamilies: [VariantFamily]

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
        self.variantFamilies = variants.map { VariantFamily($0.streamInf) }
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

/// The family of a CODECS entry: what a player must be able to decode (`avc1.64001f` → `avc`,
/// `hvc1`/`hev1` → `hevc`, `dvh1`/`dvhe` → `dolby-vision`, `av01` → `av1`, `mp4a.40.2` → `mp4a`).
public struct CodecFamily: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let avc = CodecFamily(rawValue: "avc")
    public static let hevc = CodecFamily(rawValue: "hevc")
    public static let dolbyVision = CodecFamily(rawValue: "dolby-vision")
    public static let av1 = CodecFamily(rawValue: "av1")
    public static let vp9 = CodecFamily(rawValue: "vp9")
    public static let mp4v = CodecFamily(rawValue: "mp4v")
    static let video: Set<CodecFamily> = [.avc, .hevc, .dolbyVision, .av1, .vp9, .mp4v]

    /// The family of one CODECS entry; an unknown one is its own family (its prefix).
    public init(codec: String) {
        let prefix = codec.split(separator: ".").first.map(String.init) ?? codec
        switch prefix {
        case "avc1", "avc3": self = .avc
        case "hvc1", "hev1": self = .hevc
        case "dvh1", "dvhe", "dvav", "dva1": self = .dolbyVision
        case "av01": self = .av1
        case "vp09": self = .vp9
        default: self.init(rawValue: prefix)
        }
    }

    /// The video family of a variant, by its CODECS (nil for audio-only or unknown).
    public static func video(of codecs: [String]) -> CodecFamily? {
        codecs.map(CodecFamily.init(codec:)).first { Self.video.contains($0) }
    }

    public var description: String { self.rawValue }
}

/// What a variant needs of a player: its video codec family (nil: audio only) and its video
/// range. Startup ordering keeps one variant of each family near the top.
public struct VariantFamily: Sendable, Hashable, CustomStringConvertible {
    public let codec: CodecFamily?
    public let range: VideoRange

    public init(_ variant: some VariantAttributes) {
        self.codec = CodecFamily.video(of: variant.codecs)
        self.range = variant.range
    }

    /// `avc/SDR`, `hevc/PQ`, `audio/SDR`.
    public var description: String { "\(self.codec?.rawValue ?? "audio")/\(self.range)" }
}
