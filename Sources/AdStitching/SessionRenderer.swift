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
    ///
    /// With `beacons` (server-side reporting), a video rendition's segments where an ad's tracked
    /// events fall are listed by their beacon links (``BeaconLinks``).
    public func mediaPlaylistBytes(_ plan: Plan, rendition: StitchRendition, beacons: BeaconLinks? = nil) throws(StitchError) -> RenderedBytes {
        guard let index = self.layout.renditions.firstIndex(of: rendition) else {
            throw .notInLayout(rendition: rendition.id, "rendition \(rendition.id) is not part of this campaign")
        }
        // Rows of blocks, not copies of them: a block is read in place below. With rewrite rules,
        // the rows the viewer's rules made (once per distinct outcome, at load or first use).
        let rows = try plan.pieces.map { (piece) throws(StitchError) in try self.layout.row(piece, rewrites: plan.rewrites) }
        // The viewer's values for rewrite templates' placeholders, by slot.
        let values = plan.rewrites.isEmpty ? [] : self.layout.rewriting?.rewriter.values(for: plan.context) ?? []
        let cue = plan.campaign.markers.contains(.cue)
        let daterange = plan.campaign.markers.contains(.daterange)
        let anchor = plan.context.milliseconds
        var playlist = PlaylistComposer(
            self.header(rendition, index: index, version: rows.reduce(1) { max($0, $1.version(index)) }),
            date: daterange ? anchor : nil,
            values: values,
            literalCapacity: 256 + plan.pieces.count * (daterange ? 480 : 32),
            parts: 2 * plan.pieces.count + 2
        )
        var openBreak: String?
        for position in plan.pieces.indices {
            let breakID = plan.pieces[position].breakID
            let start = Self.milliseconds(anchor, plus: plan.pieces[position].start)
            playlist.startPiece(at: start)
            // Each tag's closure captures only what its line needs (a closure that captured the
            // plan would copy it, field by field, per piece).
            if openBreak != nil, breakID != openBreak {
                if cue { playlist.tags { TagBytes.cueIn(into: &$0) } }
                openBreak = nil
            }
            if let breakID, openBreak != breakID, let planned = plan.breaks.firstIndex(where: { $0.adBreak.id == breakID }) {
                let duration = plan.breaks[planned].duration
                if cue { playlist.tags { TagBytes.cueOut(duration: duration, into: &$0) } }
                if daterange {
                    let plannedBreak = plan.breaks[planned]
                    playlist.tags { Self.dateRange(plannedBreak, anchor: anchor, into: &$0) }
                }
                openBreak = breakID
            }
            if daterange, case .ad(let ad, _) = plan.pieces[position].kind {
                let id = [breakID ?? "", "/", String(position), "/", ad.id]
                let duration = plan.pieces[position].duration
                playlist.tags { Self.dateRange(id: id, class: "com.adstitch.ad", start: start, duration: duration, adIDs: [ad.id], into: &$0) }
            }
            if let beacons, case .video = rendition.kind, case .ad(let ad, _) = plan.pieces[position].kind,
                case let tracked = BeaconEvents(tracking: ad.tracking), !tracked.isEmpty
            {
                // The ad's lines as this viewer gets them, its event segments by their links.
                let lines = beacons.rewrite(rows[position].bytes(index).filled(values), place: .plan(position), tracked: tracked)
                playlist.piece(rows[position], index, lines: lines)
            } else {
                playlist.piece(rows[position], index)
            }
        }
        if openBreak != nil, cue { playlist.tags { TagBytes.cueIn(into: &$0) } }
        return playlist.finish()
    }

    /// The header of rendition `index`'s VOD media playlist (stitched or primary): `version`, the
    /// layout's target duration, and the programme's independence of segments.
    func header(_ rendition: StitchRendition, index: Int, version: Int) -> PlaylistComposer.Header {
        var iFramesOnly = false
        if case .iFrame = rendition.kind { iFramesOnly = true }
        return PlaylistComposer.Header(
            version: version,
            targetDuration: self.layout.targetDurations[index],
            iFramesOnly: iFramesOnly,
            independentSegments: self.layout.program.multivariant.hasIndependentSegments
        )
    }

    private static func dateRange(_ planned: PlannedBreak, anchor: Int64, into output: inout [UInt8]) {
        Self.dateRange(
            id: [planned.adBreak.id],
            class: "com.adstitch.break",
            start: Self.milliseconds(anchor, plus: planned.start),
            duration: planned.duration,
            plannedDuration: planned.adBreak.duration,
            adIDs: planned.ads.map(\.id),
            into: &output
        )
    }

    /// An `EXT-X-DATERANGE` line of a break or an ad (``TagBytes/dateRange(id:class:start:cue:duration:plannedDuration:into:client:)``):
    /// `X-AD-ID` lists the ads.
    private static func dateRange(
        id: [String],
        class: StaticString,
        start: Int64,
        duration: ExactDecimal,
        plannedDuration: ExactDecimal? = nil,
        adIDs: [String],
        into bytes: inout [UInt8]
    ) {
        TagBytes.dateRange(id: id, class: `class`, start: start, duration: duration, plannedDuration: plannedDuration, into: &bytes) {
            TagBytes.quotedList("X-AD-ID", adIDs, into: &$0)
        }
    }

    /// `anchor + offset` in whole milliseconds: the offset rounded to the nearest one, added
    /// exactly (a `Double` on the way writes 1 ms early).
    static func milliseconds(_ anchor: Int64, plus offset: ExactDecimal) -> Int64 {
        anchor + offset.roundedMilliseconds
    }

    // MARK: - Multivariant playlist

    /// The session's multivariant playlist: every programme variant, I-frame variant and
    /// rendition, pointing at the stitched playlists; the startup variant first (seed 002);
    /// BANDWIDTH the peak over programme and the plan's ads (invariant 9), AVERAGE-BANDWIDTH
    /// their duration-weighted mean; the boundary manifest as session data.
    public func multivariant(
        _ plan: Plan,
        playlistURI: (StitchRendition) -> String,
        boundariesURI: String?
    ) throws(StitchError) -> String {
        // A live session may play any ad of the campaign and the slate, besides the channel
        // (invariant 9: BANDWIDTH never below what plays; the channel's own figures the floor).
        let assets = plan.campaign.live == nil ? plan.pieces.map(\.asset) : plan.campaign.ads.map(\.asset) + (plan.campaign.slate.map { [$0] } ?? [])
        return try self.multivariant(
            assets,
            order: plan.startup.order,
            playlistURI: playlistURI,
            boundariesURI: boundariesURI,
            live: plan.campaign.live != nil,
            start: plan.campaign.live == nil ? Self.start(plan) : self.layout.program.multivariant.start,
            keys: plan.campaign.live == nil ? try self.rewrittenRows(plan, plan.pieces.map { ($0, $0.asset) }) : nil
        )
    }

    /// The rows the viewer's rewrite rules write for `pieces` (a piece, or nil for primary
    /// content, and its asset), with the viewer's slot values; nil without rules for the viewer.
    private func rewrittenRows(_ plan: Plan, _ pieces: [(piece: Piece?, asset: Asset)]) throws(StitchError) -> RewrittenRows? {
        guard !plan.rewrites.isEmpty, let rewriting = self.layout.rewriting else { return nil }
        let rows = try pieces.map { (entry) throws(StitchError) in
            if let piece = entry.piece { return try self.layout.row(piece, rewrites: plan.rewrites) }
            return try self.layout.primaryRow(entry.asset, rewrites: plan.rewrites)
        }
        return RewrittenRows(rows: rows, values: rewriting.rewriter.values(for: plan.context))
    }

    /// A viewer's rewritten rows and the values of their slots.
    private struct RewrittenRows {
        let rows: [BlockRow]
        let values: [[UInt8]]
    }

    /// The programme's `EXT-X-START` (RFC 8216bis §4.4.2.2) on the session's timeline: its
    /// TIME-OFFSET is programme time (from the end when negative: the islands in a row, or the
    /// one programme asset whole), moved by the ads played before it. A point where a break stands
    /// — the start of an island after a break, one the break replaced, the programme's start before
    /// a pre-roll — starts where that break starts: a start offset never skips the break at its
    /// own place. PRECISE and any other attribute as the programme says.
    static func start(_ plan: Plan) -> Start? {
        guard var start = plan.campaign.templateAsset?.multivariant.start, let offset = start.timeOffset else { return nil }
        // Each island piece: where it starts in programme time and in session time.
        var islands: [(programme: ExactDecimal, session: ExactDecimal, duration: ExactDecimal)] = []
        var programmeTime = ExactDecimal.zero
        for piece in plan.pieces {
            guard case .island(let island) = piece.kind else { continue }
            let begins = island.contentStart ?? programmeTime
            islands.append((begins, piece.start, piece.duration))
            programmeTime = begins + piece.duration
        }
        let total = plan.campaign.programAsset?.duration ?? programmeTime
        let target = max(.zero, min(total, offset < .zero ? total + offset : offset))
        var session = islands.last.map { $0.session + $0.duration } ?? .zero
        var previousEnd = ExactDecimal.zero
        for island in islands {
            if target < island.programme + island.duration {
                session = target > island.programme ? island.session + (target - island.programme) : previousEnd
                break
            }
            previousEnd = island.session + island.duration
        }
        start.attributes.set("TIME-OFFSET", rawValue: session.description)
        return start
    }

    /// An interstitial session's multivariant playlist: as a stitched session's, its BANDWIDTH
    /// figures over the primary content alone (the ads play from their own multivariant playlists).
    public func multivariant(
        _ schedule: InterstitialSchedule,
        playlistURI: (StitchRendition) -> String,
        boundariesURI: String
    ) throws(StitchError) -> String {
        // The primary content is the programme as it is: its EXT-X-START holds as written.
        try self.multivariant(
            schedule.primary.map(\.asset),
            order: schedule.plan.startup.order,
            playlistURI: playlistURI,
            boundariesURI: boundariesURI,
            start: self.layout.program.multivariant.start,
            keys: try self.rewrittenRows(schedule.plan, schedule.primary.map { (nil, $0.asset) })
        )
    }

    /// The multivariant playlist of a session whose media playlists play `assets`, its variants
    /// in `order`.
    private func multivariant(
        _ assets: [Asset],
        order: [Int],
        playlistURI: (StitchRendition) -> String,
        boundariesURI: String?,
        live: Bool = false,
        start: Start?,
        keys rewritten: RewrittenRows? = nil
    ) throws(StitchError) -> String {
        let program = self.layout.program
        let renditions = self.layout.renditions
        // Each piece's blocks, looked up once for all the variants.
        let rows = try assets.map { (asset) throws(StitchError) in try self.layout.row(asset) }
        // The version the written lines need (RFC 8216bis §7): INSTREAM-ID SERVICEn 7, a REQ-
        // attribute (REQ-VIDEO-LAYOUT) 12. Variables are resolved, so the programme's own may be higher.
        let requires = { (list: AttributeList) in list.attributes.contains { $0.name.hasPrefix("REQ-") } }
        let version =
            program.variants.contains { requires($0.streamInf.attributes) } || program.iFrameVariants.contains { requires($0.streamInf.attributes) }
            ? 12 : program.renditions.contains { $0.media.instreamID?.hasPrefix("SERVICE") == true } ? 7 : 1
        var text = version > 1 ? "#EXTM3U\n#EXT-X-VERSION:\(version)\n" : "#EXTM3U\n"
        text.reserveCapacity(4096)
        func line(_ tag: String, _ attributes: AttributeList) {
            text += tag
            text += attributes.serialized
            text += "\n"
        }
        if program.multivariant.hasIndependentSegments { text += "#EXT-X-INDEPENDENT-SEGMENTS\n" }
        if let start { line("#EXT-X-START:", start.attributes) }
        if var steering = program.multivariant.contentSteering?.value {
            // RFC 8216bis §4.4.6.6: SERVER-URI resolves against the multivariant playlist, and the
            // stitched one is served from elsewhere. PATHWAY-ID stays, and so do the variants'.
            if let uri = steering.serverURI, let url = program.multivariant.resolve(uri) {
                steering.attributes.setQuoted("SERVER-URI", self.layout.uris.rewrite(url))
            }
            line("#EXT-X-CONTENT-STEERING:", steering.attributes)
        }
        for (index, rendition) in program.renditions.enumerated() {
            var media = rendition.media
            if let stitched = renditions.first(where: { $0.kind == .audio(index) || $0.kind == .subtitles(index) }) {
                media.uri = playlistURI(stitched)
            }
            line("#EXT-X-MEDIA:", media.attributes)
        }
        for variantIndex in order where program.variants.indices.contains(variantIndex) {
            let rendition = StitchRendition(kind: .video(variantIndex))
            guard let position = renditions.firstIndex(of: rendition) else { continue }
            var streamInf = program.variants[variantIndex].streamInf
            let (peak, average) = Self.bandwidth(assets, rows, rendition: position)
            if live {
                // The channel's AVERAGE-BANDWIDTH stands: how much of it ads replace is not known.
                if let peak { streamInf.bandwidth = max(streamInf.bandwidth ?? 0, peak) }
            } else {
                if let peak { streamInf.bandwidth = peak }
                if streamInf.averageBandwidth != nil || average != nil { streamInf.averageBandwidth = average }
            }
            streamInf.codecs = Self.codecs(program.variants[variantIndex].codecs, rows, rendition: position)
            line("#EXT-X-STREAM-INF:", streamInf.attributes)
            text += playlistURI(rendition)
            text += "\n"
        }
        for (index, iFrame) in program.iFrameVariants.enumerated() {
            let rendition = StitchRendition(kind: .iFrame(index))
            guard let position = renditions.firstIndex(of: rendition) else { continue }
            var streamInf = iFrame.streamInf
            // Invariant 9 for I-frame variants too: the first island's AVERAGE-BANDWIDTH would
            // understate it wherever other islands or ads run higher.
            let (peak, average) = Self.bandwidth(assets, rows, rendition: position)
            if let peak { streamInf.bandwidth = peak }
            if streamInf.averageBandwidth != nil || average != nil { streamInf.averageBandwidth = average }
            streamInf.codecs = Self.codecs(streamInf.codecs, rows, rendition: position)
            streamInf.uri = playlistURI(rendition)
            line("#EXT-X-I-FRAME-STREAM-INF:", streamInf.attributes)
        }
        for entry in program.multivariant.sessionData where entry.value.dataID != Self.boundariesDataID {
            line("#EXT-X-SESSION-DATA:", entry.value.attributes)
        }
        // Every key of every piece the session plays, once each (RFC 8216bis §4.4.6.5): players
        // load them before playback, and offline downloads need them all. A live channel's keys
        // move with its window: its master declares those the programme's does.
        if live {
            for entry in program.multivariant.sessionKeys { line("#EXT-X-SESSION-KEY:", entry.value.attributes) }
        } else {
            // As the viewer's rewrite rules write the keys (`applies_to: [keys]`), slots filled.
            var declared: Set<String> = []
            for row in rewritten?.rows ?? rows {
                for key in row.sessionKeys {
                    var line = key
                    if let values = rewritten?.values, key.utf8.contains(URIRewriter.marker) {
                        var bytes: [UInt8] = []
                        URIRewriter.fill(key, with: values, into: &bytes)
                        line = String(decoding: bytes, as: UTF8.self)
                    }
                    guard declared.insert(line).inserted else { continue }
                    text += line
                    text += "\n"
                }
            }
        }
        if let boundariesURI { line("#EXT-X-SESSION-DATA:", SessionData(dataID: Self.boundariesDataID, uri: boundariesURI).attributes) }
        return text
    }

    /// The CODECS of a stitched variant (RFC 8216bis §4.4.6.2: "every media format present in any
    /// Media Segment in any of the Renditions specified by the Variant Stream"): the programme
    /// variant's list, then each format another piece played there declares that the list does
    /// not hold yet (compared without case), in play order. A programme variant without CODECS
    /// stays without: a list of the ads' formats alone would claim the programme's are absent.
    ///
    /// A session's pieces repeat a few lists (every cut of the programme has the programme's, each
    /// ad the one of its variant that plays): a list read already adds nothing and is passed over
    /// — compared as arrays, which share their storage when they are the same list — instead of
    /// lowercasing and hashing each of its codecs again for every piece (a two-hour title of 13
    /// breaks has ~70 pieces in each of six variants; a third of a warm start's CPU).
    private static func codecs(_ programme: [String], _ rows: [BlockRow], rendition: Int) -> [String] {
        guard !programme.isEmpty else { return [] }
        var codecs = programme
        var listed = Set(programme.map { $0.lowercased() })
        var read = [programme]
        for row in rows {
            let list = row.codecs(rendition)
            guard !read.contains(list) else { continue }
            read.append(list)
            for codec in list where listed.insert(codec.lowercased()).inserted { codecs.append(codec) }
        }
        return codecs
    }

    /// The peak BANDWIDTH over the pieces of a session in one rendition, and the duration-weighted
    /// AVERAGE-BANDWIDTH (from each source's AVERAGE-BANDWIDTH, else its BANDWIDTH), rounded up
    /// but never above the peak — in integers: bits/s below 2⁵³ times whole microseconds.
    private static func bandwidth(_ assets: [Asset], _ rows: [BlockRow], rendition: Int) -> (peak: Int?, average: Int?) {
        var peak: Int?
        var weighted: Int128 = 0
        var microseconds: Int128 = 0
        for (piece, row) in zip(assets, rows) {
            let (rowPeak, average) = row.bandwidth(rendition)
            guard let bandwidth = rowPeak else { continue }
            peak = max(peak ?? 0, bandwidth)
            let duration = piece.duration.scaledValue / 1_000_000_000_000
            weighted += Int128(average ?? bandwidth) * duration
            microseconds += duration
        }
        guard let peak, microseconds > 0 else { return (peak, nil) }
        return (peak, min(peak, Int((weighted + microseconds - 1) / microseconds)))
    }
}
