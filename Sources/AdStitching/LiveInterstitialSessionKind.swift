import AdCampaign
import AdDecision
import AdLive
import HLSPlaylist

/// A live session whose ads are HLS Interstitials (RFC 8216bis Appendix D; docs/design-decisions.md
/// "Live interstitials"): its media playlists are the channel's primary playlists — the same bytes
/// for every viewer and replica (``SessionRenderer/channelPrimary(rendition:window:breaks:live:)``),
/// reached from the viewer's multivariant playlist with the session token in their query — and its
/// own files are the multivariant playlist and an asset list per break, which the primary names
/// through that token (`EXT-X-DEFINE:QUERYPARAM`).
public struct LiveInterstitialSessionKind: SessionKind {
    /// The channel at one asset-list request.
    public struct Channel: Sendable {
        /// The channel's breaks so far, as the cut knows them.
        public var breaks: [LiveBreak]
        /// What the viewer's ad decision server chose for each break, by break id.
        public var decided: [String: [Ad]]
        /// `_HLS_start_offset` (Appendix D.4): how far into the break the player starts, joining it.
        public var startOffset: ExactDecimal?

        public init(breaks: [LiveBreak], decided: [String: [Ad]] = [:], startOffset: ExactDecimal? = nil) {
            self.breaks = breaks
            self.decided = decided
            self.startOffset = startOffset
        }
    }

    public let renderer: SessionRenderer
    public let reporting: Campaign.Reporting
    /// The channel at this request; nil where only the session's files are asked for.
    public let channel: Channel?
    public var name: String { "live interstitial" }

    public init(renderer: SessionRenderer, reporting: Campaign.Reporting, channel: Channel? = nil) {
        self.renderer = renderer
        self.reporting = reporting
        self.channel = channel
    }

    /// The multivariant playlist; the asset lists are named by the channel's breaks as they come
    /// (``file(named:)``), the media playlists are the channel's.
    public var files: [SessionFile] { [.multivariant] }

    /// `assets-{break id}.json` for any break id a channel may have (letters, digits, `.`, `_`,
    /// `-`; at most 80 characters): whether the break exists is known at the request.
    public func file(named name: String) -> SessionFile? {
        if name.hasPrefix(SessionRenderer.assetListPrefix), name.hasSuffix(".json") {
            let id = name.dropFirst(SessionRenderer.assetListPrefix.count).dropLast(".json".count)
            guard (1...80).contains(id.utf8.count),
                id.utf8.allSatisfy({ byte in
                    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                        || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
                })
            else { return nil }
            return .assetList(String(id))
        }
        return self.files.first { $0.name == name }
    }

    public func render(_ file: SessionFile, _ plan: @autoclosure () -> Plan, links: SessionLinks) throws(StitchError) -> RenderedBytes {
        switch file {
        case .multivariant:
            return RenderedBytes(text: try self.renderer.multivariant(plan(), playlistURI: links.playlistURI, boundariesURI: nil))
        case .assetList(let id):
            guard let channel = self.channel, let live = self.renderer.layout.campaign.live else {
                throw StitchError(.notReady, "the live channel has not been read yet; try again in a few seconds")
            }
            guard let adBreak = channel.breaks.first(where: { $0.id == id && $0.kind == .marker }) else {
                throw StitchError(.notInSession, "the channel has no break \(id) (it has not opened yet, or has left the channel's history)")
            }
            let list = try self.renderer.liveAssetList(
                plan(),
                live: live,
                adBreak: adBreak,
                decided: channel.decided[id] ?? [],
                startOffset: channel.startOffset,
                trackers: self.reporting.handsTrackersToPlayer,
                base: links.base
            )
            return RenderedBytes(text: list)
        default:
            throw .notInLayout(
                "a live interstitial session has its multivariant playlist and an asset list per break (its media playlists are the channel's, at \(SessionRenderer.channelFolder)…; no \(file.name))"
            )
        }
    }
}

extension SessionRenderer {
    /// The folder of a channel's primary playlists, beside the sessions' (`/v1/campaigns/{id}/channel/`).
    public static let channelFolder = "channel/"
    /// The query parameter that carries a viewer's session token to the channel's primary
    /// playlists, and the variable they import it as (`EXT-X-DEFINE:QUERYPARAM`): the CDN's cache
    /// key leaves it out, the player puts it into each `X-ASSET-LIST`.
    public static let channelTokenParameter = "token"

