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
    /// The largest weight an ad can reach through boosts: 10⁶ × 10⁶.
    static let maxEffectiveWeight = CampaignLimits.maxWeight * CampaignLimits.maxWeight

    public init() {}

    /// - Parameter decided: ads an ad decision server chose, by break id (docs/design-decisions.md
    ///   "Ad servers"): each break plays its decided ads first, in order, each whole and
    ///   subject to the viewer's `exclude` rules, then draws from its pools for what is left.
    public func plan(_ campaign: Campaign, for context: ViewerContext, decided: [String: [Ad]] = [:]) -> Plan {
        let applying = campaign.rules.filter { $0.condition.holds(for: context) }
        var pieces: [Piece] = []
        var breaks: [PlannedBreak] = []
        var time = ExactDecimal.zero

        func fill(_ adBreak: AdBreak) {
            let planned = self.fill(adBreak, campaign: campaign, rules: applying, context: context, start: time, decided: decided[adBreak.id] ?? [])
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

        // The breaks at each place, grouped at load (a programme cut at 10,000 markers compared
        // 10,000 breaks for each of its 10,000 islands here).
        for island in campaign.islands {
            for adBreak in campaign.breaksAt[.before(island: island.id)] ?? [] { fill(adBreak) }
            pieces.append(Piece(kind: .island(island), asset: island.asset, start: time))
            time += island.asset.duration
            for adBreak in campaign.breaksAt[.after(island: island.id)] ?? [] { fill(adBreak) }
        }
        return Plan(
            campaign: campaign,
            context: context,
            pieces: pieces,
            breaks: breaks,
            startup: StartupSelector().decide(campaign, for: context),
            appliedRules: applying.map(\.name),
            rewrites: RewriteSet(campaign.rewrites.indices.filter { campaign.rewrites[$0].condition.holds(for: context) })
        )
    }

    /// The viewer's fill of a break not known when the plan was made — a live channel's, from its
    /// markers (``LiveProgram/adBreak(id:duration:)``): drawn as any break's, seeded by (campaign
    /// revision, session, break id), so every reload, rendition and replica gets the same ads.
    ///
    /// - Parameter decided: what an ad decision server chose for the break (recorded when the
    ///   break opened, so every refresh and replica passes the same): played first, as in ``plan(_:for:decided:)``.
    public func fill(_ adBreak: AdBreak, for plan: Plan, decided: [Ad] = []) -> PlannedBreak {
        let applying = Set(plan.appliedRules)
        let rules = plan.campaign.rules.filter { applying.contains($0.name) }
        return self.fill(adBreak, campaign: plan.campaign, rules: rules, context: plan.context, start: .zero, decided: decided)
    }

    private func fill(
        _ adBreak: AdBreak,
        campaign: Campaign,
        rules: [Rule],
        context: ViewerContext,
        start: ExactDecimal,
        decided: [Ad] = []
    ) -> PlannedBreak {
        // A rule's override; else, with an ad decision server (the one the viewer's rules choose),
        // its `fallback` pools; else the break's.
        let pools =
            rules.last(where: { $0.action.pools[adBreak.id] != nil })?.action.pools[adBreak.id]
            ?? campaign.adServer(applying: rules)?.fallback ?? adBreak.pools
        // The decided ads first (each id once), then the pools' ads they do not hold.
        var ads: [Ad] = []
        for ad in decided where !ads.contains(where: { $0.id == ad.id }) { ads.append(ad) }
        let decidedCount = ads.count
        for pool in pools {
            for ad in campaign.pool(pool)?.ads ?? [] where !ads.contains(where: { $0.id == ad.id }) { ads.append(ad) }
        }
        let seen = context.seen

        // Exclusions and weights, by position in `ads`.
        var exclusions: [Exclusion?] = Array(repeating: nil, count: ads.count)
        var weights = ads.map(\.weight)
        var boosts: [[Boost]] = Array(repeating: [], count: ads.count)
        let caps = context.capped.compactMap { campaign.frequencyCaps.indices.contains($0) ? ($0, campaign.frequencyCaps[$0]) : nil }
        for (index, ad) in ads.enumerated() {
            if let (number, cap) = caps.first(where: { $0.1.ads.matches(ad.id) }) {
                exclusions[index] = Exclusion(rule: "frequency_caps[\(number)]", pattern: cap.ads.source, cap: cap)
            }
            for rule in rules {
                if exclusions[index] == nil, let pattern = rule.action.exclude.first(where: { $0.matches(ad.id) }) {
                    exclusions[index] = Exclusion(rule: rule.name, pattern: pattern.source)
                }
                if exclusions[index] == nil, rule.action.excludeSeen, seen.contains(ad.id) {
                    exclusions[index] = Exclusion(rule: rule.name, pattern: nil)
                }
                if let factor = rule.action.boost[ad.id] {
                    // Each factor is at most 10⁶ (CampaignLimits); the product is capped so that
                    // many boosting rules cannot overflow it to infinity.
                    weights[index] = min(weights[index] * factor, Self.maxEffectiveWeight)
                    boosts[index].append(Boost(rule: rule.name, factor: factor))
                }
            }
        }

        var remaining = adBreak.duration
        var isChosen = Array(repeating: false, count: ads.count)
        var chosen: [Ad] = []
        // The decided ads in their order, each that is not excluded and still fits.
        for index in 0..<decidedCount where exclusions[index] == nil && ads[index].asset.duration <= remaining {
            isChosen[index] = true
            chosen.append(ads[index])
            remaining -= ads[index].asset.duration
        }
        // Seeded weighted draws from the pools while something fits.
        var generator = SeededGenerator(seed: campaign.revision, context.session, adBreak.id)
        func eligible(_ index: Int) -> Bool {
            index >= decidedCount && !isChosen[index] && exclusions[index] == nil && weights[index] > 0 && ads[index].asset.duration <= remaining
        }
        while true {
            var total = 0.0
            var last: Int?
            for index in ads.indices where eligible(index) {
                total += weights[index]
                last = index
            }
            guard var pick = last else { break }
            var draw = generator.unit() * total
            for index in ads.indices where eligible(index) {
                draw -= weights[index]
                if draw < 0 {
                    pick = index
                    break
                }
            }
            isChosen[pick] = true
            chosen.append(ads[pick])
            remaining -= ads[pick].asset.duration
        }
        var slates = 0
        if let slate = campaign.slate, slate.duration > .zero, slate.duration <= remaining {
            // As many whole repeats as fit; validation bounds them (CampaignLimits.maxSlateRepeats),
            // and so does this, for a live break whose duration came from an origin's marker.
            slates = Int(min(remaining.scaledValue / slate.duration.scaledValue, Int128(CampaignLimits.maxSlateRepeats)))
            remaining -= slate.duration * slates
        }
        return PlannedBreak(
            adBreak: adBreak,
            pools: pools,
            start: start,
            ads: chosen,
            slates: slates,
            unfilled: remaining,
            duration: adBreak.duration - remaining,
            considered: ads,
            weights: weights,
            boosts: boosts,
            exclusions: exclusions,
            decidedCount: decidedCount
        )
    }
}
