import HLSPlaylist

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Finds, for each programme rendition, the playlist of another asset that plays in its place
/// (docs/architecture.md invariant 10). The one home of the rule: stitching plays what it finds,
/// and `validate` reports, from the same answers, where nothing can play and where what plays
/// differs from what the programme's variant promises.
public enum RenditionMatcher {
    /// What plays in a programme variant: a variant of the asset or, in an audio-only variant of an
    /// asset that has none, the asset's audio rendition — a picture never plays in an audio-only one.
    public enum VariantMatch: Sendable {
        case variant(Asset.Variant)
        /// `codecs`: the audio formats of the variants that play the rendition's group.
        case audioRendition(Media, playlist: MediaPlaylist, codecs: [String])

        public var playlist: MediaPlaylist {
            switch self {
            case .variant(let variant): variant.playlist
            case .audioRendition(_, let playlist, _): playlist
            }
        }

        /// BANDWIDTH as declared; an audio rendition declares none.
        public var bandwidth: Int? {
            if case .variant(let variant) = self { variant.streamInf.bandwidth } else { nil }
        }

        public var averageBandwidth: Int? {
            if case .variant(let variant) = self { variant.streamInf.averageBandwidth } else { nil }
        }

        public var codecs: [String] {
            switch self {
            case .variant(let variant): variant.codecs
            case .audioRendition(_, _, let codecs): codecs
            }
        }

        /// The video family it plays (nil: audio only).
        public var videoFamily: CodecFamily? {
            if case .variant(let variant) = self { variant.videoFamily } else { nil }
        }

        public var hdcpLevel: HDCPLevel {
            if case .variant(let variant) = self { HDCPLevel(variant.streamInf.hdcpLevel) } else { .none }
        }

        public var segmentFormat: SegmentFormat {
            switch self {
            case .variant(let variant): variant.segmentFormat
            case .audioRendition(_, let playlist, _): SegmentFormat(playlist)
            }
        }
    }

    /// What of `asset` plays in programme variant `target`. A variant with a picture: same video
    /// codec family, then container, VIDEO-RANGE and audio format (each preferred only where the
    /// asset has one), BANDWIDTH closest at or below (else the lowest above), then resolution
    /// closest. An audio-only one: an audio-only variant of the same audio format, else the asset's
    /// audio rendition of that format (DEFAULT first); nil when it has neither.
    public static func variant(of asset: Asset, for target: Asset.Variant) -> VariantMatch? {
        let goal = target.streamInf
        let formats = target.audioFamilies
        let sameAudio = { (variant: Asset.Variant) in formats.isEmpty || variant.audioFamilies == formats }
        if target.isAudioOnly {
            let audioOnly = asset.variants.filter(\.isAudioOnly)
            if !audioOnly.isEmpty {
                let candidates = Self.prefer(audioOnly, sameAudio)
                return Self.closest(candidates, to: goal, bandwidth: \.streamInf.bandwidth, resolution: \.streamInf.resolution).map {
                    .variant($0)
                }
            }
            let audio = asset.audioRenditions.filter { rendition in
                let codec = asset.format(of: rendition).codec
                return formats.isEmpty || codec.map(formats.contains) ?? true
            }
            guard let rendition = audio.first(where: \.media.isDefault) ?? audio.first, let playlist = rendition.playlist else { return nil }
            return .audioRendition(rendition.media, playlist: playlist, codecs: asset.audioCodecs(ofGroup: rendition.media.groupID))
        }
        let family = target.videoFamily
        let pictures = Self.prefer(asset.variants) { !$0.isAudioOnly }
        var candidates = Self.prefer(pictures) { $0.videoFamily == family }
        candidates = Self.prefer(candidates) { $0.segmentFormat == target.segmentFormat }
        candidates = Self.prefer(candidates) { $0.streamInf.range == goal.range }
        candidates = Self.prefer(candidates, sameAudio)
        return Self.closest(candidates, to: goal, bandwidth: \.streamInf.bandwidth, resolution: \.streamInf.resolution).map { .variant($0) }
    }

    public static func iFrameVariant(of asset: Asset, for target: IFrameStreamInf) -> Asset.IFrameVariant? {
        let family = CodecFamily.video(of: target.codecs)
        return Self.closest(
            Self.prefer(asset.iFrameVariants) { $0.videoFamily == family },
            to: target,
            bandwidth: \.streamInf.bandwidth,
            resolution: \.streamInf.resolution
        )
    }

    /// The audio or subtitle rendition of `asset` for rendition `target` of `programme`: one of the
    /// same format (``RenditionFormat``: an AAC stereo rendition never fills an AC-3 5.1 group, a
    /// WebVTT one never an IMSC group), then the same LANGUAGE (and NAME when several share it),
    /// else the DEFAULT one, else the first; nil when none has the format.
    public static func rendition(of asset: Asset, for target: Asset.Rendition, in programme: Asset) -> Asset.Rendition? {
        let format = programme.format(of: target)
        let candidates = asset.renditions.filter { rendition in
            rendition.media.type == target.media.type && rendition.playlist != nil && format.accepts(asset.format(of: rendition))
        }
        let sameLanguage = candidates.filter { $0.media.language != nil && $0.media.language == target.media.language }
        if let exact = sameLanguage.first(where: { $0.media.name == target.media.name }) ?? sameLanguage.first { return exact }
        return candidates.first { $0.media.isDefault } ?? candidates.first
    }

