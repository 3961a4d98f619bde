import Foundation
import HLSPlaylist
import Yams

/// Checks that what the campaign names can be stitched together (docs/architecture.md invariants 6 and 10):
/// islands share one variant ladder and container, every ad and the slate can be matched to
/// every programme rendition, and every ad fits some break that may play it.
extension Loader {
    mutating func validate(_ campaign: Campaign) {
        guard let program = campaign.templateAsset else { return }
        self.checkHEVCInFragmentedMP4(program, what: "the programme", node: self.liveChannel?.node, field: "program")
        for island in campaign.islands where island.asset !== program {
            self.checkHEVCInFragmentedMP4(island.asset, what: "island \"\(island.id)\"", node: nil, field: "program.islands (\(island.id))")
        }
        for island in campaign.islands.dropFirst() {
            self.checkSameLadder(island, as: campaign.islands[0])
        }
        self.checkHDCPFallback(program)
        for ad in campaign.ads {
            let (node, field) = self.adNodes[ad.id] ?? (nil, "pools")
            self.checkHEVCInFragmentedMP4(ad.asset, what: "ad \"\(ad.id)\"", node: node, field: "\(field).playlist")
            self.checkCompatible(ad.asset, with: program, what: "ad \"\(ad.id)\"", node: node, field: "\(field).playlist")
        }
        if let slate = campaign.slate {
            self.checkHEVCInFragmentedMP4(slate, what: "the slate", node: self.slateNode, field: "slate.playlist")
            self.checkCompatible(slate, with: program, what: "the slate", node: self.slateNode, field: "slate.playlist")
            if let longest = campaign.breaks.map(\.duration).max(), slate.duration > longest {
                self.issue(
                    self.slateNode,
                    "slate.playlist",
                    "the slate runs \(slate.duration) s, longer than every break (\(longest) s at most); it could never play"
                )
            }
            if let longest = campaign.breaks.map(\.duration).max(),
                slate.duration <= .zero || longest.scaledValue / slate.duration.scaledValue > Int128(CampaignLimits.maxSlateRepeats)
            {
                self.issue(
                    self.slateNode,
                    "slate.playlist",
                    "the slate runs \(slate.duration) s: the longest break (\(longest) s) would repeat it more than "
                        + "\(CampaignLimits.maxSlateRepeats) times; use a slate of at least \(ExactDecimal(scaledValue: longest.scaledValue / Int128(CampaignLimits.maxSlateRepeats))) s"
                )
            }
        }
        self.checkTotals(campaign)
        self.checkAdsFitBreaks(campaign)
        self.checkResumesBeforeFinalSegment(campaign)
    }

    /// A break that resumes the programme inside its final segment (of any video variant or audio
    /// rendition) — a mid-roll right before a last island of one segment — stalls hls.js before
    /// 1.7 in interstitial sessions (docs/real-clients.md). The same rule as AdStitching's
    /// `InterstitialSchedule.breaksResumingInFinalSegment(of:)`, which this module cannot import;
    /// `auto` serves such campaigns stitched to those players, so this is a warning.
    private mutating func checkResumesBeforeFinalSegment(_ campaign: Campaign) {
        // Times on the primary timeline: the programme asset whole, else the islands in a row.
        var starts: [String: ExactDecimal] = [:]
        var ends: [String: ExactDecimal] = [:]
        let last: Asset
        var end = ExactDecimal.zero
        let remedy: String
        switch campaign.programme {
        case .live, .catalogue:
            return
        case .asset(let asset, _):
            (last, end) = (asset, asset.duration)
            remedy = "end the break (or its replaced stretch) before the programme's last segment"
        case .islands(let islands):
            guard let final = islands.last else { return }
            last = final.asset
            for island in islands {
                starts[island.id] = end
                end += island.asset.duration
                ends[island.id] = end
            }
            remedy = "give the last island at least two segments"
        }
        let playlists = last.variants.map(\.playlist) + last.audioRenditions.compactMap(\.playlist)
        guard let finalSegment = playlists.compactMap({ $0.segments.last?.startTime }).min() else { return }
        let finalStart = end - last.duration + finalSegment
        for adBreak in campaign.breaks {
            let resume: ExactDecimal? =
                if let placement = adBreak.placement {
                    placement.cut + (placement.replaced ?? .zero)
                } else {
                    switch adBreak.position {
                    case .before(let island): starts[island]
                    case .after(let island): ends[island]
                    case .live: nil
                    }
                }
            guard let resume, resume >= finalStart, resume < end else { continue }
            let (node, field) = self.breakNodes[adBreak.id] ?? (nil, "breaks")
            self.warn(
                node,
                field,
                "break \"\(adBreak.id)\" resumes the programme at \(resume) s, inside its final segment (\(finalStart) s to \(end) s): "
                    + "hls.js before 1.7 stalls after this break in interstitial sessions; \(remedy), or serve stitched "
                    + "(insertion=auto does for hls.js before 1.7)"
            )
        }
    }

