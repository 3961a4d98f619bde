import AdCampaign
import HLSPlaylist

/// Picks the startup variant and orders the variants (seed 002): the first variant listed is
/// the one players start with, so it must be one the viewer's network sustains; where the
/// ladder holds several codec families or HDR and SDR, the first variant of each family
/// follows at a similar tier, so a player that cannot decode the first starts on a sibling
/// rather than at the far end of the list. An audio-only variant is never the startup variant
/// (a player that starts there shows no picture until it switches up) unless a rule's `codecs`
/// matches audio-only variants alone, or the ladder has nothing else.
public struct StartupSelector: Sendable {
    public init() {}

    public func decide(_ campaign: Campaign, for context: ViewerContext) -> StartupDecision {
        guard let program = campaign.templateAsset, !program.variants.isEmpty else {
            return StartupDecision(variant: 0, order: [], rule: nil, reason: "no variants")
        }
        // The variants as the asset read them: CODECS and audio-only-ness once, not per start.
        let variants = program.variants
        let families = program.variantFamilies
        // Under an experiment, the entries of the session's arm (a stable hash of its id).
        let arm = campaign.startupExperiment?.arm(session: context.session)
        let rules = arm.flatMap { campaign.startupExperiment?.rules($0) } ?? campaign.startup
        for (index, rule) in rules.enumerated() where rule.condition.holds(for: context) {
            let (variant, reason) = self.select(rule.pick, among: variants, context: context)
            var decision = StartupDecision(
                variant: variant,
                order: self.order(variants, families: families, startingWith: variant),
                rule: index,
                reason: arm.map { "experiment arm \($0.rawValue): " + reason } ?? reason
            )
            decision.arm = arm
            return decision
        }
        let lowest = Self.lowest(variants, in: Self.withPicture(variants, Array(variants.indices)))
        var decision = StartupDecision(
            variant: lowest,
            order: self.order(variants, families: families, startingWith: lowest),
            rule: nil,
            reason: (arm.map { "experiment arm \($0.rawValue): " } ?? "") + "no startup entry matched: the lowest BANDWIDTH"
        )
        decision.arm = arm
        return decision
    }

    private func select(_ pick: StartupPick, among variants: [Asset.Variant], context: ViewerContext) -> (Int, String) {
        var candidates = Array(variants.indices)
        var why: [String] = []
        if let codecs = pick.codecs {
            candidates = candidates.filter { variants[$0].codecs.contains { $0.hasPrefix(codecs) } }
            why.append("CODECS with \(codecs)")
        }
        // Audio-only variants stay only when the rule's codecs matched nothing else: it asked for them.
        let asksForAudioOnly = pick.codecs != nil && !candidates.isEmpty && candidates.allSatisfy { variants[$0].isAudioOnly }
        if !asksForAudioOnly { candidates = candidates.filter { !variants[$0].isAudioOnly } }
        if let range = pick.videoRange {
            candidates = candidates.filter { variants[$0].streamInf.range == range }
            why.append("VIDEO-RANGE \(range)")
        }
        if let maximum = pick.maxResolution {
            candidates = candidates.filter {
                variants[$0].streamInf.resolution.map { $0.width <= maximum.width && $0.height <= maximum.height } ?? true
            }
            why.append("RESOLUTION within \(maximum)")
        }
        var ceiling = pick.maxBandwidth
        if let safety = pick.bandwidthSafety, let measured = context.bandwidth {
            // `measured` is below 2⁵³ (ViewerContext) and `safety` in (0, 1]: the product fits an Int.
            let hint = Int(Double(measured) * safety)
            ceiling = min(ceiling ?? hint, hint)
            why.append("the viewer's \(measured) b/s × \(safety)")
        }
        if let ceiling {
            candidates = candidates.filter { (variants[$0].streamInf.bandwidth ?? 0) <= ceiling }
            why.append("BANDWIDTH ≤ \(ceiling)")
        }
        guard !candidates.isEmpty else {
            let lowest = Self.lowest(variants, in: Self.withPicture(variants, Array(variants.indices)))
            return (lowest, "no variant has \(why.joined(separator: ", ")): the lowest BANDWIDTH")
        }
        if pick.lowest {
            return (Self.lowest(variants, in: candidates), (why + ["the lowest BANDWIDTH"]).joined(separator: ", "))
        }
        let highest = candidates.max { (variants[$0].streamInf.bandwidth ?? 0, -$0) < (variants[$1].streamInf.bandwidth ?? 0, -$1) } ?? candidates[0]
        return (highest, (why + ["the highest BANDWIDTH"]).joined(separator: ", "))
    }

    /// `candidates` without the audio-only variants — all of them when every one is.
    private static func withPicture(_ variants: [Asset.Variant], _ candidates: [Int]) -> [Int] {
        let video = candidates.filter { !variants[$0].isAudioOnly }
        return video.isEmpty ? candidates : video
    }

    private static func lowest(_ variants: [Asset.Variant], in candidates: [Int]) -> Int {
        candidates.min { (variants[$0].streamInf.bandwidth ?? Int.max, $0) < (variants[$1].streamInf.bandwidth ?? Int.max, $1) } ?? 0
    }

    /// Startup first; then, for each other family (video codec and range), its variant closest in
    /// BANDWIDTH to the startup; then the rest in their original order.
    func order(_ variants: [Asset.Variant], families: [VariantFamily], startingWith first: Int) -> [Int] {
        let target = variants[first].streamInf.bandwidth ?? 0
        var order = [first]
        var seen = [families[first]]
        for index in variants.indices where !seen.contains(families[index]) {
            seen.append(families[index])
            let siblings = variants.indices.filter { families[$0] == families[index] }
            let closest =
                siblings.min { abs((variants[$0].streamInf.bandwidth ?? 0) - target) < abs((variants[$1].streamInf.bandwidth ?? 0) - target) }
                ?? index
            order.append(closest)
        }
        order += variants.indices.filter { !order.contains($0) }
        return order
    }
}
