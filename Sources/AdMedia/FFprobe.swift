import Foundation
import HLSPlaylist
import Synchronization

/// What ffprobe reads in the first packets of one media segment: its streams and their first
/// packets, in decode order.
public struct SegmentProbe: Sendable, Decodable, Hashable {
    public struct Stream: Sendable, Decodable, Hashable {
        public var index: Int
        /// `video`, `audio`, `subtitle`, `data`.
        public var codecType: String?
        /// ffmpeg's name: `h264`, `hevc`, `aac`, `ac3`, `eac3`…
        public var codecName: String?
        /// `Constrained Baseline`, `High`, `Main 10`, `LC`, `HE-AAC`…
        public var profile: String?
        /// H.264: level × 10 (`31`); HEVC: level × 30 (`93`).
        public var level: Int?
        /// Seconds, as ffprobe prints them.
        public var startTime: String?
        public var width: Int?
        public var height: Int?
        /// `25/1`, `30000/1001`.
        public var rFrameRate: String?
        /// Hertz, as ffprobe prints it (`"48000"`).
        public var sampleRate: String?
        public var channels: Int?
        /// Seconds, as ffprobe prints them (a whole file's streams).
        public var duration: String?
    }

    public struct Packet: Sendable, Decodable, Hashable {
        public var streamIndex: Int
        public var ptsTime: String?
        /// `K_` for a keyframe (random access point), `__` otherwise.
        public var flags: String?
        public var isKeyframe: Bool { self.flags?.hasPrefix("K") == true }
    }

    public var streams: [Stream]
    public var packets: [Packet]

    public init(streams: [Stream], packets: [Packet]) {
        self.streams = streams
        self.packets = packets
    }

    enum CodingKeys: String, CodingKey { case streams, packets }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.streams = try container.decodeIfPresent([Stream].self, forKey: .streams) ?? []
        self.packets = try container.decodeIfPresent([Packet].self, forKey: .packets) ?? []
    }

    public var video: Stream? { self.streams.first { $0.codecType == "video" } }
    public var audio: Stream? { self.streams.first { $0.codecType == "audio" } }

    /// The first packet of the first video stream, in decode order.
    public var firstVideoPacket: Packet? {
        guard let video = self.video else { return nil }
        return self.packets.first { $0.streamIndex == video.index }
    }
}

/// Why a segment could not be probed.
public struct MediaProbeError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

/// Runs `ffprobe` (Debian `ffmpeg`) on one media segment at a time.
///
/// Each segment is read through a playlist of that segment alone, written beside nothing and
/// removed after: ffprobe's HLS reader then applies everything the segment's own playlist says
/// of it — its AES-128 key and IV, its `EXT-X-MAP` init section, its byte range, a remote URL — so
/// one path serves every shape of media a campaign may name.
public struct FFprobe: Sendable {
    public var executable: String
    /// How long one probe may take before it is stopped.
    public var timeout: Duration
    /// How many packets to read from the start of the segment: enough to see every stream's first.
    public var packets: Int

    public init(executable: String = "ffprobe", timeout: Duration = .seconds(30), packets: Int = 60) {
        self.executable = executable
        self.timeout = timeout
        self.packets = packets
    }

    /// Whether the segment can be read without a key only a player's DRM holds.
    public static func canProbe(_ segment: MediaSegment) -> Bool {
        segment.keys.allSatisfy { $0.method == .noEncryption || $0.method == .aes128 }
    }

