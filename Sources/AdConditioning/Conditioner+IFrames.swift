import AdMedia
import Foundation
import HLSPlaylist

/// I-frame playlists of a conditioned creative (where the programme has them).
extension Conditioner {
    /// `name/iframes.m3u8`: each segment's first picture (a keyframe: every segment starts on
    /// one) as a byte range of the segment (RFC 8216bis §4.4.3.6), from its start — PAT and PMT
    /// of MPEG-TS, the `moof` of fMP4 — to the end of that picture's data: in MPEG-TS, up to the
    /// packet of the next video frame; in fMP4, the first sample's end. Measured with ffprobe
    /// (an fMP4 segment with its init section ahead of it). Peak and average rates from the
    /// ranges over the segments' durations.
    func iFramePlaylist(_ out: URL, name: String, resolution: String) throws(ConditioningError) -> Report.Rendition {
        let begun = ContinuousClock.now
        let playlist = try Self.renditionPlaylist(out, name: name)
        let initURI = playlist.segments.first?.map?.uri
        let initData = initURI.flatMap { playlist.resolve($0) }.flatMap { try? Data(contentsOf: $0) }
        var lines = "#EXTM3U\n#EXT-X-VERSION:\(initURI == nil ? 4 : 6)\n#EXT-X-TARGETDURATION:\(playlist.targetDuration ?? 1)\n"
        lines += "#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-I-FRAMES-ONLY\n"
        if let initURI { lines += "#EXT-X-MAP:URI=\"\(initURI)\"\n" }
        var peak = 0
        var bits = 0
        var seconds = ExactDecimal.zero
        for segment in playlist.segments {
            guard let url = playlist.resolve(segment.uri) else { continue }
            let length = try self.firstPictureLength(url, initSection: initData)
            lines += "#EXTINF:\(segment.duration.formatted(minimumFractionDigits: 3)),\n#EXT-X-BYTERANGE:\(length)@0\n\(segment.uri)\n"
            let duration = max(segment.duration.doubleValue, 0.001)
            peak = max(peak, Int((Double(length * 8) / duration).rounded(.up)))
            bits += length * 8
            seconds += segment.duration
        }
        lines += "#EXT-X-ENDLIST\n"
        let uri = "\(name)/iframes.m3u8"
        do {
            try Data(lines.utf8).write(to: out.appendingPathComponent(uri), options: .atomic)
        } catch {
            throw ConditioningError("cannot write \(uri): \(error)")
        }
        return Report.Rendition(
            uri: uri,
            kind: "iframes",
            resolution: resolution,
            bandwidth: peak,
            averageBandwidth: seconds > .zero ? Int((Double(bits) / seconds.doubleValue).rounded(.up)) : peak,
            segments: playlist.segments.count,
            seconds: Self.seconds(ContinuousClock.now - begun)
        )
    }

    /// The bytes from a segment's start to the end of its first picture (see ``iFramePlaylist``).
    func firstPictureLength(_ segment: URL, initSection: Data?) throws(ConditioningError) -> Int {
        guard let size = Self.size(segment) else { throw ConditioningError("cannot read \(segment.path)") }
        var probed = segment.path
        var offset = 0
        var scratch: URL?
        if let initSection {
            // A fragment alone does not parse: the init section ahead of it, then positions less its size.
            let joined = FileManager.default.temporaryDirectory.appendingPathComponent("iframe-\(UUID().uuidString).mp4")
            do {
                var data = initSection
                data.append(try Data(contentsOf: segment))
                try data.write(to: joined)
            } catch {
                throw ConditioningError("cannot read \(segment.path): \(error)")
            }
            scratch = joined
            probed = joined.path
            offset = initSection.count
        }
        defer { if let scratch { try? FileManager.default.removeItem(at: scratch) } }
        let outcome: MediaTool.Outcome
        do {
            outcome = try MediaTool(executable: self.probe.executable, timeout: .seconds(60), background: self.background).run([
                "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pos,size,flags", "-of", "json", probed,
            ])
        } catch {
            throw ConditioningError("ffprobe cannot read \(segment.path): \(error.description)")
        }
        let json = try? JSONSerialization.jsonObject(with: outcome.output) as? [String: Any]
        let packets = (json?["packets"] as? [[String: Any]] ?? []).compactMap { packet -> (pos: Int, size: Int, key: Bool)? in
            guard let pos = (packet["pos"] as? String).flatMap({ Int($0) }), let bytes = (packet["size"] as? String).flatMap({ Int($0) }) else {
                return nil
            }
            return (pos - offset, bytes, (packet["flags"] as? String)?.hasPrefix("K") == true)
        }
        guard let first = packets.first, first.key else {
            throw ConditioningError("\(segment.path) does not start with a keyframe; its I-frame playlist cannot point at one")
        }
        let end = initSection == nil ? (packets.dropFirst().first?.pos ?? size) : first.pos + first.size
        return min(size, max(end, first.pos + first.size))
    }
}
