import AdCampaign
import AdMedia
import Foundation
import HLSPlaylist

/// Encodes a creative (an MP4 or any file ffmpeg reads, local or http(s)) into an HLS asset that
/// stitches with a programme (``ConditioningTarget``): one video rendition per programme video
/// variant — same codec, profile and level, resolution (scaled to fit, padded to keep the
/// aspect), frame rate; peak at or below the variant's BANDWIDTH; a keyframe at every segment
/// start, the programme's segment duration — audio in the programme's format (codec, channels,
/// sample rate), loudness normalised to `loudness` LUFS (EBU R128, ffmpeg's two-pass `loudnorm`),
/// muxed or demuxed as the programme is, in its container (MPEG-TS or fMP4); and a multivariant
/// playlist with CODECS, the measured BANDWIDTH and AVERAGE-BANDWIDTH, RESOLUTION and FRAME-RATE.
public struct Conditioner: Sendable {
    public var target: ConditioningTarget
    /// Integrated loudness to normalise to, LUFS (EBU R128: −23).
    public var loudness: Double
    public var ffmpeg: String
    public var probe: FFprobe
    /// x264/x265 preset: `veryfast` (measured: docs/performance.md "Conditioning").
    public var preset: String
    /// How long one encode may run before it is stopped.
    public var timeout: Duration
    /// Whether ffmpeg runs in the background (``MediaTool/background``): `serve`'s queue does.
    public var background = false
    /// Ends the encode early (a job cancelled or out of its time): `serve`'s queue gives one.
    public var stop: MediaTool.Stop?

    public init(
        target: ConditioningTarget,
        loudness: Double = -23,
        ffmpeg: String = "ffmpeg",
        preset: String = "veryfast",
        timeout: Duration = .seconds(1800)
    ) {
        self.target = target
        self.loudness = loudness
        self.ffmpeg = ffmpeg
        self.probe = FFprobe(timeout: .seconds(60))
        self.preset = preset
        self.timeout = timeout
    }

    /// One step done: a rendition's encode advanced to `fraction` (0…1) after `elapsed`.
    public struct Progress: Sendable {
        public var step: String
        public var index: Int
        public var count: Int
        public var fraction: Double
        public var elapsed: Duration
    }

    /// What was made.
    public struct Report: Sendable, Codable, Hashable {
        public struct Rendition: Sendable, Codable, Hashable {
            public var uri: String
            public var kind: String
            public var resolution: String?
            public var bandwidth: Int
            public var averageBandwidth: Int
            public var segments: Int
            /// Seconds the encode took.
            public var seconds: Double
        }

        public var creative: String
        public var master: String
        /// The conditioned duration, seconds (whole frames of the programme's rate).
        public var duration: String
        public var container: String
        public var renditions: [Rendition]
        /// I-frame playlists, one per video rendition (when the programme has them).
        public var iFrames: [Rendition] = []
        /// Integrated loudness of the creative's audio before, LUFS (nil: no audio).
        public var inputLoudness: Double?
        public var targetLoudness: Double
        /// Findings a person should know: silence added for a creative without audio…
        public var notes: [String]
        public var seconds: Double
    }

    /// How far a source may run from the duration its ad server announced before it is refused
    /// unencoded: a second, or a tenth of the announced duration when that is more.
    public static func durationTolerance(of announced: ExactDecimal) -> ExactDecimal {
        max(ExactDecimal(1), ExactDecimal(scaledValue: announced.scaledValue / 10))
    }

