import AdCampaign
import AdDecision
import AdStitching
import Foundation
import HLSPlaylist
import Testing

/// Each demo campaign's layout and 50 sessions of viewers who differ in every way its rules look
/// at, stitched once and shared by the tests below.
struct DemoSessions: Sendable {
    let demo: Demo
    let catalog: SourceCatalog
    let sessions: [StitchedSession]

    private static let stitched: [Demo: Result<DemoSessions, any Error>] = Dictionary(
        uniqueKeysWithValues: Demo.allCases.map { demo in
            (
                demo,
                Result {
                    let campaign = try demo.campaign()
                    let uris = Demo.uris(for: campaign)
                    let layout = try StitchLayout(campaign: campaign, uris: uris, emptySubtitleURI: StitchedSession.emptySubtitleURI)
                    let sessions = try variedViewers(50).map { try StitchedSession(layout: layout, context: $0) }
                    return DemoSessions(demo: demo, catalog: SourceCatalog(campaign: campaign, uris: uris), sessions: sessions)
                }
            )
        }
    )

    static func of(_ demo: Demo) throws -> DemoSessions { try Self.stitched[demo]!.get() }
}

/// docs/architecture.md "Invariants of every stitched output", 1–11, asserted over the real output of both
/// demo campaigns: every playlist parsed back with `PlaylistParser`, every piece traced to the
/// source playlist it came from.
@Suite("Invariants of every stitched output")
struct InvariantTests {
    /// One frame of the demos' 25 fps video, and one AAC frame (1024 samples at 48 kHz) of priming.
    static let frame = decimal("0.04")
    static let aacFrame = decimal("0.021334")

    // MARK: 1. Exact time

    @Test("1. Exact time: playlists, boundaries and manifest agree exactly", arguments: Demo.allCases)
    func exactTime(_ demo: Demo) throws {
        for session in try DemoSessions.of(demo).sessions {
            let plan = session.plan
            let manifest = try ExactJSON.parse(session.manifestText)
            let duration = try #require(manifest["duration"]?.decimal)
            for rendition in session.renditions {
                let playlist = session.playlist(rendition)
                let pieces = StitchedSession.pieces(of: playlist)
                try #require(pieces.count == plan.pieces.count, "\(rendition.id) of \(session.description)")
                for (piece, segments) in zip(plan.pieces, pieces) {
                    let length = segments.map(\.duration).sum()
                    switch rendition.kind {
                    case .video:
                        #expect(length == piece.duration, "\(rendition.id) \(piece.id)@\(piece.start) of \(session.description)")
                    case .audio:
                        // Each piece on its own (invariant 2): AAC priming may add a frame, never accumulating.
                        #expect((length - piece.duration).magnitude <= Self.frame + Self.aacFrame, "\(rendition.id) \(piece.id)")
                    case .iFrame, .subtitles:
                        #expect((length - piece.duration).magnitude <= Self.frame, "\(rendition.id) \(piece.id)")
                    }
                }
                if case .video = rendition.kind {
                    #expect(playlist.duration == duration, "\(rendition.id) of \(session.description)")
                }
            }

            // The main video timeline: where each piece starts.
            let main = try #require(session.playlists["v0"])
            let starts = StitchedSession.pieces(of: main).map { $0[0].startTime }
            #expect(starts == plan.pieces.map(\.start))
            var boundaries: [ExactDecimal] = []
            for (index, piece) in plan.pieces.enumerated() {
                // Repeats of the slate are one stretch: no boundary between them.
                if index > 0, case .slate = piece.kind, case .slate = plan.pieces[index - 1].kind { continue }
                boundaries.append(starts[index])
            }
            #expect(manifest["boundaries"]?.items?.compactMap(\.decimal) == boundaries, "\(session.description)")

            try Self.checkManifestConsistency(manifest, session: session, starts: starts)
        }
    }

