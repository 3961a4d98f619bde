import AdMedia
import Foundation
import HLSPlaylist
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension RealClients {
    /// `adstitch condition`: creatives of shapes ad servers send — another resolution and aspect,
    /// 30 and 29.97 fps against 25, 44.1 kHz, mono, a fractional duration, 10 dB too loud, no audio —
    /// made with ffmpeg and conditioned against the demo programmes (MPEG-TS with muxed audio;
    /// fMP4 with demuxed audio in two languages). Each must load as an ad with no warning (the
    /// command checks it), start every segment on a keyframe, land within 1 LU of the target, and
    /// play: GStreamer decodes every frame of a stitched session that plays it.
    @Suite("Creative conditioning", .serialized)
    struct ConditionTests {
        /// A creative made with ffmpeg's test sources: `video` and `audio` lavfi graphs (nil: none).
        static func creative(_ name: String, video: String, audio: String?, duration: String, in folder: URL) async throws -> URL {
            let file = folder.appendingPathComponent("\(name).mp4")
            var arguments = ["-nostdin", "-y", "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "\(video):duration=\(duration)"]
            if let audio {
                // The duration belongs to the source, the graph's first filter.
                let parts = audio.split(separator: ",", maxSplits: 1)
                arguments += ["-f", "lavfi", "-i", "\(parts[0]):duration=\(duration)" + (parts.count > 1 ? ",\(parts[1])" : "")]
            }
            arguments += ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"]
            if audio != nil { arguments += ["-c:a", "aac", "-shortest"] }
            arguments.append(file.path)
            let result = try await Tool.run("ffmpeg", arguments)
            #expect(result.status == 0, "\(result.output)")
            return file
        }

        /// Integrated loudness of a playlist's audio (ffmpeg's ebur128 summary), LUFS.
        static func loudness(_ playlist: URL) async throws -> Double? {
            let result = try await Tool.run(
                "ffmpeg",
                ["-nostdin", "-hide_banner", "-allowed_extensions", "ALL", "-i", playlist.path, "-vn", "-af", "ebur128", "-f", "null", "-"]
            )
            // The summary's "I: -23.0 LUFS" (the last one).
            let line = result.output.split(separator: "\n").last { $0.trimmingCharacters(in: .whitespaces).hasPrefix("I:") }
            return line?.split(separator: " ").compactMap { Double($0) }.first
        }

        /// Every segment of every media playlist of `master` starts with a keyframe (video) — ffprobe.
        static func keyframesAtSegmentStarts(_ master: URL) throws -> (segments: Int, misses: [String]) {
            let text = try String(contentsOf: master, encoding: .utf8)
            let parsed = try PlaylistParser().parseMultivariantPlaylist(text, url: master)
            var (segments, misses) = (0, [String]())
            for variant in parsed.variants {
                let url = master.deletingLastPathComponent().appendingPathComponent(String(variant.uri)).standardizedFileURL
                let playlist = try PlaylistParser().parseMediaPlaylist(String(contentsOf: url, encoding: .utf8), url: url)
                for segment in playlist.segments {
                    segments += 1
                    let probe = try FFprobe().probe(segment, of: playlist)
                    if probe.firstVideoPacket?.isKeyframe != true { misses.append("\(url.lastPathComponent) \(segment.uri)") }
                }
            }
            return (segments, misses)
        }

        /// The demo campaign `id` copied, with `conditioned` (a folder inside the copy) as the only
        /// ad its breaks draw.
        static func campaignPlaying(_ id: String, ad: String, in folder: URL) throws -> URL {
            let yaml = try String(contentsOf: Repository.campaign(id), encoding: .utf8)
            let copy = folder.appendingPathComponent("campaign.yaml")
            // A rule that always holds excludes every pool ad but the conditioned one.
            let rule = "  - name: conditioned-only\n    when: {}\n    then: { exclude: ['^(?!\(ad)$)'] }\n"
            var edited = yaml
            for pool in ["house", "main", "short"] {
                edited = edited.replacingOccurrences(
                    of: "\n  \(pool):\n",
                    with: "\n  \(pool):\n    - { id: \(ad), playlist: media/ads/\(ad)/master.m3u8 }\n"
                )
            }
            edited =
                edited.contains("\nrules:\n") ? edited.replacingOccurrences(of: "\nrules:\n", with: "\nrules:\n" + rule) : edited + "rules:\n" + rule
            try Data(edited.utf8).write(to: copy)
            return copy
        }

        @Test(
            "against the TS programme (muxed AAC, AES-128): 1280x720 at 30 fps, 44.1 kHz, +10 dB, 5.3 s — loads clean, keyframes at every segment, -23 LUFS ±1, GStreamer decodes a session playing it"
        )
        func transportStreamProgramme() async throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("condition-ts-\(UUID().uuidString.prefix(8))")
            try FileManager.default.copyItem(at: Repository.campaign("evening-news").deletingLastPathComponent(), to: folder)
            defer { try? FileManager.default.removeItem(at: folder) }
            let source = try await Self.creative(
                "loud",
                video: "testsrc2=size=1280x720:rate=30",
                audio: "sine=frequency=440:sample_rate=44100,volume=10dB",
                duration: "5.3",
                in: folder
            )
            let out = folder.appendingPathComponent("media/ads/loud")
            let result = try await CLITests().adstitch([
                "condition", source.path, "--campaign", Repository.campaign("evening-news").path, "--id", "loud", "--out", out.path,
            ])
            #expect(result.status == 0, "\(result.output)")
            #expect(!result.output.contains("warning") && !result.output.contains("error"), "\(result.output)")
            let master = out.appendingPathComponent("master.m3u8")
            let text = try String(contentsOf: master, encoding: .utf8)
            #expect(text.contains("RESOLUTION=426x240") && text.contains("RESOLUTION=640x360") && text.contains("FRAME-RATE=25.000"), "\(text)")
            #expect(text.contains("CODECS=\"avc1.42c01e,mp4a.40.2\""))
            let (segments, misses) = try Self.keyframesAtSegmentStarts(master)
            #expect(segments >= 6 && misses.isEmpty, "\(segments) segments; not on a keyframe: \(misses)")
            let loudness = try #require(try await Self.loudness(out.appendingPathComponent("v0/index.m3u8")))
            #expect(abs(loudness - -23) <= 1, "\(loudness) LUFS")
            print(
                "↳ conditioned 5.3 s at 1280x720/30 fps into 2 TS renditions; \(loudness) LUFS; \(result.output.split(separator: "\n").first ?? "")"
            )

            // A session whose breaks play it: GStreamer decodes every frame.
            let campaign = try Self.campaignPlaying("evening-news", ad: "loud", in: folder)
            let session = folder.appendingPathComponent("session")
            let stitched = try await CLITests().adstitch(["stitch", campaign.path, "--out", session.path, "--session", "c-1"])
            #expect(stitched.status == 0, "\(stitched.output)")
            let manifest =
                try JSONSerialization.jsonObject(with: Data(contentsOf: session.appendingPathComponent("boundaries.json"))) as? [String: Any]
            let ads = (manifest?["breaks"] as? [[String: Any]] ?? []).flatMap {
                ($0["ads"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            }
            #expect(ads.contains("loud"), "\(ads)")
            let duration = try #require(ExactDecimal("\(manifest?["duration"] ?? "")"))
            let decoded = try await Decoded(session.appendingPathComponent("v0.m3u8"), scratch: folder)
            #expect(decoded.videoFrames == RealClientTests.frames(duration, fps: 25), "\(decoded.videoFrames) frames for \(duration) s")
        }

        @Test(
            "against the fMP4 programme (demuxed audio, en and es): 640x480 at 29.97 fps without audio, 3.5 s — silence added and said, audio renditions per language, loads clean, GStreamer decodes it, hls.js plays it"
        )
        func fragmentedProgrammeWithoutAudio() async throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("condition-fmp4-\(UUID().uuidString.prefix(8))")
            try FileManager.default.copyItem(at: Repository.campaign("feature-fmp4").deletingLastPathComponent(), to: folder)
            defer { try? FileManager.default.removeItem(at: folder) }
            let source = try await Self.creative("silent", video: "testsrc=size=640x480:rate=30000/1001", audio: nil, duration: "3.5", in: folder)
            let out = folder.appendingPathComponent("media/ads/silent")
            let result = try await CLITests().adstitch([
                "condition", source.path, "--campaign", Repository.campaign("feature-fmp4").path, "--id", "silent", "--out", out.path,
            ])
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output.contains("the creative has no audio: silence was added"), "\(result.output)")
            #expect(!result.output.contains("warning:") && !result.output.contains("error:"), "\(result.output)")
            let text = try String(contentsOf: out.appendingPathComponent("master.m3u8"), encoding: .utf8)
            #expect(text.contains("#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aud\",NAME=\"English\",LANGUAGE=\"en\""), "\(text)")
            #expect(text.contains("LANGUAGE=\"es\"") && text.contains("AUDIO=\"aud\""))
            let (segments, misses) = try Self.keyframesAtSegmentStarts(out.appendingPathComponent("master.m3u8"))
            #expect(segments >= 4 && misses.isEmpty, "\(segments) segments; not on a keyframe: \(misses)")

            let campaign = try Self.campaignPlaying("feature-fmp4", ad: "silent", in: folder)
            let session = folder.appendingPathComponent("session")
            let stitched = try await CLITests().adstitch(["stitch", campaign.path, "--out", session.path, "--session", "c-2"])
            #expect(stitched.status == 0, "\(stitched.output)")
            let manifest =
                try JSONSerialization.jsonObject(with: Data(contentsOf: session.appendingPathComponent("boundaries.json"))) as? [String: Any]
            let duration = try #require(ExactDecimal("\(manifest?["duration"] ?? "")"))
            let decoded = try await Decoded(session.appendingPathComponent("v0.m3u8"), scratch: folder, audio: false)
            #expect(decoded.videoFrames == RealClientTests.frames(duration, fps: 25), "\(decoded.videoFrames) frames for \(duration) s")

            // hls.js (MSE) plays a served session of it to the end: fMP4 across the splices.
            let server = try await HardeningEndToEndTests.Server(campaigns: folder)
            defer { kill(server.process.pid, SIGKILL) }
            let master = try server.get("/v1/campaigns/feature-fmp4/master.m3u8?session=c-3")
            #expect(master.status == 200, "\(master.body)")
            let played = try await InterstitialEndToEndTests.playWithHlsJs(port: server.port, campaign: "feature-fmp4", master: master.body)
            #expect(played.contains { $0.hasPrefix("ended:") }, "\(played)")
        }

        @Test(
            "against the single programme asset cut at its markers: 720x576 4:3 at 29.97 fps, 48 kHz mono, 4.1 s — loads clean, keyframes at every segment, -23 LUFS ±1; the campaign naming the ad already (its playlist not made yet) is no error, and validates once it is made"
        )
        func singleAssetProgramme() async throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("condition-single-\(UUID().uuidString.prefix(8))")
            try FileManager.default.copyItem(at: Repository.campaign("single-asset").deletingLastPathComponent(), to: folder)
            defer { try? FileManager.default.removeItem(at: folder) }
            // The way an ad ops team works: the ad written into the campaign (a pool, a rule), then made.
            let campaign = folder.appendingPathComponent("campaign.yaml")
            let yaml = try String(contentsOf: campaign, encoding: .utf8)
            let edited = yaml.replacingOccurrences(
                of: "    - { id: bravo, playlist: media/ads/bravo/master.m3u8 }\n",
                with: "    - { id: bravo, playlist: media/ads/bravo/master.m3u8 }\n    - { id: sd, playlist: sd/master.m3u8 }\n"
            ).replacingOccurrences(of: "rules:\n", with: "rules:\n  - { name: sd-first, when: {}, then: { boost: { sd: 4 } } }\n")
                // A break it fits (it runs 4.08 s: a whole number of the programme's segments).
                .replacingOccurrences(of: "{ id: late, at: 24.0, duration: 3.84,", with: "{ id: late, at: 24.0, duration: 5.76,")
            try #require(edited.contains("id: sd,") && edited.contains("boost: { sd: 4 }") && edited.contains("duration: 5.76,"))
            try Data(edited.utf8).write(to: campaign)
            let before = try await CLITests().adstitch(["validate", campaign.path])
            #expect(before.status == 1 && before.output.contains("sd/master.m3u8"), "the playlist is missing before: \(before.output)")
            let source = try await Self.creative(
                "sd",
                video: "testsrc=size=720x576:rate=30000/1001",
                audio: "sine=frequency=1000:sample_rate=48000,pan=mono|c0=c0",
                duration: "4.1",
                in: folder
            )
            let out = folder.appendingPathComponent("sd")
            let result = try await CLITests().adstitch(["condition", source.path, "--campaign", campaign.path, "--id", "sd", "--out", out.path])
            #expect(result.status == 0, "\(result.output)")
            #expect(!result.output.contains("warning") && !result.output.contains("error"), "\(result.output)")
            let master = out.appendingPathComponent("master.m3u8")
            let (segments, misses) = try Self.keyframesAtSegmentStarts(master)
            #expect(segments >= 4 && misses.isEmpty, "\(segments) segments; not on a keyframe: \(misses)")
            let loudness = try #require(try await Self.loudness(out.appendingPathComponent("v0/index.m3u8")))
            #expect(abs(loudness - -23) <= 1, "\(loudness) LUFS")
            print("↳ single-asset: \(result.output.split(separator: "\n").first ?? "")")
            let after = try await CLITests().adstitch(["validate", campaign.path])
            #expect(after.status == 0, "made, the ad loads: \(after.output)")
        }

        /// Gives every video variant of the multivariant playlist at `master` an I-frame playlist
        /// of whole segments (each starts on a keyframe in the demos), as packagers that lack
        /// byte-range I-frames write them.
        static func addIFramePlaylists(_ master: URL) throws {
            var text = try String(contentsOf: master, encoding: .utf8)
            let parsed = try PlaylistParser().parseMultivariantPlaylist(text, url: master)
            for variant in parsed.variants where !variant.streamInf.isAudioOnly {
                let uri = String(variant.uri)
                let url = master.deletingLastPathComponent().appendingPathComponent(uri)
                let playlist = try PlaylistParser().parseMediaPlaylist(String(contentsOf: url, encoding: .utf8), url: url)
                let map = playlist.segments.first?.map?.uri
                var lines = "#EXTM3U\n#EXT-X-VERSION:\(map == nil ? 4 : 6)\n#EXT-X-TARGETDURATION:\(playlist.targetDuration ?? 2)\n"
                lines += "#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-I-FRAMES-ONLY\n" + (map.map { "#EXT-X-MAP:URI=\"\($0)\"\n" } ?? "")
                for segment in playlist.segments {
                    let size = try Data(contentsOf: try #require(playlist.resolve(segment.uri))).count
                    lines += "#EXTINF:\(segment.duration),\n#EXT-X-BYTERANGE:\(size)@0\n\(segment.uri)\n"
                }
                try Data((lines + "#EXT-X-ENDLIST\n").utf8).write(to: url.deletingLastPathComponent().appendingPathComponent("iframes.m3u8"))
                let video = variant.streamInf.codecs.first { $0.hasPrefix("avc1") || $0.hasPrefix("hvc1") || $0.hasPrefix("hev1") } ?? "avc1.42c01e"
                let resolution = variant.streamInf.resolution.map { ",RESOLUTION=\($0.width)x\($0.height)" } ?? ""
                let folder = (uri as NSString).deletingLastPathComponent
                text +=
                    "#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=\(variant.streamInf.bandwidth ?? 1),CODECS=\"\(video)\"\(resolution),URI=\"\(folder.isEmpty ? "" : folder + "/")iframes.m3u8\"\n"
            }
            try Data(text.utf8).write(to: master)
        }

        /// Each entry of the I-frame playlist at `url`: whether its bytes alone (after the init
        /// section) decode to a keyframe first, and its share of its segment.
        static func iFrameEntries(_ url: URL) async throws -> [(keyframe: Bool, length: Int, segment: Int)] {
            let playlist = try PlaylistParser().parseMediaPlaylist(String(contentsOf: url, encoding: .utf8), url: url)
            let initURL = playlist.segments.first?.map?.uri.flatMap { playlist.resolve($0) }
            let initData = try initURL.map { try Data(contentsOf: $0) }
            var entries: [(Bool, Int, Int)] = []
            for segment in playlist.segments {
                let file = try #require(playlist.resolve(segment.uri))
                let whole = try Data(contentsOf: file)
                let range = try #require(segment.byteRange)
                let picture = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "picture-\(UUID().uuidString.prefix(8)).\(file.pathExtension)"
                )
                defer { try? FileManager.default.removeItem(at: picture) }
                let start = Int(range.offset ?? 0)
                try ((initData ?? Data()) + whole[start..<(start + Int(range.length))]).write(to: picture)
                let probe = try await Tool.run(
                    "ffprobe",
                    ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=key_frame", "-of", "csv=p=0", picture.path]
                )
                // `1`, or `1,` when the frame carries side data (x264's SEI on the first).
                let first = probe.output.split(separator: "\n").first.map { $0.trimmingCharacters(in: .whitespaces) }
                entries.append((first == "1" || first?.hasPrefix("1,") == true, Int(range.length), whole.count))
            }
            return entries
        }

        @Test(
            "a programme with I-frame playlists (TS single asset, fMP4 islands): each video rendition gets one whose byte ranges decode to a keyframe and hold less than the segment; it loads clean; a stitched session's I-frame playlist lists the ad's pictures, not gaps"
        )
        func iFramePlaylists() async throws {
            for (id, masters) in [
                ("single-asset", ["media/program/master.m3u8"]),
                ("feature-fmp4", ["media/program/act-1/master.m3u8", "media/program/act-2/master.m3u8"]),
            ] {
                let folder = FileManager.default.temporaryDirectory.appendingPathComponent("condition-iframes-\(UUID().uuidString.prefix(8))")
                try FileManager.default.copyItem(at: Repository.campaign(id).deletingLastPathComponent(), to: folder)
                defer { try? FileManager.default.removeItem(at: folder) }
                for master in masters { try Self.addIFramePlaylists(folder.appendingPathComponent(master)) }
                let campaign = folder.appendingPathComponent("campaign.yaml")
                let source = try await Self.creative(
                    "spot",
                    video: "testsrc2=size=1280x720:rate=25",
                    audio: "sine=frequency=440:sample_rate=48000",
                    duration: "3.84",
                    in: folder
                )
                let out = folder.appendingPathComponent("media/ads/spot")
                let result = try await CLITests().adstitch(["condition", source.path, "--campaign", campaign.path, "--id", "spot", "--out", out.path])
                #expect(result.status == 0, "\(id): \(result.output)")
                #expect(!result.output.contains("warning") && !result.output.contains("error"), "\(id): \(result.output)")
                let text = try String(contentsOf: out.appendingPathComponent("master.m3u8"), encoding: .utf8)
                let iFrameLines = text.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-I-FRAME-STREAM-INF:") }
                #expect(iFrameLines.count == 2, "\(id): \(text)")
                for index in 0..<2 {
                    let entries = try await Self.iFrameEntries(out.appendingPathComponent("v\(index)/iframes.m3u8"))
                    #expect(entries.count >= 2 && entries.allSatisfy(\.keyframe), "\(id) v\(index): \(entries)")
                    #expect(entries.allSatisfy { $0.length < $0.segment }, "\(id) v\(index): a picture, not its segment: \(entries)")
                }
                guard id == "single-asset" else { continue }
                // A session whose breaks play only it: its I-frame playlist names the ad's pictures.
                var yaml = try String(contentsOf: campaign, encoding: .utf8)
                yaml = yaml.replacingOccurrences(of: "\n  prime:\n", with: "\n  prime:\n    - { id: spot, playlist: media/ads/spot/master.m3u8 }\n")
                yaml = yaml.replacingOccurrences(
                    of: "\nrules:\n",
                    with: "\nrules:\n  - name: spot-only\n    when: {}\n    then: { exclude: ['^(?!spot$)'] }\n"
                )
                try Data(yaml.utf8).write(to: campaign)
                let session = folder.appendingPathComponent("session")
                let stitched = try await CLITests().adstitch(["stitch", campaign.path, "--out", session.path, "--session", "iframes"])
                #expect(stitched.status == 0, "\(stitched.output)")
                let iFramePlaylists = try FileManager.default.contentsOfDirectory(atPath: session.path).filter {
                    $0.hasPrefix("i") && $0.hasSuffix(".m3u8")
                }
                #expect(iFramePlaylists.count == 2, "\(iFramePlaylists)")
                for name in iFramePlaylists {
                    // Every segment of the ad listed as a byte range of its picture (the slate, which
                    // has no I-frame playlist, is the only gap).
                    let lines = try String(contentsOf: session.appendingPathComponent(name), encoding: .utf8).split(separator: "\n")
                    let adSegments = lines.indices.filter { lines[$0].contains("media/ads/spot/v") }
                    #expect(adSegments.count >= 4, "\(name): \(lines.joined(separator: "\n"))")
                    #expect(adSegments.allSatisfy { $0 >= 2 && lines[$0 - 2].hasPrefix("#EXT-X-BYTERANGE:") }, "\(name)")
                }
                print("↳ \(id): \(iFrameLines.count) I-frame playlists; a session lists the ad's pictures")
            }
        }

        @Test(
            "against an HEVC programme (fMP4, hvc1, 48 kHz AAC muxed): an H.264 creative becomes HEVC tagged hvc1 in fMP4, keyframes at every segment, and loads clean"
        )
        func hevcProgramme() async throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("condition-hevc-\(UUID().uuidString.prefix(8))")
            let programme = folder.appendingPathComponent("prog/v0")
            try FileManager.default.createDirectory(at: programme, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            // The programme: 7.68 s of HEVC at 640x360/25 fps in fMP4, a keyframe every 1.92 s segment.
            let made = try await Tool.run(
                "ffmpeg",
                [
                    "-nostdin", "-y", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25:duration=7.68", "-f", "lavfi", "-i",
                    "sine=sample_rate=48000:duration=7.68", "-c:v", "libx265", "-preset", "ultrafast", "-tag:v", "hvc1", "-x265-params",
                    "keyint=48:min-keyint=48:scenecut=0:log-level=error", "-b:v", "400k", "-c:a", "aac", "-b:a", "64k", "-shortest", "-f", "hls",
                    "-hls_time", "1.92", "-hls_segment_type", "fmp4", "-hls_playlist_type", "vod", "-hls_segment_filename",
                    programme.appendingPathComponent("seg_%03d.m4s").path, programme.appendingPathComponent("index.m3u8").path,
                ]
            )
            #expect(made.status == 0, "\(made.output)")
            try Data(
                """
                #EXTM3U
                #EXT-X-VERSION:7
                #EXT-X-INDEPENDENT-SEGMENTS
                #EXT-X-STREAM-INF:BANDWIDTH=900000,CODECS="hvc1.1.6.L90.B0,mp4a.40.2",RESOLUTION=640x360,FRAME-RATE=25.000
                v0/index.m3u8

                """.utf8
            ).write(to: folder.appendingPathComponent("prog/master.m3u8"))
            let campaign = folder.appendingPathComponent("campaign.yaml")
            try Data(
                """
                version: 1
                id: hevc
                program: { islands: [ { id: act-1, playlist: prog/master.m3u8 } ] }
                breaks:
                  - { id: post, after: act-1, duration: 8, pools: [main] }
                pools:
                  main:
                    - { id: itself, playlist: prog/master.m3u8 }

                """.utf8
            ).write(to: campaign)
            let source = try await Self.creative(
                "h264",
                video: "testsrc2=size=1280x720:rate=30",
                audio: "sine=frequency=440:sample_rate=44100",
                duration: "4.2",
                in: folder
            )
            let out = folder.appendingPathComponent("hevc-ad")
            let result = try await CLITests().adstitch(["condition", source.path, "--campaign", campaign.path, "--id", "hevc-ad", "--out", out.path])
            #expect(result.status == 0, "\(result.output)")
            #expect(!result.output.contains("warning") && !result.output.contains("error"), "\(result.output)")
            let master = out.appendingPathComponent("master.m3u8")
            let text = try String(contentsOf: master, encoding: .utf8)
            #expect(text.contains("CODECS=\"hvc1.1.6.L90.B0,mp4a.40.2\""), "\(text)")
            let (segments, misses) = try Self.keyframesAtSegmentStarts(master)
            #expect(segments >= 2 && misses.isEmpty, "\(segments) segments; not on a keyframe: \(misses)")
            // What ffprobe reads in the segments: HEVC, tagged hvc1, 48 kHz audio.
            let playlist = out.appendingPathComponent("v0/index.m3u8")
            let probe = try await Tool.run(
                "ffprobe",
                ["-v", "error", "-show_entries", "stream=codec_name,codec_tag_string,sample_rate", "-of", "csv=p=0", playlist.path]
            )
            #expect(probe.output.contains("hevc,hvc1") && probe.output.contains("48000"), "\(probe.output)")
            print("↳ HEVC: \(result.output.split(separator: "\n").first(where: { $0.contains("master.m3u8:") }) ?? "")")
        }

        @Test("a creative shorter than one programme segment, and one without video, are refused with what to do")
        func refusals() async throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("condition-bad-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let short = try await Self.creative(
                "short",
                video: "testsrc=size=320x240:rate=25",
                audio: "sine=frequency=440",
                duration: "1",
                in: folder
            )
            let tooShort = try await CLITests().adstitch([
                "condition", short.path, "--campaign", Repository.campaign("evening-news").path, "--out", folder.appendingPathComponent("a").path,
            ])
            #expect(tooShort.status == 1 && tooShort.output.contains("shorter than one programme segment (1.92 s)"), "\(tooShort.output)")
            let audioOnly = folder.appendingPathComponent("audio.m4a")
            #expect(
                try await Tool.run("ffmpeg", ["-nostdin", "-y", "-loglevel", "error", "-f", "lavfi", "-i", "sine=duration=5", audioOnly.path]).status
                    == 0
            )
            let noVideo = try await CLITests().adstitch([
                "condition", audioOnly.path, "--campaign", Repository.campaign("evening-news").path, "--out", folder.appendingPathComponent("b").path,
            ])
            #expect(noVideo.status == 1 && noVideo.output.contains("has no video stream"), "\(noVideo.output)")
        }
    }
}
