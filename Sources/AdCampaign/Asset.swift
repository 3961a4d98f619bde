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
    /// Whether any variant's segments are fMP4: a player must take them through MSE (hls.js in a
    /// browser). Containers are per variant (``Variant/segmentFormat``): HEVC variants are fMP4
    /// beside AVC ones in MPEG-TS in many ladders.
    public let usesFragmentedMP4: Bool
    /// Per variant, its family: video codec family and VIDEO-RANGE (`avc/SDR`, `hevc/PQ`), or
    /// `audio/SDR` for audio-only variants — worked out once, used for every startup decision.
    public let variantFamilies: [VariantFamily]

    /// A variant, with what matching asks of it read once from its `EXT-X-STREAM-INF` (the tag's
    /// attributes are text: ``RenditionMatcher`` asks for each several times per candidate, for
    /// every programme variant of every ad a catalogue title's first session lays out).
    public struct Variant: Sendable {
        public let streamInf: StreamInf
        public let url: URL
        public private(set) var playlist: MediaPlaylist
        /// The `CODECS` list (``VariantAttributes/codecs``).
        public let codecs: [String]
        /// The video family the CODECS name (nil: audio-only or unknown).
        public let videoFamily: CodecFamily?
        /// The audio families the CODECS name.
        public let audioFamilies: Set<CodecFamily>
        /// ``VariantAttributes/isAudioOnly``.
        public let isAudioOnly: Bool
        /// The container of this variant's segments (a variant cannot switch: invariant 6).
        public private(set) var segmentFormat: SegmentFormat

        init(streamInf: StreamInf, url: URL, playlist: MediaPlaylist) {
            self.streamInf = streamInf
            self.url = url
            self.playlist = playlist
            self.codecs = streamInf.codecs
            self.videoFamily = CodecFamily.video(of: self.codecs)
            self.audioFamilies = Set(CodecFamily.audio(of: self.codecs))
            self.isAudioOnly = streamInf.isAudioOnly
            self.segmentFormat = SegmentFormat(playlist)
        }

        /// This variant playing `playlist` (a slice of its own): what its tag says is kept, not read again.
        func playing(_ playlist: MediaPlaylist) -> Variant {
            var variant = self
            variant.playlist = playlist
            variant.segmentFormat = SegmentFormat(playlist)
            return variant
        }
    }

    public struct IFrameVariant: Sendable {
        public let streamInf: IFrameStreamInf
        public let url: URL
        public private(set) var playlist: MediaPlaylist
        /// The video family its CODECS name, read once.
        public let videoFamily: CodecFamily?

        init(streamInf: IFrameStreamInf, url: URL, playlist: MediaPlaylist) {
            self.streamInf = streamInf
            self.url = url
            self.playlist = playlist
            self.videoFamily = CodecFamily.video(of: streamInf.codecs)
        }

        /// This I-frame variant playing `playlist` (a slice of its own).
        func playing(_ playlist: MediaPlaylist) -> IFrameVariant {
            var variant = self
            variant.playlist = playlist
            return variant
        }
    }

    public struct Rendition: Sendable {
        public let media: Media
        public let url: URL?
        public let playlist: MediaPlaylist?
        /// The container of this rendition's segments; nil without a playlist (closed captions).
        public var segmentFormat: SegmentFormat? { self.playlist.map(SegmentFormat.init) }
    }

    init(url: URL, multivariant: MultivariantPlaylist, variants: [Variant], iFrameVariants: [IFrameVariant], renditions: [Rendition]) {
        self.url = url
        self.multivariant = multivariant
        self.variants = variants
        self.iFrameVariants = iFrameVariants
        self.renditions = renditions
        self.duration = variants.first?.playlist.duration ?? .zero
        self.usesFragmentedMP4 = variants.contains { $0.segmentFormat == .fragmentedMP4 }
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

    /// The container of a media playlist's segments: fMP4 when they have a Media Initialization
    /// Section (`EXT-X-MAP`, RFC 8216bis §3.3), else MPEG-TS — or, for subtitles, WebVTT.
    public init(_ playlist: MediaPlaylist) {
        self = playlist.segments.first?.map != nil ? .fragmentedMP4 : .mpegTS
    }
}

/// The family of a CODECS entry: what a player must be able to decode (`avc1.64001f` → `avc`,
/// `hvc1`/`hev1` → `hevc`, `dvh1`/`dvhe` → `dolby-vision`, `av01` → `av1`; audio by what decodes it:
/// `mp4a.40.2` and `mp4a.40.5` → `aac`, `ac-3`/`mp4a.a5` → `ac-3`, `ec-3`/`mp4a.a6` → `ec-3`).
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
    public static let aac = CodecFamily(rawValue: "aac")
    public static let mp3 = CodecFamily(rawValue: "mp3")
    public static let ac3 = CodecFamily(rawValue: "ac-3")
    public static let eac3 = CodecFamily(rawValue: "ec-3")
    public static let ac4 = CodecFamily(rawValue: "ac-4")
    public static let opus = CodecFamily(rawValue: "opus")
    public static let flac = CodecFamily(rawValue: "flac")
    static let audio: Set<CodecFamily> = [.aac, .mp3, .ac3, .eac3, .ac4, .opus, .flac]
    /// Subtitles: WebVTT (`wvtt`) and IMSC in fMP4 (`stpp.ttml.im1t`).
    public static let webVTT = CodecFamily(rawValue: "wvtt")
    public static let imsc = CodecFamily(rawValue: "stpp")

    /// The family of one CODECS entry; an unknown one is its own family (its prefix).
    public init(codec: String) {
        let prefix = codec.split(separator: ".").first.map(String.init) ?? codec
        switch prefix {
        case "avc1", "avc3": self = .avc
        case "hvc1", "hev1": self = .hevc
        case "dvh1", "dvhe", "dvav", "dva1": self = .dolbyVision
        case "av01": self = .av1
        case "vp09": self = .vp9
        case "ac-3": self = .ac3
        case "ec-3": self = .eac3
        case "ac-4": self = .ac4
        case "Opus", "opus": self = .opus
        case "fLaC", "flac": self = .flac
        case "wvtt": self = .webVTT
        case "stpp": self = .imsc
        // ISO/IEC 14496-1 object types (RFC 6381 §3.3): 40 MPEG-4 audio (40.34 is MP3 in it),
        // 69/6B MPEG-1/2 audio, a5 AC-3, a6 E-AC-3.
        case "mp4a":
            switch codec.split(separator: ".").dropFirst().first?.lowercased() {
            case "40": self = codec.lowercased() == "mp4a.40.34" ? .mp3 : .aac
            case "69", "6b": self = .mp3
            case "a5": self = .ac3
            case "a6": self = .eac3
            default: self.init(rawValue: codec)
            }
        default: self.init(rawValue: prefix)
        }
    }

    /// The video family of a variant, by its CODECS (nil for audio-only or unknown).
    public static func video(of codecs: [String]) -> CodecFamily? {
        codecs.map(CodecFamily.init(codec:)).first { Self.video.contains($0) }
    }

    /// The audio families a CODECS list names, in its order.
    public static func audio(of codecs: [String]) -> [CodecFamily] {
        codecs.map(CodecFamily.init(codec:)).filter { Self.audio.contains($0) }
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
