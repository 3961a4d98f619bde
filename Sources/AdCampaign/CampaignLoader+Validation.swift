import Foundation
import HLSPlaylist
import Yams

/// Checks that what the campaign names can be stitched together (docs/architecture.md invariants 6 and 10):
/// islands share one variant ladder and container, every ad and the slate can be matched to
/// every programme rendition, and every ad fits some break that may play it.
extension Loader {
    mutating func validate(_ campaign: Campaign) {
        guard let program = campaign.templateAsset else { return }
        for island in campaign.islands.dropFirst() {
            self.checkSameLadder(island, as: campaign.islands[0])
        }
        for ad in campaign.ads {
            let (node, field) = self.adNodes[ad.id] ?? (nil, "pools")
            self.checkCompatible(ad.asset, with: program, what: "ad \"\(ad.id)\"", node: node, field: "\(field).playlist")
        }
        if let slate = campaign.slate {
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
        case .live:
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
        if island.asset.segmentFormat != first.asset.segmentFormat {
            self.issue(
                nil,
                field,
                "island \"\(island.id)\" is \(island.asset.segmentFormat.rawValue) but \"\(first.id)\" is \(first.asset.segmentFormat.rawValue); "
                    + "all islands must use one container"
            )
        }
        let families = { (asset: Asset) in asset.variants.map { CodecFamily.video(of: $0.streamInf.codecs) } }
        if families(island.asset) != families(first.asset) {
            self.issue(
                nil,
                field,
                "island \"\(island.id)\" has \(island.asset.variants.count) variants (\(Self.describe(island.asset))) but \"\(first.id)\" has "
                    + "\(first.asset.variants.count) (\(Self.describe(first.asset))); islands must share one variant ladder"
            )
        }
    }

    private mutating func checkCompatible(_ asset: Asset, with program: Asset, what: String, node: Node?, field: String) {
        if asset.segmentFormat != program.segmentFormat {
            self.issue(
                node,
                field,
                "\(what) is \(asset.segmentFormat.rawValue) but the programme is \(program.segmentFormat.rawValue): one playlist cannot switch "
                    + "containers (an EXT-X-MAP cannot be unset); encode the ad as \(program.segmentFormat.rawValue)"
            )
            return
        }
        let adFamilies = Set(asset.variants.compactMap { CodecFamily.video(of: $0.streamInf.codecs) })
        for variant in program.variants {
            guard let family = CodecFamily.video(of: variant.streamInf.codecs) else { continue }
            if !adFamilies.contains(family) {
                self.issue(
                    node,
                    field,
                    "\(what) has no \(family) variant for the programme's \(variant.streamInf.codecs.joined(separator: ",")) variant; "
                        + "add one (its variants: \(Self.describe(asset)))"
                )
                break
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
                    + "(\(breaks.map { "\($0.id) \($0.duration) s" }.joined(separator: ", "))); "
                    + "it could never play — shorten it or lengthen a break"
            )
        }
    }

    private static func describe(_ asset: Asset) -> String {
        asset.variants.map { variant in
            let codecs = variant.streamInf.codecs.joined(separator: ",")
            return variant.streamInf.resolution.map { "\($0) \(codecs)" } ?? codecs
        }.joined(separator: "; ")
    }
}
