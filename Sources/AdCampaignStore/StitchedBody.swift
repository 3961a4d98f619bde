import AdStitching
import CZlib
import CompressNIO
import NIOCore
import Synchronization

/// The bytes of stitched files on the wire, plain or gzip, written from a ``RenderedBytes``
/// without compressing anything per request.
///
/// At load, each segment block of a campaign revision is deflated once as a raw deflate stream of
/// its own, ended by a sync flush (an empty stored block, RFC 1951 §3.2.4, leaving the stream
/// byte-aligned and unfinished). Blocks compressed apart can then follow one another in one
/// stream: none refers back before its own start. A gzip answer (RFC 1952) is the header, each
/// part of the file in order — the session's own lines as stored blocks, each shared block's
/// deflate bytes — a final empty stored block, and the trailer: the CRC-32 of the whole, combined
/// from the blocks' CRCs with zlib's `crc32_combine_op`, and the length.
///
/// A plain answer writes the long blocks from their own buffers, made at load too, between the
/// session's lines (``AnswerBody``): never copied per request.
package struct StitchedBody: Sendable {
    package struct Block: Sendable {
        /// The block's bytes, shared by every answer that plays it.
        package var plain: ByteBuffer
        var deflated: ByteBuffer
        var crc: UInt32
        /// `crc32_combine_gen` of the block's length: appends its CRC to a running one in one step.
        var shift: UInt
    }

    /// By ``ByteBlock/id``.
    package let blocks: [Block]
    /// Blocks made after load — rows rewritten for a combination of `rewrite:` rules, without
    /// per-viewer values — deflated on their first gzip answer and kept with the block they came
    /// from (held, so its identity cannot be reused while cached). Blocks with per-viewer values
    /// are sent stored.
    private let made = MadeBlocks()

    final class MadeBlocks: Sendable {
        private let blocks = Mutex([ObjectIdentifier: (source: ByteBlock, block: Block)]())
        /// Rewritten rows are kept per load (at most 1,024 rows), so this bounds itself; the cap is
        /// for safety.
        static let limit = 16_384

        func block(for source: ByteBlock) -> Block? {
            if let cached = self.blocks.withLock({ $0[ObjectIdentifier(source)] }), cached.source === source { return cached.block }
            guard let block = try? StitchedBody.deflate(source) else { return nil }
            self.blocks.withLock { blocks in
                if blocks.count < Self.limit { blocks[ObjectIdentifier(source)] = (source, block) }
            }
            return block
        }
    }

    package init(blocks: [Block]) {
        self.blocks = blocks
    }

    /// Deflates every block of `layout` (once per campaign load).
    init(_ layout: StitchLayout) throws {
        self.init(blocks: try layout.byteBlocks.map(Self.deflate))
    }

    /// One block as a buffer, and as a raw deflate stream of its own ended by a sync flush.
    package static func deflate(_ block: ByteBlock) throws -> Block {
        let compressor = try ZlibCompressor(algorithm: .deflate, configuration: .init(compressionLevel: .bestCompression))
        var window = ByteBufferAllocator().buffer(capacity: 64 << 10)
        let plain = ByteBuffer(bytes: block.bytes)
        var input = plain
        var deflated = ByteBuffer()
        try input.compressStream(with: compressor, window: &window, flush: .sync) { deflated.writeImmutableBuffer($0) }
        return Block(
            plain: plain,
            deflated: ByteBuffer(bytes: deflated.readableBytesView),  // right-sized
            crc: block.bytes.withUnsafeBufferPointer { czlib_crc32(0, $0.baseAddress, $0.count) },
            shift: czlib_crc32_shift(block.bytes.count)
        )
    }

    /// The shared forms (plain and deflated) of a block of this revision: made at load, or (a
    /// rewritten row without per-viewer values) on first use; nil for a block with per-viewer values.
    private func deflated(_ block: ByteBlock) -> Block? {
        if self.blocks.indices.contains(block.id) { return self.blocks[block.id] }
        return block.hasSlots ? nil : self.made.block(for: block)
    }

    /// The file's bytes as written: the session's own bytes — its lines, short blocks, blocks
    /// filled with its values — in one buffer, between the buffers of the long shared blocks (this
    /// revision's). Byte for byte ``plain(_:)``.
    package func plainBody(_ file: RenderedBytes) -> AnswerBody {
        var ownCount = file.literal.count
        for part in file.parts {
            if case .block(let block) = part, self.shared(block) == nil { ownCount += block.count(filling: file.values) }
        }
        var own = ByteBufferAllocator().buffer(capacity: ownCount)
        var buffers: [ByteBuffer] = []
        buffers.reserveCapacity(file.parts.count)
        // Where the run of own bytes not yet in `buffers` starts.
        var runStart = 0
        func endRun() {
            if own.writerIndex > runStart, let slice = own.getSlice(at: runStart, length: own.writerIndex - runStart) { buffers.append(slice) }
            runStart = own.writerIndex
        }
        for part in file.parts {
            switch part {
            case .literal(let range): own.writeBytes(file.literal[range])
            case .block(let block):
                if let shared = self.shared(block) {
                    endRun()
                    buffers.append(shared.plain)
                } else {
                    let count = block.count(filling: file.values)
                    own.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { block.copy(filling: file.values, into: $0) }
                }
            }
        }
        endRun()
        return AnswerBody(buffers: buffers, ownedBytes: own.capacity + 24 * buffers.count)
    }

    /// The shared buffer a plain answer writes `block` from, or nil for one it copies: blocks with
    /// a viewer's values, and short ones (see ``sharedMinimum``).
    private func shared(_ block: ByteBlock) -> Block? {
        block.bytes.count >= Self.sharedMinimum ? self.deflated(block) : nil
    }

    /// The shortest block a plain answer writes from its shared buffer. Each buffer of an answer
    /// costs a pending write and an I/O vector (measured: a two-hour playlist written as ~30
    /// buffers, islands and ads alike, cost more CPU than one joined copy); an island is tens of KB,
    /// an ad a few hundred bytes.
    package static let sharedMinimum = 16 * 1024

    /// The file's bytes in one buffer.
    package static func plain(_ file: RenderedBytes) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: file.count)
        for part in file.parts {
            switch part {
            case .literal(let range): buffer.writeBytes(file.literal[range])
            case .block(let block) where block.hasSlots:
                let count = block.count(filling: file.values)
                buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { block.copy(filling: file.values, into: $0) }
            case .block(let block): buffer.writeBytes(block.bytes)
            }
        }
        return buffer
    }

    /// The file as one gzip member; its blocks must be this revision's. Rewritten blocks with a
    /// viewer's values go out stored, as the session's lines do; those without are deflated once.
    package func gzip(_ file: RenderedBytes) -> ByteBuffer {
        var capacity = 10 + 5 + 8 + file.literal.count
        for part in file.parts {
            switch part {
            case .literal(let range): capacity += 5 * (range.count / Self.maxStored + 1)
            case .block(let block):
                if let compressed = self.deflated(block) {
                    capacity += compressed.deflated.readableBytes
                } else {
                    let count = block.count(filling: file.values)
                    capacity += count + 5 * (count / Self.maxStored + 1)
                }
            }
        }
        var buffer = ByteBufferAllocator().buffer(capacity: capacity)
        // ID1 ID2, CM deflate, no flags, no modification time, no extra flags, OS Unix (RFC 1952 §2.3).
        buffer.writeBytes([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3])
        var crc: UInt32 = 0
        func stored(_ all: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
            var start = range.lowerBound
            while start < range.upperBound {
                let bytes = UnsafeBufferPointer(rebasing: all[start..<min(range.upperBound, start + Self.maxStored)])
                // A stored block (RFC 1951 §3.2.4): BFINAL 0, BTYPE 00, then LEN and its complement.
                buffer.writeInteger(UInt8(0))
                buffer.writeInteger(UInt16(bytes.count), endianness: .little)
                buffer.writeInteger(~UInt16(bytes.count), endianness: .little)
                buffer.writeBytes(UnsafeRawBufferPointer(bytes))
                crc = czlib_crc32(crc, bytes.baseAddress, bytes.count)
                start += bytes.count
            }
        }
        for part in file.parts {
            switch part {
            case .literal(let range):
                file.literal.withUnsafeBufferPointer { stored($0, range) }
            case .block(let block) where block.hasSlots:
                // The viewer's copy of the block, then stored.
                let filled = [UInt8](unsafeUninitializedCapacity: block.count(filling: file.values)) { buffer, initialized in
                    initialized = block.copy(filling: file.values, into: UnsafeMutableRawBufferPointer(buffer))
                }
                filled.withUnsafeBufferPointer { stored($0, $0.indices) }
            case .block(let block):
                if let compressed = self.deflated(block) {
                    buffer.writeImmutableBuffer(compressed.deflated)
                    crc = czlib_crc32_combine(crc, compressed.crc, compressed.shift)
                } else {
                    block.bytes.withUnsafeBufferPointer { stored($0, $0.indices) }
                }
            }
        }
        // The last block: stored, empty, BFINAL 1.
        buffer.writeBytes([1, 0, 0, 0xff, 0xff])
        buffer.writeInteger(crc, endianness: .little)
        buffer.writeInteger(UInt32(truncatingIfNeeded: file.count), endianness: .little)
        return buffer
    }

    /// The most a stored block holds (its LEN is 16 bits).
    package static let maxStored = 65_535
}