    /// Conditions `source` into `out` (created; its `master.m3u8` the asset's playlist). With
    /// `announced` (the VAST `<Duration>`), a source that runs otherwise (beyond
    /// ``durationTolerance(of:)``) is refused before anything is encoded: a ten-hour file sold as a
    /// 3.84 s ad is not encoded in full.
    public func condition(
        _ source: String,
        into out: URL,
        announced: ExactDecimal? = nil,
        progress: @escaping @Sendable (Progress) -> Void = { _ in }
    ) throws(ConditioningError)
        -> Report
    {
        let started = ContinuousClock.now
        let streams: [SegmentProbe.Stream]
        do {
            streams = try self.probe.streams(of: source)
        } catch {
            throw ConditioningError("cannot read the creative \(source): \(error.description)")
        }
        guard let video = streams.first(where: { $0.codecType == "video" }) else {
            throw ConditioningError("the creative \(source) has no video stream; an ad needs pictures for every programme variant")
        }
        let sourceAudio = streams.first { $0.codecType == "audio" }
        let durations = [video.duration, sourceAudio?.duration].compactMap { $0.flatMap { ExactDecimal($0) } }
        guard let sourceDuration = durations.min() else {
            throw ConditioningError("ffprobe reports no duration for \(source)")
        }
        if let announced, (sourceDuration - announced).magnitude > Self.durationTolerance(of: announced) {
            throw ConditioningError(
                "the creative \(source) runs \(sourceDuration) s, but its ad server says \(announced) s: not encoded (a source within \(Self.durationTolerance(of: announced)) s of its <Duration> is); fix the creative or its VAST",
                final: true
            )
        }
        // Whole frames of the programme's rate, so every rendition and the audio end together.
        let rateMilli = Self.milli(self.target.videos[0].frameRate)
        let frames = sourceDuration.scaledValue * rateMilli / (Self.unit * 1000)
        let duration = ExactDecimal(scaledValue: frames * 1000 * Self.unit / rateMilli)
        guard duration >= self.target.segmentDuration else {
            throw ConditioningError(
                "the creative \(source) runs \(sourceDuration) s, shorter than one programme segment (\(self.target.segmentDuration) s): an ad must fill at least one segment"
            )
        }
        var notes: [String] = []
        let hasAudio = sourceAudio != nil
        if !hasAudio, self.target.audioCodec != nil || !self.target.audios.isEmpty {
            notes.append("the creative has no audio: silence was added, since the programme has audio")
        }
        do {
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        } catch {
            throw ConditioningError("cannot create \(out.path): \(error)")
        }
        let measured = hasAudio ? try self.measureLoudness(source, duration: duration) : nil
        let steps = self.target.videos.count + Set(self.target.audios.map(\.channels)).count
        var renditions: [Report.Rendition] = []
        let muxed = self.target.audios.isEmpty
        for (index, variant) in self.target.videos.enumerated() {
            let name = "v\(index)"
            let begun = ContinuousClock.now
            let withAudio = muxed && self.target.audioCodec != nil
            let audioBits = self.target.audioCodec == nil ? 0 : Self.audioBitrate(self.target.channels, bandwidth: variant.bandwidth)
            // The variant's peak must stay at or below BANDWIDTH (its audio rendition's included
            // when demuxed, estimated with the container's share).
            let limit = variant.bandwidth - (muxed ? 0 : audioBits * 23 / 20)
            // MPEG-TS costs more at these rates (188-byte packets, PES headers, PAT/PMT): measured
            // ~20 % over the encoder's rate on the demo's rungs, against ~5 % for fMP4.
            let share = self.target.container == .mpegTS ? 0.6 : 0.75
            var videoBits = max(48_000, Int(Double(limit - (withAudio ? audioBits : 0)) * share))
            var rendition: Report.Rendition?
            // A second (and third) encode at a lower rate when the measured peak is above the
            // limit: the container's overhead and the encoder's rate control are measured, not guessed.
            for attempt in 1...3 {
                try? FileManager.default.removeItem(at: out.appendingPathComponent(name))
                var arguments = self.inputs(source, hasAudio: hasAudio, audioWanted: withAudio, channels: self.target.channels)
                arguments += ["-t", duration.description, "-map", "0:v:0"]
                arguments += self.videoOptions(variant, bits: videoBits, duration: duration)
                if withAudio {
                    arguments += ["-map", hasAudio ? "0:a:0" : "1:a:0"]
                    arguments += self.audioOptions(channels: self.target.channels, bits: audioBits, duration: duration, measured: measured)
                } else {
                    arguments += ["-an"]
                }
                arguments += self.hlsOptions(out.appendingPathComponent(name))
                let step = "video \(variant.width)x\(variant.height)" + (attempt > 1 ? " (again, at \(videoBits / 1000) kbit/s)" : "")
                try self.encode(arguments, duration: duration, step: step, index: renditions.count, count: steps, progress: progress)
                let made = try self.measure(
                    out,
                    name: name,
                    kind: muxed ? "video+audio" : "video",
                    resolution: "\(variant.width)x\(variant.height)",
                    since: begun
                )
                rendition = made
                guard made.bandwidth > limit, attempt < 3 else { break }
                videoBits = max(
                    32_000,
                    Int(
                        Double(videoBits) * Double(limit - (withAudio ? audioBits : 0)) / Double(max(1, made.bandwidth - (withAudio ? audioBits : 0)))
                            * 0.9
                    )
                )
            }
            if let rendition {
                if rendition.bandwidth > limit {
                    notes.append(
                        "\(name) peaks at \(rendition.bandwidth) bit/s, above the programme variant's \(limit); its rate is as low as this encoder goes"
                    )
                }
                renditions.append(rendition)
            }
        }
        // Demuxed audio: one encode per channel count, shared by the renditions that have it.
        var audioFolders: [Int: String] = [:]
        for channels in self.target.audios.map(\.channels) where audioFolders[channels] == nil {
            let name = "audio\(channels)ch"
            let begun = ContinuousClock.now
            var arguments = self.inputs(source, hasAudio: hasAudio, audioWanted: true, channels: channels)
            arguments += ["-t", duration.description, "-map", hasAudio ? "0:a:0" : "1:a:0", "-vn"]
            let lowest = self.target.videos.map(\.bandwidth).min() ?? 1_000_000
            arguments += self.audioOptions(
                channels: channels,
                bits: Self.audioBitrate(channels, bandwidth: lowest),
                duration: duration,
                measured: measured
            )
            arguments += self.hlsOptions(out.appendingPathComponent(name))
            try self.encode(
                arguments,
                duration: duration,
                step: "audio \(channels) channels",
                index: renditions.count,
                count: steps,
                progress: progress
            )
            renditions.append(try self.measure(out, name: name, kind: "audio", resolution: nil, since: begun))
            audioFolders[channels] = name
        }
        // I-frame playlists: every segment starts on a keyframe, so each lists that one picture.
        var iFrames: [Report.Rendition] = []
        if self.target.iFrames {
            for (index, variant) in self.target.videos.enumerated() {
                iFrames.append(try self.iFramePlaylist(out, name: "v\(index)", resolution: "\(variant.width)x\(variant.height)"))
            }
        }
        let master = out.appendingPathComponent("master.m3u8")
        do {
            try Data(self.masterPlaylist(renditions, audioFolders: audioFolders, iFrames: iFrames).utf8).write(to: master, options: .atomic)
        } catch {
            throw ConditioningError("cannot write \(master.path): \(error)")
        }
        return Report(
            creative: source,
            master: master.path,
            duration: duration.description,
            container: self.target.container.rawValue,
            renditions: renditions,
            iFrames: iFrames,
            inputLoudness: measured?.inputI,
            targetLoudness: self.loudness,
            notes: notes,
            seconds: Self.seconds(ContinuousClock.now - started)
        )
    }

