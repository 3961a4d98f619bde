import AdCampaign
import AdMedia
import Foundation
import HLSPlaylist

/// What a creative must become to stitch with a campaign's programme without a warning, read
/// from the programme's multivariant playlist and one probed segment: per video variant its codec
/// (profile and level from CODECS), resolution, frame rate and BANDWIDTH; the audio format (codec,
/// channels, sample rate) muxed into the variants or per audio rendition; the container; the
/// segment duration.
public struct ConditioningTarget: Sendable, Hashable {
    public struct Video: Sendable, Hashable {
        /// The programme variant's index.
        public var index: Int
        public var width: Int
        public var height: Int
        /// Frames per second (FRAME-RATE; else the probed rate).
        public var frameRate: ExactDecimal
        /// The programme variant's CODECS, which the encode matches.
        public var codecs: [String]
        /// The video entry of `codecs` (`avc1.42c01e`, `hvc1.1.6.L93.B0`).
        public var videoCodec: String
        /// BANDWIDTH: the creative's peak stays at or below it.
        public var bandwidth: Int
        public var audioGroup: String?
    }

    public struct Audio: Sendable, Hashable {
        public var groupID: String
        public var name: String
        public var language: String?
        public var isDefault: Bool
        public var channels: Int
    }

    /// MPEG-TS or fMP4 (CMAF), as the programme's first variant.
    public var container: SegmentFormat
    /// The programme's segment duration (its first variant's longest segment).
    public var segmentDuration: ExactDecimal
    public var videos: [Video]
    /// Audio renditions (demuxed audio); empty when audio is muxed into each variant.
    public var audios: [Audio]
    /// The audio codec entry of the variants' CODECS (`mp4a.40.2`, `ac-3`, `ec-3`); nil: no audio.
    public var audioCodec: String?
    public var sampleRate: Int
    /// Channels of muxed audio (the demuxed renditions say their own).
    public var channels: Int
    /// Whether the programme has I-frame playlists (`EXT-X-I-FRAME-STREAM-INF`): then each video
    /// rendition gets one, so trick play shows the ad's pictures, not gaps.
    public var iFrames = false

    /// Reads the target of `campaign`'s programme (its template asset: the first island or the
    /// programme asset), probing one segment of it for what playlists do not say (sample rate,
    /// a missing FRAME-RATE).
    public init(campaign: Campaign, probe: FFprobe = FFprobe()) throws(ConditioningError) {
        guard let programme = campaign.templateAsset else {
            throw ConditioningError(
                "campaign \(campaign.id) has no programme to condition creatives for (a live channel's ladder is read at run time)"
            )
        }
        let videoVariants = programme.variants.enumerated().filter { !$0.element.streamInf.isAudioOnly }
        guard let first = videoVariants.first?.element else {
            throw ConditioningError("the programme of campaign \(campaign.id) has no video variant")
        }
        self.container = first.segmentFormat
        let longest = first.playlist.segments.map(\.duration).max() ?? ExactDecimal(6)
        self.segmentDuration = longest
        var probed: SegmentProbe?
        if let segment = first.playlist.segments.first, FFprobe.canProbe(segment) {
            probed = try? probe.probe(segment, of: first.playlist)
        }
        let probedRate = probed?.video?.rFrameRate.flatMap(Self.rate)
        var videos: [Video] = []
        for (index, variant) in videoVariants {
            let streamInf = variant.streamInf
            guard let resolution = streamInf.resolution else {
                throw ConditioningError(
                    "the programme's variant \(index) (\(variant.url.lastPathComponent)) has no RESOLUTION; add it to the master playlist"
                )
            }
            guard let videoCodec = streamInf.codecs.first(where: { CodecFamily.video(of: [$0]) != nil }) else {
                throw ConditioningError("the programme's variant \(index) has no video codec in CODECS (\(streamInf.codecs.joined(separator: ",")))")
            }
            guard let frameRate = streamInf.frameRate ?? probedRate else {
                throw ConditioningError("the programme's variant \(index) has no FRAME-RATE and its frame rate could not be probed")
            }
            videos.append(
                Video(
                    index: index,
                    width: resolution.width,
                    height: resolution.height,
                    frameRate: frameRate,
                    codecs: streamInf.codecs,
                    videoCodec: videoCodec,
                    bandwidth: streamInf.bandwidth ?? 2_000_000,
                    audioGroup: streamInf.audio
                )
            )
        }
        self.videos = videos
        self.audioCodec = first.streamInf.codecs.first { CodecFamily.audio(of: [$0]).first != nil }
        self.audios = programme.audioRenditions.compactMap { rendition in
            guard let group = rendition.media.groupID else { return nil }
            return Audio(
                groupID: group,
                name: rendition.media.name ?? rendition.media.language ?? group,
                language: rendition.media.language,
                isDefault: rendition.media.isDefault,
                channels: rendition.media.channels?.split(separator: "/").first.flatMap { Int($0) } ?? 2
            )
        }
        // The sample rate and channels of the audio the probed segment carries (a demuxed
        // programme's first audio rendition when its variants have none).
        var audio = probed?.audio
        if audio == nil, let rendition = programme.audioRenditions.first, let playlist = rendition.playlist, let segment = playlist.segments.first,
            FFprobe.canProbe(segment)
        {
            audio = (try? probe.probe(segment, of: playlist))?.audio
        }
        self.sampleRate = audio?.sampleRate.flatMap { Int($0) } ?? 48_000
        self.channels = audio?.channels ?? 2
        self.iFrames = !programme.iFrameVariants.isEmpty
    }

    /// `30000/1001` → 29.97 (three decimals, as FRAME-RATE writes it).
    static func rate(_ text: String) -> ExactDecimal? {
        let parts = text.split(separator: "/").compactMap { Int($0) }
        guard parts.count == 2, parts[1] > 0, parts[0] > 0 else { return nil }
        return ExactDecimal(significand: (parts[0] * 1000 + parts[1] / 2) / parts[1], exponent: 3)
    }

    /// ffmpeg's `-profile:v` and `-level:v` for an `avc1.PPCCLL` entry; nil for other codecs.
    static func h264Profile(_ codec: String) -> (profile: String, level: String)? {
        let parts = codec.split(separator: ".")
        guard parts.count == 2, parts[0] == "avc1" || parts[0] == "avc3", parts[1].count == 6, let value = Int(parts[1], radix: 16) else {
            return nil
        }
        let (profile, level) = (value >> 16, value & 0xff)
        let name: String
        switch profile {
        case 66: name = "baseline"
        case 77: name = "main"
        case 88: name = "main"
        case 100: name = "high"
        case 110: name = "high10"
        case 122: name = "high422"
        case 244: name = "high444"
        default: return nil
        }
        return (name, "\(level / 10).\(level % 10)")
    }
}

/// Why a creative cannot be conditioned, said so a person can act on it.
public struct ConditioningError: Error, Sendable, CustomStringConvertible {
    public var description: String
    /// Trying again would fail the same way (the source is not what its ad server says).
    public var final: Bool
    public init(_ description: String, final: Bool = false) {
        self.description = description
        self.final = final
    }
}
