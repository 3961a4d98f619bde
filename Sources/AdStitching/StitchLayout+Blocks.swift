import AdCampaign
import Foundation
import HLSPlaylist
import Synchronization

/// Which playlist of an asset plays in each stitched rendition, and its segment block written
/// from it (``StitchLayout``).
extension StitchLayout {
    /// The playlist of `asset` that plays in `rendition`, rendered.
    static func block(
        for rendition: StitchRendition,
        of asset: Asset,
        isIsland: Bool,
        program: Asset,
        uris: URIStyle,
        emptySubtitleURI: String,
        version: Int? = nil,
        passthrough: Bool = false,
        perSegment: Bool = false
    ) throws(StitchError) -> SegmentBlock {
        let source = try Self.source(for: rendition, of: asset, isIsland: isIsland, program: program)
        return source.block(uris: uris, emptySubtitleURI: emptySubtitleURI, version: version, passthrough: passthrough, perSegment: perSegment)
    }

    /// Which playlist of an asset plays in a rendition, and how its lines are written: what a
    /// block is made from. Its ``playlist`` times the block (a filler's is the video's), so its
    /// duration and longest segment are known before the block is written.
    struct BlockSource: Sendable {
        enum Kind: Sendable {
            /// A video variant, with its figures for the multivariant playlist.
            case variant(bandwidth: Int?, averageBandwidth: Int?, codecs: [String])
            /// An I-frame variant.
            case iFrame(IFrameStreamInf)
            /// The asset's first video variant marked `EXT-X-GAP`: it has no I-frame playlist.
            case iFrameGap
            /// An audio or subtitle rendition.
            case rendition
            /// The first video variant's timing with an empty WebVTT (or IMSC) per segment: the
            /// asset has no subtitles for the rendition.
            case subtitleFiller(imsc: Bool)
        }

        let playlist: MediaPlaylist
        let kind: Kind

        /// The multivariant playlist's figures of the block, as ``block(uris:emptySubtitleURI:version:passthrough:perSegment:)`` sets them.
        var summary: BlockRow.Summary {
            switch self.kind {
            case .variant(let bandwidth, let averageBandwidth, let codecs):
                BlockRow.Summary(bandwidth: bandwidth, averageBandwidth: averageBandwidth, codecs: codecs)
            case .iFrame(let streamInf):
                BlockRow.Summary(bandwidth: streamInf.bandwidth, averageBandwidth: streamInf.averageBandwidth, codecs: streamInf.codecs)
            case .iFrameGap, .rendition, .subtitleFiller:
                BlockRow.Summary(bandwidth: nil, averageBandwidth: nil, codecs: [])
            }
        }

        /// Whether the block may list session keys: a filler writes none of its playlist's keys.
        var mayDeclareKeys: Bool {
            if case .subtitleFiller = self.kind { return false }
            return self.playlist.declaresKeys
        }

        /// The block: `playlist`'s segments written by `uris`.
        func block(uris: URIStyle, emptySubtitleURI: String, version: Int? = nil, passthrough: Bool = false, perSegment: Bool = false) -> SegmentBlock
        {
            switch self.kind {
            case .variant(let bandwidth, let averageBandwidth, let codecs):
                var block = SegmentBlock(self.playlist, uris: uris, version: version, passthrough: passthrough, perSegment: perSegment)
                block.bandwidth = bandwidth
                block.averageBandwidth = averageBandwidth
                block.codecs = codecs
                return block
            case .iFrame(let streamInf):
                var block = SegmentBlock(self.playlist, uris: uris, iFramesOnly: true, version: version, passthrough: passthrough)
                block.bandwidth = streamInf.bandwidth
                // Invariant 9: the multivariant playlist recomputes AVERAGE-BANDWIDTH from it.
                block.averageBandwidth = streamInf.averageBandwidth
                block.codecs = streamInf.codecs
                return block
            case .iFrameGap:
                return SegmentBlock(self.playlist, uris: uris, iFramesOnly: true, gap: true, version: version)
            case .rendition:
                return SegmentBlock(self.playlist, uris: uris, version: version, passthrough: passthrough, perSegment: perSegment)
            case .subtitleFiller(imsc: true):
                let uri = SessionFile.emptyIMSC.name
                return SegmentBlock(
                    self.playlist,
                    uris: uris,
                    fillURI: uri,
                    fillMap: IMSCFiller.mapLine(uri),
                    fillRange: IMSCFiller.fragmentRange,
                    perSegment: perSegment
                )
            case .subtitleFiller(imsc: false):
                return SegmentBlock(self.playlist, uris: uris, fillURI: emptySubtitleURI, version: version, perSegment: perSegment)
            }
        }
    }