    // MARK: - ffmpeg arguments

    private func inputs(_ source: String, hasAudio: Bool, audioWanted: Bool, channels: Int) -> [String] {
        var arguments = ["-nostdin", "-y", "-hide_banner", "-loglevel", "error", "-progress", "pipe:1", "-nostats", "-i", source]
        if audioWanted, !hasAudio {
            arguments += ["-f", "lavfi", "-i", "anullsrc=r=\(self.target.sampleRate):cl=\(Self.layout(channels))"]
        }
        return arguments
    }

    /// How many segment starts get a keyframe: one per whole segment, and one for a tail, unless
    /// the tail is so short that the segment before it can hold it and still round to the
    /// programme's segment duration (RFC 8216bis §4.4.3.1) — a fraction of a second starting on a
    /// keyframe would peak far above BANDWIDTH (an HEVC rung of a 4.2 s creative did: its 0.36 s
    /// tail).
    static func keyframeCount(duration: ExactDecimal, segment: ExactDecimal) -> Int {
        guard segment > .zero else { return 1 }
        let whole = Int(duration.scaledValue / segment.scaledValue)
        let tail = duration - ExactDecimal(scaledValue: segment.scaledValue * Int128(whole))
        guard tail > .zero else { return max(1, whole) }
        let rounds = { (value: ExactDecimal) in Int((value.scaledValue + Self.unit / 2) / Self.unit) }
        return whole >= 1 && rounds(segment + tail) <= rounds(segment) ? whole : whole + 1
    }

