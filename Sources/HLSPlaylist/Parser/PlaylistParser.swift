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
    public var lines: [PlaylistLine] {
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
        let (lines, notes) = try Self.lines(of: text)
        if try Self.isMultivariant(lines) {
            return .multivariant(try MultivariantPlaylist(lines: lines, url: url, source: notes))
        }
        return .media(try MediaPlaylist(lines: lines, url: url, source: notes))
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

    // MARK: - Lines

    /// Splits the text into non-blank lines and parses each one.
    static func lines(of input: String) throws(PlaylistError) -> ([PlaylistLine], SourceNotes) {
        var notes = SourceNotes()
        var text = Self.normalized(input, notes: &notes)
        text.makeContiguousUTF8()
        let result = text.utf8.withContiguousStorageIfAvailable { bytes in
            Self.scan(text, bytes: bytes, notes: &notes)
        }
        guard let result else { preconditionFailure("a contiguous UTF-8 string has contiguous storage") }
        let lines = try result.get()
        guard case .tag(.m3u)? = lines.first?.content, lines.first?.number == 1 else {
            let first = lines.first
            throw PlaylistError(
                .missingHeader, line: first?.number ?? 1, text: first?.text ?? "",
                "a playlist must start with #EXTM3U on its first line (RFC 8216bis §4.4.1.1)")
        }
        return (lines, notes)
    }

    /// Strips a BOM and turns CRLF and lone CR into LF — the only changes made to the text.
    private static func normalized(_ input: String, notes: inout SourceNotes) -> String {
        let utf8 = input.utf8
        let hasBOM = utf8.starts(with: [0xEF, 0xBB, 0xBF])
        let hasCR = utf8.contains(13)
        guard hasBOM || hasCR else { return input }
        notes.strippedByteOrderMark = hasBOM
        notes.normalizedLineEndings = hasCR
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var previousWasCR = false
        for byte in utf8.dropFirst(hasBOM ? 3 : 0) {
            if byte == 13 {
                bytes.append(10)
                previousWasCR = true
                continue
            }
            if byte == 10, previousWasCR {
                previousWasCR = false
                continue
            }
            previousWasCR = false
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func scan(
        _ text: String, bytes: UnsafeBufferPointer<UInt8>, notes: inout SourceNotes
    ) -> Result<[PlaylistLine], PlaylistError> {
        var lines: [PlaylistLine] = []
        lines.reserveCapacity(bytes.count / 24)
        let utf8 = text.utf8
        let base = utf8.startIndex
        var start = 0
        var number = 0
        let count = bytes.count
        notes.missingFinalNewline = count > 0 && bytes[count - 1] != 10
        while start < count {
            var end = start
            while end < count, bytes[end] != 10 { end += 1 }
            number += 1
            // Trim spaces and tabs around the content; the original keeps them.
            var contentStart = start
            var contentEnd = end
            while contentStart < contentEnd, bytes[contentStart] == 32 || bytes[contentStart] == 9 { contentStart += 1 }
            while contentEnd > contentStart, bytes[contentEnd - 1] == 32 || bytes[contentEnd - 1] == 9 { contentEnd -= 1 }
            if contentStart == contentEnd {
                notes.droppedBlankLines += 1
            } else {
                let original = Substring(utf8[utf8.index(base, offsetBy: start)..<utf8.index(base, offsetBy: end)])
                let content = Substring(utf8[utf8.index(base, offsetBy: contentStart)..<utf8.index(base, offsetBy: contentEnd)])
                do {
                    lines.append(try LineParser.parse(content, original: original, number: number))
                } catch {
                    return .failure(error)
                }
            }
            start = end + 1
        }
        return .success(lines)
    }

    // MARK: - Kind

    /// A playlist with any Multivariant Playlist tag is multivariant; one that also has media
    /// playlist or media segment tags is invalid (RFC 8216bis §4.4.6: clients MUST fail to parse it).
    private static func isMultivariant(_ lines: [PlaylistLine]) throws(PlaylistError) -> Bool {
        var firstMultivariant: PlaylistLine?
        var firstMedia: PlaylistLine?
        for line in lines {
            guard case .tag(let tag) = line.content else { continue }
            if tag.isMultivariantTag {
                firstMultivariant = firstMultivariant ?? line
            } else if tag.isMediaTag {
                firstMedia = firstMedia ?? line
            }
            if let firstMultivariant, let firstMedia {
                let later = firstMultivariant.number > firstMedia.number ? firstMultivariant : firstMedia
                throw PlaylistError(
                    .mixedPlaylistTypes, line: later.number, text: later.text,
                    "a playlist cannot mix multivariant tags (line \(firstMultivariant.number)) with media playlist tags "
                        + "(line \(firstMedia.number)); split it into a multivariant playlist and media playlists")
            }
        }
        return firstMultivariant != nil
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
