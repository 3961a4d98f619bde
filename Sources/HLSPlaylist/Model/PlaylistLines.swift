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
}