    private func videoOptions(_ variant: ConditioningTarget.Video, bits videoBits: Int, duration: ExactDecimal) -> [String] {
        let (width, height) = (variant.width, variant.height)
        let filter =
            "scale=\(width):\(height):force_original_aspect_ratio=decrease,pad=\(width):\(height):(ow-iw)/2:(oh-ih)/2,setsar=1,fps=\(variant.frameRate),format=yuv420p"
        let segment = self.target.segmentDuration
        let gop = max(1, Int((segment.scaledValue * Self.milli(variant.frameRate) + Self.unit * 500) / (Self.unit * 1000)))
        // Keyframes at segment starts only (no scene cuts), the longest GOP twice a segment, so a
        // merged tail needs no keyframe of its own.
        let keyframes = Self.keyframeCount(duration: duration, segment: segment)
        var arguments = [
            "-vf", filter, "-sc_threshold", "0", "-force_key_frames", "expr:gte(t,n_forced*\(segment))*lt(n_forced,\(keyframes))",
        ]
        arguments += ["-b:v", "\(videoBits)", "-maxrate", "\(videoBits)", "-bufsize", "\(videoBits)"]
        if CodecFamily.video(of: [variant.videoCodec]) == .hevc {
            arguments += [
                "-c:v", "libx265", "-preset", self.preset, "-tag:v", "hvc1", "-x265-params",
                // VBV stated to x265 itself: ffmpeg's -maxrate/-bufsize did not bound its peaks
                // (an HEVC rung came out 5 % over BANDWIDTH after three encodes).
                "keyint=\(2 * gop):min-keyint=\(gop):scenecut=0:log-level=error:vbv-maxrate=\(videoBits / 1000):vbv-bufsize=\(videoBits / 1000)",
            ]
        } else {
            arguments += ["-c:v", "libx264", "-preset", self.preset, "-g", "\(2 * gop)", "-keyint_min", "\(gop)"]
            if let (profile, level) = ConditioningTarget.h264Profile(variant.videoCodec) { arguments += ["-profile:v", profile, "-level:v", level] }
        }
        return arguments
    }

    private func audioOptions(channels: Int, bits: Int, duration: ExactDecimal, measured: Loudness?) -> [String] {
        var filters: [String] = []
        if let measured {
            filters.append(
                "loudnorm=I=\(self.loudness):TP=-1.5:LRA=11:measured_I=\(measured.inputI):measured_TP=\(measured.inputTP):measured_LRA=\(measured.inputLRA)"
                    + ":measured_thresh=\(measured.inputThresh):offset=\(measured.offset):linear=true"
            )
        }
        // AAC adds 1,024 samples of priming: trimmed, so the audio ends with the video.
        let samples = max(1, Int(duration.scaledValue * Int128(self.target.sampleRate) / Self.unit) - 1024)
        filters += [
            "aresample=\(self.target.sampleRate)", "apad", "atrim=end_sample=\(samples)",
            "aformat=sample_fmts=fltp:channel_layouts=\(Self.layout(channels))",
        ]
        let codec: String
        switch CodecFamily.audio(of: [self.target.audioCodec ?? "mp4a.40.2"]).first {
        case .ac3?: codec = "ac3"
        case .eac3?: codec = "eac3"
        default: codec = "aac"
        }
        return ["-af", filters.joined(separator: ","), "-c:a", codec, "-b:a", "\(bits)", "-ar", "\(self.target.sampleRate)", "-ac", "\(channels)"]
    }

    private func hlsOptions(_ folder: URL) -> [String] {
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var arguments = ["-f", "hls", "-hls_time", self.target.segmentDuration.description, "-hls_playlist_type", "vod", "-hls_list_size", "0"]
        if self.target.container == .fragmentedMP4 {
            arguments += ["-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4"]
            arguments += ["-hls_segment_filename", folder.appendingPathComponent("seg_%03d.m4s").path]
        } else {
            arguments += ["-hls_segment_type", "mpegts", "-hls_segment_filename", folder.appendingPathComponent("seg_%03d.ts").path]
        }
        return arguments + [folder.appendingPathComponent("index.m3u8").path]
    }

    /// One second in ``ExactDecimal/scaledValue`` units.
    static let unit = Int128(1_000_000_000_000_000_000)

    /// Thousandths of `rate` (FRAME-RATE has at most three decimals).
    static func milli(_ rate: ExactDecimal) -> Int128 { max(1, rate.scaledValue / (Self.unit / 1000)) }

    static func layout(_ channels: Int) -> String {
        switch channels {
        case 1: "mono"
        case 6: "5.1"
        case 8: "7.1"
        default: "stereo"
        }
    }

