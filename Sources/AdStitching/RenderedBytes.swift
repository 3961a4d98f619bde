/// The bytes of one asset's segment lines in one rendition (a ``SegmentBlock``), made once per
/// campaign load and shared by every session that plays the asset there: `id` is its position
/// in ``StitchLayout/byteBlocks``, so a server can keep a form of each block made at load too
/// (the gzip one: docs/performance.md).
public final class ByteBlock: Sendable {
    public let id: Int
    public let bytes: [UInt8]

    init(id: Int, bytes: [UInt8]) {
        self.id = id
        self.bytes = bytes
    }
}

/// A stitched file as a request writes it: the per-session lines (header, discontinuities, date
/// ranges, key changes) in `literal`, between the shared ``ByteBlock``s of the layout. The parts
/// in order are the file; nothing per session copies a block until the response is written.
public struct RenderedBytes: Sendable {
    public enum Part: Sendable {
        /// A range of ``literal``.
        case literal(Range<Int>)
        case block(ByteBlock)
    }

    public private(set) var literal: [UInt8] = []
    public private(set) var parts: [Part] = []
    /// The length of the file in bytes.
    public private(set) var count = 0

    init(literalCapacity: Int, parts: Int) {
        self.literal.reserveCapacity(literalCapacity)
        self.parts.reserveCapacity(parts)
    }

    /// A file written in one piece (a multivariant playlist, a boundary manifest).
    public init(text: String) {
        self.append(text)
    }

    mutating func append(_ text: String) {
        self.appendLiteral { $0.append(contentsOf: text.utf8) }
    }

    /// Appends what `write` adds to the literal bytes (several pieces of one line without a
    /// string in between).
    mutating func appendLiteral(_ write: (inout [UInt8]) -> Void) {
        let start = self.literal.count
        write(&self.literal)
        guard self.literal.count > start else { return }
        if case .literal(let range)? = self.parts.last, range.upperBound == start {
            self.parts[self.parts.count - 1] = .literal(range.lowerBound..<self.literal.count)
        } else {
            self.parts.append(.literal(start..<self.literal.count))
        }
        self.count += self.literal.count - start
    }

    /// A segment block: its bytes, or (with per-viewer rewrite values) its pieces with the
    /// viewer's value for each slot between them.
    mutating func append(_ block: SegmentBlock, filling values: [[UInt8]]) {
        guard !block.slots.isEmpty else { return self.append(block.bytes) }
        for (index, piece) in block.pieces.enumerated() {
            self.append(piece)
            if index < block.slots.count { self.appendLiteral { $0 += values[block.slots[index]] } }
        }
    }

    /// `text` with each slot marker (``URIRewriter``) replaced by the viewer's value.
    mutating func append(_ text: String, filling values: [[UInt8]]) {
        self.appendLiteral { bytes in
            var utf8 = text.utf8.makeIterator()
            while let byte = utf8.next() {
                guard byte == URIRewriter.marker, let slot = utf8.next() else {
                    bytes.append(byte)
                    continue
                }
                _ = utf8.next()
                bytes += values[Int(slot)]
            }
        }
    }

    mutating func append(_ block: ByteBlock) {
        guard !block.bytes.isEmpty else { return }
        self.parts.append(.block(block))
        self.count += block.bytes.count
    }

    /// The file's bytes, concatenated.
    public var bytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(self.count)
        for part in self.parts {
            switch part {
            case .literal(let range): bytes += self.literal[range]
            case .block(let block): bytes += block.bytes
            }
        }
        return bytes
    }

    public var text: String { String(decoding: self.bytes, as: UTF8.self) }
}
