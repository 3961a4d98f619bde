import AdCampaign
import AdDecision
import Foundation
import HLSPlaylist
import Synchronization

/// Everything about stitching a campaign that does not depend on the viewer, worked out once
/// per campaign load: the session's renditions, which playlist of every asset plays in each,
/// their segment lines, the shared target duration — and the alignment check (docs/architecture.md
/// invariant 2), so a campaign whose renditions do not line up fails at load, not per request.
public struct StitchLayout: Sendable {
    public let campaign: Campaign
    /// The stitched playlists of every session, in multivariant order of the programme.
    public let renditions: [StitchRendition]
    /// Blocks by asset (one instance per playlist URL), one per rendition (same order as
    /// `renditions`). The programme's — its islands, its cuts and, for interstitial sessions, the
    /// one programme asset whole — are written on first use, rendition by rendition (``BlockRow``),
    /// unless rewrite rules need every URI at load or the campaign is live.
    private(set) var blocks: [ObjectIdentifier: BlockRow]
    /// Every block's bytes, by ``ByteBlock/id``: what a server prepares other forms of at load.
    public let byteBlocks: [ByteBlock]
    /// Target duration per rendition: one value for all video and audio playlists (invariant 3).
    let targetDurations: [Int]
    /// The programme asset whose multivariant playlist is the template.
    let program: Asset
    /// The campaign's `rewrite:` rules, with what a request needs of them; nil without rules.
    let rewriting: Rewriting?
    /// How URIs are written before rewrite rules (the server: media route paths for local files).
    let uris: URIStyle
    /// Where the empty WebVTT of an ad without subtitles points.
    let emptySubtitleURI: String
    /// Breaks of one programme asset whose interstitial needs `X-SNAP` (worked out for the first
    /// interstitial session).
    let interstitialSnaps: Deferred<[String: InterstitialSchedule.Snap]>

