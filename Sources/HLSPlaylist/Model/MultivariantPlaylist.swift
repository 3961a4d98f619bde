#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A variant stream: an `EXT-X-STREAM-INF` and the URI line after it.
public struct Variant: Sendable, Hashable {
    public var streamInf: StreamInf
    /// The media playlist URI as written.
    public var uri: Substring
    /// The line number of the `EXT-X-STREAM-INF` tag.
    public var line: Int
    /// The line number of the URI.
    public var uriLine: Int
    /// The index in ``MultivariantPlaylist/lines`` of the tag and of the URI.
    public var tagIndex: Int
    public var uriIndex: Int
}

/// A Multivariant Playlist (RFC 8216bis §4.4.6): variants, I-frame variants, renditions and
/// session data, derived from lines kept for lossless writing.
public struct MultivariantPlaylist: Sendable {
    let parsed: ParsedText
    public let url: URL?

    /// Every non-blank line, in order.
    public var lines: PlaylistLines { PlaylistLines(parsed: self.parsed) }
    /// What parsing changed in the text (BOM, line endings, blank lines).
    public var source: SourceNotes { self.parsed.source }

    public let version: Int?
    public let hasIndependentSegments: Bool
    public let start: Start?
    public let defines: [Located<Define>]
    public let variants: [Variant]
    public let iFrameVariants: [Located<IFrameStreamInf>]
    /// The `EXT-X-MEDIA` renditions.
    public let renditions: [Located<Media>]
    public let sessionData: [Located<SessionData>]
    public let sessionKeys: [Located<Key>]
    public let contentSteering: Located<ContentSteering>?

    /// Builds a playlist from lines — parsed ones, edited ones or new ones. Untouched lines keep
    /// their text; the result is parsed again, so it is checked like any playlist.
    public init(lines: some Sequence<PlaylistLine>, url: URL? = nil) throws(PlaylistError) {
        let parsed = try ParsedText.parse(PlaylistWriter().write(lines: lines))
        guard parsed.firstMediaTagLine == 0 else {
            throw PlaylistError(
                .unexpectedPlaylistType,
                line: parsed.firstMediaTagLine,
                text: "",
                "a multivariant playlist cannot hold media playlist tags"
            )
        }
        try self.init(parsed: parsed, url: url)
    }

    init(parsed: ParsedText, url: URL?) throws(PlaylistError) {
        let lines = PlaylistLines(parsed: parsed)
        var version: Int?
        var independent = false
        var start: Start?
        var defines: [Located<Define>] = []
        var variants: [Variant] = []
        var iFrameVariants: [Located<IFrameStreamInf>] = []
        var renditions: [Located<Media>] = []
        var sessionData: [Located<SessionData>] = []
        var sessionKeys: [Located<Key>] = []
        var contentSteering: Located<ContentSteering>?
        var pending: (streamInf: StreamInf, line: Int, index: Int)?

        for (index, line) in lines.enumerated() {
            switch line.content {
            case .comment: continue
            case .uri(let uri):
                guard let variant = pending else {
                    throw PlaylistError(
                        .unexpectedURI,
                        line: line.number,
                        text: uri,
                        "a URI line in a multivariant playlist must follow #EXT-X-STREAM-INF (RFC 8216bis §4.4.6.2)"
                    )
                }
                variants.append(
                    Variant(
                        streamInf: variant.streamInf,
                        uri: uri,
                        line: variant.line,
                        uriLine: line.number,
                        tagIndex: variant.index,
                        uriIndex: index
                    )
                )
                pending = nil
            case .tag(let tag):
                if let variant = pending, !Self.mayStandBeforeVariantURI(tag) {
                    throw PlaylistError(
                        .variantWithoutURI,
                        line: variant.line,
                        text: lines[variant.index].text,
                        "#EXT-X-STREAM-INF must be followed by its variant's URI line, found \(tag.name) on line \(line.number)"
                    )
                }
                switch tag {
                case .version(let value): version = version ?? value
                case .independentSegments: independent = true
                case .start(let value): start = start ?? value
                case .define(let value): defines.append(Located(value, line: line.number))
                case .streamInf(let value): pending = (value, line.number, index)
                case .iFrameStreamInf(let value): iFrameVariants.append(Located(value, line: line.number))
                case .media(let value): renditions.append(Located(value, line: line.number))
                case .sessionData(let value): sessionData.append(Located(value, line: line.number))
                case .sessionKey(let value): sessionKeys.append(Located(value, line: line.number))
                case .contentSteering(let value): contentSteering = contentSteering ?? Located(value, line: line.number)
                default: continue
                }
            }
        }
        if let variant = pending {
            throw PlaylistError(
                .variantWithoutURI,
                line: variant.line,
                text: lines[variant.index].text,
                "#EXT-X-STREAM-INF at the end of the playlist has no URI line after it"
            )
        }
        self.parsed = parsed
        self.url = url
        self.version = version
        self.hasIndependentSegments = independent
        self.start = start
        self.defines = defines
        self.variants = variants
        self.iFrameVariants = iFrameVariants
        self.renditions = renditions
        self.sessionData = sessionData
        self.sessionKeys = sessionKeys
        self.contentSteering = contentSteering
    }

    /// Comments and tags AdStitch does not know may stand between a STREAM-INF and its URI.
    private static func mayStandBeforeVariantURI(_ tag: Tag) -> Bool {
        if case .unknown = tag { return true }
        return false
    }

    /// The absolute URL of a URI written in this playlist.
    public func resolve(_ uri: some StringProtocol) -> URL? {
        URIResolution.resolve(String(uri), against: self.url)
    }

    /// Every media playlist this playlist references, resolved, in order and once each: its
    /// variant streams', its I-frame streams' and its renditions' (`EXT-X-MEDIA` with a `URI`).
    public var mediaPlaylistURLs: [URL] {
        let uris = self.variants.map { String($0.uri) } + self.iFrameVariants.compactMap(\.value.uri) + self.renditions.compactMap(\.value.uri)
        var seen = Set<URL>()
        return uris.compactMap(self.resolve).filter { seen.insert($0).inserted }
    }
}