    /// Breaks, ads and islands tile the stream: each break ends at start + duration, its ads are
    /// contiguous and fill it, islands carry their programme time, nothing overlaps.
    static func checkManifestConsistency(_ manifest: ExactJSON, session: StitchedSession, starts: [ExactDecimal]) throws {
        let plan = session.plan
        let duration = try #require(manifest["duration"]?.decimal)
        var stretches: [(start: ExactDecimal, end: ExactDecimal)] = []
        for item in try #require(manifest["breaks"]?.items) {
            let id = try #require(item["id"]?.string)
            let start = try #require(item["start"]?.decimal)
            let end = try #require(item["end"]?.decimal)
            let length = try #require(item["duration"]?.decimal)
            #expect(end == start + length, "break \(id) of \(session.description)")
            let planned = try #require(plan.breaks.first { $0.adBreak.id == id })
            #expect(start == planned.start && length == planned.duration)
            #expect(item["restrict"]?.items?.compactMap(\.string) == planned.adBreak.restrict.names)
            var cursor = start
            for ad in try #require(item["ads"]?.items) {
                let adStart = try #require(ad["start"]?.decimal)
                #expect(adStart == cursor, "ad \(ad["id"]?.string ?? "?") of break \(id) in \(session.description)")
                #expect(starts.contains(adStart))
                cursor = adStart + (try #require(ad["duration"]?.decimal))
            }
            #expect(cursor == end, "the ads of break \(id) do not fill it in \(session.description)")
            stretches.append((start, end))
        }
        #expect(manifest["breaks"]?.items?.count == plan.breaks.filter { $0.duration > .zero }.count)
        var contentStart = ExactDecimal.zero
        let islands = plan.pieces.filter { if case .island = $0.kind { true } else { false } }
        #expect(manifest["islands"]?.items?.count == islands.count)
        for (item, piece) in zip(try #require(manifest["islands"]?.items), islands) {
            let start = try #require(item["start"]?.decimal)
            let end = try #require(item["end"]?.decimal)
            #expect(item["id"]?.string == piece.id)
            #expect(start == piece.start && end - start == piece.asset.duration)
            // Islands of their own follow one another in content time; a virtual island starts
            // where its stretch of the programme asset does (after any replaced stretch).
            if case .island(let island) = piece.kind, let virtualStart = island.contentStart {
                #expect(virtualStart >= contentStart, "content time runs forward")
                contentStart = virtualStart
            }
            #expect(item["contentStart"]?.decimal == contentStart, "island \(piece.id) of \(session.description)")
            contentStart += end - start
            stretches.append((start, end))
        }
        // Breaks and islands cover [0, duration] without gap or overlap.
        var cursor = ExactDecimal.zero
        for stretch in stretches.sorted(by: { $0.start < $1.start }) {
            #expect(stretch.start == cursor, "\(session.description)")
            cursor = stretch.end
        }
        #expect(cursor == duration)
    }

    // MARK: 2. Discontinuities

    @Test("2. A discontinuity before every piece after the first, the same pieces in every rendition", arguments: Demo.allCases)
    func discontinuities(_ demo: Demo) throws {
        let demoSessions = try DemoSessions.of(demo)
        for session in demoSessions.sessions {
            for rendition in session.renditions {
                let playlist = session.playlist(rendition)
                let tags = playlist.lines.filter { if case .tag(.discontinuity) = $0.content { true } else { false } }
                #expect(tags.count == session.plan.pieces.count - 1, "\(rendition.id) of \(session.description)")
                #expect(playlist.segments.first?.isDiscontinuity == false)
                let pieces = StitchedSession.pieces(of: playlist)
                try #require(pieces.count == session.plan.pieces.count)
                // Every piece holds its own asset's media, whole: the same sequence in every rendition.
                for (piece, segments) in zip(session.plan.pieces, pieces) {
                    let source = demoSessions.catalog.source(of: segments, asset: piece.asset, rendition: rendition)
                    if case .unknown = source {
                        Issue.record("\(rendition.id): piece \(piece.id)@\(piece.start) is not a playlist of its asset in \(session.description)")
                    }
                }
            }
        }
    }

    // MARK: 3. Target duration

    @Test("3. TARGETDURATION covers every rounded EXTINF and is one value for video and audio", arguments: Demo.allCases)
    func targetDuration(_ demo: Demo) throws {
        for session in try DemoSessions.of(demo).sessions {
            var shared: Set<Int> = []
            for rendition in session.renditions {
                let playlist = session.playlist(rendition)
                let target = try #require(playlist.targetDuration)
                for segment in playlist.segments {
                    #expect(segment.duration.roundedToInteger <= target, "\(rendition.id): EXTINF \(segment.durationText) > \(target)")
                }
                switch rendition.kind {
                case .video, .audio: shared.insert(target)
                case .iFrame, .subtitles: continue
                }
            }
            #expect(shared.count == 1, "video and audio target durations \(shared) in \(session.description)")
        }
    }

    // MARK: 4. Version

    @Test("4. EXT-X-VERSION is exactly the minimum the output's features need", arguments: Demo.allCases)
    func version(_ demo: Demo) throws {
        for session in try DemoSessions.of(demo).sessions {
            for rendition in session.renditions {
                let playlist = session.playlist(rendition)
                #expect(playlist.version == playlist.minimumVersion, "\(rendition.id) of \(session.description)")
                #expect(!PlaylistLinter().lint(playlist).contains { $0.rule == "version" })
            }
            // The multivariant playlist needs nothing above version 1 unless INSTREAM-ID=SERVICEn appears.
            let needed = session.master.renditions.contains { $0.value.instreamID?.hasPrefix("SERVICE") == true } ? 7 : 1
            #expect((session.master.version ?? 1) == needed)
            #expect(!PlaylistLinter().lint(session.master).contains { $0.rule == "version" })
        }
    }

    // MARK: 5. Keys

    @Test("5. Keys: clear ads clear, the programme's key back after each ad, every AES-128 IV explicit", arguments: Demo.allCases)
    func keys(_ demo: Demo) throws {
        let demoSessions = try DemoSessions.of(demo)
        var methodNone = 0
        for session in demoSessions.sessions {
            for rendition in session.renditions {
                let playlist = session.playlist(rendition)
                let pieces = StitchedSession.pieces(of: playlist)
                let lines = StitchedSession.pieceLines(of: playlist)
                for (index, (piece, segments)) in zip(session.plan.pieces, pieces).enumerated() {
                    let keys = SourceCatalog.keys(of: segments)
                    switch demoSessions.catalog.source(of: segments, asset: piece.asset, rendition: rendition) {
                    case .playlist(let source):
                        // The keys in force are the source's, segment by segment: none for a clear ad
                        // (so METHOD=NONE after an encrypted piece), the programme's again after an ad.
                        let expected = demoSessions.catalog.expectedKeys(of: source.playlist)
                        #expect(keys == expected, "\(rendition.id) \(piece.id) of \(session.description)")
                    case .gap, .emptySubtitles:
                        let clear = keys.allSatisfy { $0.isEmpty }
                        if !piece.asset.isEncrypted { #expect(clear, "\(rendition.id) \(piece.id)") }
                    case .unknown:
                        Issue.record("\(rendition.id): piece \(piece.id) is not a playlist of its asset")
                    }
                    guard index > 0, let previous = pieces[index - 1].last, let first = segments.first else { continue }
                    let keyLines = lines[index].compactMap { line -> Key? in if case .tag(.key(let key)) = line.content { key } else { nil } }
                    if !previous.keys.isEmpty, first.keys.isEmpty {
                        #expect(keyLines.first?.method == .noEncryption, "\(rendition.id): no METHOD=NONE before \(piece.id)")
                        methodNone += 1
                    }
                    if !first.keys.isEmpty, previous.keys != first.keys {
                        #expect(!keyLines.isEmpty, "\(rendition.id): the key of \(piece.id) is not re-established")
                    }
                }
                for segment in playlist.segments {
                    for key in segment.keys where key.method == .aes128 {
                        #expect(key.iv != nil, "\(rendition.id): AES-128 without IV in \(session.description)")
                    }
                }
            }
        }
        if demo == .eveningNews { #expect(methodNone > 0, "no session took a clear ad after the encrypted programme") }
    }

    // MARK: 6. Init sections

    @Test("6. EXT-X-MAP at the start of every piece of an fMP4 playlist", arguments: Demo.allCases)
    func initSections(_ demo: Demo) throws {
        let demoSessions = try DemoSessions.of(demo)
        for session in demoSessions.sessions {
            let fragmented = session.campaign.islands[0].asset.usesFragmentedMP4
            for rendition in session.renditions {
                let playlist = session.playlist(rendition)
                for (index, lines) in StitchedSession.pieceLines(of: playlist).enumerated() {
                    let firstURI = lines.firstIndex { if case .uri = $0.content { true } else { false } }
                    let firstMap = lines.firstIndex { if case .tag(.map) = $0.content { true } else { false } }
                    if fragmented, case .subtitles = rendition.kind {
                        #expect(firstMap == nil, "\(rendition.id): WebVTT needs no EXT-X-MAP")
                    } else if fragmented {
                        let mapFirst = firstMap != nil && firstURI != nil && firstMap! < firstURI!
                        #expect(mapFirst, "\(rendition.id): piece \(index) has no EXT-X-MAP in \(session.description)")
                    } else {
                        #expect(firstMap == nil, "\(rendition.id): an EXT-X-MAP in a TS session")
                    }
                }
                // Each segment's map is its source's.
                for (piece, segments) in zip(session.plan.pieces, StitchedSession.pieces(of: playlist)) {
                    let played = demoSessions.catalog.source(of: segments, asset: piece.asset, rendition: rendition)
                    guard case .playlist(let source) = played else { continue }
                    for (output, original) in zip(segments, source.playlist.segments) {
                        let expected = original.map?.uri.flatMap { source.playlist.resolve($0) }.map(demoSessions.catalog.uris.rewrite)
                        #expect(output.map?.uri == expected, "\(rendition.id) \(piece.id)")
                        #expect(output.map?.byteRange == original.map?.byteRange)
                    }
                }
            }
        }
    }

    // MARK: 7. Byte ranges

    @Test("7. Every byte range written with an explicit offset", arguments: Demo.allCases)
    func byteRanges(_ demo: Demo) throws {
        var ranges = 0
        for session in try DemoSessions.of(demo).sessions {
            for rendition in session.renditions {
                for line in session.playlist(rendition).lines {
                    switch line.content {
                    case .tag(.byteRange(let range)):
                        #expect(range.offset != nil, "\(rendition.id) line \(line.number): \(line.text)")
                        ranges += 1
                    case .tag(.map(let map)) where map.attributes["BYTERANGE"] != nil:
                        #expect(map.byteRange?.offset != nil, "\(rendition.id) line \(line.number): \(line.text)")
                    default: continue
                    }
                }
            }
        }
        if demo == .featureFMP4 { #expect(ranges > 0, "the fMP4 demo's byte-range assets never played") }
    }

    // MARK: 8. Variables

    @Test("8. No EXT-X-DEFINE and no variable reference in the output", arguments: Demo.allCases)
    func variables(_ demo: Demo) throws {
        for session in try DemoSessions.of(demo).sessions {
            for (name, text) in session.texts.merging(["master": session.masterText], uniquingKeysWith: { $1 }) {
                #expect(!text.contains("#EXT-X-DEFINE"), "\(name) of \(session.description)")
                #expect(!text.contains("{$"), "\(name) of \(session.description)")
            }
        }
    }

    // MARK: 9. Bandwidth

    @Test("9. BANDWIDTH is the peak of what plays, AVERAGE-BANDWIDTH recomputed and never understated", arguments: Demo.allCases)
    func bandwidth(_ demo: Demo) throws {
        let demoSessions = try DemoSessions.of(demo)
        for session in demoSessions.sessions {
            for rendition in session.renditions {
                let declared: (bandwidth: Int?, average: Int?)
                switch rendition.kind {
                case .video:
                    let variant = try #require(session.master.variants.first { $0.uri == "\(rendition.id).m3u8" })
                    declared = (variant.streamInf.bandwidth, variant.streamInf.averageBandwidth)
                case .iFrame:
                    let variant = try #require(session.master.iFrameVariants.first { $0.value.uri == "\(rendition.id).m3u8" })
                    declared = (variant.value.bandwidth, variant.value.averageBandwidth)
                case .audio, .subtitles:
                    continue
                }
                var played: [(bandwidth: Int, average: Int, seconds: ExactDecimal)] = []
                for (piece, segments) in zip(session.plan.pieces, StitchedSession.pieces(of: session.playlist(rendition))) {
                    // GAP segments transfer nothing: they count toward neither figure.
                    guard case .playlist(let source) = demoSessions.catalog.source(of: segments, asset: piece.asset, rendition: rendition),
                        let bandwidth = source.bandwidth
                    else { continue }
                    played.append((bandwidth, source.averageBandwidth ?? bandwidth, piece.duration))
                }
                let bandwidth = try #require(declared.bandwidth)
                #expect(bandwidth == played.map(\.bandwidth).max(), "\(rendition.id) of \(session.description)")
                let average = try #require(declared.average, "\(rendition.id) has no AVERAGE-BANDWIDTH")
                let mean = try #require(weightedMeanRoundedUp(played.map { ($0.average, $0.seconds) }))
                // Rounded up, allowing one for the renderer's binary floating point.
                let context = "\(rendition.id): AVERAGE-BANDWIDTH \(average), played \(mean): \(session.description)"
                #expect(average >= mean && average <= mean + 1, "\(context)")
                #expect(average <= bandwidth)
            }
        }
    }

    // MARK: 10. Renditions

    @Test("10. Every programme rendition plays the asset's playlist that fits it, or a fill of its exact duration", arguments: Demo.allCases)
    func renditions(_ demo: Demo) throws {
        let demoSessions = try DemoSessions.of(demo)
        let program = try demo.campaign().islands[0].asset
        var fallbacks = 0
        var gaps = 0
        var emptySubtitles = 0
        for session in demoSessions.sessions {
            for rendition in session.renditions {
                for (piece, segments) in zip(session.plan.pieces, StitchedSession.pieces(of: session.playlist(rendition))) {
                    let isIsland = if case .island = piece.kind { true } else { false }
                    let context = "\(rendition.id) \(piece.id)@\(piece.start) of \(session.description)"
                    let source = demoSessions.catalog.source(of: segments, asset: piece.asset, rendition: rendition)
                    switch (rendition.kind, source) {
                    case (.video(let index), .playlist(let played)):
                        let target = program.variants[index].streamInf
                        #expect(CodecFamily.video(of: played.codecs) == CodecFamily.video(of: target.codecs), "\(context)")
                        if isIsland {
                            // Islands share the programme's ladder: the same rung of each.
                            #expect(played.index == index, "\(context) plays variant \(played.index)")
                        } else {
                            #expect(played.bandwidth == Self.closestAtOrBelow(target, among: piece.asset.variants.map(\.streamInf)), "\(context)")
                        }
                    case (.iFrame(let index), .playlist(let played)):
                        #expect(CodecFamily.video(of: played.codecs) == CodecFamily.video(of: program.iFrameVariants[index].streamInf.codecs))
                        if isIsland { #expect(played.index == index, "\(context) plays I-frame variant \(played.index)") }
                    case (.iFrame, .gap):
                        #expect(piece.asset.iFrameVariants.isEmpty, "\(context): GAP though the asset has I-frames")
                        #expect(segments.map(\.duration).sum() == piece.duration, "\(context)")
                        gaps += 1
                    case (.audio(let index), .playlist(let played)):
                        let target = program.renditions[index].media
                        let media = try #require(played.media)
                        if piece.asset.audioRenditions.contains(where: { $0.media.language == target.language }) {
                            #expect(media.language == target.language, "\(context)")
                        } else {
                            #expect(media.isDefault, "\(context): plays \(media.name ?? "?") rather than the DEFAULT rendition")
                            fallbacks += 1
                        }
                    case (.subtitles(let index), .playlist(let played)):
                        #expect(played.media?.language == program.renditions[index].media.language, "\(context)")
                    case (.subtitles, .emptySubtitles):
                        #expect(piece.asset.subtitleRenditions.isEmpty, "\(context): empty though the asset has subtitles")
                        #expect(segments.map(\.duration).sum() == piece.duration, "\(context)")
                        emptySubtitles += 1
                    default:
                        Issue.record("\(context): plays \(source)")
                    }
                }
            }
        }
        if demo == .featureFMP4 {
            #expect(fallbacks > 0, "no Spanish viewer met bravo's English-only audio")
            #expect(gaps > 0 && emptySubtitles > 0, "no ad without I-frames or subtitles played")
        }
    }

    /// docs/architecture.md invariant 10: the same codec family and VIDEO-RANGE, BANDWIDTH closest at or below (else the lowest above).
    static func closestAtOrBelow(_ target: StreamInf, among variants: [StreamInf]) -> Int? {
        let family = variants.filter { CodecFamily.video(of: $0.codecs) == CodecFamily.video(of: target.codecs) }
        let range = family.filter { $0.range == target.range }
        let candidates = (range.isEmpty ? family : range).compactMap(\.bandwidth)
        return candidates.filter { $0 <= (target.bandwidth ?? 0) }.max() ?? candidates.min()
    }

    // MARK: 11. Markers

    @Test("11. Markers: a DATERANGE per break and ad after a PROGRAM-DATE-TIME, CUE-OUT/CUE-IN pairs", arguments: Demo.allCases)
    func markers(_ demo: Demo) throws {
        for session in try DemoSessions.of(demo).sessions {
            let markers = session.campaign.markers
            let breaks = session.plan.breaks.filter { $0.duration > .zero }
            for rendition in session.renditions {
                let playlist = session.playlist(rendition)
                let context = "\(rendition.id) of \(session.description)"
                let starts = playlist.segments.map(\.startTime)
                if markers.contains(.daterange) {
                    let anchor = try #require(playlist.segments.first?.programDateTime.flatMap { DateTime($0) }, "\(context): no PROGRAM-DATE-TIME")
                    let firstDateTime = playlist.lines.firstIndex { if case .tag(.programDateTime) = $0.content { true } else { false } }
                    let firstDateRange = playlist.lines.firstIndex { if case .tag(.dateRange) = $0.content { true } else { false } }
                    #expect(firstDateTime != nil && firstDateRange != nil && firstDateTime! < firstDateRange!, "\(context)")
                    let breakRanges = playlist.dateRanges.filter { $0.dateRange.dateRangeClass == "com.adstitch.break" }
                    #expect(breakRanges.map(\.dateRange.id) == breaks.map(\.adBreak.id), "\(context)")
                    for (entry, planned) in zip(breakRanges, breaks) {
                        #expect(entry.dateRange.duration == planned.duration)
                        #expect(starts.indices.contains(entry.segmentIndex) && starts[entry.segmentIndex] == planned.start, "\(context)")
                        try Self.expectStart(entry.dateRange, at: planned.start, after: anchor, context)
                    }
                    let adRanges = playlist.dateRanges.filter { $0.dateRange.dateRangeClass == "com.adstitch.ad" }
                    let ads = session.plan.pieces.compactMap { piece -> (Ad, Piece)? in
                        if case .ad(let ad, _) = piece.kind { (ad, piece) } else { nil }
                    }
                    #expect(adRanges.count == ads.count, "\(context)")
                    for (entry, (ad, piece)) in zip(adRanges, ads) {
                        #expect(entry.dateRange.attributes.string("X-AD-ID") == ad.id)
                        #expect(entry.dateRange.duration == piece.duration)
                        try Self.expectStart(entry.dateRange, at: piece.start, after: anchor, context)
                    }
                } else {
                    #expect(playlist.dateRanges.isEmpty && playlist.segments.allSatisfy { $0.programDateTime == nil }, "\(context)")
                }

                // CUE-OUT at the first segment of each break, CUE-IN at the first segment after it.
                var cues: [(tag: String, segment: Int, duration: ExactDecimal?)] = []
                var segment = 0
                for line in playlist.lines {
                    switch line.content {
                    case .uri: segment += 1
                    case .tag(.cueOut(let cue)): cues.append(("out", segment, cue.duration))
                    case .tag(.cueIn): cues.append(("in", segment, nil))
                    default: continue
                    }
                }
                if markers.contains(.cue) {
                    #expect(cues.map(\.tag) == Array(repeating: ["out", "in"], count: breaks.count).flatMap { $0 }, "\(context)")
                    let end = playlist.duration
                    for (index, planned) in breaks.enumerated() where cues.count == breaks.count * 2 {
                        let (out, back) = (cues[index * 2], cues[index * 2 + 1])
                        #expect(out.duration == planned.duration)
                        #expect(starts[out.segment] == planned.start, "\(context)")
                        #expect((back.segment < starts.count ? starts[back.segment] : end) == planned.end, "\(context)")
                    }
                } else {
                    #expect(cues.isEmpty, "\(context)")
                }
            }
        }
    }

    /// START-DATE is the programme date-time plus the stream time, to the millisecond it is written in.
    static func expectStart(_ range: DateRange, at time: ExactDecimal, after anchor: DateTime, _ context: String) throws {
        let start = try #require(range.startDate.flatMap { DateTime($0) })
        let offset = start.secondsSinceEpoch - anchor.secondsSinceEpoch
        #expect((offset - time).magnitude <= decimal("0.0005"), "\(context): \(range.id ?? "?") starts \(offset) s in, not \(time)")
    }

    // MARK: The whole session

    @Test("Every stitched playlist lints without errors", arguments: Demo.allCases)
    func lint(_ demo: Demo) throws {
        for session in try DemoSessions.of(demo).sessions {
            let masterErrors = PlaylistLinter().lint(session.master).filter { $0.severity == .error }
            #expect(masterErrors.isEmpty, "master of \(session.description): \(masterErrors)")
            for rendition in session.renditions {
                let errors = PlaylistLinter().lint(session.playlist(rendition)).filter { $0.severity == .error }
                #expect(errors.isEmpty, "\(rendition.id) of \(session.description): \(errors)")
            }
        }
    }

    @Test("The multivariant playlist lists the startup variant first and points at the boundary manifest", arguments: Demo.allCases)
    func multivariant(_ demo: Demo) throws {
        for session in try DemoSessions.of(demo).sessions {
            let master = session.master
            #expect(master.variants.map { String($0.uri) } == session.plan.startup.order.map { "v\($0).m3u8" }, "\(session.description)")
            #expect(master.variants.first?.uri == "v\(session.plan.startup.variant).m3u8")
            let data = master.sessionData.filter { $0.value.dataID == SessionRenderer.boundariesDataID }
            #expect(data.count == 1 && data.first?.value.uri == StitchedSession.boundariesURI)
            // Every stitched playlist is reachable from the master exactly once.
            let referenced =
                master.variants.map { String($0.uri) } + master.iFrameVariants.compactMap(\.value.uri)
                + master.renditions.compactMap(\.value.uri)
            #expect(referenced.sorted() == session.renditions.map { "\($0.id).m3u8" }.sorted())
        }
    }

    @Test("Every boundary manifest parses as JSON and matches docs/boundary-manifest.schema.json", arguments: Demo.allCases)
    func manifestSchema(_ demo: Demo) throws {
        let schema = try ManifestSchema.shared.get()
        for session in try DemoSessions.of(demo).sessions {
            #expect(try JSONSerialization.jsonObject(with: Data(session.manifestText.utf8)) is [String: Any])
            let violations = schema.violations(of: try ExactJSON.parse(session.manifestText))
            #expect(violations.isEmpty, "\(session.description): \(violations)")
        }
    }

    @Test("The 50 sessions of each demo cover different plans", arguments: Demo.allCases)
    func sessionsDiffer(_ demo: Demo) throws {
        let sessions = try DemoSessions.of(demo).sessions
        let plans = Set(sessions.map { $0.plan.signature })
        #expect(plans.count >= 5, "only \(plans.count) different plans")
        #expect(sessions.contains { session in session.plan.pieces.contains { if case .slate = $0.kind { true } else { false } } })
        // Only evening-news has startup entries that depend on the viewer (device, bandwidth).
        if demo == .eveningNews { #expect(Set(sessions.map(\.plan.startup.variant)).count > 1, "every session starts on the same variant") }
    }
}
