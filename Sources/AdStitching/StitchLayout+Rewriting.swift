import AdCampaign
import AdDecision
import Foundation
import Synchronization

/// A layout's `rewrite:` rules: which rules can touch each asset's URIs, and the blocks each
/// distinct outcome makes — worked out at load where an asset has few rules that reach it (at
/// most ``precomputedRules``: every combination), else on first use, then kept for the load.
/// A request looks its rows up; it never runs a pattern.
final class Rewriting: Sendable {
    let rewriter: URIRewriter
    let emptySubtitleURI: String
    /// By asset and the kind it plays as: the rules that match at least one of its URIs they
    /// apply to. Other rules cannot change its blocks, so they are left out of the row's key.
    private let reach: [Target: RewriteSet]
    /// Every distinct URI each asset writes, for reports (``applied(_:rewrites:)``).
    private let written: [ObjectIdentifier: [(url: URL, role: URIStyle.Role)]]
    private let assets: [ObjectIdentifier: (asset: Asset, isIsland: Bool)]
    private let rows = Mutex([RowKey: BlockRow]())

    /// Assets reached by at most this many rules get every combination's blocks at load.
    static let precomputedRules = 3
    /// Rows kept for rules combinations met after load; past it, a row is made per request.
    static let maxRows = 1_024

    struct Target: Hashable {
        var asset: ObjectIdentifier
        var kind: Int
    }

    struct RowKey: Hashable {
        var target: Target
        var rules: UInt64
    }

    init(rewriter: URIRewriter, campaign: Campaign, written: [ObjectIdentifier: [(url: URL, role: URIStyle.Role)]], emptySubtitleURI: String) {
        self.rewriter = rewriter
        self.emptySubtitleURI = emptySubtitleURI
        var kinds: [(Asset, RewriteTargets, isIsland: Bool)] = campaign.islands.map { ($0.asset, .program, true) }
        if let programme = campaign.programAsset { kinds.append((programme, .program, true)) }
        kinds += campaign.ads.map { ($0.asset, .ads, false) }
        if let slate = campaign.slate { kinds.append((slate, .slate, false)) }
        var distinct: [ObjectIdentifier: [(url: URL, role: URIStyle.Role)]] = [:]
        for (asset, uris) in written {
            var seen: Set<String> = []
            distinct[asset] = uris.filter { seen.insert("\($0.role == .key ? "k" : "m")\($0.url.absoluteString)").inserted }
        }
        var reach: [Target: RewriteSet] = [:]
        var assets: [ObjectIdentifier: (asset: Asset, isIsland: Bool)] = [:]
        let all = RewriteSet(rewriter.rules.indices)
        for (asset, kind, isIsland) in kinds {
            let id = ObjectIdentifier(asset)
            assets[id] = assets[id] ?? (asset, isIsland)
            let target = Target(asset: id, kind: kind.rawValue)
            guard reach[target] == nil else { continue }
            var rules = RewriteSet.none
            for (url, role) in distinct[id] ?? [] {
                // The rules that would take this URI if they alone were in force.
                for position in all.positions where !rules.contains(position) {
                    if rewriter.apply(url, as: role, kind: kind, among: RewriteSet([position])) != nil { rules.bits |= 1 << UInt64(position) }
                }
            }
            reach[target] = rules
        }
        self.reach = reach
        self.written = distinct
        self.assets = assets
    }

    /// Makes the rows of every combination of rules for assets few rules reach.
    func prepare(_ layout: StitchLayout) throws(StitchError) {
        for (target, rules) in self.reach where !rules.isEmpty && rules.bits.nonzeroBitCount <= Self.precomputedRules {
            let positions = rules.positions
            for combination in 1..<(1 << positions.count) {
                let set = RewriteSet(positions.indices.filter { combination & (1 << $0) != 0 }.map { positions[$0] })
                let row = try self.make(target, set, layout: layout)
                self.rows.withLock { $0[RowKey(target: target, rules: set.bits)] = row }
            }
        }
    }

    /// The rows of `asset` playing as `kind` for a viewer whose rules are `rewrites`.
    func row(_ asset: Asset, kind: RewriteTargets, rewrites: RewriteSet, layout: StitchLayout) throws(StitchError) -> BlockRow {
        let target = Target(asset: ObjectIdentifier(asset), kind: kind.rawValue)
        let set = rewrites.intersection(self.reach[target] ?? .none)
        guard !set.isEmpty else { return try layout.row(asset) }
        let key = RowKey(target: target, rules: set.bits)
        if let row = self.rows.withLock({ $0[key] }) { return row }
        let row = try self.make(target, set, layout: layout)
        self.rows.withLock { rows in
            if rows.count < Self.maxRows { rows[key] = row }
        }
        return row
    }

    /// The blocks of the target's asset with its URIs written by `set`.
    private func make(_ target: Target, _ set: RewriteSet, layout: StitchLayout) throws(StitchError) -> BlockRow {
        guard let (asset, isIsland) = self.assets[target.asset] else { return BlockRow([]) }
        let shared = try layout.row(asset)
        let style = self.rewriter.style(kind: RewriteTargets(rawValue: target.kind), set: set)
        var row: [SegmentBlock] = []
        for (index, rendition) in layout.renditions.enumerated() {
            var block = try StitchLayout.block(
                for: rendition,
                of: asset,
                isIsland: isIsland,
                program: layout.program,
                uris: style,
                emptySubtitleURI: self.emptySubtitleURI,
                version: shared[index].version,
                passthrough: layout.campaign.markersPassthrough && isIsland
            )
            block.bandwidth = shared[index].bandwidth
            block.averageBandwidth = shared[index].averageBandwidth
            block.seal(id: -1, slots: true)
            row.append(block)
        }
        return BlockRow(row)
    }

    /// The kind a piece plays as, for `applies_to:`.
    static func kind(of piece: Piece) -> RewriteTargets {
        switch piece.kind {
        case .island: .program
        case .ad: .ads
        case .slate: .slate
        }
    }

    /// The names of the rules that write at least one of the piece's URIs for a viewer whose
    /// rules are `rewrites`, in campaign order (the preview's report).
    func applied(_ piece: Piece, rewrites: RewriteSet) -> [String] {
        let kind = Self.kind(of: piece)
        var used = Set<Int>()
        for (url, role) in self.written[ObjectIdentifier(piece.asset)] ?? [] {
            if let (rule, _) = self.rewriter.apply(url, as: role, kind: kind, among: rewrites) { used.insert(rule) }
        }
        return used.sorted().map { self.rewriter.rules[$0].name }
    }
}

extension StitchLayout {
    /// The rewrite rules that write at least one URI of `piece` for a viewer whose rules are
    /// `rewrites`, by name (empty without rules).
    public func appliedRewrites(_ piece: Piece, rewrites: RewriteSet) -> [String] {
        self.rewriting?.applied(piece, rewrites: rewrites) ?? []
    }
}