    /// - Parameter emptySubtitleURI: the URI of an empty WebVTT file, played for the length of
    ///   an ad that has no subtitle rendition (invariant 10).
    public init(campaign: Campaign, uris: URIStyle, emptySubtitleURI: String = SessionFile.emptySubtitles.name) throws(StitchError) {
        guard let program = campaign.templateAsset else { throw .noProgramme() }
        var renditions = program.variants.indices.map { StitchRendition(kind: .video($0)) }
        for (index, rendition) in program.renditions.enumerated() where rendition.playlist != nil {
            switch rendition.media.type {
            case .audio?: renditions.append(StitchRendition(kind: .audio(index)))
            case .subtitles?: renditions.append(StitchRendition(kind: .subtitles(index)))
            default: continue
            }
        }
        var assets: [(name: String, asset: Asset)]
        let isLive: Bool
        switch campaign.programme {
        case .islands(let islands):
            (assets, isLive) = (islands.map { ("island \"\($0.id)\"", $0.asset) }, false)
        case .asset(let programme, let cuts):
            // Interstitial sessions play the one programme asset whole; stitched ones, its cuts.
            (assets, isLive) = (cuts.map { ("island \"\($0.id)\"", $0.asset) } + [("the programme", programme)], false)
        case .live:
            (assets, isLive) = ([], true)
        case .catalogue:
            // A template: each title is laid out as a campaign of its own (templateAsset is nil).
            throw .noProgramme()
        }
        // The programme's blocks are written on first use, except where rewrite rules find the
        // rules that reach an asset from the URIs its blocks wrote at load, and on live channels,
        // whose ads are cut segment by segment at load.
        let deferred = !isLive && campaign.rewrites.isEmpty ? Set(assets.map { ObjectIdentifier($0.asset) }) : []
        // A live session has no I-frame playlists: trick play over a sliding window of minutes
        // is left to the player (docs/design-decisions.md "Live").
        if !isLive { renditions += program.iFrameVariants.indices.map { StitchRendition(kind: .iFrame($0)) } }
        // Every pool's ads (an ad decision server's creative may share an id with a pool's ad; each asset is laid out once).
        assets += campaign.pools.flatMap(\.ads).map { ("ad \"\($0.id)\"", $0.asset) }
        if let slate = campaign.slate { assets.append(("the slate", slate)) }

        let frame = Self.frameDuration(program)
        let islands = Set(campaign.islands.map(\.asset.url))
        var blocks: [ObjectIdentifier: BlockRow] = [:]
        // Each asset's longest segment (rounded) per rendition, for the target durations.
        var longest: [[Int]] = []
        var byteBlocks: [ByteBlock] = []
        // With rewrite rules: every URI each asset writes, to find the rules that can touch it.
        let written = Mutex<[(url: URL, role: URIStyle.Role)]>([])
        let recording =
            campaign.rewrites.isEmpty
            ? uris
            : URIStyle(roles: { url, role in
                written.withLock { $0.append((url, role)) }
                return uris.write(url, as: role)
            })
        var writtenByAsset: [ObjectIdentifier: [(url: URL, role: URIStyle.Role)]] = [:]
        for (name, asset) in assets where blocks[ObjectIdentifier(asset)] == nil {
            if deferred.contains(ObjectIdentifier(asset)) {
                let (row, longestSegments) = try Self.deferredRow(
                    asset,
                    named: name,
                    renditions: renditions,
                    isIsland: islands.contains(asset.url),
                    program: program,
                    frame: frame,
                    uris: uris,
                    emptySubtitleURI: emptySubtitleURI,
                    passthrough: campaign.markersPassthrough && islands.contains(asset.url)
                )
                blocks[ObjectIdentifier(asset)] = row
                longest.append(longestSegments)
                continue
            }
            var row: [SegmentBlock] = []
            for rendition in renditions {
                var block = try Self.block(
                    for: rendition,
                    of: asset,
                    isIsland: islands.contains(asset.url),
                    program: program,
                    uris: recording,
                    emptySubtitleURI: emptySubtitleURI,
                    passthrough: campaign.markersPassthrough && islands.contains(asset.url),
                    perSegment: isLive
                )
                try Self.checkAlignment(block, rendition: rendition, of: asset, named: name, program: program, frame: frame)
                block.seal(id: byteBlocks.count)
                byteBlocks.append(block.bytes)
                row.append(block)
            }
            if isLive { try Self.checkLiveSegments(row, renditions: renditions, of: asset, named: name) }
            blocks[ObjectIdentifier(asset)] = BlockRow(row)
            longest.append(row.map(\.maxRoundedDuration))
            if !campaign.rewrites.isEmpty {
                writtenByAsset[ObjectIdentifier(asset)] = written.withLock { urls in
                    defer { urls = [] }
                    return urls
                }
            }
        }
        var shared = 1
        for row in longest {
            for (index, rendition) in renditions.enumerated() where rendition.sharesTargetDuration {
                shared = max(shared, row[index])
            }
        }
        self.targetDurations = renditions.indices.map { index in
            renditions[index].sharesTargetDuration ? shared : max(1, longest.map { $0[index] }.max() ?? 1)
        }
        self.campaign = campaign
        self.program = program
        self.renditions = renditions
        self.blocks = blocks
        self.byteBlocks = byteBlocks
        self.uris = uris
        self.emptySubtitleURI = emptySubtitleURI
        self.interstitialSnaps = Deferred { InterstitialSchedule.snaps(of: campaign) }
        self.rewriting =
            campaign.rewrites.isEmpty
            ? nil
            : Rewriting(
                rewriter: URIRewriter(rules: campaign.rewrites, base: uris),
                campaign: campaign,
                written: writtenByAsset,
                emptySubtitleURI: emptySubtitleURI
            )
        if let rewriting = self.rewriting { try rewriting.prepare(self) }
    }

    /// An ad decision server's creative laid out for this layout's renditions, made once per
    /// creative and load (``layOut(creative:id:)``), then handed to every session that plays it
    /// (``adding(_:)``). Holds its asset: the row is found by the asset's identity.
    public struct LaidOutCreative: Sendable {
        public let asset: Asset
        let row: BlockRow
    }

