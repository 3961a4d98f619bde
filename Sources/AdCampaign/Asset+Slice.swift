import HLSPlaylist

extension Asset {
    /// The stretch of this asset between two cut times on its main video timeline (the first
    /// variant's segment boundaries), as an asset of its own: a virtual island (issue 12). Every
    /// other playlist — variants, I-frames, audio, subtitles — is cut at its own segment boundary
    /// nearest the video cut; `skews` gets each such cut's distance from it, by playlist.
    func slice(from start: ExactDecimal, to end: ExactDecimal, skews: inout [(playlist: String, cut: ExactDecimal, skew: ExactDecimal)]) -> Asset {
        func cut(_ playlist: MediaPlaylist) -> MediaPlaylist {
            let first = Self.nearestBoundary(playlist, to: start)
            let last = Self.nearestBoundary(playlist, to: end)
            for (index, time) in [(first, start), (last, end)] {
                let boundary = index < playlist.segments.count ? playlist.segments[index].startTime : playlist.duration
                if boundary != time { skews.append((playlist.url.map(AssetLoader.name) ?? "", time, boundary - time)) }
            }
            return playlist.segments(first..<max(first, last))
        }
        let variants = self.variants.map { Variant(streamInf: $0.streamInf, url: $0.url, playlist: cut($0.playlist)) }
        let iFrames = self.iFrameVariants.map { IFrameVariant(streamInf: $0.streamInf, url: $0.url, playlist: cut($0.playlist)) }
        let renditions = self.renditions.map { Rendition(media: $0.media, url: $0.url, playlist: $0.playlist.map(cut)) }
        return Asset(url: self.url, multivariant: self.multivariant, variants: variants, iFrameVariants: iFrames, renditions: renditions)
    }

    /// The index of the segment boundary of `playlist` nearest `time` (the segment count for
    /// its end); the earlier one on a tie.
    static func nearestBoundary(_ playlist: MediaPlaylist, to time: ExactDecimal) -> Int {
        let segments = playlist.segments
        var best = segments.count
        var distance = (playlist.duration - time).magnitude
        for index in segments.indices.reversed() {
            let gap = (segments[index].startTime - time).magnitude
            if gap <= distance {
                best = index
                distance = gap
            }
        }
        return best
    }

    /// The boundary of the main video timeline at or before `time` (MediaTailor snaps so): the
    /// index of the segment starting there, and its start time.
    func boundary(atOrBefore time: ExactDecimal) -> (segment: Int, time: ExactDecimal) {
        guard let playlist = self.variants.first?.playlist else { return (0, .zero) }
        let segments = playlist.segments
        if time >= playlist.duration { return (segments.count, playlist.duration) }
        var index = 0
        while index + 1 < segments.count, segments[index + 1].startTime <= time { index += 1 }
        return (index, segments.isEmpty ? .zero : segments[index].startTime)
    }
}
