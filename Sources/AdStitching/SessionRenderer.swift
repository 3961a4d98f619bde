import AdCampaign
import AdDecision
import Foundation
import HLSPlaylist

/// Renders a viewer's plan into the session's playlists and boundary manifest (docs/architecture.md
/// "Invariants of every stitched output").
public struct SessionRenderer: Sendable {
    public let layout: StitchLayout

    public init(layout: StitchLayout) {
        self.layout = layout
    }

    /// The `DATA-ID` of the session data that points at the boundary manifest.
    public static let boundariesDataID = "com.adstitch.boundaries"

    // MARK: - Media playlists

    /// The stitched media playlist of one rendition: every piece of the plan in order, an
    /// `EXT-X-DISCONTINUITY` before each one after the first (invariant 2), the key state
    /// re-established where it changes (invariant 5), the map after every discontinuity (6).
    public func mediaPlaylist(_ plan: Plan, rendition: StitchRendition) throws(StitchError) -> String {
        try self.mediaPlaylistBytes(plan, rendition: rendition).text
    }

    /// ``mediaPlaylist(_:rendition:)`` as the server writes it: the session's own lines between
    /// the layout's shared segment blocks, none of which is copied here.
    public func mediaPlaylistBytes(_ plan: Plan, rendition: StitchRendition) throws(StitchError) -> RenderedBytes {
        guard let index = self.layout.renditions.firstIndex(of: rendition) else {
            throw .notInLayout(rendition: rendition.id, "rendition \(rendition.id) is not part of this campaign")
        }
        let blocks = try plan.pieces.map { (piece) throws(StitchError) in try self.layout.block(piece.asset, index) }
        let version = blocks.reduce(1) { max($0, $1.version) }
        let markers = plan.campaign.markers
        let anchor = plan.context.milliseconds
        var output = RenderedBytes(literalCapacity: 256 + plan.pieces.count * (markers.isEmpty ? 32 : 480), parts: 2 * plan.pieces.count + 2)
        output.append("#EXTM3U\n#EXT-X-VERSION:\(version)\n#EXT-X-TARGETDURATION:\(self.layout.targetDurations[index])\n")
        output.append("#EXT-X-PLAYLIST-TYPE:VOD\n")
        if case .iFrame = rendition.kind { output.append("#EXT-X-I-FRAMES-ONLY\n") }
        if self.layout.program.multivariant.hasIndependentSegments { output.append("#EXT-X-INDEPENDENT-SEGMENTS\n") }
        if markers.contains(.daterange) {
            // RFC 8216bis §4.4.5.1: date ranges need a program date-time to anchor them.
            output.append("#EXT-X-PROGRAM-DATE-TIME:\(Self.iso8601(anchor, plus: .zero))\n")
        }
        var previousKeys: [String] = []
        var openBreak: String?
        for (position, piece) in plan.pieces.enumerated() {
            let block = blocks[position]
            if position > 0 { output.append("#EXT-X-DISCONTINUITY\n") }
            if openBreak != nil, piece.breakID != openBreak {
                if markers.contains(.cue) { output.append(Self.cueIn) }
                openBreak = nil
            }
            if let breakID = piece.breakID, openBreak != breakID, let planned = plan.breaks.first(where: { $0.adBreak.id == breakID }) {
                if markers.contains(.cue) { output.append(Self.cueOut(planned.duration)) }
                if markers.contains(.daterange) { output.append(Self.dateRange(planned, anchor: anchor)) }
                openBreak = breakID
            }
            if markers.contains(.daterange), case .ad(let ad, _) = piece.kind {
                output.append(
                    Self.dateRange(
                        id: "\(piece.breakID ?? "")/\(position)/\(ad.id)",
                        class: "com.adstitch.ad",
                        start: Self.iso8601(anchor, plus: piece.start),
                        duration: piece.duration,
                        adIDs: [ad.id]
                    )
                )
            }
            output.append(SegmentBlock.keyTransition(from: previousKeys, to: block.startKeys))
            previousKeys = block.endKeys
            output.append(block.bytes)
        }
        if openBreak != nil, markers.contains(.cue) { output.append(Self.cueIn) }
        output.append("#EXT-X-ENDLIST\n")
        return output
    }

    /// `#EXT-X-CUE-OUT:DURATION=…` and `#EXT-X-CUE-IN` around a break (`markers: [cue]`),
    /// written through the tag model.
    private static func cueOut(_ duration: ExactDecimal) -> String {
        var attributes = AttributeList()
        attributes.set("DURATION", rawValue: duration.description)
        return Tag.cueOut(CueOut(value: Substring(attributes.serialized))).serialized + "\n"
    }

    private static let cueIn = Tag.cueIn.serialized + "\n"

    private static func dateRange(_ planned: PlannedBreak, anchor: Int64) -> String {
        Self.dateRange(
            id: planned.adBreak.id,
            class: "com.adstitch.break",
            start: Self.iso8601(anchor, plus: planned.start),
            duration: planned.duration,
            plannedDuration: planned.adBreak.duration,
            adIDs: planned.ads.map(\.id)
        )
    }

    /// An `EXT-X-DATERANGE` line (RFC 8216bis §4.4.5.1), its attributes in the order the
    /// attribute model writes them (OutputDigestTests holds it to that); ids are validated at
    /// load, so no quoted value can hold a quote. Written in one go: several per playlist, per request.
    private static func dateRange(
        id: String,
        class: String,
        start: String,
        duration: ExactDecimal,
        plannedDuration: ExactDecimal? = nil,
        adIDs: [String]
    ) -> String {
        var line = "#\(DateRange.tagName):ID=\"\(id)\",CLASS=\"\(`class`)\",START-DATE=\"\(start)\",DURATION=\(duration.description)"
        if let plannedDuration { line += ",PLANNED-DURATION=\(plannedDuration.description)" }
        if !adIDs.isEmpty { line += ",X-AD-ID=\"\(adIDs.joined(separator: ","))\"" }
        return line + "\n"
    }

