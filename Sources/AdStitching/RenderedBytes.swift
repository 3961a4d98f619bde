/// The bytes of one asset's segment lines in one rendition (a ``SegmentBlock``), made once per
/// campaign load and shared by every session that plays the asset there: `id` is its position
/// in ``StitchLayout/byteBlocks``, so a server can keep a form of each block made at load too
/// (the gzip one: docs/performance.md).
public final class ByteBlock: Sendable {
    public let id: Int
    public let bytes: [UInt8]
    /// Where a viewer's values go (a block rewritten by templates with `{session}` or
    /// `{attribute}`: ``URIRewriter``): offsets into ``bytes``, ascending, and the slot whose
    /// value goes there. Empty for a block that is the same for every viewer.
    let marks: [Mark]
    /// How many marks each slot has, by slot number: the filled length without walking them.
    private let slotCounts: [Int]

    struct Mark: Sendable {
        var offset: Int
        var slot: Int
    }

    init(id: Int, bytes: [UInt8], marks: [Mark] = []) {
        self.id = id
        self.bytes = bytes
        self.marks = marks
        var counts: [Int] = []
        for mark in marks {
            if counts.count <= mark.slot { counts += Array(repeating: 0, count: mark.slot + 1 - counts.count) }
            counts[mark.slot] += 1
        }
        self.slotCounts = counts
    }

    /// Whether the block has slots for a viewer's values.
    public var hasSlots: Bool { !self.marks.isEmpty }

    /// The block as this viewer gets it, copied out (``copy(filling:into:)``).
    func filled(_ values: [[UInt8]]) -> [UInt8] {
        guard self.hasSlots else { return self.bytes }
        return [UInt8](unsafeUninitializedCapacity: self.count(filling: values)) { buffer, count in
            count = self.copy(filling: values, into: UnsafeMutableRawBufferPointer(buffer))
        }
    }

    /// The block's length with `values` (by slot number) filled in.
    public func count(filling values: [[UInt8]]) -> Int {
        var count = self.bytes.count
        for (slot, marks) in self.slotCounts.enumerated() where marks > 0 { count += marks * values[slot].count }
        return count
    }

    /// Copies the block as this viewer gets it — its bytes with `values` in their slots — to the
    /// start of `destination`, which holds at least ``count(filling:)`` bytes; returns that count.
    public func copy(filling values: [[UInt8]], into destination: UnsafeMutableRawBufferPointer) -> Int {
        guard let base = destination.baseAddress else { return 0 }
        var written = 0
        self.bytes.withUnsafeBytes { bytes in
            // A block with marks has lines around them, so its bytes are never empty.
            guard let source = bytes.baseAddress else { return }
            var start = 0
            for mark in self.marks {
                base.advanced(by: written).copyMemory(from: source + start, byteCount: mark.offset - start)
                written += mark.offset - start
                values[mark.slot].withUnsafeBytes { value in
                    if let address = value.baseAddress { base.advanced(by: written).copyMemory(from: address, byteCount: value.count) }
                    written += value.count
                }
                start = mark.offset
            }
            base.advanced(by: written).copyMemory(from: source + start, byteCount: bytes.count - start)
            written += bytes.count - start
        }
        return written
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
    /// The viewer's values for blocks with slots (``ByteBlock/hasSlots``), by slot number.
    public private(set) var values: [[UInt8]] = []
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

    /// A binary file written in one piece (the IMSC filler).
    public init(bytes: [UInt8]) {
        self.appendLiteral { $0.append(contentsOf: bytes) }
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

    /// Sets the viewer's values for blocks with slots, before any such block is appended.
    mutating func fill(with values: [[UInt8]]) {
        self.values = values
    }

    /// `text` with each slot marker (``URIRewriter``) replaced by the viewer's value.
    mutating func append(_ text: String, filling values: [[UInt8]]) {
        self.appendLiteral { URIRewriter.fill(text, with: values, into: &$0) }
    }

    mutating func append(_ block: ByteBlock) {
        guard !block.bytes.isEmpty else { return }
        self.parts.append(.block(block))
        self.count += block.hasSlots ? block.count(filling: self.values) : block.bytes.count
    }

    /// The file's bytes, concatenated.
    public var bytes: [UInt8] {
        // A file of the session's own lines only (a live playlist): its literal, not a copy.
        if self.parts.count == 1, case .literal(let range) = self.parts[0], range == self.literal.indices { return self.literal }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(self.count)
        for part in self.parts {
            switch part {
            case .literal(let range): bytes += self.literal[range]
            case .block(let block) where block.hasSlots:
                let count = block.count(filling: self.values)
                let start = bytes.count
                bytes += repeatElement(0, count: count)
                _ = bytes.withUnsafeMutableBytes { block.copy(filling: self.values, into: UnsafeMutableRawBufferPointer(rebasing: $0[start...])) }
            case .block(let block): bytes += block.bytes
            }
        }
        return bytes
    }

    public var text: String { String(decoding: self.bytes, as: UTF8.self) }
}
