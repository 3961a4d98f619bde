import AdCampaign
import HLSPlaylist

/// What one viewer gets: the pieces of the stitched timeline in play order, how each break
/// was filled and why, and the startup variant. A pure function of (campaign revision, context).
public struct Plan: Sendable {
    public let campaign: Campaign
    public let context: ViewerContext
    /// Islands, ads and slates in play order, with their stream times.
    public let pieces: [Piece]
    public let breaks: [PlannedBreak]
    public let startup: StartupDecision
    /// The rules whose condition held for this viewer, by name.
    public let appliedRules: [String]
    /// The rewrite rules whose condition held for this viewer (the first that matches a URI
    /// rewrites it: docs/campaign-format.md `rewrite:`).
    public let rewrites: RewriteSet

    /// The stream's exact duration: the sum of its pieces on the main video timeline.
    public var duration: ExactDecimal { self.pieces.last.map { $0.start + $0.duration } ?? .zero }
}

/// One stretch of the stitched timeline, played whole.
public struct Piece: Sendable {
    public enum Kind: Sendable {
        case island(Island)
        case ad(Ad, breakID: String)
        case slate(breakID: String)

        /// `island`, `ad` or `slate`: the word plan reports and the preview page use.
        public var name: String {
            switch self {
            case .island: "island"
            case .ad: "ad"
            case .slate: "slate"
            }
        }
    }

    public let kind: Kind
    public let asset: Asset
    /// Stream time where it starts (exact).
    public let start: ExactDecimal
    /// Its duration on the main video timeline.
    public var duration: ExactDecimal { self.asset.duration }

    /// `act-1`, `alpha`, `slate`.
    public var id: String {
        switch self.kind {
        case .island(let island): island.id
        case .ad(let ad, _): ad.id
        case .slate: "slate"
        }
    }

    public var breakID: String? {
        switch self.kind {
        case .island: nil
        case .ad(_, let id), .slate(let id): id
        }
    }
}

/// How a break was filled.
public struct PlannedBreak: Sendable {
    public let adBreak: AdBreak
    /// The pools it filled from (after rule overrides).
    public let pools: [String]
    public let start: ExactDecimal
    /// Ads in play order.
    public let ads: [Ad]
    /// How many times the slate plays after the ads.
    public let slates: Int
    /// What neither ads nor slate could fill (less than the shortest remaining asset).
    public let unfilled: ExactDecimal
    /// Its duration in the stream.
    public let duration: ExactDecimal

    // What the draw saw, per ad of the pools (same order): kept raw, explained on demand, so
    // planning a request builds no explanation strings.
    let considered: [Ad]
    let weights: [Double]
    let boosts: [[Boost]]
    let exclusions: [Exclusion?]
    /// How many of `considered`, from the first, an ad decision server decided.
    let decidedCount: Int

    public var end: ExactDecimal { self.start + self.duration }

    /// Every ad of the break's pools and what became of it.
    public var candidates: [Candidate] {
        self.considered.indices.map { index in
            let ad = self.considered[index]
            let outcome: Candidate.Outcome
            if let position = self.ads.firstIndex(where: { $0.id == ad.id }) {
                outcome = .chosen(position: position)
            } else if let exclusion = self.exclusions[index], let cap = exclusion.cap {
                outcome = .excluded(
                    rule: exclusion.rule,
                    reason: "frequency cap: the viewer had \(cap.max) impressions of '\(cap.ads.source)' ads within \(cap.perText)"
                )
            } else if let exclusion = self.exclusions[index] {
                outcome = .excluded(
                    rule: exclusion.rule,
                    reason: exclusion.pattern.map { "exclude '\($0)'" } ?? "exclude_seen: the viewer has seen it"
                )
            } else if self.weights[index] <= 0 {
                outcome = .notChosen(reason: "its weight is 0")
            } else if ad.asset.duration > self.adBreak.duration {
                outcome = .notChosen(reason: "it runs \(ad.asset.duration) s, longer than the break's \(self.adBreak.duration) s")
            } else if index < self.decidedCount {
                outcome = .notChosen(reason: "the ad server's ads before it left less than its \(ad.asset.duration) s")
            } else {
                outcome = .notChosen(reason: "the draw chose other ads and its \(ad.asset.duration) s no longer fit")
            }
            return Candidate(ad: ad, weight: self.weights[index], boosts: self.boosts[index], outcome: outcome)
        }
    }
}

/// An ad considered for a break, and why it was or was not chosen.
public struct Candidate: Sendable {
    public enum Outcome: Sendable, Hashable {
        /// Chosen, at this position in the break.
        case chosen(position: Int)
        /// Excluded by a rule (its name) and how (`exclude '^bravo$'`, `exclude_seen`).
        case excluded(rule: String, reason: String)
        /// Eligible but not chosen: it did not fit what was left, or the draw went elsewhere.
        case notChosen(reason: String)
    }

    public let ad: Ad
    /// The weight after boosts.
    public let weight: Double
    /// Boosts applied: rule name and factor.
    public let boosts: [Boost]
    public let outcome: Outcome
}

/// A weight multiplier a rule applied to an ad.
public struct Boost: Sendable, Hashable {
    public let rule: String
    public let factor: Double
}

/// Which rule excluded an ad, and by which pattern (nil: `exclude_seen`).
struct Exclusion: Sendable {
    let rule: String
    let pattern: String?
    /// A frequency cap the viewer reached, not a rule (`rule` names it: `frequency_caps[1]`).
    var cap: FrequencyCap? = nil
}

/// The variant playback starts on, and the order of the variants in the multivariant playlist.
public struct StartupDecision: Sendable, Hashable {
    /// Index into the programme's variants.
    public let variant: Int
    /// Variant indices in the order to write them: startup first.
    public let order: [Int]
    /// Which startup entry decided (index into `campaign.startup`, or into the arm's entries
    /// under an experiment), nil for the default.
    public let rule: Int?
    /// Why, in words.
    public let reason: String
    /// The session's arm of the campaign's startup experiment, if it has one.
    public var arm: StartupExperiment.Arm? = nil

    /// `startup[1]`, `startup.experiment.b[0]`, or `default` (no entry held): the entry that chose.
    public var ruleName: String {
        let list = self.arm.map { "startup.experiment.\($0.rawValue)" } ?? "startup"
        return self.rule.map { "\(list)[\($0)]" } ?? (self.arm.map { "startup.experiment.\($0.rawValue) default" } ?? "default")
    }
}

/// A set of a campaign's rewrite rules, by position (at most ``CampaignLimits/maxRewriteRules``).
public struct RewriteSet: Sendable, Hashable {
    public var bits: UInt64

    public init(bits: UInt64) {
        self.bits = bits
    }

    public init(_ positions: some Sequence<Int>) {
        self.bits = positions.reduce(0) { $0 | (1 << UInt64($1)) }
    }

    public static let none = RewriteSet(bits: 0)

    public func contains(_ position: Int) -> Bool { self.bits & (1 << UInt64(position)) != 0 }

    public var isEmpty: Bool { self.bits == 0 }

    /// The rules in both sets.
    public func intersection(_ other: RewriteSet) -> RewriteSet { RewriteSet(bits: self.bits & other.bits) }

    /// The positions in the set, in order.
    public var positions: [Int] { (0..<64).filter(self.contains) }
}
