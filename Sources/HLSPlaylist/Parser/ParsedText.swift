/// Where one line stands in the text and what kind it is — 28 bytes, no references, so a
/// 40,000-segment playlist indexes in a few megabytes without reference counting.
struct LineRecord: Sendable, Hashable {
    enum Kind: UInt8, Sendable {
        case uri
        case comment
        /// `EXTINF`: ``payload`` indexes ``ParsedText/durations``.
        case inf
        /// Any other tag: ``payload`` indexes ``ParsedText/tags``.
        case tag
    }

    /// The line as written: byte offsets of its start and end (before the newline).
    var start: Int32
    var end: Int32
    /// The line without surrounding spaces and tabs.
    var contentStart: Int32
    var contentEnd: Int32
    /// The 1-based line number.
    var number: Int32
    var kind: Kind
    var payload: Int32
}

/// A playlist's normalised text and the index of its lines: the single source of truth that
/// ``MediaPlaylist`` and ``MultivariantPlaylist`` derive everything from. Lines are
/// materialised as ``PlaylistLine`` values only when asked for.
struct ParsedText: Sendable {
    /// The text after normalisation (BOM stripped, LF line endings). Blank lines are still in it.
    let text: String
    let records: [LineRecord]
    /// Typed values of the `.tag` lines.
    let tags: [Tag]
    /// Durations of the `EXTINF` lines.
    let durations: [ExactDecimal]
    let source: SourceNotes
    /// The first multivariant tag's and the first media tag's line numbers (0 when none).
    let firstMultivariantTagLine: Int
    let firstMediaTagLine: Int

    private func index(_ offset: Int32) -> String.Index {
        self.text.utf8.index(self.text.utf8.startIndex, offsetBy: Int(offset))
    }

    /// The trimmed text of a line.
    func content(at index: Int) -> Substring {
        let record = self.records[index]
        return Substring(self.text.utf8[self.index(record.contentStart)..<self.index(record.contentEnd)])
    }

    /// The line exactly as written.
    func original(at index: Int) -> Substring {
        let record = self.records[index]
        return Substring(self.text.utf8[self.index(record.start)..<self.index(record.end)])
    }

    /// The line as a ``PlaylistLine``.
    func line(at index: Int) -> PlaylistLine {
        PlaylistLine(content: self.lineContent(at: index), original: self.original(at: index), number: Int(self.records[index].number))
    }

    /// What the line is, without its text as written (what most checks read of a line).
    func lineContent(at index: Int) -> PlaylistLine.Content {
        let record = self.records[index]
        switch record.kind {
        case .uri: return .uri(self.content(at: index))
        case .comment: return .comment(self.content(at: index))
        case .tag: return .tag(self.tags[Int(record.payload)])
        case .inf: return .tag(.inf(self.inf(at: index)))
        }
    }

    /// The `EXTINF` of an `.inf` line, its duration text and title read from the text again.
    func inf(at index: Int) -> Inf {
        // By UTF-8 offset: `dropFirst(8)` would count characters (grapheme breaking).
        let content = self.content(at: index)
        let value = content[content.utf8.index(content.startIndex, offsetBy: LineParser.extinfPrefix.count)...]
        let comma = value.utf8.firstIndex(of: UInt8(ascii: ","))
        return Inf(
            duration: self.durations[Int(self.records[index].payload)],
            durationText: value[..<(comma ?? value.endIndex)],
            title: comma.map { value[value.utf8.index(after: $0)...] }
        )
    }

    /// Whether two lines have the same trimmed text.
    func contentsEqual(_ first: Int, _ second: Int) -> Bool {
        let (a, b) = (self.records[first], self.records[second])
        guard a.contentEnd - a.contentStart == b.contentEnd - b.contentStart else { return false }
        let utf8 = self.text.utf8
        return utf8[self.index(a.contentStart)..<self.index(a.contentEnd)]
            .elementsEqual(utf8[self.index(b.contentStart)..<self.index(b.contentEnd)])
    }

    /// The canonical text: every line as written, each followed by LF. `replacements` give
    /// new text for some lines (by index).
    func written(replacing replacements: [Int: String] = [:]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(self.text.utf8.count + self.records.count + 64 * replacements.count)
        self.text.utf8.withContiguousStorageIfAvailable { bytes in
            for (index, record) in self.records.enumerated() {
                if let replacement = replacements[index] {
                    output.append(contentsOf: replacement.utf8)
                } else {
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[Int(record.start)..<Int(record.end)]))
                }
                output.append(10)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}

extension ParsedText {
    /// Normalises the text, splits it into lines and parses each one.
    static func parse(_ input: String) throws(PlaylistError) -> ParsedText {
        var notes = SourceNotes()
        var text = Self.normalized(input, notes: &notes)
        text.makeContiguousUTF8()
        guard text.utf8.count < Int(Int32.max) else {
            throw PlaylistError(.malformedTag, line: 0, text: "", "the playlist is larger than 2 GiB")
        }
        var scanner = Scanner(text: text)
        let result = text.utf8.withContiguousStorageIfAvailable { bytes in
            Result { () throws(PlaylistError) in try scanner.scan(bytes) }
        }
        guard let result else { preconditionFailure("a contiguous UTF-8 string has contiguous storage") }
        try result.get()
        notes.droppedBlankLines = scanner.blankLines
        notes.missingFinalNewline = !text.utf8.isEmpty && text.utf8.last != 10
        let parsed = ParsedText(
            text: text,
            records: scanner.records,
            tags: scanner.tags,
            durations: scanner.durations,
            source: notes,
            firstMultivariantTagLine: scanner.firstMultivariantTagLine,
            firstMediaTagLine: scanner.firstMediaTagLine
        )
        guard let first = parsed.records.first, first.number == 1, first.kind == .tag, case .m3u = parsed.tags[Int(first.payload)] else {
            throw PlaylistError(
                .missingHeader,
                line: Int(parsed.records.first?.number ?? 1),
                text: parsed.records.isEmpty ? "" : parsed.original(at: 0),
                "a playlist must start with #EXTM3U on its first line (RFC 8216bis §4.4.1.1)"
            )
        }
        if parsed.firstMultivariantTagLine > 0, parsed.firstMediaTagLine > 0 {
            let later = max(parsed.firstMultivariantTagLine, parsed.firstMediaTagLine)
            let laterIndex = parsed.records.firstIndex { Int($0.number) == later } ?? 0
            throw PlaylistError(
                .mixedPlaylistTypes,
                line: later,
                text: parsed.original(at: laterIndex),
                "a playlist cannot mix multivariant tags (line \(parsed.firstMultivariantTagLine)) with media playlist tags "
                    + "(line \(parsed.firstMediaTagLine)); split it into a multivariant playlist and media playlists"
            )
        }
        return parsed
    }