    /// How long a shared cache may keep a channel's primary playlist (`Cache-Control: max-age`):
    /// below half a target duration, so a player reloading every target duration never gets a
    /// window more than half of one behind — but at least 1 s, the least a CDN keeps (a target
    /// duration of 2: 1 s).
    public static func channelPrimaryMaxAge(targetDuration: Int) -> Int {
        max(1, (targetDuration + 1) / 2 - 1)
    }

    /// The primary playlist of one rendition of a live channel (RFC 8216bis Appendix D): the
    /// channel's window as every replica cuts it, numbered as the channel numbers it (its origin's
    /// discontinuities only), each segment with its programme date-time — and each marker break
    /// that overlaps the window as one `com.apple.hls.interstitial` date range. A function of the
    /// window and the breaks alone: the same bytes for every viewer and replica at one cut.
    ///
    /// Each date range (§4.4.5.1: a later one with the same ID may add attributes, never change
    /// one — save the early return below):
    /// - `START-DATE`: the break's first segment's date; `PLANNED-DURATION`: what its ads are
    ///   planned for (the marker's duration, else `marker_breaks.duration`); `DURATION` once the
    ///   break has closed: the replaced stretch;
    /// - `X-ASSET-LIST`: `../sessions/{$token}/assets-{id}.json?_HLS_interstitial_id={id}` — the
    ///   viewer's token imported from this playlist's query (`EXT-X-DEFINE:QUERYPARAM`, version 11);
    /// - `X-PLAYOUT-LIMIT`: the planned duration — or, when the break closed before it (a CUE-IN
    ///   before the announced duration), the replaced stretch: the draft's early return, which
    ///   players re-read on reload (hls.js `setDateRange`);
    /// - no `X-RESUME-OFFSET`: the primary resumes as long after the start as the interstitial
    ///   played (Appendix D.2: "appropriate for live content", at a constant delay from the edge);
    /// - `X-RESTRICT` from `marker_breaks.restrict`; `X-TIMELINE-OCCUPIES="RANGE"`,
    ///   `X-TIMELINE-STYLE="HIGHLIGHT"`.
    ///
    /// No creative signalling: that is per viewer, in the asset lists. A stall is no break here:
    /// the primary simply waits for the origin.
    public func channelPrimary(
        rendition: StitchRendition,
        window: LiveRenditionWindow,
        breaks: [LiveBreak],
        live: LiveProgram
    ) throws(StitchError) -> RenderedBytes {
        guard self.layout.renditions.contains(rendition) else {
            throw .notInLayout(rendition: rendition.id, "rendition \(rendition.id) is not part of this channel")
        }
        let numbered = LiveNumbering.window(window.segments, breaks: [], joined: 0, span: window.span) { _ in [] }
        var playlist = PlaylistComposer(
            PlaylistComposer.Header(
                version: max(window.version, 11),
                targetDuration: window.targetDuration,
                sequence: (numbered.mediaSequence, numbered.discontinuitySequence),
                independentSegments: self.layout.program.multivariant.hasIndependentSegments
            ),
            literalCapacity: 512 + numbered.entries.count * 160,
            parts: 1
        )
        playlist.tags { TagBytes.defineQueryParameter(Self.channelTokenParameter, into: &$0) }
        let first = numbered.entries.first.flatMap { entry -> ExactDecimal? in
            if case .programme(let sequence) = entry.item { return window.segment(sequence)?.start }
            return nil
        }
        let last = window.segments.last?.end
        if let first, let last {
            for adBreak in breaks where adBreak.kind == .marker && adBreak.start < last && (adBreak.closing?.time ?? last) >= first {
                playlist.tags { Self.channelDateRange(adBreak, live: live, into: &$0) }
            }
        }
        for entry in numbered.entries {
            guard case .programme(let sequence) = entry.item, let lines = window.lines(of: sequence), let segment = window.segment(sequence) else {
                continue
            }
            playlist.segment(lines, discontinuity: entry.isDiscontinuity, at: Self.milliseconds(0, plus: segment.start))
        }
        return playlist.finish()
    }

