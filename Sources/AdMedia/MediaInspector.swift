import AdCampaign
import Foundation
import HLSPlaylist
import Synchronization

/// `adstitch validate --media`: looks inside the segments of every piece a campaign may play —
/// islands (or the programme asset), ads and the slate — in every variant and audio rendition,
/// where playlists alone cannot tell whether a splice will play.
///
/// The first and the last segment of each rendition are probed (ffprobe; a piece starts at its
/// first after a discontinuity, and an encoder that cuts by time shows it by the last): the first
/// video frame a keyframe, PAT and PMT ahead of the media (MPEG-TS), the codecs found against
/// CODECS, and where audio starts against video. The peak bit rate is measured over every segment
/// (sizes over EXTINF durations, as RFC 8216bis §4.4.6.2 defines the peak) against BANDWIDTH.
public struct MediaInspector: Sendable {
    public var prober: FFprobe
    /// How far apart audio and video may start in a piece: two frames of B-frame delay and AAC
    /// priming stay well below it; a stall at the splice comes from more.
    public var skewTolerance: ExactDecimal
    /// How far a measured peak may exceed BANDWIDTH, in percent, before it is an error (above 0,
    /// a warning): container overhead varies by muxer; mediastreamvalidator allows 10 %.
    public var bandwidthTolerance: Int
    /// How many probes run at once.
    public var parallelism: Int

    public init(
        prober: FFprobe = FFprobe(),
        skewTolerance: ExactDecimal = ExactDecimal(significand: 2, exponent: 1),
        bandwidthTolerance: Int = 10,
        parallelism: Int = 2
    ) {
        self.prober = prober
        self.skewTolerance = skewTolerance
        self.bandwidthTolerance = bandwidthTolerance
        self.parallelism = parallelism
    }

    /// One rendition of one piece, as the report names it.
    struct Target: Sendable {
        let asset: String
        let rendition: String
        let playlist: MediaPlaylist
        /// The CODECS that promise what its segments carry.
        let codecs: [String]
        /// Variants: BANDWIDTH, and the audio renditions of their group (counted in the peak).
        let bandwidth: Int?
        let audio: [MediaPlaylist]
        let isVideo: Bool
    }