    /// The audio's bit rate: a low rung's share is small (64 kbit/s stereo under 1 Mbit/s, as the
    /// demos and most low rungs carry), else 128 kbit/s stereo; multichannel 192 or 384 kbit/s.
    static func audioBitrate(_ channels: Int, bandwidth: Int) -> Int {
        channels > 2 ? (bandwidth < 2_000_000 ? 192_000 : 384_000) : (bandwidth < 1_000_000 ? 64_000 : 128_000)
    }

    // MARK: - Running ffmpeg

    private func encode(
        _ arguments: [String],
        duration: ExactDecimal,
        step: String,
        index: Int,
        count: Int,
        progress: @escaping @Sendable (Progress) -> Void
    ) throws(ConditioningError) {
        let begun = ContinuousClock.now
        let total = max(duration.doubleValue, 0.001)
        progress(Progress(step: step, index: index, count: count, fraction: 0, elapsed: .zero))
        let outcome: MediaTool.Outcome
        do {
            outcome = try MediaTool(executable: self.ffmpeg, timeout: self.timeout, background: self.background, stop: self.stop).run(arguments) {
                line in
                // `-progress` writes key=value lines; out_time_us is how far the encode got.
                guard line.hasPrefix("out_time_us="), let micros = Double(line.dropFirst("out_time_us=".count)) else { return }
                progress(
                    Progress(step: step, index: index, count: count, fraction: min(1, micros / 1e6 / total), elapsed: ContinuousClock.now - begun)
                )
            }
        } catch {
            throw ConditioningError(error.description)
        }
        guard outcome.status == 0 else {
            throw ConditioningError(
                "ffmpeg could not encode the \(step) rendition: \(outcome.errors.split(separator: "\n").suffix(3).joined(separator: "; "))"
            )
        }
        progress(Progress(step: step, index: index, count: count, fraction: 1, elapsed: ContinuousClock.now - begun))
    }

    /// ffmpeg's `loudnorm` first pass: what the creative measures (EBU R128).
    struct Loudness {
        var inputI: Double
        var inputTP: Double
        var inputLRA: Double
        var inputThresh: Double
        var offset: Double
    }