    /// Strips a BOM and turns CRLF and lone CR into LF — the only changes made to the text.
    private static func normalized(_ input: String, notes: inout SourceNotes) -> String {
        var input = input
        input.makeContiguousUTF8()
        let utf8 = input.utf8
        let hasBOM = utf8.starts(with: [0xEF, 0xBB, 0xBF])
        let hasCR = utf8.withContiguousStorageIfAvailable { $0.firstIndex(ofByte: 13, from: 0) != nil } ?? utf8.contains(13)
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
}

/// One pass over the bytes: records every line, parses tags, and takes the hot path for
/// `EXTINF` and URI lines (no string is made for them).
private struct Scanner {
    /// `#EXTINF:` as one machine word: the hot path compares 8 bytes at once.
    static let extinfWord = LineParser.extinfPrefix.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }

    let text: String
    var records: [LineRecord] = []
    var tags: [Tag] = []
    var durations: [ExactDecimal] = []
    var blankLines = 0
    var firstMultivariantTagLine = 0
    var firstMediaTagLine = 0

    init(text: String) {
        self.text = text
    }

    mutating func scan(_ bytes: UnsafeBufferPointer<UInt8>) throws(PlaylistError) {
        let count = bytes.count
        self.records.reserveCapacity(count / 20)
        self.durations.reserveCapacity(count / 40)
        var start = 0
        var number: Int32 = 0
        while start < count {
            let end = bytes.firstIndex(ofByte: 10, from: start) ?? count
            number += 1
            var contentStart = start
            var contentEnd = end
            while contentStart < contentEnd, bytes[contentStart] == 32 || bytes[contentStart] == 9 { contentStart += 1 }
            while contentEnd > contentStart, bytes[contentEnd - 1] == 32 || bytes[contentEnd - 1] == 9 { contentEnd -= 1 }
            if contentStart == contentEnd {
                self.blankLines += 1
            } else {
                var record = LineRecord(
                    start: Int32(start),
                    end: Int32(end),
                    contentStart: Int32(contentStart),
                    contentEnd: Int32(contentEnd),
                    number: number,
                    kind: .uri,
                    payload: -1
                )
                if bytes[contentStart] == UInt8(ascii: "#") {
                    try self.classify(&record, bytes: bytes)
                }
                self.records.append(record)
            }
            start = end + 1
        }
    }

    private mutating func classify(_ record: inout LineRecord, bytes: UnsafeBufferPointer<UInt8>) throws(PlaylistError) {
        let start = Int(record.contentStart)
        let end = Int(record.contentEnd)
        let line = UnsafeBufferPointer(rebasing: bytes[start..<end])
        if line.count >= 8, UnsafeRawPointer(line.baseAddress!).loadUnaligned(as: UInt64.self) == Self.extinfWord {
            var comma = LineParser.extinfPrefix.count
            while comma < line.count, line[comma] != UInt8(ascii: ",") { comma += 1 }
            let durationBytes = UnsafeBufferPointer(rebasing: line[LineParser.extinfPrefix.count..<comma])
            guard let value = ExactDecimal.parse(durationBytes), value >= 0 else {
                throw LineParser.malformedInf(line: Int(record.number), text: self.substring(start, end))
            }
            record.kind = .inf
            record.payload = Int32(self.durations.count)
            self.durations.append(ExactDecimal(scaledValue: value))
            if self.firstMediaTagLine == 0 { self.firstMediaTagLine = Int(record.number) }
            return
        }
        guard line.starts(with: LineParser.extPrefix) else {
            record.kind = .comment
            return
        }
        let tag = try LineParser.tag(self.substring(start, end), number: Int(record.number))
        if tag.isMultivariantTag {
            if self.firstMultivariantTagLine == 0 { self.firstMultivariantTagLine = Int(record.number) }
        } else if tag.isMediaTag {
            if self.firstMediaTagLine == 0 { self.firstMediaTagLine = Int(record.number) }
        }
        record.kind = .tag
        record.payload = Int32(self.tags.count)
        self.tags.append(tag)
    }

    private func substring(_ start: Int, _ end: Int) -> Substring {
        let utf8 = self.text.utf8
        return Substring(utf8[utf8.index(utf8.startIndex, offsetBy: start)..<utf8.index(utf8.startIndex, offsetBy: end)])
    }
}
