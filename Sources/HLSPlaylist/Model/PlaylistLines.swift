/// The lines of a parsed playlist, made into ``PlaylistLine`` values as they are read.
///
/// To edit, copy them into an array, change what you need and build a new playlist from it:
/// `var lines = Array(playlist.lines); lines[3].content = …; try MediaPlaylist(lines: lines)`.
public struct PlaylistLines: RandomAccessCollection, Sendable {
    let parsed: ParsedText

    public var startIndex: Int { 0 }
    public var endIndex: Int { self.parsed.records.count }

    public subscript(position: Int) -> PlaylistLine {
        self.parsed.line(at: position)
    }

    /// Whether a line holds `{$` or is an `EXT-X-DEFINE`: whether variables can be at work
    /// (RFC 8216bis §4.3), found in one pass over the text and the tags, not line by line.
    var mayUseVariables: Bool {
        self.parsed.text.hasVariableReference || self.parsed.tags.contains { if case .define = $0 { true } else { false } }
    }

    /// Each typed tag but `EXTINF` with its line's 1-based number: for checks of header and
    /// segment tags, which need no segment line made into a value.
    var numberedTags: some Sequence<(tag: Tag, number: Int)> {
        self.parsed.records.lazy.filter { $0.kind == .tag }.map { [tags = self.parsed.tags] record in (tags[Int(record.payload)], Int(record.number))
        }
    }

    /// Each line's content and 1-based number, without its text as written: for checks that
    /// read every line and need no more (a playlist of 1,200 segments has 2,400 such lines).
    var numberedContents: some Sequence<(content: PlaylistLine.Content, number: Int)> {
        self.indices.lazy.map { [parsed = self.parsed] index in (parsed.lineContent(at: index), Int(parsed.records[index].number)) }
    }
}
