import AdCampaign
import HLSPlaylist

/// Makes a viewer's plan: which rules apply, which ads fill each break, which variant starts.
///
/// Pod filling (per break): the candidates are the ads of the break's pools (in pool order,
/// each once) not excluded by an applying rule. While some candidate fits the time left, one
/// is drawn with probability proportional to its weight (times the boosts of applying rules),
/// seeded by (campaign revision, session, break id); an ad plays at most once per break. Then the
/// slate plays whole as many times as still fits. A pool too small to fill the break leaves the
/// rest to the slate, and without a slate the break is simply shorter — never is an asset cut.
public struct Planner: Sendable {
    public init() {}

    public func plan(_ campaign: Campaign, for context: ViewerContext) -> Plan {
        let applying = campaign.rules.filter { $0.condition.holds(for: context) }
        var pieces: [Piece] = []
        var breaks: [PlannedBreak] = []
        var time = ExactDecimal.zero

        func fill(_ adBreak: AdBreak) {
            let planned = self.fill(adBreak, campaign: campaign, rules: applying, context: context, start: time)
            for ad in planned.ads {
                pieces.append(Piece(kind: .ad(ad, breakID: adBreak.id), asset: ad.asset, start: time))
                time += ad.asset.duration
            }
            if let slate = campaign.slate {
                for _ in 0..<planned.slates {
                    pieces.append(Piece(kind: .slate(breakID: adBreak.id), asset: slate, start: time))
                    time += slate.duration
                }
            }
            breaks.append(planned)
        }

        for island in campaign.islands {
            for adBreak in campaign.breaks where adBreak.position == .before(island: island.id) { fill(adBreak) }
            pieces.append(Piece(kind: .island(island), asset: island.asset, start: time))
            time += island.asset.duration
            for adBreak in campaign.breaks where adBreak.position == .after(island: island.id) { fill(adBreak) }
        }
        return Plan(
            campaign: campaign, context: context, pieces: pieces, breaks: breaks,
            startup: StartupSelector().decide(campaign, for: context), appliedRules: applying.map(\.name))
    }

    private func fill(_ adBreak: AdBreak, campaign: Campaign, rules: [Rule], context: ViewerContext, start: ExactDecimal) -> PlannedBreak {
        let pools = rules.last(where: { $0.action.pools[adBreak.id] != nil })?.action.pools[adBreak.id] ?? adBreak.pools
        var ads: [Ad] = []
        for pool in pools.compactMap(campaign.pool) {
            for ad in pool.ads where !ads.contains(where: { $0.id == ad.id }) { ads.append(ad) }
        }
        let seen = Set(context.seen)

        // Exclusions and weights.
        var excluded: [String: (rule: String, reason: String)] = [:]
        var weights: [String: Double] = [:]
        var boosts: [String: [(rule: String, factor: Double)]] = [:]
        for ad in ads {
            var weight = ad.weight
            for rule in rules {
                if excluded[ad.id] == nil, let pattern = rule.action.exclude.first(where: { $0.matches(ad.id) }) {
                    excluded[ad.id] = (rule.name, "exclude '\(pattern.source)'")
                }
                if excluded[ad.id] == nil, rule.action.excludeSeen, seen.contains(ad.id) {
                    excluded[ad.id] = (rule.name, "exclude_seen: the viewer has seen it")
                }
                if let factor = rule.action.boost[ad.id] {
                    weight *= factor
                    boosts[ad.id, default: []].append((rule.name, factor))
                }
            }
            weights[ad.id] = weight
        }

        // Seeded weighted draws while something fits.
        var generator = SeededGenerator(seed: campaign.revision, context.session, adBreak.id)
        var remaining = adBreak.duration
        var chosen: [Ad] = []
        while true {
            let fitting = ads.filter { ad in
                excluded[ad.id] == nil && (weights[ad.id] ?? 0) > 0 && !chosen.contains { $0.id == ad.id } && ad.asset.duration <= remaining
            }
            guard !fitting.isEmpty else { break }
            let total = fitting.reduce(0) { $0 + (weights[$1.id] ?? 0) }
            var draw = generator.unit() * total
            var pick = fitting[fitting.count - 1]
            for ad in fitting {
                draw -= weights[ad.id] ?? 0
                if draw < 0 {
                    pick = ad
                    break
                }
            }
            chosen.append(pick)
            remaining -= pick.asset.duration
        }
        var slates = 0
        if let slate = campaign.slate, slate.duration > .zero {
            while slate.duration <= remaining {
                slates += 1
                remaining -= slate.duration
            }
        }

        let candidates = ads.map { ad -> Candidate in
            let outcome: Candidate.Outcome
            if let position = chosen.firstIndex(where: { $0.id == ad.id }) {
                outcome = .chosen(position: position)
            } else if let exclusion = excluded[ad.id] {
                outcome = .excluded(rule: exclusion.rule, reason: exclusion.reason)
            } else if (weights[ad.id] ?? 0) <= 0 {
                outcome = .notChosen(reason: "its weight is 0")
            } else if ad.asset.duration > adBreak.duration {
                outcome = .notChosen(reason: "it runs \(ad.asset.duration) s, longer than the break's \(adBreak.duration) s")
            } else {
                outcome = .notChosen(reason: "the draw chose other ads and its \(ad.asset.duration) s no longer fit")
            }
            return Candidate(ad: ad, weight: weights[ad.id] ?? 0, boosts: boosts[ad.id] ?? [], outcome: outcome)
        }
        return PlannedBreak(
            adBreak: adBreak, pools: pools, start: start, ads: chosen, slates: slates, unfilled: remaining, candidates: candidates,
            duration: adBreak.duration - remaining)
    }
}
