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
        case .multivariant(let multivariant): self.write(lines: multivariant.lines)
        }
    }

    public func write(_ playlist: MediaPlaylist) -> String {
        guard self.options.explicitByteRangeOffsets else { return self.write(lines: playlist.lines) }
        var lines = playlist.lines
        for segment in playlist.segments {
            guard let range = segment.byteRange, !range.isOffsetExplicit, let offset = range.offset else { continue }
            lines[range.lineIndex].content = .tag(.byteRange(ByteRange(length: range.length, offset: offset)))
        }
        return self.write(lines: lines)
    }

    public func write(_ playlist: MultivariantPlaylist) -> String {
        self.write(lines: playlist.lines)
    }

    /// Each line's text followed by a newline.
    public func write(lines: [PlaylistLine]) -> String {
        var output = ""
        var capacity = 0
        for line in lines { capacity += line.text.utf8.count + 1 }
        output.reserveCapacity(capacity)
        for line in lines {
            output.append(contentsOf: line.text)
            output.append("\n")
        }
        return output
    }
}
