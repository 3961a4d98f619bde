import AdCampaign
import AdDecision
import Foundation
import HLSPlaylist

/// A session rendered as HLS Interstitials (RFC 8216bis Appendix D; docs/architecture.md
/// "Interstitial sessions"): primary playlists without ads, each break an `EXT-X-DATERANGE` of
/// class `com.apple.hls.interstitial` whose asset list names the viewer's ads.
extension SessionRenderer {
    /// The prefix of an asset list's file name: `assets-{break id}.json`.
    public static let assetListPrefix = "assets-"

    /// The primary media playlist of one rendition: the programme's pieces without ads (islands
    /// after a discontinuity each, with the programme date-time continuing across it), and the
    /// same interstitial date ranges as every other rendition of the session (§4.4.5.1: a date
    /// range with one ID has the same attributes wherever it appears), after the first
    /// `EXT-X-PROGRAM-DATE-TIME`, which anchors them.
    public func primaryPlaylistBytes(_ schedule: InterstitialSchedule, rendition: StitchRendition) throws(StitchError) -> RenderedBytes {
        guard let index = self.layout.renditions.firstIndex(of: rendition) else {
            throw .notInLayout(rendition: rendition.id, "rendition \(rendition.id) is not part of this campaign")
        }
        let plan = schedule.plan
        let rows = try schedule.primary.map { (primary) throws(StitchError) in try self.layout.primaryRow(primary.asset, rewrites: plan.rewrites) }
        let values = plan.rewrites.isEmpty ? [] : self.layout.rewriting?.rewriter.values(for: plan.context) ?? []
        let version = rows.reduce(1) { max($0, $1[index].version) }
        let anchor = plan.context.milliseconds
        var output = RenderedBytes(literalCapacity: 512 + schedule.interstitials.count * 512, parts: 2 * schedule.primary.count + 4)
        output.fill(with: values)
        output.append("#EXTM3U\n#EXT-X-VERSION:\(version)\n#EXT-X-TARGETDURATION:\(self.layout.targetDurations[index])\n")
        output.append("#EXT-X-PLAYLIST-TYPE:VOD\n")
        if case .iFrame = rendition.kind { output.append("#EXT-X-I-FRAMES-ONLY\n") }
        if self.layout.program.multivariant.hasIndependentSegments { output.append("#EXT-X-INDEPENDENT-SEGMENTS\n") }
        output.append("#EXT-X-PROGRAM-DATE-TIME:\(Self.iso8601(anchor, plus: .zero))\n")
        output.append(self.interstitialDateRanges(schedule))
        var previousKeys: [String] = []
        for (position, primary) in schedule.primary.enumerated() {
            if position > 0 {
                output.append("#EXT-X-DISCONTINUITY\n#EXT-X-PROGRAM-DATE-TIME:\(Self.iso8601(anchor, plus: primary.start))\n")
            }
            let transition = SegmentBlock.keyTransition(from: previousKeys, to: rows[position][index].startKeys)
            if values.isEmpty { output.append(transition) } else { output.append(transition, filling: values) }
            previousKeys = rows[position][index].endKeys
            output.append(rows[position][index].bytes)
        }
        output.append("#EXT-X-ENDLIST\n")
        return output
    }

    /// One `EXT-X-DATERANGE` per interstitial (Appendix D.2), written through the tag model:
    ///
    /// - `START-DATE`: the programme date-time of the break's place on the primary timeline
    ///   (a post-roll: the primary's end); `CUE="PRE"` / `"POST"` for breaks before / after the
    ///   whole primary, `ONCE` for `once: true`;
    /// - `DURATION`: what the break plays; for a replacement (`X-TIMELINE-OCCUPIES="RANGE"`), the
    ///   stretch of primary it stands in for;
    /// - `X-ASSET-LIST`: the session's asset list of the break, relative to the playlist;
    /// - `X-RESUME-OFFSET`: 0 for an insertion, the replaced stretch for a replacement;
    ///   `X-PLAYOUT-LIMIT`: the break's nominal duration; `X-RESTRICT` from `restrict`; `X-SNAP`
    ///   where a video variant has no segment boundary at the start (OUT) or the resume point (IN);
    /// - `X-TIMELINE-STYLE="HIGHLIGHT"`: ads are shown apart from the programme;
    /// - `X-AD-CREATIVE-SIGNALING`: SVTA 2053-2 creative signalling of the break's ads (base64 JSON).
    public func interstitialDateRanges(_ schedule: InterstitialSchedule) -> String {
        var text = ""
        let anchor = schedule.plan.context.milliseconds
        for interstitial in schedule.interstitials {
            let adBreak = interstitial.planned.adBreak
            var attributes = AttributeList()
            attributes.setQuoted("ID", adBreak.id)
            attributes.setQuoted("CLASS", DateRange.interstitialClass)
            let start = interstitial.isPostRoll ? schedule.duration : interstitial.start
            attributes.setQuoted("START-DATE", Self.iso8601(anchor, plus: start))
            var cue: [String] = []
            if interstitial.isPreRoll { cue.append("PRE") }
            if interstitial.isPostRoll { cue.append("POST") }
            if adBreak.once { cue.append("ONCE") }
            if !cue.isEmpty { attributes.setQuoted("CUE", cue.joined(separator: ",")) }
            attributes.set("DURATION", rawValue: (interstitial.isReplacement ? interstitial.resumeOffset : interstitial.duration).description)
            attributes.setQuoted("X-ASSET-LIST", SessionFile.assetList(adBreak.id).name)
            attributes.set("X-RESUME-OFFSET", rawValue: interstitial.resumeOffset.description)
            attributes.set("X-PLAYOUT-LIMIT", rawValue: adBreak.duration.description)
            let restrict = adBreak.restrict.names.map { $0.uppercased() }
            if !restrict.isEmpty { attributes.setQuoted("X-RESTRICT", restrict.joined(separator: ",")) }
            let snap = (interstitial.snap.out ? ["OUT"] : []) + (interstitial.snap.in ? ["IN"] : [])
            if !snap.isEmpty { attributes.setQuoted("X-SNAP", snap.joined(separator: ",")) }
            attributes.setQuoted("X-TIMELINE-OCCUPIES", interstitial.isReplacement ? "RANGE" : "POINT")
            attributes.setQuoted("X-TIMELINE-STYLE", "HIGHLIGHT")
            let signaling = Self.creativeSignaling(interstitial).text(pretty: false)
            attributes.setQuoted("X-AD-CREATIVE-SIGNALING", Data(signaling.utf8).base64EncodedString())
            text += Tag.dateRange(DateRange(attributes: attributes)).serialized
            text += "\n"
        }
        return text
    }

