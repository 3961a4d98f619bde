import AdCampaign
import Atomics
import HLSPlaylist
import Synchronization

/// An asset's segment blocks, one per stitched rendition (in ``StitchLayout/renditions`` order):
/// written at load, or each on first use.
///
/// A programme's cuts and islands are written on first use, rendition by rendition: a session
/// starts with the multivariant playlist alone, whose figures (``bandwidth(_:)``, ``codecs(_:)``) come from the
/// playlists, and a viewer then plays one or two of the renditions (docs/performance.md
/// "Catalogue cold starts, fourth round"). Which playlist plays in each rendition, its alignment
/// and its longest segments are settled at load from the playlists (``StitchLayout/BlockSource``),
/// so writing cannot fail. A block written on first use has no ``ByteBlock/id``: a server
/// prepares its other forms on first use, as for a rewritten row's.
///
/// What a playlist's render reads of a block (``version(_:)``, ``startKeys(_:)``,
/// ``endKeys(_:)``, ``bytes(_:)``; ``bandwidth(_:)`` and ``codecs(_:)`` for a multivariant
/// playlist) is read in place, without a lock: a copy of a ``SegmentBlock`` retains each of its
/// fields, and a render reads several from every piece.
struct BlockRow: Sendable {
    /// The row's blocks when written at load; empty when ``deferred`` holds them.
    private let blocks: [SegmentBlock]
    /// The row's blocks written on first use; empty when written at load.
    private let deferred: [DeferredBlock]

    /// What the multivariant playlist needs of a rendition's block, without writing it.
    struct Summary: Sendable {
        let bandwidth: Int?
        let averageBandwidth: Int?
        let codecs: [String]
    }

    /// Blocks written already.
    init(_ blocks: [SegmentBlock]) {
        (self.blocks, self.deferred) = (blocks, [])
    }

    /// Blocks of `sources` written by `write` on first use, each on its own.
    init(deferring sources: [StitchLayout.BlockSource], _ write: @escaping @Sendable (StitchLayout.BlockSource) -> SegmentBlock) {
        (self.blocks, self.deferred) = ([], sources.map { DeferredBlock($0, write) })
    }

    var count: Int { self.deferred.isEmpty ? self.blocks.count : self.deferred.count }
    var indices: Range<Int> { 0..<self.count }

    /// The block of rendition `index` (a copy), written now if deferred and not yet written.
    subscript(index: Int) -> SegmentBlock {
        self.deferred.isEmpty ? self.blocks[index] : self.deferred[index].written.block
    }

    func version(_ index: Int) -> Int {
        self.deferred.isEmpty ? self.blocks[index].version : self.deferred[index].written.block.version
    }

    func startKeys(_ index: Int) -> [String] {
        self.deferred.isEmpty ? self.blocks[index].startKeys : self.deferred[index].written.block.startKeys
    }

    func endKeys(_ index: Int) -> [String] {
        self.deferred.isEmpty ? self.blocks[index].endKeys : self.deferred[index].written.block.endKeys
    }

    func bytes(_ index: Int) -> ByteBlock {
        self.deferred.isEmpty ? self.blocks[index].bytes : self.deferred[index].written.block.bytes
    }

    /// The renditions whose blocks are written (a test's view of what was written when).
    var written: [Int] {
        self.deferred.isEmpty ? Array(self.blocks.indices) : self.deferred.indices.filter { self.deferred[$0].isWritten }
    }

    /// The block's BANDWIDTH and AVERAGE-BANDWIDTH for the multivariant playlist, without writing it.
    func bandwidth(_ index: Int) -> (peak: Int?, average: Int?) {
        guard self.deferred.isEmpty else { return self.deferred[index].bandwidth }
        return (self.blocks[index].bandwidth, self.blocks[index].averageBandwidth)
    }

    /// The block's CODECS for the multivariant playlist, without writing it.
    func codecs(_ index: Int) -> [String] {
        self.deferred.isEmpty ? self.blocks[index].codecs : self.deferred[index].codecs
    }

    /// Every `EXT-X-SESSION-KEY` line of the row's blocks, in rendition order: a deferred block
    /// whose playlist declares no key has none and stays unwritten; one that does is written.
    var sessionKeys: [String] {
        var keys: [String] = []
        for block in self.blocks where !block.sessionKeys.isEmpty { keys += block.sessionKeys }
        for block in self.deferred where block.mayDeclareKeys { keys += block.written.block.sessionKeys }
        return keys
    }
}

/// A block written on first use. Read without a lock once written; two first readers at once may
/// both write it, and both then read the one stored first.
final class DeferredBlock: Sendable {
    /// A written block, shared by reference.
    final class Written: Sendable {
        let block: SegmentBlock

        init(_ block: SegmentBlock) {
            self.block = block
        }
    }

    private let source: StitchLayout.BlockSource
    private let write: @Sendable (StitchLayout.BlockSource) -> SegmentBlock
    private let made = ManagedAtomicLazyReference<Written>()
    /// The source's figures (``StitchLayout/BlockSource/summary``), worked out once: a
    /// multivariant playlist reads them for every piece and variant.
    let bandwidth: (peak: Int?, average: Int?)
    let codecs: [String]
    let mayDeclareKeys: Bool

    init(_ source: StitchLayout.BlockSource, _ write: @escaping @Sendable (StitchLayout.BlockSource) -> SegmentBlock) {
        (self.source, self.write) = (source, write)
        let summary = source.summary
        (self.bandwidth, self.codecs, self.mayDeclareKeys) = ((summary.bandwidth, summary.averageBandwidth), summary.codecs, source.mayDeclareKeys)
    }

    var written: Written {
        if let written = self.made.load() { return written }
        return self.made.storeIfNilThenLoad(Written(self.write(self.source)))
    }

    var isWritten: Bool { self.made.load() != nil }
}

/// A value worked out on first use, once: the first caller makes it while the others wait.
final class Deferred<Value: Sendable>: Sendable {
    private let make: @Sendable () -> Value
    private let made = Mutex<Value?>(nil)

    init(_ make: @escaping @Sendable () -> Value) {
        self.make = make
    }

    var value: Value {
        self.made.withLock { made in
            if let made { return made }
            let value = self.make()
            made = value
            return value
        }
    }
}