    /// The programme within a week and the breaks within a day in all (``CampaignLimits``), so a
    /// stitched session's times and programme date-times stay in range.
    private mutating func checkTotals(_ campaign: Campaign) {
        let programme = campaign.islands.map(\.asset.duration).sum()
        if programme > CampaignLimits.maxProgramDuration {
            self.issue(
                nil,
                "program.islands",
                "the islands run \(programme) s together; a programme may run at most \(CampaignLimits.maxProgramDuration) s (7 days)"
            )
        }
        let breaks = campaign.breaks.map(\.duration).sum()
        if breaks > CampaignLimits.maxTotalBreakDuration {
            self.issue(
                nil,
                "breaks",
                "the breaks add up to \(breaks) s; a campaign's breaks may run at most \(CampaignLimits.maxTotalBreakDuration) s in all"
            )
        }
        if campaign.breaks.isEmpty, campaign.live == nil {
            self.warn(nil, "breaks", "the campaign has no breaks: every session is the programme alone")
        }
    }

    private mutating func warn(_ node: Node?, _ field: String, _ message: String) {
        let mark = node?.mark
        self.warnings.append(CampaignIssue(file: self.file.path, line: mark?.line ?? 0, column: mark?.column ?? 0, field: field, message))
    }

    private mutating func issue(_ node: Node?, _ field: String, _ message: String) {
        let mark = node?.mark
        self.validationIssues.append(
            CampaignIssue(file: self.file.path, line: mark?.line ?? 0, column: mark?.column ?? 0, field: field, message)
        )
    }

    private mutating func checkSameLadder(_ island: Island, as first: Island) {
        let field = "program.islands (\(island.id))"
        let families = { (asset: Asset) in asset.variants.map(\.videoFamily) }
        if families(island.asset) != families(first.asset) {
            self.issue(
                nil,
                field,
                "island \"\(island.id)\" has \(island.asset.variants.count) variants (\(Self.describe(island.asset))) but \"\(first.id)\" has "
                    + "\(first.asset.variants.count) (\(Self.describe(first.asset))); islands must share one variant ladder"
            )
            return
        }
        // Containers are per variant (AVC in MPEG-TS beside HEVC in fMP4 is a common ladder).
        for (variant, reference) in zip(island.asset.variants, first.asset.variants) where variant.segmentFormat != reference.segmentFormat {
            self.issue(
                nil,
                field,
                "island \"\(island.id)\"'s variant \(Self.describe(variant.streamInf)) is \(variant.segmentFormat.rawValue) but \"\(first.id)\"'s is "
                    + "\(reference.segmentFormat.rawValue); one playlist cannot switch containers (an EXT-X-MAP cannot be unset), "
                    + "so every island packages a rung alike"
            )
            return
        }
    }

    /// HEVC (and Dolby Vision, whose video is HEVC) must be packaged as fMP4, never MPEG-TS
    /// (Apple's HLS Authoring Specification; WWDC 2017 "Advances in HTTP Live Streaming", seed 001):
    /// players that decode HEVC in HLS take it from fragmented MP4 only. Read per variant.
    mutating func checkHEVCInFragmentedMP4(_ asset: Asset, what: String, node: Node?, field: String) {
        let offending = asset.variants.filter { variant in
            variant.segmentFormat == .mpegTS && (variant.videoFamily == .hevc || variant.videoFamily == .dolbyVision)
        }
        guard let first = offending.first else { return }
        self.issue(
            node,
            field,
            "\(what) carries HEVC in MPEG-TS segments (\(offending.map { "\($0.url.lastPathComponent) in \(Self.describe($0.streamInf))" }.joined(separator: "; "))); "
                + "HEVC must be packaged as fMP4 (Apple's HLS authoring specification): repackage \(first.url.path) and its like as fMP4 "
                + "segments with an EXT-X-MAP (ffmpeg: -hls_segment_type fmp4 -tag:v hvc1)"
        )
    }