    /// The asset list of break `id` (Appendix D.3): `{"ASSETS":[{"URI":…,"DURATION":…},…]}`, the
    /// break's ads and slate repeats in play order with their exact durations, each with its
    /// SVTA 2053-2 creative signalling (ads; the slate has none). `base` makes the URIs of local
    /// media absolute (`http://host`): hls.js 1.6 resolves a relative asset URI against the page,
    /// not the list. Nil when the break does not play in this session.
    public func assetList(_ schedule: InterstitialSchedule, breakID: String, base: String? = nil) -> String? {
        guard let interstitial = schedule.interstitial(breakID) else { return nil }
        let plan = schedule.plan
        let values = plan.rewrites.isEmpty ? [] : self.layout.rewriting?.rewriter.values(for: plan.context) ?? []
        var assets: [JSONValue] = []
        for piece in interstitial.pieces {
            var uri = self.assetURI(piece, rewrites: plan.rewrites, values: values)
            if let base, uri.hasPrefix("/"), !uri.hasPrefix("//") { uri = base + uri }
            var members: [(String, JSONValue)] = [("URI", .string(uri)), ("DURATION", .decimal(piece.duration))]
            if case .ad(let ad, _) = piece.kind {
                // The asset is the creative's own timeline: it starts at 0.
                members.append(("X-AD-CREATIVE-SIGNALING", Self.slot([(ad, .zero, piece.duration)])))
            }
            assets.append(.object(members))
        }
        return JSONValue.object([("ASSETS", .array(assets))]).text()
    }

    /// The URI of the multivariant playlist a piece of a break plays, as the layout writes its
    /// media (the server: its media route; remote: its URL), through the viewer's rewrite rules.
    private func assetURI(_ piece: Piece, rewrites: RewriteSet, values: [[UInt8]]) -> String {
        let kind: RewriteTargets = if case .slate = piece.kind { .slate } else { .ads }
        guard let rewriting = self.layout.rewriting,
            let (_, text) = rewriting.rewriter.apply(piece.asset.url, as: .media, kind: kind, among: rewrites)
        else { return self.layout.uris.write(piece.asset.url, as: .media) }
        var bytes: [UInt8] = []
        var utf8 = text.utf8.makeIterator()
        while let byte = utf8.next() {
            guard byte == URIRewriter.marker, let slot = utf8.next() else {
                bytes.append(byte)
                continue
            }
            _ = utf8.next()
            bytes += values[Int(slot)]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// SVTA 2053-2 creative signalling of a break: one `slot` whose payload lists its ads as
    /// `linear` creatives, each with its offset in the break, duration, id and tracking URLs.
    static func creativeSignaling(_ interstitial: InterstitialSchedule.Interstitial) -> JSONValue {
        var creatives: [(Ad, ExactDecimal, ExactDecimal)] = []
        var offset = ExactDecimal.zero
        for piece in interstitial.pieces {
            if case .ad(let ad, _) = piece.kind { creatives.append((ad, offset, piece.duration)) }
            offset += piece.duration
        }
        return Self.slot(creatives)
    }

    private static func slot(_ creatives: [(ad: Ad, start: ExactDecimal, duration: ExactDecimal)]) -> JSONValue {
        .object([
            ("version", .integer(2)),
            ("type", .string("slot")),
            (
                "payload",
                .array(
                    creatives.map { creative in
                        .object([
                            ("type", .string("linear")),
                            ("start", .decimal(creative.start)),
                            ("duration", .decimal(creative.duration)),
                            ("identifiers", .array([.object([("scheme", .string("urn:adstitch:ad-id")), ("value", .string(creative.ad.id))])])),
                            (
                                "tracking",
                                .array(
                                    creative.ad.tracking.keys.sorted().map { event in
                                        .object([
                                            ("type", .string(event)), ("urls", .array((creative.ad.tracking[event] ?? []).map(JSONValue.string))),
                                        ])
                                    }
                                )
                            ),
                        ])
                    }
                )
            ),
        ])
    }
}