    /// `anchor + offset` as `2026-11-23T06:00:05.760Z`: the anchor in whole milliseconds and the
    /// offset rounded to the nearest one, added exactly (a `Double` on the way writes 1 ms early).
    static func iso8601(_ anchor: Int64, plus offset: ExactDecimal) -> String {
        let millisecond = ExactDecimal(1).scaledValue / 1000
        let offsetMilliseconds = (offset.scaledValue + millisecond / 2) / millisecond
        return DateTime.iso8601(millisecondsSinceEpoch: anchor + Int64(clamping: offsetMilliseconds))
    }

    // MARK: - Multivariant playlist

    /// The session's multivariant playlist: every programme variant, I-frame variant and
    /// rendition, pointing at the stitched playlists; the startup variant first (seed 002);
    /// BANDWIDTH the peak over programme and the plan's ads (invariant 9), AVERAGE-BANDWIDTH
    /// their duration-weighted mean; the boundary manifest as session data.
    public func multivariant(
        _ plan: Plan,
        playlistURI: (StitchRendition) -> String,
        boundariesURI: String
    ) throws(StitchError) -> String {
        let program = self.layout.program
        let renditions = self.layout.renditions
        // Each piece's blocks, looked up once for all the variants.
        let rows = try plan.pieces.map { (piece) throws(StitchError) in try self.layout.row(piece.asset) }
        var version = 1
        var body: [String] = []
        if program.multivariant.hasIndependentSegments { body.append("#EXT-X-INDEPENDENT-SEGMENTS") }
        for (index, rendition) in program.renditions.enumerated() {
            var media = rendition.media
            if let stitched = renditions.first(where: { $0.kind == .audio(index) || $0.kind == .subtitles(index) }) {
                media.uri = playlistURI(stitched)
            }
            body.append("#EXT-X-MEDIA:\(media.attributes.serialized)")
            if media.instreamID?.hasPrefix("SERVICE") == true { version = max(version, 7) }
        }
        for variantIndex in plan.startup.order where program.variants.indices.contains(variantIndex) {
            let rendition = StitchRendition(kind: .video(variantIndex))
            guard let position = renditions.firstIndex(of: rendition) else { continue }
            var streamInf = program.variants[variantIndex].streamInf
            let (peak, average) = Self.bandwidth(plan, rows, rendition: position)
            if let peak { streamInf.bandwidth = peak }
            if streamInf.averageBandwidth != nil || average != nil { streamInf.averageBandwidth = average }
            body.append("#EXT-X-STREAM-INF:\(streamInf.attributes.serialized)")
            body.append(playlistURI(rendition))
        }
        for (index, iFrame) in program.iFrameVariants.enumerated() {
            let rendition = StitchRendition(kind: .iFrame(index))
            guard let position = renditions.firstIndex(of: rendition) else { continue }
            var streamInf = iFrame.streamInf
            // Invariant 9 for I-frame variants too: the first island's AVERAGE-BANDWIDTH would
            // understate it wherever other islands or ads run higher.
            let (peak, average) = Self.bandwidth(plan, rows, rendition: position)
            if let peak { streamInf.bandwidth = peak }
            if streamInf.averageBandwidth != nil || average != nil { streamInf.averageBandwidth = average }
            streamInf.uri = playlistURI(rendition)
            body.append("#EXT-X-I-FRAME-STREAM-INF:\(streamInf.attributes.serialized)")
        }
        for entry in program.multivariant.sessionData where entry.value.dataID != Self.boundariesDataID {
            body.append("#EXT-X-SESSION-DATA:\(entry.value.attributes.serialized)")
        }
        for entry in program.multivariant.sessionKeys {
            body.append("#EXT-X-SESSION-KEY:\(entry.value.attributes.serialized)")
        }
        body.append("#EXT-X-SESSION-DATA:\(SessionData(dataID: Self.boundariesDataID, uri: boundariesURI).attributes.serialized)")
        var text = version > 1 ? "#EXTM3U\n#EXT-X-VERSION:\(version)\n" : "#EXTM3U\n"
        text.reserveCapacity(body.reduce(text.utf8.count) { $0 + $1.utf8.count + 1 })
        for line in body {
            text += line
            text += "\n"
        }
        return text
    }

    /// The peak BANDWIDTH over the pieces of the plan in one rendition, and the duration-weighted
    /// AVERAGE-BANDWIDTH (from each source's AVERAGE-BANDWIDTH, else its BANDWIDTH), rounded up
    /// but never above the peak — in integers: bits/s below 2⁵³ times whole microseconds.
    private static func bandwidth(_ plan: Plan, _ rows: [[SegmentBlock]], rendition: Int) -> (peak: Int?, average: Int?) {
        var peak: Int?
        var weighted: Int128 = 0
        var microseconds: Int128 = 0
        for (piece, row) in zip(plan.pieces, rows) {
            guard let bandwidth = row[rendition].bandwidth else { continue }
            peak = max(peak ?? 0, bandwidth)
            let duration = piece.duration.scaledValue / 1_000_000_000_000
            weighted += Int128(row[rendition].averageBandwidth ?? bandwidth) * duration
            microseconds += duration
        }
        guard let peak, microseconds > 0 else { return (peak, nil) }
        return (peak, min(peak, Int((weighted + microseconds - 1) / microseconds)))
    }
}