    /// A programme whose every variant needs HDCP has nothing for a display without it: the
    /// player refuses the whole title (RFC 8216bis §4.4.6.2 HDCP-LEVEL).
    private mutating func checkHDCPFallback(_ program: Asset) {
        let levels = program.variants.map { HDCPLevel($0.streamInf.hdcpLevel) }
        guard let lowest = levels.min(), lowest > .none else { return }
        self.warn(
            self.liveChannel?.node,
            "program",
            "every variant of the programme needs HDCP (HDCP-LEVEL=\(lowest) or above): a player on a display without HDCP can play none; "
                + "add a variant with HDCP-LEVEL=NONE (an SD rung, as most services do)"
        )
    }

    /// Whether `asset` can play in every rendition of the programme, by the rule stitching uses
    /// (``RenditionMatcher``): errors where nothing can play, warnings where what plays asks more
    /// of the player than the programme's variant declares.
    mutating func checkCompatible(_ asset: Asset, with program: Asset, what: String, node: Node?, field: String) {
        var reported: Set<String> = []
        func once(_ key: String) -> Bool { reported.insert(key).inserted }
        for target in program.variants {
            let goal = target.streamInf
            guard let match = RenditionMatcher.variant(of: asset, for: target) else {
                self.issue(
                    node,
                    field,
                    "\(what) has nothing to play in the programme's audio-only variant \(Self.describe(goal)): no audio-only variant and no "
                        + "audio rendition of its format (\(CodecFamily.audio(of: goal.codecs).map(\.rawValue).joined(separator: ", "))); "
                        + "a picture never plays in an audio-only variant — add an audio-only variant or an audio rendition to \(asset.url.path)"
                )
                continue
            }
            if let family = target.videoFamily, match.videoFamily != family {
                if once("family \(family)") {
                    self.issue(
                        node,
                        field,
                        "\(what) has no \(family) variant for the programme's \(goal.codecs.joined(separator: ",")) variant; "
                            + "add one (its variants: \(Self.describe(asset)))"
                    )
                }
                continue
            }
            if match.segmentFormat != target.segmentFormat {
                if once("container \(target.segmentFormat)") {
                    self.issue(
                        node,
                        field,
                        "\(what) plays \(match.segmentFormat.rawValue) segments in the programme's \(target.segmentFormat.rawValue) variant "
                            + "\(Self.describe(goal)): one playlist cannot switch containers (an EXT-X-MAP cannot be unset); "
                            + "encode \(what)'s \(CodecFamily.video(of: goal.codecs)?.rawValue ?? "audio") rungs as \(target.segmentFormat.rawValue)"
                    )
                }
                continue
            }
            if let played = match.bandwidth, let declared = goal.bandwidth, played > declared {
                self.warn(
                    node,
                    field,
                    "\(what) has no rung at or below the programme's variant \(Self.describe(goal)) (BANDWIDTH=\(declared)): it plays its "
                        + "\(Self.describe(match)) rung (BANDWIDTH=\(played)) there, and the stitched variant declares BANDWIDTH=\(played) "
                        + "in every session that may play it; add a rung at or below \(declared) b/s"
                )
            }
            let allowed = HDCPLevel(goal.hdcpLevel)
            if match.hdcpLevel > allowed {
                self.warn(
                    node,
                    field,
                    "\(what)'s \(Self.describe(match)) rung needs HDCP-LEVEL=\(match.hdcpLevel) but plays in the programme's variant "
                        + "\(Self.describe(goal)), which needs \(allowed): a player that chose that variant for its display may not be able "
                        + "to play the ad; give the ad a rung at HDCP-LEVEL=\(allowed)"
                )
            }
        }
        let programHasDemuxedAudio = !program.audioRenditions.isEmpty
        let adHasDemuxedAudio = !asset.audioRenditions.isEmpty
        if programHasDemuxedAudio, !adHasDemuxedAudio {
            self.issue(
                node,
                field,
                "the programme carries audio in separate renditions (EXT-X-MEDIA TYPE=AUDIO) but \(what) has none; package its audio the same way"
            )
        } else if !programHasDemuxedAudio, adHasDemuxedAudio {
            self.issue(
                node,
                field,
                "\(what) carries audio in separate renditions but the programme's audio is muxed into its variants; package it the same way"
            )
        }
        for target in program.renditions where target.playlist != nil && (target.media.type == .audio || target.media.type == .subtitles) {
            let format = program.format(of: target)
            let kind = target.media.type == .audio ? "audio" : "subtitle"
            let name = "\"\(target.media.name ?? "")\" (\(target.media.language ?? "no language"), group \(target.media.groupID ?? ""))"
            if let match = RenditionMatcher.rendition(of: asset, for: target, in: program) {
                if target.media.type == .audio, match.segmentFormat != target.segmentFormat, once("audio container") {
                    self.issue(
                        node,
                        field,
                        "\(what) plays \(match.segmentFormat?.rawValue ?? "") audio in the programme's \(target.segmentFormat?.rawValue ?? "") "
                            + "audio rendition \(name): one playlist cannot switch containers; package the ad's audio as the programme's"
                    )
                }
                continue
            }
            let same = asset.renditions.filter { $0.media.type == target.media.type && $0.playlist != nil }
            let theirs = same.map { "\"\($0.media.name ?? "")\" \(asset.format(of: $0))" }.joined(separator: "; ")
            // No subtitles of the group's format: the empty filler of that format (WebVTT or IMSC)
            // plays; subtitles of another format never land there (a player would fail on them).
            if target.media.type == .subtitles {
                if !same.isEmpty, once("subtitle format \(format)") {
                    self.warn(
                        node,
                        field,
                        "\(what)'s subtitles (\(theirs)) cannot play in the programme's \(name), whose format is \(format): the empty "
                            + "\(format) filler plays there while it does, so its viewers see no subtitles; add a rendition of that format"
                    )
                }
                continue
            }
            if target.media.type == .audio, !adHasDemuxedAudio { continue }
            let remedy = "an ad plays only \(kind) renditions of the group's format (an AAC stereo one never fills an AC-3 5.1 group); add one"
            self.issue(
                node,
                field,
                "\(what) has no \(kind) rendition to play in the programme's \(name), whose format is \(format)"
                    + (theirs.isEmpty ? "" : " (it has \(theirs))") + "; \(remedy)"
            )
        }
    }