    private func measureLoudness(_ source: String, duration: ExactDecimal) throws(ConditioningError) -> Loudness? {
        let arguments = [
            "-nostdin", "-hide_banner", "-i", source, "-t", duration.description, "-vn", "-af",
            "loudnorm=I=\(self.loudness):TP=-1.5:LRA=11:print_format=json", "-f", "null", "-",
        ]
        let outcome: MediaTool.Outcome
        do {
            outcome = try MediaTool(executable: self.ffmpeg, timeout: self.timeout, background: self.background, stop: self.stop).run(arguments)
        } catch {
            throw ConditioningError(error.description)
        }
        guard outcome.status == 0, let open = outcome.errors.range(of: "{", options: .backwards),
            let close = outcome.errors.range(of: "}", options: .backwards), open.lowerBound < close.lowerBound
        else {
            throw ConditioningError(
                "ffmpeg could not measure the loudness of \(source): \(outcome.errors.split(separator: "\n").suffix(2).joined(separator: "; "))"
            )
        }
        let json = outcome.errors[open.lowerBound...close.lowerBound]
        guard let fields = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: String],
            let inputI = fields["input_i"].flatMap(Double.init), let inputTP = fields["input_tp"].flatMap(Double.init),
            let inputLRA = fields["input_lra"].flatMap(Double.init), let inputThresh = fields["input_thresh"].flatMap(Double.init),
            let offset = fields["target_offset"].flatMap(Double.init)
        else {
            // Silence measures -inf: nothing to normalise.
            return nil
        }
        return Loudness(inputI: inputI, inputTP: inputTP, inputLRA: inputLRA, inputThresh: inputThresh, offset: offset)
    }

    // MARK: - Measuring and the master playlist

    /// A rendition's peak (the largest segment's bits over its duration) and average bit rates.
    private func measure(
        _ out: URL,
        name: String,
        kind: String,
        resolution: String?,
        since begun: ContinuousClock.Instant
    ) throws(ConditioningError)
        -> Report.Rendition
    {
        let playlist = try Self.renditionPlaylist(out, name: name)
        var peak = 0
        var bits = 0
        var seconds = ExactDecimal.zero
        let initBytes = playlist.segments.first?.map?.uri.flatMap { playlist.resolve($0) }.flatMap(Self.size) ?? 0
        for segment in playlist.segments {
            guard let url = playlist.resolve(segment.uri), let size = Self.size(url) else { continue }
            let duration = max(segment.duration.doubleValue, 0.001)
            peak = max(peak, Int((Double((size + initBytes) * 8) / duration).rounded(.up)))
            bits += size * 8
            seconds += segment.duration
        }
        return Report.Rendition(
            uri: "\(name)/index.m3u8",
            kind: kind,
            resolution: resolution,
            bandwidth: peak,
            averageBandwidth: seconds > .zero ? Int((Double(bits) / seconds.doubleValue).rounded(.up)) : peak,
            segments: playlist.segments.count,
            seconds: Self.seconds(ContinuousClock.now - begun)
        )
    }

    /// The media playlist ffmpeg wrote for rendition `name` (`name/index.m3u8`).
    static func renditionPlaylist(_ out: URL, name: String) throws(ConditioningError) -> MediaPlaylist {
        let url = out.appendingPathComponent(name).appendingPathComponent("index.m3u8")
        do {
            return try PlaylistParser().parseMediaPlaylist(String(contentsOf: url, encoding: .utf8), url: url)
        } catch {
            throw ConditioningError("ffmpeg's playlist \(url.path) does not parse: \(error)")
        }
    }

    static func size(_ url: URL) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// The multivariant playlist: the programme's CODECS per variant (the encode matches them),
    /// the measured rates (a variant's with its largest audio rendition's, when demuxed). Written
    /// through HLSPlaylist's tags: a programme's rendition NAME or LANGUAGE holding a quote or a
    /// line break still writes a playlist that parses (``AttributeList/quotable(_:name:)``).
    func masterPlaylist(_ renditions: [Report.Rendition], audioFolders: [Int: String], iFrames: [Report.Rendition] = []) -> String {
        var lines: [PlaylistLine] = [
            .init(.tag(.m3u)), .init(.tag(.version(self.target.container == .fragmentedMP4 ? 6 : 3))), .init(.tag(.independentSegments)),
        ]
        let audioPeaks = renditions.filter { $0.kind == "audio" }
        for audio in self.target.audios {
            var attributes = AttributeList()
            attributes.set("TYPE", rawValue: "AUDIO")
            attributes.setQuoted("GROUP-ID", audio.groupID)
            attributes.setQuoted("NAME", audio.name)
            attributes.setQuoted("LANGUAGE", audio.language)
            attributes.set("DEFAULT", rawValue: audio.isDefault ? "YES" : "NO")
            attributes.set("AUTOSELECT", rawValue: "YES")
            attributes.setQuoted("CHANNELS", String(audio.channels))
            attributes.setQuoted("URI", "\(audioFolders[audio.channels] ?? "audio2ch")/index.m3u8")
            lines.append(.init(.tag(.media(Media(attributes: attributes)))))
        }
        let audioPeak = audioPeaks.map(\.bandwidth).max() ?? 0
        let audioAverage = audioPeaks.map(\.averageBandwidth).max() ?? 0
        for (variant, rendition) in zip(self.target.videos, renditions.filter { $0.kind != "audio" }) {
            var attributes = AttributeList()
            attributes.set("BANDWIDTH", rawValue: String(rendition.bandwidth + audioPeak))
            attributes.set("AVERAGE-BANDWIDTH", rawValue: String(rendition.averageBandwidth + audioAverage))
            attributes.setQuoted("CODECS", variant.codecs.joined(separator: ","))
            attributes.set("RESOLUTION", rawValue: "\(variant.width)x\(variant.height)")
            attributes.set("FRAME-RATE", rawValue: variant.frameRate.formatted(minimumFractionDigits: 3))
            if let group = variant.audioGroup, !self.target.audios.isEmpty { attributes.setQuoted("AUDIO", group) }
            lines.append(.init(.tag(.streamInf(StreamInf(attributes: attributes)))))
            lines.append(.init(.uri(Substring(rendition.uri))))
        }
        for (variant, iFrame) in zip(self.target.videos, iFrames) {
            var attributes = AttributeList()
            attributes.set("BANDWIDTH", rawValue: String(iFrame.bandwidth))
            attributes.set("AVERAGE-BANDWIDTH", rawValue: String(iFrame.averageBandwidth))
            attributes.setQuoted("CODECS", variant.videoCodec)
            attributes.set("RESOLUTION", rawValue: "\(variant.width)x\(variant.height)")
            attributes.setQuoted("URI", iFrame.uri)
            lines.append(.init(.tag(.iFrameStreamInf(IFrameStreamInf(attributes: attributes)))))
        }
        return PlaylistWriter().write(lines: lines)
    }
}
