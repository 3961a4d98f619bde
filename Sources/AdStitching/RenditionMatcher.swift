import AdCampaign
import HLSPlaylist

/// Finds, for each programme rendition, the playlist of another asset that plays in its place
/// (docs/architecture.md invariant 10).
enum RenditionMatcher {
    /// The variant of `asset` for programme variant `target`: same video codec family and range,
    /// BANDWIDTH closest at or below (else the lowest above), then resolution closest.
    static func variant(of asset: Asset, for target: StreamInf) -> Asset.Variant? {
        let family = CodecFamily.video(of: target.codecs)
        let sameFamily = asset.variants.filter { CodecFamily.video(of: $0.streamInf.codecs) == family }
        let candidates = sameFamily.isEmpty ? asset.variants : sameFamily
        let sameRange = candidates.filter { $0.streamInf.range == target.range }
        return Self.closest(
            sameRange.isEmpty ? candidates : sameRange,
            to: target,
            bandwidth: \.streamInf.bandwidth,
            resolution: \.streamInf.resolution
        )
    }

    static func iFrameVariant(of asset: Asset, for target: IFrameStreamInf) -> Asset.IFrameVariant? {
        let family = CodecFamily.video(of: target.codecs)
        let sameFamily = asset.iFrameVariants.filter { CodecFamily.video(of: $0.streamInf.codecs) == family }
        return Self.closest(
            sameFamily.isEmpty ? asset.iFrameVariants : sameFamily,
            to: target,
            bandwidth: \.streamInf.bandwidth,
            resolution: \.streamInf.resolution
        )
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

    /// The audio or subtitle rendition of `asset` for programme rendition `target`: same
    /// LANGUAGE (and NAME when several share it), else the DEFAULT one, else the first.
    static func rendition(of asset: Asset, for target: Media) -> Asset.Rendition? {
        let sameType = asset.renditions.filter { $0.media.type == target.type && $0.playlist != nil }
        let sameLanguage = sameType.filter { $0.media.language != nil && $0.media.language == target.language }
        if let exact = sameLanguage.first(where: { $0.media.name == target.name }) ?? sameLanguage.first { return exact }
        return sameType.first { $0.media.isDefault } ?? sameType.first
    }
}