    /// An ad longer than every break that may play it (through any of its pools, including rule
    /// overrides) could never play. Judged per ad, not per pool: an ad too long for one pool's
    /// breaks still plays in the breaks of another pool that holds it.
    private mutating func checkAdsFitBreaks(_ campaign: Campaign) {
        for ad in campaign.ads {
            let pools = campaign.pools.filter { pool in pool.ads.contains { $0.id == ad.id } }.map(\.id)
            let breaks = campaign.breaks.filter { adBreak in
                pools.contains { pool in
                    adBreak.pools.contains(pool) || campaign.rules.contains { $0.action.pools[adBreak.id]?.contains(pool) == true }
                }
            }
            let (node, field) = self.adNodes[ad.id] ?? (nil, "pools")
            guard let longest = breaks.map(\.duration).max() else {
                if !campaign.breaks.isEmpty {
                    self.warn(node, field, "ad \"\(ad.id)\" is in no pool that a break (or a rule's pools override) fills from; it never plays")
                }
                continue
            }
            guard ad.asset.duration > longest else { continue }
            self.issue(
                node,
                field,
                "ad \"\(ad.id)\" runs \(ad.asset.duration) s, longer than every break that may play it "
                    + "(\(CampaignIssue.listing(breaks.map { "\($0.id) \($0.duration) s" }))); "
                    + "it could never play — shorten it or lengthen a break"
            )
        }
    }

    /// A variant as a campaign author knows it: `1280x720 avc1.64001f,mp4a.40.2`.
    private static func describe(_ variant: StreamInf) -> String {
        let codecs = variant.codecs.joined(separator: ",")
        return variant.resolution.map { "\($0) \(codecs)" } ?? codecs
    }

    private static func describe(_ match: RenditionMatcher.VariantMatch) -> String {
        switch match {
        case .variant(let variant): Self.describe(variant.streamInf)
        case .audioRendition(let media, _, _): "audio \"\(media.name ?? "")\""
        }
    }

    private static func describe(_ asset: Asset) -> String {
        asset.variants.map { variant in
            let codecs = variant.streamInf.codecs.joined(separator: ",")
            return variant.streamInf.resolution.map { "\($0) \(codecs)" } ?? codecs
        }.joined(separator: "; ")
    }
}
