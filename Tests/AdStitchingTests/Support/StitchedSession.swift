import AdCampaign
import AdDecision
import AdStitching
import Foundation
import HLSPlaylist

/// One viewer's session stitched the way the server and CLI do it (master, one media playlist per
/// rendition, boundary manifest), with every playlist parsed back by `PlaylistParser`: the tests
/// judge the output as a player would read it, not the renderer's intermediate state.
struct StitchedSession: Sendable {
    static let boundariesURI = "boundaries.json"
    static let emptySubtitleURI = "empty.vtt"

    let plan: Plan
    let layout: StitchLayout
    let masterText: String
    let master: MultivariantPlaylist
    /// Media playlists by rendition id (`v0`, `a1`, `s2`, `i0`).
    let texts: [String: String]
    let playlists: [String: MediaPlaylist]
    let manifest: BoundaryManifest
    let manifestText: String

    init(layout: StitchLayout, context: ViewerContext) throws {
        let plan = Planner().plan(layout.campaign, for: context)
        var masterText = ""
        var texts: [String: String] = [:]
        var playlists: [String: MediaPlaylist] = [:]
        for rendered in try SessionRenderer(layout: layout).session(.stitched).renderAll(plan) {
            let text = rendered.text
            switch rendered.file {
            case .multivariant:
                masterText = text
            case .playlist(let rendition):
                texts[rendition.id] = text
                playlists[rendition.id] = try PlaylistParser().parseMediaPlaylist(text)
            case .boundaries, .tracking, .emptySubtitles, .emptyIMSC, .assetList, .adPlaylist:
                continue
            }
        }
        self.plan = plan
        self.layout = layout
        self.masterText = masterText
        self.master = try PlaylistParser().parseMultivariantPlaylist(masterText)
        self.texts = texts
        self.playlists = playlists
        self.manifest = BoundaryManifest(plan)
        self.manifestText = self.manifest.json.text()
    }

    var campaign: Campaign { self.plan.campaign }
    var renditions: [StitchRendition] { self.layout.renditions }
    var description: String { "\(self.campaign.id) session \(self.plan.context.session) [\(self.plan.signature.joined(separator: " "))]" }

    func playlist(_ rendition: StitchRendition) -> MediaPlaylist { self.playlists[rendition.id]! }

    /// The segments of each piece: a new piece at every `EXT-X-DISCONTINUITY`.
    static func pieces(of playlist: MediaPlaylist) -> [[MediaSegment]] {
        var pieces: [[MediaSegment]] = []
        for segment in playlist.segments {
            if segment.isDiscontinuity || pieces.isEmpty { pieces.append([]) }
            pieces[pieces.count - 1].append(segment)
        }
        return pieces
    }

    /// The lines of each piece: from one `EXT-X-DISCONTINUITY` (or the first line after the header)
    /// up to the URI of the piece's last segment.
    static func pieceLines(of playlist: MediaPlaylist) -> [[PlaylistLine]] {
        var pieces: [[PlaylistLine]] = [[]]
        for line in playlist.lines {
            if case .tag(.discontinuity) = line.content { pieces.append([]) }
            pieces[pieces.count - 1].append(line)
        }
        return pieces
    }
}

/// What played in one piece of one stitched rendition, found by comparing the output's segments
/// (URI, byte range, duration text) with every playlist of the piece's asset.
enum PlayedSource {
    case playlist(SourceCandidate)
    /// `EXT-X-GAP` segments: an I-frame rendition the asset lacks.
    case gap
    /// Empty WebVTT segments: a subtitle rendition the asset lacks.
    case emptySubtitles
    /// Nothing of the asset: a test failure.
    case unknown
}

/// One playlist of an asset that may play in a stitched rendition.
struct SourceCandidate: Sendable {
    enum Kind: Sendable {
        case video(StreamInf)
        case iFrame(IFrameStreamInf)
        case rendition(Media)
    }

    let kind: Kind
    /// Index among the asset's variants, I-frame variants, or renditions of its type.
    let index: Int
    let playlist: MediaPlaylist
    let signature: [String]

    var bandwidth: Int? {
        switch self.kind {
        case .video(let streamInf): streamInf.bandwidth
        case .iFrame(let streamInf): streamInf.bandwidth
        case .rendition: nil
        }
    }

    var averageBandwidth: Int? {
        switch self.kind {
        case .video(let streamInf): streamInf.averageBandwidth
        case .iFrame(let streamInf): streamInf.averageBandwidth
        case .rendition: nil
        }
    }

    var codecs: [String] {
        switch self.kind {
        case .video(let streamInf): streamInf.codecs
        case .iFrame(let streamInf): streamInf.codecs
        case .rendition: []
        }
    }

    var media: Media? { if case .rendition(let media) = self.kind { media } else { nil } }
}

/// Every playlist of every asset of a campaign, with its segments as a stitched playlist would
/// write them under one URI style.
struct SourceCatalog: Sendable {
    let uris: URIStyle
    /// By asset object: the virtual islands of one programme asset share its URL.
    private let byAsset: [ObjectIdentifier: [String: [SourceCandidate]]]

