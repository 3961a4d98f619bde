import AdCampaign
import AdDecision
import AdStitching
import Foundation
import HLSPlaylist
import Testing

/// What the demos do not cover, on small hand-written campaigns under `Fixtures/` (their segment
/// files need not exist: nothing here reads media).
@Suite("Stitching the fixture campaigns")
struct FixtureStitchingTests {
    /// The campaign's layout with absolute URIs, and session s-1 of it.
    static func stitch(_ name: String, _ context: ViewerContext = viewer()) throws -> (StitchedSession, SourceCatalog) {
        let campaign = try Fixture.load(name)
        let layout = try StitchLayout(campaign: campaign, uris: .absolute, emptySubtitleURI: StitchedSession.emptySubtitleURI)
        let session = try StitchedSession(layout: layout, context: context)
        try Self.expectValid(session)
        return (session, SourceCatalog(campaign: campaign, uris: .absolute))
    }

    /// What holds for every session: lint-clean playlists at their minimum version, the same
    /// pieces in every rendition, a manifest that matches the schema.
    static func expectValid(_ session: StitchedSession, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for rendition in session.renditions {
            let playlist = session.playlist(rendition)
            let errors = PlaylistLinter().lint(playlist).filter { $0.severity == .error }
            #expect(errors.isEmpty, "\(rendition.id): \(errors)", sourceLocation: sourceLocation)
            #expect(playlist.version == playlist.minimumVersion, "\(rendition.id)", sourceLocation: sourceLocation)
            #expect(StitchedSession.pieces(of: playlist).count == session.plan.pieces.count, "\(rendition.id)", sourceLocation: sourceLocation)
        }
        #expect(PlaylistLinter().lint(session.master).filter { $0.severity == .error }.isEmpty, sourceLocation: sourceLocation)
        let violations = try ManifestSchema.shared.get().violations(of: ExactJSON.parse(session.manifestText))
        #expect(violations.isEmpty, "\(violations)", sourceLocation: sourceLocation)
    }

    /// The tag lines of a playlist that match `prefixes`, in order.
    static func lines(_ text: String, _ prefixes: String...) -> [String] {
        text.split(separator: "\n").map(String.init).filter { line in prefixes.contains { line.hasPrefix($0) } }
    }

    /// `Fixtures/<path>` as stitching writes it with `URIStyle.absolute`.
    static func absolute(_ path: String) -> String { Fixture.url(path).standardizedFileURL.absoluteString }

    // MARK: - Keys