    /// `asset`'s blocks, one per rendition, checked as a pool ad's are at load (a playlist per
    /// rendition, aligned within a frame) and against the layout's target durations: a session's
    /// `EXT-X-TARGETDURATION` is fixed at load, and no segment may round above it (RFC 8216bis
    /// §4.4.3.1), so a creative with longer segments cannot play here.
    public func layOut(creative asset: Asset, id: String) throws(StitchError) -> LaidOutCreative {
        let name = "creative \"\(id)\""
        var row: [SegmentBlock] = []
        for (index, rendition) in self.renditions.enumerated() {
            var block = try Self.block(
                for: rendition,
                of: asset,
                isIsland: false,
                program: self.program,
                uris: self.uris,
                emptySubtitleURI: self.emptySubtitleURI,
                perSegment: self.campaign.live != nil
            )
            try Self.checkAlignment(
                block,
                rendition: rendition,
                of: asset,
                named: name,
                program: self.program,
                frame: Self.frameDuration(self.program)
            )
            guard block.maxRoundedDuration <= self.targetDurations[index] else {
                throw StitchError(
                    .misaligned,
                    asset: asset.url,
                    rendition: rendition.id,
                    "\(name) has a segment of \(block.maxRoundedDuration) s (rounded) in rendition \(rendition.id), above the session's "
                        + "target duration of \(self.targetDurations[index]) s; encode it with segments no longer than the programme's"
                )
            }
            // Shared by sessions, never by the load's prepared forms: the server makes its gzip form on first use.
            block.seal(id: -1)
            row.append(block)
        }
        if self.campaign.live != nil { try Self.checkLiveSegments(row, renditions: self.renditions, of: asset, named: name) }
        return LaidOutCreative(asset: asset, row: BlockRow(row))
    }

    /// This layout with `creatives` beside its own assets: what renders a session whose breaks
    /// play them. Their URIs are written as the ad server gave them; `rewrite:` rules do not
    /// reach them (docs/campaign-format.md "Ad decision servers").
    public func adding(_ creatives: [LaidOutCreative]) -> StitchLayout {
        guard !creatives.isEmpty else { return self }
        var layout = self
        for creative in creatives where layout.blocks[ObjectIdentifier(creative.asset)] == nil {
            layout.blocks[ObjectIdentifier(creative.asset)] = creative.row
        }
        return layout
    }

    /// The row of an asset written on first use (``BlockRow``): which playlist plays in each
    /// rendition, and its alignment, now; and its longest segments, which count in the target
    /// durations as if written (a block's longest segment is its playlist's).
    private static func deferredRow(
        _ asset: Asset,
        named name: String,
        renditions: [StitchRendition],
        isIsland: Bool,
        program: Asset,
        frame: ExactDecimal,
        uris: URIStyle,
        emptySubtitleURI: String,
        passthrough: Bool
    ) throws(StitchError) -> (row: BlockRow, longest: [Int]) {
        let sources = try renditions.map { (rendition) throws(StitchError) in
            try Self.source(for: rendition, of: asset, isIsland: isIsland, program: program)
        }
        for (rendition, source) in zip(renditions, sources) {
            try Self.checkAlignment(
                duration: source.playlist.duration,
                source: source.playlist.url,
                rendition: rendition,
                of: asset,
                named: name,
                program: program,
                frame: frame
            )
        }
        let longest = sources.map(\.playlist.longestRoundedSegmentDuration)
        let row = BlockRow(deferring: sources) { source in
            var block = source.block(uris: uris, emptySubtitleURI: emptySubtitleURI, passthrough: passthrough)
            block.seal(id: -1)
            return block
        }
        return (row, longest)
    }

    /// docs/architecture.md invariant 2: each piece's duration in every rendition within a frame of the main
    /// video's — checked per piece, so differences never accumulate. Audio may run one AAC frame
    /// longer from encoder priming.
    private static func checkAlignment(
        _ block: SegmentBlock,
        rendition: StitchRendition,
        of asset: Asset,
        named name: String,
        program: Asset,
        frame: ExactDecimal
    ) throws(StitchError) {
        try Self.checkAlignment(
            duration: block.duration,
            source: block.source,
            rendition: rendition,
            of: asset,
            named: name,
            program: program,
            frame: frame
        )
    }

    /// ``checkAlignment(_:rendition:of:named:program:frame:)`` of a block yet to be written: its
    /// duration and playlist.
    private static func checkAlignment(
        duration: ExactDecimal,
        source: URL?,
        rendition: StitchRendition,
        of asset: Asset,
        named name: String,
        program: Asset,
        frame: ExactDecimal
    ) throws(StitchError) {
        var tolerance = frame
        if case .audio = rendition.kind { tolerance += ExactDecimal(significand: 2_134, exponent: 5) }  // ≥ 1024/48000 s
        let difference = (duration - asset.duration).magnitude
        guard difference <= tolerance else {
            let source = source.map { " (\($0.path))" } ?? ""
            throw StitchError(
                .misaligned,
                asset: asset.url,
                rendition: rendition.id,
                "\(name) is \(asset.duration) s long in its first variant but \(duration) s in the "
                    + "\(Self.describe(rendition, program: program)) it plays in rendition \(rendition.id)\(source), "
                    + "\(difference) s apart — more than a frame (\(tolerance) s). Its renditions must start and end together: "
                    + "encode audio and video of \(asset.url.path) to the same length"
            )
        }
    }

