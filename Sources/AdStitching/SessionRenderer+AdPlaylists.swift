import AdCampaign
import AdDecision
import Foundation
import HLSPlaylist

/// Server-side reporting in an interstitial session (docs/http-api.md "Beacons"): a player plays
/// each ad of a break from the asset list's URI, so an ad whose events AdStitch fires is listed by
/// the session's own copy of its playlists (``SessionFile/adPlaylist(piece:variant:)``) — the
/// ad's multivariant playlist with its variants pointing at the session's copies of their media
/// playlists, in which the segments where the ad's events fall are beacon links, as in a stitched
/// session's playlists. Every other URI is the ad's own, written as the session writes the ad's
/// media (origin or the server's media route, the viewer's `rewrite:` rules applied).
extension SessionRenderer {
    /// The ad at `piece` of `plan` and the events AdStitch fires for it, when it has any.
    public func trackedAd(_ plan: Plan, piece: Int) -> (piece: Piece, events: BeaconEvents)? {
        guard plan.pieces.indices.contains(piece), case .ad(let ad, _) = plan.pieces[piece].kind else { return nil }
        let events = BeaconEvents(tracking: ad.tracking)
        return events.isEmpty ? nil : (plan.pieces[piece], events)
    }

    /// The text of an ad's session playlist: with `variant` nil its multivariant playlist, else
    /// the media playlist of its variant `variant` with its event segments as `beacons` links.
    public func adPlaylist(_ plan: Plan, piece position: Int, variant: Int?, beacons: BeaconLinks) throws(StitchError) -> String {
        guard let (piece, tracked) = self.trackedAd(plan, piece: position) else {
            throw .notInLayout(
                asset: nil,
                "piece \(position) of this session is not an ad whose events AdStitch fires, so it has no playlist of its own"
            )
        }
        let asset = piece.asset
        let style: URIStyle =
            if let rewriting = self.layout.rewriting, !plan.rewrites.isEmpty {
                rewriting.rewriter.style(kind: .ads, set: plan.rewrites)
            } else {
                self.layout.uris
            }
        let values = plan.rewrites.isEmpty ? [] : self.layout.rewriting?.rewriter.values(for: plan.context) ?? []
        guard let variant else {
            var text = "#EXTM3U\n"
            Self.multivariant(of: asset, piece: position, uris: style, into: &text)
            var bytes: [UInt8] = []
            URIRewriter.fill(text, with: values, into: &bytes)
            return String(decoding: bytes, as: UTF8.self)
        }
        guard asset.variants.indices.contains(variant) else {
            throw .notInLayout(asset: asset.url, "\(asset.url.path) has \(asset.variants.count) variants; there is no variant \(variant)")
        }
        let playlist = asset.variants[variant].playlist
        var block = SegmentBlock(playlist, uris: style)
        block.seal(id: -1, slots: true)
        var composer = PlaylistComposer(
            PlaylistComposer.Header(
                version: block.version,
                targetDuration: max(playlist.targetDuration ?? 0, block.maxRoundedDuration),
                independentSegments: asset.multivariant.hasIndependentSegments
            ),
            values: values,
            literalCapacity: 256,
            parts: 4
        )
        // The viewer's lines, then the event segments by their links (their targets as written).
        composer.piece(BlockRow([block]), 0, lines: beacons.rewrite(block.bytes.filled(values), place: .plan(position), tracked: tracked))
        return composer.finish().text
    }

    /// The ad's multivariant playlist: its renditions, session keys and I-frame variants with
    /// their URIs written by `uris`; each variant's URI the session's copy of its media playlist.
    private static func multivariant(of asset: Asset, piece: Int, uris: URIStyle, into text: inout String) {
        let source = asset.multivariant
        if let version = source.version { text += "#EXT-X-VERSION:\(version)\n" }
        if source.hasIndependentSegments { text += "#EXT-X-INDEPENDENT-SEGMENTS\n" }
        for located in source.sessionKeys {
            var key = located.value
            if let uri = key.attributes.string("URI"), let url = source.resolve(uri) { key.attributes.setQuoted("URI", uris.write(url, as: .key)) }
            text += Tag.sessionKey(key).serialized + "\n"
        }
        for located in source.renditions {
            var media = located.value
            if let uri = media.uri, let url = source.resolve(uri) { media.attributes.setQuoted("URI", uris.write(url, as: .media)) }
            text += Tag.media(media).serialized + "\n"
        }
        for (index, variant) in asset.variants.enumerated() {
            text += Tag.streamInf(variant.streamInf).serialized + "\n"
            text += SessionFile.adPlaylist(piece: piece, variant: index).name + "\n"
        }
        for variant in asset.iFrameVariants {
            var streamInf = variant.streamInf
            streamInf.attributes.setQuoted("URI", uris.write(variant.url, as: .media))
            text += Tag.iFrameStreamInf(streamInf).serialized + "\n"
        }
    }
}