    @Test("AES-128 without IV: the IV is written explicitly as the original media sequence number")
    func aesWithoutIVGetsTheMediaSequenceNumber() throws {
        let (session, catalog) = try Self.stitch("aes-ts.yaml")
        #expect(session.plan.signature == ["act-1@0", "clear@5.76", "act-2@9.6"])
        for variant in ["v0", "v1"] {
            let text = try #require(session.texts[variant])
            let key1 = Self.absolute("media/ts/program-aes/keys/act-1.key")
            let key2 = Self.absolute("media/ts/program-aes/keys/act-2.key")
            // act-1 starts at MEDIA-SEQUENCE:100, act-2 at 200: after stitching the segments are
            // numbered 0…6, so an implicit IV would decrypt every one of them wrongly.
            #expect(
                Self.lines(text, "#EXT-X-KEY", "#EXT-X-DISCONTINUITY") == [
                    "#EXT-X-KEY:METHOD=AES-128,URI=\"\(key1)\",IV=0x00000000000000000000000000000064",
                    "#EXT-X-KEY:METHOD=AES-128,URI=\"\(key1)\",IV=0x00000000000000000000000000000065",
                    "#EXT-X-KEY:METHOD=AES-128,URI=\"\(key1)\",IV=0x00000000000000000000000000000066",
                    "#EXT-X-DISCONTINUITY",
                    "#EXT-X-KEY:METHOD=NONE",
                    "#EXT-X-DISCONTINUITY",
                    "#EXT-X-KEY:METHOD=AES-128,URI=\"\(key2)\",IV=0x000000000000000000000000000000C8",
                    "#EXT-X-KEY:METHOD=AES-128,URI=\"\(key2)\",IV=0x000000000000000000000000000000C9",
                ],
                "\(variant)"
            )
            let playlist = try #require(session.playlists[variant])
            #expect(playlist.version == 3)  // floating-point EXTINF (3) covers IV (2)
            // Segment by segment, the keys in force are the source's with their implicit IV made explicit.
            for (piece, segments) in zip(session.plan.pieces, StitchedSession.pieces(of: playlist)) {
                let rendition = try #require(session.renditions.first { $0.id == variant })
                guard case .playlist(let source) = catalog.source(of: segments, asset: piece.asset, rendition: rendition) else {
                    Issue.record("\(variant) \(piece.id) is not its asset's playlist")
                    continue
                }
                #expect(SourceCatalog.keys(of: segments) == catalog.expectedKeys(of: source.playlist), "\(variant) \(piece.id)")
            }
        }
    }

    @Test("Encrypted fMP4: the key in force at each EXT-X-MAP is the source's, METHOD=NONE before the clear ad")
    func encryptedFMP4KeysAndMaps() throws {
        let (session, catalog) = try Self.stitch("aes-fmp4.yaml")
        #expect(session.plan.signature == ["act-1@0", "clear@3.84", "act-2@7.68"])
        let text = try #require(session.texts["v0"])
        let key1 = Self.absolute("media/fmp4/program-aes/keys/act-1.key")
        let key2 = Self.absolute("media/fmp4/program-aes/keys/act-2.key")
        #expect(
            Self.lines(text, "#EXT-X-KEY", "#EXT-X-MAP", "#EXT-X-DISCONTINUITY") == [
                // act-1: the key comes first, so it decrypts the init section too (§4.4.4.5).
                "#EXT-X-KEY:METHOD=AES-128,URI=\"\(key1)\",IV=0x000102030405060708090A0B0C0D0E0F",
                "#EXT-X-MAP:URI=\"\(Self.absolute("media/fmp4/program-aes/act-1/180p/init.mp4"))\"",
                "#EXT-X-DISCONTINUITY",
                // The clear ad: no key in force for its init section or its segments.
                "#EXT-X-KEY:METHOD=NONE",
                "#EXT-X-MAP:URI=\"\(Self.absolute("media/fmp4/ads/clear/180p/init.mp4"))\"",
                "#EXT-X-DISCONTINUITY",
                // act-2: its init section is clear and stays so; its key applies from the first segment.
                "#EXT-X-MAP:URI=\"\(Self.absolute("media/fmp4/program-aes/act-2/180p/init.mp4"))\"",
                "#EXT-X-KEY:METHOD=AES-128,URI=\"\(key2)\",IV=0x00000000000000000000000000000007",
                "#EXT-X-KEY:METHOD=AES-128,URI=\"\(key2)\",IV=0x00000000000000000000000000000008",
            ]
        )
        // For every piece of every rendition: a map at its start, and the keys of its segments the source's.
        for rendition in session.renditions {
            let playlist = session.playlist(rendition)
            let pieces = zip(StitchedSession.pieces(of: playlist), StitchedSession.pieceLines(of: playlist))
            for (piece, (segments, lines)) in zip(session.plan.pieces, pieces) {
                #expect(lines.contains { if case .tag(.map) = $0.content { true } else { false } }, "\(rendition.id) \(piece.id)")
                guard case .playlist(let source) = catalog.source(of: segments, asset: piece.asset, rendition: rendition) else {
                    Issue.record("\(rendition.id) \(piece.id) is not its asset's playlist")
                    continue
                }
                #expect(SourceCatalog.keys(of: segments) == catalog.expectedKeys(of: source.playlist), "\(rendition.id) \(piece.id)")
            }
        }
    }

    // MARK: - Byte ranges

    @Test("Implicit byte-range offsets are written explicitly (LENGTH@OFFSET)")
    func implicitByteRangeOffsetsBecomeExplicit() throws {
        let (session, _) = try Self.stitch("byterange.yaml")
        #expect(session.plan.signature == ["clear@0", "act-1@3.84"])
        let main = Self.absolute("media/ts/program-byterange/act-1/180p/main.ts")
        let text = try #require(session.texts["v0"])
        #expect(
            Self.lines(text, "#EXT-X-BYTERANGE", main) == [
                "#EXT-X-BYTERANGE:47000@0", main, "#EXT-X-BYTERANGE:48128@47000", main, "#EXT-X-BYTERANGE:46060@95128", main,
            ]
        )
        #expect(
            Self.lines(try #require(session.texts["v1"]), "#EXT-X-BYTERANGE") == [
                "#EXT-X-BYTERANGE:94000@0", "#EXT-X-BYTERANGE:96256@94000", "#EXT-X-BYTERANGE:92120@190256",
            ]
        )
        #expect(session.playlists["v0"]?.version == 4)
    }

    // MARK: - Alignment

    @Test("An ad whose audio runs far longer than its video is refused, naming the ad and the rendition")
    func longAudioIsRefused() throws {
        let campaign = try Fixture.load("long-audio.yaml")
        let error = try #require(throws: StitchError.self) { try StitchLayout(campaign: campaign, uris: .absolute) }
        #expect(error.message.contains("ad \"long\""), "\(error)")
        #expect(error.message.contains("rendition a0"), "\(error)")
        #expect(error.message.contains("3.84") && error.message.contains("5.76"), "\(error)")
        #expect(error.message.contains(Fixture.url("media/demuxed/ads/long-audio/master.m3u8").standardizedFileURL.path), "\(error)")
        // …and says so in fields a tool can read: what failed, which asset, which rendition.
        #expect(error.reason == .misaligned)
        #expect(error.asset == Fixture.url("media/demuxed/ads/long-audio/master.m3u8").standardizedFileURL)
        #expect(error.rendition == "a0")
    }

    // MARK: - Renditions

    @Test("Each programme variant gets the ad variant of its own codec family, BANDWIDTH closest at or below")
    func codecFamiliesStayApart() throws {
        let (session, _) = try Self.stitch("ladder.yaml")
        #expect(session.plan.signature == ["both@0", "act-1@3.84"])
        // Across families, AVC 720p (2.4 Mb/s) would get HEVC 720p (1.5 Mb/s) and HEVC 1080p
        // (3.2 Mb/s) AVC 1080p (3.1 Mb/s); within them, the closest at or below.
        let expected = ["v0": "avc-360p", "v1": "avc-540p", "v2": "hevc-720p", "v3": "hevc-1080p"]
        for (variant, rung) in expected {
            let ad = try #require(session.playlists[variant].flatMap { StitchedSession.pieces(of: $0).first?.first })
            // AVC rungs are MPEG-TS, HEVC ones fMP4 (containers are per variant).
            let segment = rung.hasPrefix("hevc") ? "seg_000.m4s" : "seg_000.ts"
            #expect(ad.uri == Self.absolute("media/ladder/ad/\(rung)/\(segment)")[...], "\(variant) plays \(ad.uri)")
        }
        // BANDWIDTH the peak: the programme's own, higher than each ad variant.
        #expect(
            session.master.variants.map { "\($0.uri) \($0.streamInf.bandwidth ?? 0)" } == [
                "v0.m3u8 800000", "v2.m3u8 1600000", "v1.m3u8 2400000", "v3.m3u8 3200000",
            ]
        )
    }

    @Test("Renditions the ad lacks: audio in the DEFAULT language, subtitles and I-frames filled for its exact duration")
    func renditionsTheAdLacks() throws {
        let (session, catalog) = try Self.stitch("renditions.yaml")
        #expect(session.plan.signature == ["partial@0", "act-1@3.84"])
        #expect(session.renditions.map(\.id) == ["v0", "a0", "a1", "a2", "s3", "i0"])
        let ad = session.plan.pieces[0]
        func played(_ id: String) throws -> (PlayedSource, [MediaSegment]) {
            let rendition = try #require(session.renditions.first { $0.id == id })
            let segments = try #require(session.playlists[id].flatMap { StitchedSession.pieces(of: $0).first })
            return (catalog.source(of: segments, asset: ad.asset, rendition: rendition), segments)
        }
        // English and Spanish find their language; French gets the ad's DEFAULT (English), not the
        // first-listed Spanish.
        for (id, language) in [("a0", "en"), ("a1", "es"), ("a2", "en")] {
            guard case .playlist(let source) = try played(id).0 else {
                Issue.record("\(id) does not play one of the ad's audio renditions")
                continue
            }
            #expect(source.media?.language == language, "\(id)")
        }
        let (subtitles, subtitleSegments) = try played("s3")
        guard case .emptySubtitles = subtitles else {
            Issue.record("s3 plays \(subtitles)")
            return
        }
        #expect(subtitleSegments.map(\.duration).sum() == ad.duration)
        let (iFrames, iFrameSegments) = try played("i0")
        guard case .gap = iFrames else {
            Issue.record("i0 plays \(iFrames)")
            return
        }
        #expect(iFrameSegments.map(\.duration).sum() == ad.duration)
        // After the ad every rendition is the programme's own again, at the same stream time.
        for rendition in session.renditions {
            let pieces = StitchedSession.pieces(of: session.playlist(rendition))
            #expect(pieces.last?.first?.startTime == decimal("3.84"), "\(rendition.id)")
            #expect(pieces.last?.first?.uri.contains("/demuxed/program/act-1/") == true, "\(rendition.id)")
        }
    }

    // MARK: - Markers

    @Test("markers: [cue] writes CUE-OUT with the break's duration and CUE-IN where it ends, nothing else")
    func cueMarkers() throws {
        let (session, _) = try Self.stitch("cue.yaml")
        #expect(session.plan.pieces.map(\.id).filter { $0 != "short" && $0 != "clear" } == ["act-1", "act-2"])
        #expect(session.plan.breaks.map(\.duration) == [decimal("1.92"), decimal("5.76"), decimal("1.92")])
        for (id, text) in session.texts {
            #expect(
                Self.lines(text, "#EXT-X-CUE", "#EXT-X-DISCONTINUITY", "#EXT-X-ENDLIST") == [
                    "#EXT-X-CUE-OUT:DURATION=1.92",
                    "#EXT-X-DISCONTINUITY", "#EXT-X-CUE-IN",
                    "#EXT-X-DISCONTINUITY", "#EXT-X-CUE-OUT:DURATION=5.76",
                    "#EXT-X-DISCONTINUITY",
                    "#EXT-X-DISCONTINUITY", "#EXT-X-CUE-IN",
                    "#EXT-X-DISCONTINUITY", "#EXT-X-CUE-OUT:DURATION=1.92",
                    "#EXT-X-CUE-IN", "#EXT-X-ENDLIST",
                ],
                "\(id)"
            )
            #expect(!text.contains("#EXT-X-DATERANGE") && !text.contains("#EXT-X-PROGRAM-DATE-TIME"), "\(id)")
        }
    }
}
