import AdCampaign
import HLSPlaylist
import Synchronization

/// An asset's segment blocks, one per stitched rendition (in ``StitchLayout/renditions`` order):
/// each written at load, or on first use.
///
/// A programme's cuts and islands are written on first use, rendition by rendition: a session
/// starts with the multivariant playlist alone, whose figures (``summary(_:)``) come from the
/// playlists, and a viewer then plays one or two of the renditions (docs/performance.md
/// "Catalogue cold starts, fourth round"). Which playlist plays in each rendition, its alignment
/// and its longest segments are settled at load from the playlists (``StitchLayout/BlockSource``),
/// so writing cannot fail. A block written on first use has no ``ByteBlock/id``: a server
/// prepares its other forms on first use, as for a rewritten row's.
struct BlockRow: Sendable {
    private enum Cell: Sendable {
        case written(SegmentBlock)
        case deferred(StitchLayout.BlockSource, Deferred<SegmentBlock>)
    }

    /// What the multivariant playlist needs of a rendition's block, without writing it.
    struct Summary {
        let bandwidth: Int?
        let averageBandwidth: Int?
        let codecs: [String]
    }

    private let cells: [Cell]

    /// Blocks written already.
    init(_ blocks: [SegmentBlock]) {
        self.cells = blocks.map(Cell.written)
    }

    /// Blocks of `sources` written by `write` on first use, each on its own.
    init(deferring sources: [StitchLayout.BlockSource], _ write: @escaping @Sendable (StitchLayout.BlockSource) -> SegmentBlock) {
        self.cells = sources.map { source in .deferred(source, Deferred { write(source) }) }
    }

    var count: Int { self.cells.count }
    var indices: Range<Int> { self.cells.indices }

    /// The block of rendition `index`, read in place when written at load (a copy of a
    /// ``SegmentBlock`` retains each of its fields), written now when deferred and not yet written.
    subscript(index: Int) -> SegmentBlock {
        _read {
            switch self.cells[index] {
            case .written(let block): yield block
            case .deferred(_, let block): yield block.value
            }
        }
    }

    /// The renditions whose blocks are written (a test's view of what was written when).
    var written: [Int] {
        self.cells.indices.filter { index in
            switch self.cells[index] {
            case .written: true
            case .deferred(_, let block): block.isMade
            }
        }
    }

    func summary(_ index: Int) -> Summary {
        switch self.cells[index] {
        case .written(let block):
            return Summary(bandwidth: block.bandwidth, averageBandwidth: block.averageBandwidth, codecs: block.codecs)
        case .deferred(let source, _):
            return source.summary
        }
    }

    /// Every `EXT-X-SESSION-KEY` line of the row's blocks, in rendition order: a deferred block
    /// whose playlist declares no key has none and stays unwritten; one that does is written.
    var sessionKeys: [String] {
        var keys: [String] = []
        for cell in self.cells {
            switch cell {
            case .written(let block): keys += block.sessionKeys
            case .deferred(let source, let block): if source.mayDeclareKeys { keys += block.value.sessionKeys }
            }
        }
        return keys
    }
}

/// A value worked out on first use, once: the first caller makes it while the others wait.
final class Deferred<Value: Sendable>: Sendable {
    private let make: @Sendable () -> Value
    private let made = Mutex<Value?>(nil)

    init(_ make: @escaping @Sendable () -> Value) {
        self.make = make
    }

    /// Whether the value is made.
    var isMade: Bool { self.made.withLock { $0 != nil } }

    var value: Value {
        self.made.withLock { made in
            if let made { return made }
            let value = self.make()
            made = value
            return value
        }
    }
}