    /// Inspects `campaign`, calling `progress` with probes done and probes in all after each.
    public func inspect(_ campaign: Campaign, progress: @Sendable (Int, Int) -> Void = { _, _ in }) -> MediaReport {
        var report = MediaReport(campaign: campaign.id)
        let targets = Self.targets(of: campaign, report: &report)
        // Every probe to run: the first and last segment of each target.
        let jobs: [(target: Int, segment: Int)] = targets.enumerated().flatMap { index, target in
            let count = target.playlist.segments.count
            return Set([0, count - 1]).sorted().filter { $0 >= 0 }.map { (index, $0) }
        }
        let results = Mutex<[Int: Result<SegmentProbe, MediaProbeError>]>([:])
        let done = Atomic<Int>(0)
        let total = jobs.count
        let workers = max(1, min(self.parallelism, total))
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            for job in stride(from: worker, to: total, by: workers) {
                let (target, index) = jobs[job]
                let playlist = targets[target].playlist
                let segment = playlist.segments[index]
                let result: Result<SegmentProbe, MediaProbeError> =
                    FFprobe.canProbe(segment)
                    ? Result { () throws(MediaProbeError) in try self.prober.probe(segment, of: playlist) }
                    : .failure(
                        MediaProbeError(
                            description: "encrypted for a DRM (\(segment.keys.compactMap(\.method?.rawValue).joined(separator: ", "))): not probed"
                        )
                    )
                results.withLock { $0[job] = result }
                progress(done.add(1, ordering: .relaxed).newValue, total)
            }
        }
        let probes = results.withLock { $0 }
        report.probed = probes.values.filter { if case .success = $0 { true } else { false } }.count
        var firstStarts: [String: (video: Double?, audio: Double?)] = [:]
        for (index, target) in targets.enumerated() {
            var measurement = RenditionMeasurement(asset: target.asset, rendition: target.rendition, playlist: Self.path(target.playlist.url))
            measurement.declaredBandwidth = target.bandwidth
            for (job, (owner, segmentIndex)) in jobs.enumerated() where owner == index {
                let segment = target.playlist.segments[segmentIndex]
                let file = FFprobe.location(segment, in: target.playlist)
                measurement.probedSegments.append(file)
                switch probes[job] {
                case .failure(let error)?:
                    let drm = !FFprobe.canProbe(segment)
                    report.add(
                        drm ? .note : .error,
                        .probe,
                        target,
                        file: file,
                        error.description + (drm ? "" : "; check the file plays (ffplay) and is what its playlist says")
                    )
                case .success(let probe)?:
                    self.check(probe, segment: segment, index: segmentIndex, file: file, target: target, into: &report, measurement: &measurement)
                    if segmentIndex == 0 {
                        let start = { (stream: SegmentProbe.Stream?) in stream?.startTime.flatMap(Double.init) }
                        var starts = firstStarts[target.asset] ?? (nil, nil)
                        if target.isVideo, starts.video == nil { starts.video = start(probe.video) }
                        if starts.audio == nil { starts.audio = start(probe.audio) }
                        firstStarts[target.asset] = starts
                        if let video = start(probe.video), let audio = start(probe.audio) { measurement.audioStartsAfterVideo = audio - video }
                    }
                case nil:
                    break
                }
            }
            if target.isVideo { self.checkPeak(target, into: &report, measurement: &measurement) }
            report.renditions.append(measurement)
        }
        // Audio against video where each piece starts: muxed in one segment, or demuxed in two.
        for (asset, starts) in firstStarts.sorted(by: { $0.key < $1.key }) {
            guard let video = starts.video, let audio = starts.audio else { continue }
            let skew = audio - video
            guard abs(skew) > self.skewTolerance.doubleValue else { continue }
            let first = targets.first { $0.asset == asset }
            report.findings.append(
                MediaFinding(
                    severity: .warning,
                    check: .skew,
                    asset: asset,
                    rendition: first?.rendition ?? "",
                    file: first.map { Self.path($0.playlist.url) } ?? "",
                    message: "\(asset)'s audio starts \(Self.seconds(abs(skew))) s \(skew > 0 ? "after" : "before") its video "
                        + "(video at \(Self.seconds(video)) s, audio at \(Self.seconds(audio)) s; tolerance \(self.skewTolerance) s): players "
                        + "stall or drop audio at the splice into it; encode audio and video to start together (ffmpeg: drop -itsoffset, "
                        + "-af aresample=async=1, or trim both to one start)"
                )
            )
        }
        report.findings.sort { ($0.severity.rank, $0.asset, $0.rendition, $0.file) < ($1.severity.rank, $1.asset, $1.rendition, $1.file) }
        return report
    }

    /// What the campaign plays, rendition by rendition: every variant with its BANDWIDTH and audio
    /// group, and every audio rendition. Subtitles and I-frame playlists are not media to probe
    /// here (text, and byte ranges of the video segments); a live channel's window moves.
    static func targets(of campaign: Campaign, report: inout MediaReport) -> [Target] {
        var assets: [(String, Asset)] = []
        switch campaign.programme {
        case .islands(let islands): assets += islands.map { ("island \"\($0.id)\"", $0.asset) }
        case .asset(let programme, _): assets.append(("the programme", programme))
        case .live(let live):
            report.notes.append("the live channel \(live.asset.url.absoluteString) is not probed: its window moves; its ads and slate are")
        case .catalogue(let catalogue):
            report.notes.append(
                "the titles below \(catalogue.prefix.absoluteString) are not probed: they load as viewers start them; the ads and slate are"
            )
        }
        assets += campaign.ads.map { ("ad \"\($0.id)\"", $0.asset) }
        if let slate = campaign.slate { assets.append(("the slate", slate)) }
        var seen: Set<URL> = []
        var targets: [Target] = []
        for (name, asset) in assets where seen.insert(asset.url).inserted {
            for variant in asset.variants {
                let audio = asset.audioRenditions.filter { $0.media.groupID != nil && $0.media.groupID == variant.streamInf.audio }.compactMap(
                    \.playlist
                )
                targets.append(
                    Target(
                        asset: name,
                        rendition: "variant \(Self.describe(variant.streamInf))",
                        playlist: variant.playlist,
                        codecs: variant.streamInf.codecs,
                        bandwidth: variant.streamInf.bandwidth,
                        audio: audio,
                        isVideo: !variant.streamInf.isAudioOnly
                    )
                )
            }
            for rendition in asset.audioRenditions {
                guard let playlist = rendition.playlist else { continue }
                targets.append(
                    Target(
                        asset: name,
                        rendition: "audio \"\(rendition.media.name ?? "")\" (group \(rendition.media.groupID ?? ""))",
                        playlist: playlist,
                        codecs: asset.audioCodecs(ofGroup: rendition.media.groupID),
                        bandwidth: nil,
                        audio: [],
                        isVideo: false
                    )
                )
            }
        }
        return targets
    }

    /// The checks of one probed segment: a keyframe first, PAT and PMT first, codecs as declared.
    private func check(
        _ probe: SegmentProbe,
        segment: MediaSegment,
        index: Int,
        file: String,
        target: Target,
        into report: inout MediaReport,
        measurement: inout RenditionMeasurement
    ) {
        let isTransportStream = segment.map == nil
        if isTransportStream, segment.keys.allSatisfy({ $0.method == .noEncryption }), let bytes = Self.bytes(of: segment, in: target.playlist) {
            switch TransportStreamTables(bytes) {
            case .leading:
                break
            case .late(let packet):
                report.add(
                    .warning,
                    .tables,
                    target,
                    file: file,
                    "the PMT comes after media (packet \(packet) carries media first): a player starting here drops what precedes it; "
                        + "remux so PAT and PMT are the first two packets (ffmpeg -c copy -f mpegts)"
                )
            case .missing(let pat):
                report.add(
                    .error,
                    .tables,
                    target,
                    file: file,
                    "no \(pat ? "PMT for the program its PAT names" : "PAT") in the segment: a player starting here — every splice does — "
                        + "cannot find its streams (RFC 8216 §3.2); remux each segment with PAT and PMT first (ffmpeg -c copy -f hls)"
                )
            case .notTransportStream:
                report.add(.error, .tables, target, file: file, "not MPEG-TS (no 0x47 sync byte every 188 bytes), yet its playlist has no EXT-X-MAP")
            }
        }
        if probe.streams.isEmpty {
            report.add(.error, .probe, target, file: file, "ffprobe found no audio or video streams in it; check the file is a media segment")
            return
        }
        if target.isVideo, let first = probe.firstVideoPacket, !first.isKeyframe {
            report.add(
                .error,
                .keyframe,
                target,
                file: file,
                "segment \(index) does not start with a keyframe (its first video frame, at \(first.ptsTime ?? "?") s, is not a random "
                    + "access point): a player joining or splicing here shows broken pictures or waits for the next keyframe; encode "
                    + "with a keyframe at every segment start (ffmpeg: -force_key_frames \"expr:gte(t,n_forced*\(segment.duration))\", "
                    + "and no -hls_flags split_by_time)"
            )
        }
        guard index == 0 else { return }
        measurement.probedCodecs = probe.streams.compactMap { stream in
            guard let name = stream.codecName else { return nil }
            return [name, stream.profile, stream.level.map { "level \($0)" }].compactMap { $0 }.joined(separator: " ")
        }
        for stream in probe.streams where stream.codecType == "video" || stream.codecType == "audio" {
            guard let found = stream.codecName.flatMap(Self.family(ofProbed:)) else { continue }
            let declared = target.codecs.filter { CodecFamily(codec: $0) == found }
            guard !target.codecs.isEmpty else { continue }
            guard let entry = declared.first else {
                report.add(
                    .error,
                    .codecs,
                    target,
                    file: file,
                    "carries \(stream.codecName ?? "") \(stream.codecType ?? "") but CODECS=\"\(target.codecs.joined(separator: ","))\" does not list it: "
                        + "players choose renditions by CODECS and set up the wrong decoder; declare the codec the media carries"
                )
                continue
            }
            if let mismatch = Self.profileMismatch(entry, stream) {
                report.add(
                    .warning,
                    .codecs,
                    target,
                    file: file,
                    "CODECS declares \(entry) but the stream is \(mismatch); declare what the media carries"
                )
            }
        }
    }

    /// The peak segment bit rate of a variant — its video (or muxed) segments, plus its audio
    /// group's renditions segment by segment — against BANDWIDTH. Local files only: a remote
    /// segment's size would take a request per segment.
    private func checkPeak(_ target: Target, into report: inout MediaReport, measurement: inout RenditionMeasurement) {
        guard var rates = Self.peakRates(target.playlist) else {
            report.notes.append("\(target.asset) \(target.rendition): peak not measured (remote or missing segments)")
            return
        }
        // The audio a variant plays with it: the group's heaviest rendition, segment by segment
        // when they line up, else its peak throughout (an upper bound).
        let audio = target.audio.compactMap(Self.peakRates).max { ($0.max() ?? 0) < ($1.max() ?? 0) }
        if let audio {
            if audio.count == rates.count {
                rates = zip(rates, audio).map { $0 + $1 }
            } else {
                let peak = audio.max() ?? 0
                rates = rates.map { $0 + peak }
            }
        }
        guard let peak = rates.max(), let heaviest = rates.firstIndex(of: peak) else { return }
        measurement.measuredPeak = peak
        guard let declared = target.bandwidth, peak > declared else { return }
        let over = (peak - declared) * 100 / max(declared, 1)
        let segment = target.playlist.segments[heaviest]
        report.add(
            over >= self.bandwidthTolerance ? .error : .warning,
            .bandwidth,
            target,
            file: FFprobe.location(segment, in: target.playlist),
            "measured peak \(peak) b/s (segment \(heaviest), \(segment.duration) s\(audio == nil ? "" : ", with its audio")) exceeds BANDWIDTH=\(declared) "
                + "by \(over) %: a player that picks this variant by BANDWIDTH runs out of throughput and stalls; declare "
                + "BANDWIDTH=\(peak) or more (RFC 8216bis §4.4.6.2: the peak segment bit rate)"
        )
    }

    /// Each segment's bit rate (bits over its EXTINF duration, rounded up, in integers); nil when a
    /// segment is not a readable local file.
    static func peakRates(_ playlist: MediaPlaylist) -> [Int]? {
        var rates: [Int] = []
        let unit = ExactDecimal(1).scaledValue
        for segment in playlist.segments {
            guard let size = Self.size(of: segment, in: playlist), segment.duration > .zero else { return nil }
            let bits = Int128(size) * 8 * unit
            rates.append(Int((bits + segment.duration.scaledValue - 1) / segment.duration.scaledValue))
        }
        return rates.isEmpty ? nil : rates
    }

    private static func size(of segment: MediaSegment, in playlist: MediaPlaylist) -> Int? {
        if let range = segment.byteRange { return range.length }
        guard let url = playlist.resolve(segment.uri), url.isFileURL,
            let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber
        else { return nil }
        return size.intValue
    }

    /// A local segment's bytes (its byte range only).
    private static func bytes(of segment: MediaSegment, in playlist: MediaPlaylist) -> Data? {
        guard let url = playlist.resolve(segment.uri), url.isFileURL, let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        if let range = segment.byteRange, let offset = range.offset {
            guard (try? handle.seek(toOffset: UInt64(offset))) != nil else { return nil }
            return try? handle.read(upToCount: range.length)
        }
        return try? handle.readToEnd()
    }

    /// The family of an ffmpeg codec name, as CODECS would name it.
    static func family(ofProbed name: String) -> CodecFamily? {
        switch name {
        case "h264": .avc
        case "hevc": .hevc
        case "av1": .av1
        case "vp9": .vp9
        case "aac": .aac
        case "ac3": .ac3
        case "eac3": .eac3
        case "mp3": .mp3
        case "opus": .opus
        case "flac": .flac
        default: nil
        }
    }

    /// How an AVC or HEVC stream differs from its CODECS entry in profile or level; nil when it
    /// does not (or cannot be told).
    static func profileMismatch(_ entry: String, _ stream: SegmentProbe.Stream) -> String? {
        let parts = entry.split(separator: ".")
        let streamText = "\(stream.profile ?? "unknown profile") level \(stream.level.map { Self.levelText($0, codec: stream.codecName) } ?? "?")"
        switch stream.codecName {
        case "h264":
            // avc1.PPCCLL (RFC 6381 §3.3): profile_idc, constraint flags, level_idc, in hex.
            guard parts.count == 2, parts[1].count == 6, let value = Int(parts[1], radix: 16) else { return nil }
            let (profile, level) = (value >> 16, value & 0xFF)
            let probed = stream.profile.flatMap { Self.avcProfiles[$0] }
            if let probed, probed != profile { return streamText }
            if let probedLevel = stream.level, probedLevel != level { return streamText }
            return nil
        case "hevc":
            // hvc1.[A-C]?profile.compatibility.[LH]level.constraints (ISO/IEC 14496-15 Annex E).
            guard parts.count >= 4, let profile = Int(parts[1].drop { $0.isLetter }), let level = Int(parts[3].dropFirst()) else { return nil }
            let probed = stream.profile.flatMap { Self.hevcProfiles[$0] }
            if let probed, probed != profile { return streamText }
            if let probedLevel = stream.level, probedLevel != level { return streamText }
            return nil
        default:
            return nil
        }
    }

    private static func levelText(_ level: Int, codec: String?) -> String {
        let divisor = codec == "hevc" ? 30 : 10
        return level % divisor == 0 ? "\(level / divisor)" : "\(level / divisor).\(level % divisor * 10 / divisor)"
    }

    /// ffmpeg's profile names and their profile_idc (ITU-T H.264 Annex A).
    static let avcProfiles = [
        "Baseline": 66, "Constrained Baseline": 66, "Main": 77, "Extended": 88, "High": 100, "High 10": 110,
        "High 4:2:2": 122, "High 4:4:4 Predictive": 244,
    ]
    /// ffmpeg's profile names and their general_profile_idc (ITU-T H.265 Annex A).
    static let hevcProfiles = ["Main": 1, "Main 10": 2, "Main Still Picture": 3, "Rext": 4]

    static func describe(_ variant: StreamInf) -> String {
        let codecs = variant.codecs.joined(separator: ",")
        return variant.resolution.map { codecs.isEmpty ? "\($0)" : "\($0) \(codecs)" } ?? codecs
    }

    static func path(_ url: URL?) -> String {
        guard let url else { return "" }
        return url.isFileURL ? url.path : url.absoluteString
    }

    static func seconds(_ value: Double) -> String { String(format: "%.3f", value) }
}
