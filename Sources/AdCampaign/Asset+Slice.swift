import HLSPlaylist

extension Asset {
    /// The stretch of this asset between two cut times on its main video timeline (the first
    /// variant's segment boundaries), as an asset of its own: a virtual island (docs/campaign-format.md "One programme asset"). Every
    /// other playlist — variants, I-frames, audio, subtitles — is cut at its own segment boundary
    /// nearest the video cut; `skews` gets each such cut's distance from it, by playlist.
    ///
    /// To cut one asset many times, make an ``AssetCutter`` once and slice with it.
    func slice(from start: ExactDecimal, to end: ExactDecimal, skews: inout [(playlist: String, cut: ExactDecimal, skew: ExactDecimal)]) -> Asset {
        AssetCutter(self).slice(from: start, to: end, skews: &skews)
    }

    /// The boundary of the main video timeline at or before `time` (MediaTailor snaps so): the
    /// index of the segment starting there, and its start time.
    func boundary(atOrBefore time: ExactDecimal) -> (segment: Int, time: ExactDecimal) {
        guard let playlist = self.variants.first?.playlist else { return (0, .zero) }
        let segments = playlist.segments
        if time >= playlist.duration { return (segments.count, playlist.duration) }
        // The last segment starting at or before `time` (the first when none does): binary search.
        var low = 1
        var high = segments.count
        while low < high {
            let middle = (low + high) / 2
            if segments[middle].startTime <= time { low = middle + 1 } else { high = middle }
        }
        let index = max(low - 1, 0)
        return (index, segments.isEmpty ? .zero : segments[index].startTime)
    }
}

/// Cuts one asset into slices (``Asset/slice(from:to:skews:)``) at many times: every playlist's
/// segment boundaries are read once, and each cut is a binary search in them. Reading
/// every segment of every playlist per cut made a programme with 10,000 breaks take minutes.
struct AssetCutter {
    let asset: Asset
    /// The first variant's boundaries: the main video timeline the cut times are on.
    let video: Boundaries
    private let variants: [Boundaries]
    private let iFrames: [Boundaries]
    private let renditions: [Boundaries?]

    init(_ asset: Asset) {
        self.asset = asset
        self.variants = asset.variants.map { Boundaries($0.playlist) }
        self.iFrames = asset.iFrameVariants.map { Boundaries($0.playlist) }
        self.renditions = asset.renditions.map { $0.playlist.map(Boundaries.init) }
        self.video = self.variants.first ?? Boundaries(times: [.zero])
    }

    /// The asset between `start` and `end` on the main video timeline; see ``Asset/slice(from:to:skews:)``.
    func slice(from start: ExactDecimal, to end: ExactDecimal, skews: inout [(playlist: String, cut: ExactDecimal, skew: ExactDecimal)]) -> Asset {
        func cut(_ playlist: MediaPlaylist, _ boundaries: Boundaries) -> MediaPlaylist {
            let first = boundaries.nearest(to: start)
            let last = boundaries.nearest(to: end)
            for (index, time) in [(first, start), (last, end)] where boundaries.times[index] != time {
                skews.append((playlist.url.map(AssetLoader.name) ?? "", time, boundaries.times[index] - time))
            }
            return playlist.segments(first..<max(first, last))
        }
        let asset = self.asset
        let variants = zip(asset.variants, self.variants).map { variant, boundaries in
            variant.playing(cut(variant.playlist, boundaries))
        }
        let iFrames = zip(asset.iFrameVariants, self.iFrames).map { variant, boundaries in
            variant.playing(cut(variant.playlist, boundaries))
        }
        let renditions = zip(asset.renditions, self.renditions).map { rendition, boundaries in
            let playlist = rendition.playlist.flatMap { playlist in boundaries.map { cut(playlist, $0) } }
            return Asset.Rendition(media: rendition.media, url: rendition.url, playlist: playlist)
        }
        return Asset(url: asset.url, multivariant: asset.multivariant, variants: variants, iFrameVariants: iFrames, renditions: renditions)
    }

    /// A playlist's segment boundaries: each segment's start time, then the playlist's end. They
    /// never decrease.
    struct Boundaries {
        let times: [ExactDecimal]

        init(times: [ExactDecimal]) {
            self.times = times
        }

        init(_ playlist: MediaPlaylist) {
            self.times = playlist.segmentBoundaries
        }

        /// The index of the boundary nearest `time` (the segment count for the end); the
        /// earlier one on a tie, and the first of boundaries that coincide.
        func nearest(to time: ExactDecimal) -> Int {
            let after = self.first(atOrAfter: time)
            guard after > 0 else { return 0 }
            let before = self.times[after - 1]
            // As near or nearer: the boundary before wins, at the first index it stands at.
            if after == self.times.count || time - before <= self.times[after] - time { return self.first(atOrAfter: before) }
            return after
        }

        /// The first boundary at or after `time`; the count of boundaries when none is.
        private func first(atOrAfter time: ExactDecimal) -> Int {
            var low = 0
            var high = self.times.count
            while low < high {
                let middle = (low + high) / 2
                if self.times[middle] < time { low = middle + 1 } else { high = middle }
            }
            return low
        }
    }
}
