/// Writes playlists back to text.
///
/// Untouched lines are written exactly as parsed; changed or new lines are serialised from
/// their typed content. The output is canonical: LF line endings, no blank lines, a final
/// newline — so writing a canonical playlist gives back the same bytes.
public struct PlaylistWriter: Sendable {
    public struct Options: Sendable, Hashable {
        /// Write every `EXT-X-BYTERANGE` with its resolved absolute offset (RFC 8216bis §4.4.4.2),
        /// so segments can be moved or reordered without breaking implicit offsets.
        public var explicitByteRangeOffsets = false

        public init(explicitByteRangeOffsets: Bool = false) {
            self.explicitByteRangeOffsets = explicitByteRangeOffsets
        }
    }

    public var options: Options

    public init(options: Options = Options()) {
        self.options = options
    }

    public func write(_ playlist: Playlist) -> String {
        switch playlist {
        case .media(let media): self.write(media)
        case .multivariant(let multivariant): self.write(multivariant)
        }
    }

    public func write(_ playlist: MediaPlaylist) -> String {
        guard self.options.explicitByteRangeOffsets else { return playlist.parsed.written() }
        var replacements: [Int: String] = [:]
        for range in playlist.byteRanges where !range.isOffsetExplicit {
            guard let offset = range.offset else { continue }
            replacements[range.lineIndex] = Tag.byteRange(ByteRange(length: range.length, offset: offset)).serialized
        }
        return playlist.parsed.written(replacing: replacements)
    }

    public func write(_ playlist: MultivariantPlaylist) -> String {
        playlist.parsed.written()
    }

    /// Each line's text followed by a newline: the original text of untouched lines, the
    /// serialised content of changed and new ones.
    public func write(lines: some Sequence<PlaylistLine>) -> String {
        var output = ""
        for line in lines {
            output.append(contentsOf: line.text)
            output.append("\n")
        }
        return output
    }
}