    /// The candidates that satisfy `preferred`, or all of them when none does.
    private static func prefer<Candidate>(_ candidates: [Candidate], _ preferred: (Candidate) -> Bool) -> [Candidate] {
        let kept = candidates.filter(preferred)
        return kept.isEmpty ? candidates : kept
    }

    private static func closest<Candidate, Target: VariantAttributes>(
        _ candidates: [Candidate],
        to target: Target,
        bandwidth: KeyPath<Candidate, Int?>,
        resolution: KeyPath<Candidate, Resolution?>
    ) -> Candidate? {
        let goal = target.bandwidth ?? 0
        let pixels = target.resolution?.pixels ?? 0
        let atOrBelow = candidates.filter { ($0[keyPath: bandwidth] ?? 0) <= goal }
        if !atOrBelow.isEmpty {
            return atOrBelow.max { lhs, rhs in
                let (l, r) = (lhs[keyPath: bandwidth] ?? 0, rhs[keyPath: bandwidth] ?? 0)
                if l != r { return l < r }
                return abs((lhs[keyPath: resolution]?.pixels ?? 0) - pixels) > abs((rhs[keyPath: resolution]?.pixels ?? 0) - pixels)
            }
        }
        return candidates.min { ($0[keyPath: bandwidth] ?? Int.max) < ($1[keyPath: bandwidth] ?? Int.max) }
    }
}

/// What a player must decode to play an audio or subtitle rendition: the audio format and channel
/// count, or the subtitle format. A part not known (no CODECS on the variants of an audio group,
/// no CHANNELS) accepts any.
public struct RenditionFormat: Sendable, Hashable, CustomStringConvertible {
    /// ``CodecFamily/aac``, ``CodecFamily/eac3``…, or ``CodecFamily/webVTT`` / ``CodecFamily/imsc``.
    public let codec: CodecFamily?
    /// The first parameter of CHANNELS (RFC 8216bis §4.4.6.1): the count of independent channels.
    public let channels: Int?

    public func accepts(_ other: RenditionFormat) -> Bool {
        func agree<Value: Equatable>(_ lhs: Value?, _ rhs: Value?) -> Bool { lhs == nil || rhs == nil || lhs == rhs }
        return agree(self.codec, other.codec) && agree(self.channels, other.channels)
    }

    /// `ec-3, 6 channels`, `aac`, `WebVTT`, `unknown format`.
    public var description: String {
        let codec = self.codec.map { $0 == .webVTT ? "WebVTT" : $0 == .imsc ? "IMSC (fMP4)" : $0.rawValue }
        let channels = self.channels.map { "\($0) channel\($0 == 1 ? "" : "s")" }
        let parts = [codec, channels].compactMap { $0 }
        return parts.isEmpty ? "unknown format" : parts.joined(separator: ", ")
    }
}

/// The HDCP level a variant needs (RFC 8216bis §4.4.6.2 HDCP-LEVEL), ordered: NONE < TYPE-0 < TYPE-1.
public enum HDCPLevel: Int, Sendable, Comparable, CustomStringConvertible {
    case none = 0
    case type0 = 1
    case type1 = 2

    /// An absent attribute is NONE; an unknown value is taken as the strictest.
    public init(_ attribute: String?) {
        switch attribute {
        case nil, "NONE": self = .none
        case "TYPE-0": self = .type0
        default: self = .type1
        }
    }

    public static func < (lhs: HDCPLevel, rhs: HDCPLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .none: "NONE"
        case .type0: "TYPE-0"
        case .type1: "TYPE-1"
        }
    }
}

extension Asset {
    /// The audio formats of the variants that play audio group `group`, once each in their order.
    public func audioCodecs(ofGroup group: String?) -> [String] {
        var seen: Set<CodecFamily> = []
        var codecs: [String] = []
        for variant in self.variants where variant.streamInf.audio == group && group != nil {
            for codec in variant.codecs {
                let family = CodecFamily(codec: codec)
                if CodecFamily.audio.contains(family), seen.insert(family).inserted { codecs.append(codec) }
            }
        }
        return codecs
    }

    /// The format of one of this asset's audio or subtitle renditions. Audio: its group's one audio
    /// format (nil when the variants of the group name none or several) and its CHANNELS count.
    /// Subtitles: IMSC when its segments are fMP4 (`stpp`), else WebVTT.
    public func format(of rendition: Rendition) -> RenditionFormat {
        switch rendition.media.type {
        case .audio?:
            let families = Set(CodecFamily.audio(of: self.audioCodecs(ofGroup: rendition.media.groupID)))
            let channels = rendition.media.channels?.split(separator: "/").first.flatMap { Int($0) }
            return RenditionFormat(codec: families.count == 1 ? families.first : nil, channels: channels)
        case .subtitles?:
            return RenditionFormat(codec: rendition.segmentFormat == .fragmentedMP4 ? .imsc : .webVTT, channels: nil)
        default:
            return RenditionFormat(codec: nil, channels: nil)
        }
    }
}