    init(campaign: Campaign, uris: URIStyle) {
        var assets = campaign.islands.map(\.asset) + campaign.ads.map(\.asset)
        if let slate = campaign.slate { assets.append(slate) }
        var byAsset: [ObjectIdentifier: [String: [SourceCandidate]]] = [:]
        for asset in assets where byAsset[ObjectIdentifier(asset)] == nil {
            func candidate(_ kind: SourceCandidate.Kind, _ index: Int, _ playlist: MediaPlaylist) -> SourceCandidate {
                SourceCandidate(kind: kind, index: index, playlist: playlist, signature: Self.signature(source: playlist, uris: uris))
            }
            byAsset[ObjectIdentifier(asset)] = [
                "video": asset.variants.enumerated().map { candidate(.video($1.streamInf), $0, $1.playlist) },
                "iFrame": asset.iFrameVariants.enumerated().map { candidate(.iFrame($1.streamInf), $0, $1.playlist) },
                "audio": asset.audioRenditions.enumerated().map { candidate(.rendition($1.media), $0, $1.playlist!) },
                "subtitles": asset.subtitleRenditions.enumerated().map { candidate(.rendition($1.media), $0, $1.playlist!) },
            ]
        }
        self.uris = uris
        self.byAsset = byAsset
    }

    /// The playlists of `asset` that may play in `rendition`.
    func candidates(_ asset: Asset, for rendition: StitchRendition) -> [SourceCandidate] {
        let group =
            switch rendition.kind {
            case .video: "video"
            case .iFrame: "iFrame"
            case .audio: "audio"
            case .subtitles: "subtitles"
            }
        return self.byAsset[ObjectIdentifier(asset)]?[group] ?? []
    }

    func source(of segments: [MediaSegment], asset: Asset, rendition: StitchRendition) -> PlayedSource {
        let signature = Self.signature(output: segments)
        if let match = self.candidates(asset, for: rendition).first(where: { $0.signature == signature }) { return .playlist(match) }
        if case .iFrame = rendition.kind, segments.allSatisfy(\.isGap) { return .gap }
        if case .subtitles = rendition.kind, segments.allSatisfy({ $0.uri == StitchedSession.emptySubtitleURI }) { return .emptySubtitles }
        return .unknown
    }

    /// `URI|LENGTH@OFFSET|EXTINF text` of each output segment, as written.
    static func signature(output segments: some Collection<MediaSegment>) -> [String] {
        segments.map { "\($0.uri)|\(Self.range($0.byteRange))|\($0.durationText)" }
    }

    /// The same for a source playlist, its URIs rewritten as stitching rewrites them.
    static func signature(source playlist: MediaPlaylist, uris: URIStyle) -> [String] {
        playlist.segments.map { segment in
            let uri = playlist.resolve(segment.uri).map(uris.rewrite) ?? String(segment.uri)
            return "\(uri)|\(Self.range(segment.byteRange))|\(segment.durationText)"
        }
    }

    private static func range(_ range: SegmentByteRange?) -> String {
        range.map { "\($0.length)@\($0.offset.map(String.init) ?? "?")" } ?? "-"
    }

    /// The keys in force for each segment of a source playlist as the stitched output must carry
    /// them: URI rewritten, and for AES-128 and SAMPLE-AES without IV the IV the player would
    /// have derived, the segment's media sequence number in the source (RFC 8216bis §5.2).
    func expectedKeys(of playlist: MediaPlaylist) -> [[String]] {
        playlist.segments.map { segment in
            segment.keys.map { key in
                var iv = key.iv
                if iv == nil, key.keyFormat == "identity", key.method == .aes128 || key.method == .sampleAES {
                    iv = String(segment.mediaSequenceNumber, radix: 16)
                }
                let uri = key.uri.flatMap { playlist.resolve($0) }.map(self.uris.rewrite)
                return Self.describe(method: key.method, uri: uri, iv: iv, keyFormat: key.keyFormat)
            }
        }
    }

    /// The keys in force for each output segment, as written.
    static func keys(of segments: [MediaSegment]) -> [[String]] {
        segments.map { segment in segment.keys.map { Self.describe(method: $0.method, uri: $0.uri, iv: $0.iv, keyFormat: $0.keyFormat) } }
    }

    /// `METHOD URI IV KEYFORMAT`, the IV as 32 lowercase hexadecimal digits.
    private static func describe(method: KeyMethod?, uri: String?, iv: String?, keyFormat: String) -> String {
        var digits = iv.map { $0.lowercased() } ?? "none"
        if digits.hasPrefix("0x") { digits.removeFirst(2) }
        if iv != nil { digits = String(repeating: "0", count: max(0, 32 - digits.count)) + digits }
        return "\(method?.rawValue ?? "?") \(uri ?? "-") \(digits) \(keyFormat)"
    }
}

/// The exact duration-weighted mean of `(rate, seconds)`, rounded up.
func weightedMeanRoundedUp(_ parts: [(rate: Int, seconds: ExactDecimal)]) -> Int? {
    let total = parts.map(\.seconds.scaledValue).reduce(0, +)
    guard total > 0 else { return nil }
    let weighted = parts.map { Int128($0.rate) * $0.seconds.scaledValue }.reduce(0, +)
    return Int((weighted + total - 1) / total)
}