    /// A live session numbers the segments of an ad alike in every rendition
    /// (docs/design-decisions.md "Live"), so each of its renditions must have as many segments as
    /// its first variant.
    private static func checkLiveSegments(
        _ row: [SegmentBlock],
        renditions: [StitchRendition],
        of asset: Asset,
        named name: String
    )
        throws(StitchError)
    {
        guard let reference = row.first?.segments.count else { return }
        for (block, rendition) in zip(row, renditions) where block.segments.count != reference {
            let source = block.source.map { " (\($0.path))" } ?? ""
            throw StitchError(
                .misaligned,
                asset: asset.url,
                rendition: rendition.id,
                "\(name) has \(reference) segments in its first variant but \(block.segments.count) in rendition \(rendition.id)\(source); "
                    + "a live channel numbers every rendition's segments alike, so cut every rendition of \(asset.url.path) at the same boundaries"
            )
        }
    }

    /// A rendition as a campaign author knows it: `audio "English" (en)`, `video 640x360`.
    private static func describe(_ rendition: StitchRendition, program: Asset) -> String {
        switch rendition.kind {
        case .video(let index):
            return "video variant \(program.variants[index].streamInf.resolution?.description ?? "#\(index)")"
        case .iFrame(let index):
            return "I-frame variant \(program.iFrameVariants[index].streamInf.resolution?.description ?? "#\(index)")"
        case .audio(let index), .subtitles(let index):
            let media = program.renditions[index].media
            return "\(media.type == .audio ? "audio" : "subtitles") \"\(media.name ?? "")\" (\(media.language ?? "no language"))"
        }
    }

    /// One frame of the programme's main video (FRAME-RATE, else 24 fps).
    private static func frameDuration(_ program: Asset) -> ExactDecimal {
        guard let rate = program.variants.first?.streamInf.frameRate?.doubleValue, rate > 0 else {
            return ExactDecimal(significand: 41_667, exponent: 6)
        }
        // FRAME-RATE is within [0.001, 1000] (CampaignLimits, checked at load): 1,000 µs to 1,000 s.
        return ExactDecimal(significand: Int(min((1_000_000 / rate).rounded(.up), 1e12)), exponent: 6)
    }

    func block(_ asset: Asset, _ rendition: Int) throws(StitchError) -> SegmentBlock {
        let row = try self.row(asset)
        guard row.indices.contains(rendition) else {
            throw .notInLayout(
                asset: asset.url,
                "\(asset.url.path) has no block for rendition \(rendition) in campaign revision \(self.campaign.revision)"
            )
        }
        return row[rendition]
    }

    /// The blocks a piece plays, one per rendition: the shared ones, or those the viewer's
    /// rewrite rules make of them (made once per distinct outcome, then shared too).
    func row(_ piece: Piece, rewrites: RewriteSet) throws(StitchError) -> BlockRow {
        guard let rewriting = self.rewriting, !rewrites.isEmpty else { return try self.row(piece.asset) }
        return try rewriting.row(piece.asset, kind: Rewriting.kind(of: piece), rewrites: rewrites, layout: self)
    }

    /// The blocks an asset of primary content plays in an interstitial session, one per rendition.
    func primaryRow(_ asset: Asset, rewrites: RewriteSet) throws(StitchError) -> BlockRow {
        guard let rewriting = self.rewriting, !rewrites.isEmpty else { return try self.row(asset) }
        return try rewriting.row(asset, kind: .program, rewrites: rewrites, layout: self)
    }

    /// The blocks of `asset`, one per rendition.
    func row(_ asset: Asset) throws(StitchError) -> BlockRow {
        guard let row = self.blocks[ObjectIdentifier(asset)] else {
            throw .notInLayout(
                asset: asset.url,
                "\(asset.url.path) is not part of campaign revision \(self.campaign.revision); the plan belongs to another revision"
            )
        }
        return row
    }
}