    /// Probes `segment` of `playlist`.
    public func probe(_ segment: MediaSegment, of playlist: MediaPlaylist) throws(MediaProbeError) -> SegmentProbe {
        guard let text = Self.playlist(of: segment, in: playlist) else {
            throw MediaProbeError(description: "\(segment.uri) does not resolve against \(playlist.url?.absoluteString ?? "its playlist")")
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("adstitch-probe-\(UUID().uuidString).m3u8")
        do {
            try Data(text.utf8).write(to: file)
        } catch {
            throw MediaProbeError(description: "cannot write \(file.path): \(error)")
        }
        defer { try? FileManager.default.removeItem(at: file) }
        let arguments = [
            "-v", "error", "-allowed_extensions", "ALL", "-protocol_whitelist", "file,http,https,tcp,tls,crypto,data",
            "-of", "json", "-show_entries",
            "stream=index,codec_type,codec_name,profile,level,start_time,width,height,r_frame_rate,sample_rate,channels:packet=stream_index,pts_time,flags",
            "-read_intervals", "%+#\(self.packets)", file.path,
        ]
        let (status, output, errors) = try self.run(arguments)
        guard status == 0 else {
            let reason = errors.split(separator: "\n").last.map(String.init) ?? "exit status \(status)"
            throw MediaProbeError(description: "ffprobe could not read \(Self.location(segment, in: playlist)): \(reason)")
        }
        do {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return try decoder.decode(SegmentProbe.self, from: output)
        } catch {
            throw MediaProbeError(description: "ffprobe's answer for \(Self.location(segment, in: playlist)) is not its JSON: \(error)")
        }
    }

    /// The streams of a whole media file (a creative to condition): each with its duration.
    public func streams(of location: String) throws(MediaProbeError) -> [SegmentProbe.Stream] {
        let arguments = [
            "-v", "error", "-protocol_whitelist", "file,http,https,tcp,tls", "-of", "json", "-show_entries",
            "stream=index,codec_type,codec_name,profile,level,start_time,width,height,r_frame_rate,sample_rate,channels,duration",
            location,
        ]
        let (status, output, errors) = try self.run(arguments)
        guard status == 0 else {
            throw MediaProbeError(
                description: "ffprobe could not read \(location): \(errors.split(separator: "\n").last.map(String.init) ?? "exit status \(status)")"
            )
        }
        do {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return try decoder.decode(SegmentProbe.self, from: output).streams
        } catch {
            throw MediaProbeError(description: "ffprobe's answer for \(location) is not its JSON: \(error)")
        }
    }

    /// The segment's URL as a person reads it: a path for a local file.
    static func location(_ segment: MediaSegment, in playlist: MediaPlaylist) -> String {
        guard let url = playlist.resolve(segment.uri) else { return String(segment.uri) }
        return url.isFileURL ? url.path : url.absoluteString
    }

    /// A VOD playlist of `segment` alone, every URI absolute, its media sequence number kept (an
    /// AES-128 key without IV uses it: RFC 8216bis §5.2).
    static func playlist(of segment: MediaSegment, in playlist: MediaPlaylist) -> String? {
        guard let uri = playlist.resolve(segment.uri) else { return nil }
        var text = "#EXTM3U\n#EXT-X-VERSION:7\n"
        text += "#EXT-X-TARGETDURATION:\(max(1, Int(segment.duration.doubleValue.rounded(.up))))\n"
        text += "#EXT-X-MEDIA-SEQUENCE:\(segment.mediaSequenceNumber)\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        for key in segment.keys {
            var attributes = key.attributes
            if let keyURI = key.uri, let resolved = playlist.resolve(keyURI) { attributes.setQuoted("URI", resolved.absoluteString) }
            text += "#EXT-X-KEY:\(attributes.serialized)\n"
        }
        if let map = segment.map {
            var attributes = map.attributes
            if let mapURI = map.uri, let resolved = playlist.resolve(mapURI) { attributes.setQuoted("URI", resolved.absoluteString) }
            text += "#EXT-X-MAP:\(attributes.serialized)\n"
        }
        text += "#EXTINF:\(segment.durationText),\n"
        if let range = segment.byteRange, let offset = range.offset { text += "#EXT-X-BYTERANGE:\(range.length)@\(offset)\n" }
        return text + uri.absoluteString + "\n#EXT-X-ENDLIST\n"
    }

    /// Runs ffprobe; its status, standard output and standard error. Stopped after ``timeout``.
    private func run(_ arguments: [String]) throws(MediaProbeError) -> (Int32, Data, String) {
        let outcome = try MediaTool(executable: self.executable, timeout: self.timeout).run(arguments)
        return (outcome.status, outcome.output, outcome.errors)
    }
}
