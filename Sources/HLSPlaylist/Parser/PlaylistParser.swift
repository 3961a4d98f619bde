#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A parsed playlist of either kind (RFC 8216bis §4.1: a playlist is a Media Playlist or a
/// Multivariant Playlist, never both).
public enum Playlist: Sendable {
    case media(MediaPlaylist)
    case multivariant(MultivariantPlaylist)

    /// Every non-blank line, in order.
    public var lines: PlaylistLines {
        switch self {
        case .media(let playlist): playlist.lines
        case .multivariant(let playlist): playlist.lines
        }
    }

    /// What parsing changed in the text (BOM, line endings…), for the linter.
    public var source: SourceNotes {
        switch self {
        case .media(let playlist): playlist.source
        case .multivariant(let playlist): playlist.source
        }
    }
}

/// The normalisations the parser applied. They are the only ones: every line is otherwise kept
/// exactly, so the canonical form of a playlist differs from its text only in these.
public struct SourceNotes: Sendable, Hashable {
    /// A UTF-8 byte order mark was stripped (RFC 8216bis §4.1 forbids it).
    public var strippedByteOrderMark = false
    /// CRLF or lone CR line endings became LF.
    public var normalizedLineEndings = false
    /// Blank (or whitespace-only) lines were dropped.
    public var droppedBlankLines = 0
    /// The text did not end with a newline (the writer adds one).
    public var missingFinalNewline = false

    public init() {}
}

/// Parses playlist text into ``Playlist`` values. Pure: no I/O, no clocks.
///
/// The parser is strict about syntax (a malformed tag or attribute list is a ``PlaylistError``
/// with its line) and lenient about semantics: a missing required attribute or an unresolvable
/// byte range parses, and ``PlaylistLinter`` reports it. No input makes it crash or hang.
public struct PlaylistParser: Sendable {
    public init() {}

    /// Parses UTF-8 bytes; invalid UTF-8 is an error.
    public func parse(bytes: some Collection<UInt8>, url: URL? = nil) throws(PlaylistError) -> Playlist {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw PlaylistError(.notUTF8, line: 0, text: "", "the playlist is not valid UTF-8 (RFC 8216bis §4.1 requires UTF-8)")
        }
        return try self.parse(text, url: url)
    }

    /// Parses a playlist of either kind. `url` is where it was loaded from (a file or http URL):
    /// URIs resolve against it.
    public func parse(_ text: String, url: URL? = nil) throws(PlaylistError) -> Playlist {
        let parsed = try ParsedText.parse(text)
        if parsed.firstMultivariantTagLine > 0 {
            return .multivariant(try MultivariantPlaylist(parsed: parsed, url: url))
        }
        return .media(try MediaPlaylist(parsed: parsed, url: url))
    }

    /// Parses a Media Playlist; a Multivariant Playlist is an error.
    public func parseMediaPlaylist(_ text: String, url: URL? = nil) throws(PlaylistError) -> MediaPlaylist {
        switch try self.parse(text, url: url) {
        case .media(let playlist): return playlist
        case .multivariant:
            throw PlaylistError(.unexpectedPlaylistType, line: 0, text: "", "expected a media playlist, found a multivariant playlist")
        }
    }

    /// Parses a Multivariant Playlist; a Media Playlist is an error.
    public func parseMultivariantPlaylist(_ text: String, url: URL? = nil) throws(PlaylistError) -> MultivariantPlaylist {
        switch try self.parse(text, url: url) {
        case .multivariant(let playlist): return playlist
        case .media:
            throw PlaylistError(.unexpectedPlaylistType, line: 0, text: "", "expected a multivariant playlist, found a media playlist")
        }
    }
}

extension Tag {
    /// Tags of RFC 8216bis §4.4.6.
    var isMultivariantTag: Bool {
        switch self {
        case .media, .streamInf, .iFrameStreamInf, .sessionData, .sessionKey, .contentSteering: true
        default: false
        }
    }

    /// Media Playlist, Media Segment and Media Metadata tags (§4.4.3–4.4.5) and ad markers.
    var isMediaTag: Bool {
        switch self {
        case .targetDuration, .mediaSequence, .discontinuitySequence, .endList, .playlistType, .iFramesOnly, .partInf,
            .serverControl, .inf, .byteRange, .discontinuity, .key, .map, .programDateTime, .gap, .bitrate, .part,
            .dateRange, .skip, .preloadHint, .renditionReport, .cueOut, .cueOutCont, .cueIn, .oatclsSCTE35:
            true
        default: false
        }
    }
}