    /// The playlist of `asset` that plays in `rendition`.
    ///
    /// Islands are one programme encoded per island on one ladder (CampaignValidator checks their
    /// codec families line up), so programme variant i plays variant i of every island when it is
    /// the same rung (codec family, range, resolution): matching an island by BANDWIDTH like an ad
    /// drops it a rung wherever its encode runs a little above the first island's (docs/architecture.md
    /// invariant 10: each programme variant gets the variant that fits it best). Otherwise the
    /// matcher picks as for an ad.
    static func source(for rendition: StitchRendition, of asset: Asset, isIsland: Bool, program: Asset) throws(StitchError) -> BlockSource {
        switch rendition.kind {
        case .video(let index):
            let target = program.variants[index]
            // An island's own rung when it has the programme's (its ladder is the programme's);
            // else the closest of the asset's variants.
            let match =
                isIsland && asset.variants.indices.contains(index)
                    && Self.isSameRung(asset.variants[index].streamInf, asset.variants[index].videoFamily, as: target.streamInf, target.videoFamily)
                ? .variant(asset.variants[index]) : RenditionMatcher.variant(of: asset, for: target)
            guard let match else {
                throw .noMatchingPlaylist(
                    asset.url,
                    rendition: rendition,
                    "\(asset.url.path) has no variant to play in the programme's variant \(index)"
                        + (target.streamInf.isAudioOnly ? " (audio-only): add an audio-only variant or an audio rendition" : "")
                )
            }
            return BlockSource(
                playlist: match.playlist,
                kind: .variant(bandwidth: match.bandwidth, averageBandwidth: match.averageBandwidth, codecs: match.codecs)
            )
        case .iFrame(let index):
            let (target, family) = (program.iFrameVariants[index].streamInf, program.iFrameVariants[index].videoFamily)
            let match =
                isIsland && asset.iFrameVariants.indices.contains(index)
                    && Self.isSameRung(asset.iFrameVariants[index].streamInf, asset.iFrameVariants[index].videoFamily, as: target, family)
                ? asset.iFrameVariants[index] : RenditionMatcher.iFrameVariant(of: asset, for: target)
            if let variant = match { return BlockSource(playlist: variant.playlist, kind: .iFrame(variant.streamInf)) }
            // No I-frame playlist: the asset's video segments marked GAP keep the timeline aligned.
            guard let video = asset.variants.first else {
                throw .noMatchingPlaylist(asset.url, rendition: rendition, "\(asset.url.path) has no variants")
            }
            return BlockSource(playlist: video.playlist, kind: .iFrameGap)
        case .audio(let index), .subtitles(let index):
            let target = program.renditions[index].media
            if let match = RenditionMatcher.rendition(of: asset, for: program.renditions[index], in: program), let playlist = match.playlist {
                return BlockSource(playlist: playlist, kind: .rendition)
            }
            // The filler of the group's format: empty WebVTT, or empty IMSC in fMP4 (a WebVTT file
            // in an IMSC group breaks the player).
            let format = program.format(of: program.renditions[index])
            guard target.type == .subtitles, format.codec == .webVTT || format.codec == .imsc, let video = asset.variants.first else {
                throw .noMatchingPlaylist(
                    asset.url,
                    rendition: rendition,
                    "\(asset.url.path) has no \(target.type?.rawValue.lowercased() ?? "") rendition to play in the programme's "
                        + "\"\(target.name ?? "")\" (\(target.language ?? "no language"), \(format)); add one"
                )
            }
            // No subtitles in this asset: an empty file for each of its video segments.
            return BlockSource(playlist: video.playlist, kind: .subtitleFiller(imsc: format.codec == .imsc))
        }
    }

    /// Whether an island's variant is the programme variant's rung: same video codec family,
    /// VIDEO-RANGE and RESOLUTION (the families as the assets read them once).
    private static func isSameRung<Variant: VariantAttributes>(
        _ variant: Variant,
        _ family: CodecFamily?,
        as target: Variant,
        _ targetFamily: CodecFamily?
    ) -> Bool {
        family == targetFamily && variant.range == target.range && variant.resolution == target.resolution
    }
}