    /// One break's interstitial date range in a channel's primary playlist (``channelPrimary(rendition:window:breaks:live:)``).
    private static func channelDateRange(_ adBreak: LiveBreak, live: LiveProgram, into bytes: inout [UInt8]) {
        let planned = LiveSchedule.plannedDuration(adBreak, live: live)
        let replaced = adBreak.replacedDuration
        TagBytes.dateRange(
            id: CollectionOfOne(adBreak.id),
            class: "com.apple.hls.interstitial",
            start: Self.milliseconds(0, plus: adBreak.start),
            duration: replaced,
            plannedDuration: planned,
            into: &bytes
        ) { bytes in
            TagBytes.quoted("X-ASSET-LIST", into: &bytes) { bytes in
                bytes.append(contentsOf: "../sessions/{$".utf8)
                bytes.append(contentsOf: Self.channelTokenParameter.utf8)
                bytes.append(contentsOf: "}/".utf8)
                bytes.append(contentsOf: Self.assetListPrefix.utf8)
                bytes.append(contentsOf: adBreak.id.utf8)
                bytes.append(contentsOf: ".json?_HLS_interstitial_id=".utf8)
                bytes.append(contentsOf: adBreak.id.utf8)
            }
            let limit: ExactDecimal? =
                switch (planned, replaced) {
                case (let planned?, let replaced?): min(planned, replaced)
                case (let planned?, nil): planned
                case (nil, let replaced?): replaced
                case (nil, nil): nil
                }
            if let limit { TagBytes.decimal("X-PLAYOUT-LIMIT", limit, into: &bytes) }
            TagBytes.quotedList("X-RESTRICT", live.restrict.names.map { $0.uppercased() }, into: &bytes)
            TagBytes.quoted("X-TIMELINE-OCCUPIES", "RANGE", into: &bytes)
            TagBytes.quoted("X-TIMELINE-STYLE", "HIGHLIGHT", into: &bytes)
        }
    }

    /// A viewer's asset list of a live break (Appendix D.3): the ads planned for the break's
    /// planned duration (`decided` first), then slate up to it — the stitched fill's pieces
    /// (``LiveSchedule/pieces(_:plan:live:nominal:upTo:ads:decided:)``), so a session plays the
    /// same ads either way — each with its exact duration and, for an ad, its creative
    /// signalling; the pieces past an early return (the break closed before them) left out.
    ///
    /// `startOffset` (`_HLS_start_offset`, a player joining mid-break): the pieces that end by
    /// then are left out, the one playing then is kept whole (an ad never starts part-way); and
    /// the list is never empty — past its last piece, the last piece alone — for an empty list
    /// would resume the primary at the break's start (Appendix D.5: a resume offset of 0;
    /// hls.js #7641).
    public func liveAssetList(
        _ plan: Plan,
        live: LiveProgram,
        adBreak: LiveBreak,
        decided: [Ad],
        startOffset: ExactDecimal?,
        trackers: Bool,
        base: String?
    ) throws(StitchError) -> String {
        let planned = LiveSchedule.plannedDuration(adBreak, live: live) ?? adBreak.replacedDuration ?? .zero
        let pieces = LiveSchedule.pieces(adBreak, plan: plan, live: live, nominal: planned, upTo: planned, ads: true, decided: decided)
        let limit = adBreak.replacedDuration.map { min($0, planned) } ?? planned
        var kept = pieces.filter { $0.start < limit && $0.start + $0.asset.duration > (startOffset ?? .zero) }
        if kept.isEmpty, let lastPlayed = pieces.last(where: { $0.start < limit }) ?? pieces.first { kept = [lastPlayed] }
        var assets: [JSONValue] = []
        for piece in kept {
            var uri = self.layout.uris.write(piece.asset.url, as: .media)
            if let base, uri.hasPrefix("/"), !uri.hasPrefix("//") { uri = base + uri }
            assets.append(Self.assetEntry(uri: uri, duration: piece.asset.duration, ad: piece.ad, trackers: trackers))
        }
        return JSONValue.object([("ASSETS", .array(assets))]).text()
    }
}
