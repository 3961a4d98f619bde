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
    ///
    /// `trackers`: whether the creative signalling lists the ads' tracking URLs
    /// (``Campaign/Reporting/handsTrackersToPlayer``).
    public func primaryPlaylistBytes(
        _ schedule: InterstitialSchedule,
        rendition: StitchRendition,
        trackers: Bool
    ) throws(StitchError) -> RenderedBytes {
        guard let index = self.layout.renditions.firstIndex(of: rendition) else {
            throw .notInLayout(rendition: rendition.id, "rendition \(rendition.id) is not part of this campaign")
        }
        let plan = schedule.plan
        let rows = try schedule.primary.map { (primary) throws(StitchError) in try self.layout.primaryRow(primary.asset, rewrites: plan.rewrites) }
        let values = plan.rewrites.isEmpty ? [] : self.layout.rewriting?.rewriter.values(for: plan.context) ?? []
        let anchor = plan.context.milliseconds
        var playlist = PlaylistComposer(
            self.header(rendition, index: index, version: rows.reduce(1) { max($0, $1.version(index)) }),
            date: anchor,
            values: values,
            literalCapacity: 512 + schedule.interstitials.count * 512,
            parts: 2 * schedule.primary.count + 4
        )
        playlist.tags { Self.appendInterstitialDateRanges(schedule, trackers: trackers, to: &$0) }
        for (position, primary) in schedule.primary.enumerated() {
            playlist.startPiece(at: Self.milliseconds(anchor, plus: primary.start))
            playlist.piece(rows[position], index)
        }
        return playlist.finish()
    }

    /// One `EXT-X-DATERANGE` per interstitial (Appendix D.2), written through the tag model:
    ///
    /// - `START-DATE`: the programme date-time of the break's place on the primary timeline
    ///   (a post-roll: the primary's end); `CUE="PRE"` / `"POST"` for breaks before / after the
    ///   whole primary, `ONCE` for `once: true`;
    /// - `DURATION`: what the break plays; for a replacement (`X-TIMELINE-OCCUPIES="RANGE"`), the
    ///   stretch of primary it stands in for;
    /// - `X-ASSET-LIST`: the session's asset list of the break, relative to the playlist, with
    ///   `_HLS_interstitial_id` (Appendix D.4);
    /// - `X-RESUME-OFFSET`: 0 for an insertion, the replaced stretch for a replacement;
    ///   `X-PLAYOUT-LIMIT`: the break's nominal duration; `X-RESTRICT` from `restrict`;
    ///   `X-SKIP-CONTROL-OFFSET`, `-DURATION`, `-LABEL-ID` from `skip` (``SkipControl``); `X-SNAP`
    ///   where a video variant has no segment boundary at the start (OUT) or the resume point (IN);
    /// - `X-TIMELINE-STYLE="HIGHLIGHT"`: ads are shown apart from the programme;
    /// - `X-AD-CREATIVE-SIGNALING`: SVTA 2053-2 creative signalling of the break's ads (base64 JSON).
    public func interstitialDateRanges(_ schedule: InterstitialSchedule, trackers: Bool) -> String {
        var bytes: [UInt8] = []
        Self.appendInterstitialDateRanges(schedule, trackers: trackers, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ``interstitialDateRanges(_:)`` written straight into a playlist's bytes, attribute by
    /// attribute in the order above (`InterstitialTests` reads every line back through the tag
    /// model): each primary playlist request writes them, so no attribute list or string per
    /// attribute. Ids are validated at load (no quote can occur in a quoted value); base64 has
    /// no quote either.
    static func appendInterstitialDateRanges(_ schedule: InterstitialSchedule, trackers: Bool, to bytes: inout [UInt8]) {
        let anchor = schedule.plan.context.milliseconds
        for interstitial in schedule.interstitials {
            let adBreak = interstitial.planned.adBreak
            var cue: TagBytes.Cue = []
            if interstitial.isPreRoll { cue.insert(.pre) }
            if interstitial.isPostRoll { cue.insert(.post) }
            if adBreak.once { cue.insert(.once) }
            TagBytes.dateRange(
                id: CollectionOfOne(adBreak.id),
                class: "com.apple.hls.interstitial",
                start: Self.milliseconds(anchor, plus: interstitial.isPostRoll ? schedule.duration : interstitial.start),
                cue: cue,
                duration: interstitial.isReplacement ? interstitial.resumeOffset : interstitial.duration,
                into: &bytes
            ) { bytes in
                // Appendix D.4: the server names the interstitial on its asset-list request
                // (`_HLS_interstitial_id`, the date range's ID), so its logs and a CDN's cache key
                // see which break is asked for; the player adds `_HLS_primary_id` (and, joining a
                // live break, `_HLS_start_offset`). Ids are unreserved characters (checked where
                // they are read): written as they are.
                TagBytes.quoted("X-ASSET-LIST", into: &bytes) { bytes in
                    bytes.append(contentsOf: Self.assetListPrefix.utf8)
                    bytes.append(contentsOf: adBreak.id.utf8)
                    bytes.append(contentsOf: ".json?_HLS_interstitial_id=".utf8)
                    bytes.append(contentsOf: adBreak.id.utf8)
                }
                TagBytes.decimal("X-RESUME-OFFSET", interstitial.resumeOffset, into: &bytes)
                TagBytes.decimal("X-PLAYOUT-LIMIT", adBreak.duration, into: &bytes)
                TagBytes.quotedList("X-RESTRICT", adBreak.restrict.names.map { $0.uppercased() }, into: &bytes)
                if let skip = adBreak.skip {
                    TagBytes.decimal("X-SKIP-CONTROL-OFFSET", skip.after, into: &bytes)
                    if let duration = skip.duration { TagBytes.decimal("X-SKIP-CONTROL-DURATION", duration, into: &bytes) }
                    if let label = skip.label { TagBytes.quoted("X-SKIP-CONTROL-LABEL-ID", label, into: &bytes) }
                }
                if interstitial.snap != .none {
                    TagBytes.quoted("X-SNAP", interstitial.snap.out ? (interstitial.snap.in ? "OUT,IN" : "OUT") : "IN", into: &bytes)
                }
                TagBytes.quoted("X-TIMELINE-OCCUPIES", interstitial.isReplacement ? "RANGE" : "POINT", into: &bytes)
                TagBytes.quoted("X-TIMELINE-STYLE", "HIGHLIGHT", into: &bytes)
                TagBytes.quoted("X-AD-CREATIVE-SIGNALING", into: &bytes) {
                    TagBytes.base64(Self.creativeSignalingJSON(interstitial, trackers: trackers), into: &$0)
                }
            }
        }
    }

    /// The asset list of break `id` (Appendix D.3): `{"ASSETS":[{"URI":…,"DURATION":…},…]}`, the
    /// break's ads and slate repeats in play order with their exact durations, each with its
    /// SVTA 2053-2 creative signalling (ads; the slate has none), and the break's `SKIP-CONTROL`. `base` makes the URIs of local
    /// media absolute (`http://host`): hls.js 1.6 resolves a relative asset URI against the page,
    /// not the list. With `adPlaylistURI` (server-side reporting), an ad whose events AdStitch
    /// fires is the URI it gives for the ad's place in the plan: the session's own copy of the
    /// ad's playlists, with beacon links (``adPlaylist(_:piece:variant:beacons:)``). Nil when the
    /// break does not play in this session.
    public func assetList(
        _ schedule: InterstitialSchedule,
        breakID: String,
        trackers: Bool,
        base: String? = nil,
        adPlaylistURI: ((Int) -> String)? = nil
    ) -> String? {
        guard let interstitial = schedule.interstitial(breakID) else { return nil }
        let plan = schedule.plan
        let values = plan.rewrites.isEmpty ? [] : self.layout.rewriting?.rewriter.values(for: plan.context) ?? []
        var assets: [JSONValue] = []
        for (offset, piece) in interstitial.pieces.enumerated() {
            let position = interstitial.firstPiece + offset
            var uri =
                if let adPlaylistURI, self.trackedAd(plan, piece: position) != nil {
                    adPlaylistURI(position)
                } else {
                    self.assetURI(piece, rewrites: plan.rewrites, values: values)
                }
            if let base, uri.hasPrefix("/"), !uri.hasPrefix("//") { uri = base + uri }
            var ad: Ad?
            if case .ad(let pieceAd, _) = piece.kind { ad = pieceAd }
            assets.append(Self.assetEntry(uri: uri, duration: piece.duration, ad: ad, trackers: trackers))
        }
        var list: [(String, JSONValue)] = [("ASSETS", .array(assets))]
        // The same skip control as the date range's, for players that read it from the list.
        if let skip = interstitial.planned.adBreak.skip {
            var control: [(String, JSONValue)] = [("OFFSET", .decimal(skip.after))]
            if let duration = skip.duration { control.append(("DURATION", .decimal(duration))) }
            if let label = skip.label { control.append(("LABEL-ID", .string(label))) }
            list.append(("SKIP-CONTROL", .object(control)))
        }
        return JSONValue.object(list).text()
    }

    /// One asset of an asset list: its URI, its exact duration and, for an ad, its SVTA 2053-2
    /// creative signalling (the asset is the creative's own timeline: it starts at 0) — VOD and
    /// live asset lists alike.
    static func assetEntry(uri: String, duration: ExactDecimal, ad: Ad?, trackers: Bool) -> JSONValue {
        var members: [(String, JSONValue)] = [("URI", .string(uri)), ("DURATION", .decimal(duration))]
        if let ad { members.append(("X-AD-CREATIVE-SIGNALING", Self.slot([(ad, .zero, duration)], trackers: trackers))) }
        return .object(members)
    }

    /// The URI of the multivariant playlist a piece of a break plays, as the layout writes its
    /// media (the server: its media route; remote: its URL), through the viewer's rewrite rules.
    private func assetURI(_ piece: Piece, rewrites: RewriteSet, values: [[UInt8]]) -> String {
        let kind: RewriteTargets = if case .slate = piece.kind { .slate } else { .ads }
        guard let rewriting = self.layout.rewriting,
            let (_, text) = rewriting.rewriter.apply(piece.asset.url, as: .media, kind: kind, among: rewrites)
        else { return self.layout.uris.write(piece.asset.url, as: .media) }
        var bytes: [UInt8] = []
        URIRewriter.fill(text, with: values, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A break's SVTA 2053-2 creative signalling (``slot(_:trackers:)`` of its ads, each at its offset in the
    /// break) as compact JSON bytes, written directly: a request writes one per break into every
    /// primary playlist, and through ``JSONValue`` it cost 10 µs a break.
    static func creativeSignalingJSON(_ interstitial: InterstitialSchedule.Interstitial, trackers: Bool) -> [UInt8] {
        var json: [UInt8] = []
        json.reserveCapacity(256 * interstitial.pieces.count)
        func add(_ text: StaticString) { json.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)) }
        func string(_ text: String) {
            json.append(UInt8(ascii: "\""))
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                    json += [UInt8(ascii: "\\"), byte]
                case 0..<0x20:
                    json += Array(String(format: "\\u%04x", byte).utf8)
                default:
                    json.append(byte)
                }
            }
            json.append(UInt8(ascii: "\""))
        }
        add("{\"version\":2,\"type\":\"slot\",\"payload\":[")
        var offset = ExactDecimal.zero
        var first = true
        for piece in interstitial.pieces {
            defer { offset += piece.duration }
            guard case .ad(let ad, _) = piece.kind else { continue }
            if !first { add(",") }
            first = false
            add("{\"type\":\"linear\",\"start\":")
            json.append(contentsOf: offset.description.utf8)
            add(",\"duration\":")
            json.append(contentsOf: piece.duration.description.utf8)
            add(",\"identifiers\":[{\"scheme\":\"urn:adstitch:ad-id\",\"value\":")
            string(ad.id)
            add("}],\"tracking\":[")
            for (index, event) in (trackers ? ad.tracking.keys.sorted() : []).enumerated() {
                if index > 0 { add(",") }
                add("{\"type\":")
                string(event)
                add(",\"urls\":[")
                for (position, url) in (ad.tracking[event] ?? []).enumerated() {
                    if position > 0 { add(",") }
                    string(url)
                }
                add("]}")
            }
            add("]}")
        }
        add("]}")
        return json
    }

    /// SVTA 2053-2 creative signalling (`X-AD-CREATIVE-SIGNALING`): one `slot` whose payload lists
    /// ads as `linear` creatives, each with its offset, duration, id and (with `trackers`) tracking
    /// URLs — in an asset list, one ad at offset 0 (the asset is its own timeline).
    private static func slot(_ creatives: [(ad: Ad, start: ExactDecimal, duration: ExactDecimal)], trackers: Bool) -> JSONValue {
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
                                    (trackers ? creative.ad.tracking.keys.sorted() : []).map { event in
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
