import AdCampaign
import Foundation
import HLSPlaylist

/// A plan explained for the people who plan campaigns: the timeline with stream times, why each
/// ad was chosen or which rule excluded it, the startup variant and the variant order. The CLI
/// (`adstitch preview`) and the preview page show the same report.
public struct PlanReport: Sendable {
    public let plan: Plan
    /// For a campaign with `rewrite:` rules: the rules that rewrote URIs of each piece (same
    /// order as the plan's pieces). Nil without rules: the report then says nothing of them.
    public let rewrites: [[String]]?

    /// - Parameter rewrites: the rewrite rules that write URIs of each piece, by name (the
    ///   layout knows: `StitchLayout.appliedRewrites`), for a campaign with rules.
    public init(_ plan: Plan, rewrites: (Piece) -> [String] = { _ in [] }) {
        self.plan = plan
        self.rewrites = plan.campaign.rewrites.isEmpty ? nil : plan.pieces.map(rewrites)
    }

    /// The rewrite rules whose condition held for the viewer, by name.
    var rewritesInForce: [String] {
        self.plan.rewrites.positions.filter { $0 < self.plan.campaign.rewrites.count }.map { self.plan.campaign.rewrites[$0].name }
    }

    // MARK: - JSON

    public var json: JSONValue {
        let plan = self.plan
        let variants = plan.campaign.templateAsset?.variants.map(\.streamInf) ?? []
        var members: [(String, JSONValue)] = [
            ("campaign", .string(plan.campaign.id)),
            ("revision", .string(plan.campaign.revision)),
            ("session", .string(plan.context.session)),
            ("at", .string(DateTime.iso8601(millisecondsSinceEpoch: plan.context.milliseconds, alwaysMilliseconds: false))),
            ("attributes", .object(plan.context.attributes.keys.sorted().map { ($0, .string(plan.context.attributes[$0] ?? "")) })),
            ("appliedRules", .array(plan.appliedRules.map(JSONValue.string))),
        ]
        if self.rewrites != nil { members.append(("appliedRewrites", .array(self.rewritesInForce.map(JSONValue.string)))) }
        let timeline: [JSONValue] = plan.pieces.enumerated().map { position, piece in
            var members: [(String, JSONValue)] = [("kind", .string(piece.kind.name)), ("id", .string(piece.id))]
            if let breakID = piece.breakID { members.append(("break", .string(breakID))) }
            members += [("start", .decimal(piece.start)), ("end", .decimal(piece.start + piece.duration)), ("duration", .decimal(piece.duration))]
            if let rewrites = self.rewrites { members.append(("rewrites", .array(rewrites[position].map(JSONValue.string)))) }
            return .object(members)
        }
        members += [
            ("duration", .decimal(plan.duration)),
            ("timeline", .array(timeline)),
            ("breaks", .array(plan.breaks.map(Self.breakJSON))),
            (
                "startup",
                .object([
                    ("variant", .integer(plan.startup.variant)),
                    ("rule", plan.startup.rule.map(JSONValue.integer) ?? .null),
                    ("experiment", plan.startup.arm.map { .string($0.rawValue) } ?? .null),
                    ("reason", .string(plan.startup.reason)),
                    (
                        "order",
                        .array(
                            plan.startup.order.map { index in
                                let variant = variants[index]
                                return .object([
                                    ("index", .integer(index)), ("bandwidth", variant.bandwidth.map(JSONValue.integer) ?? .null),
                                    ("resolution", variant.resolution.map { .string($0.description) } ?? .null),
                                    ("codecs", .string(variant.codecs.joined(separator: ","))),
                                    ("videoRange", .string(variant.range.rawValue)),
                                ])
                            }
                        )
                    ),
                ])
            ),
        ]
        return .object(members)
    }

    private static func breakJSON(_ planned: PlannedBreak) -> JSONValue {
        var placement: [(String, JSONValue)] = []
        if let place = planned.adBreak.placement {
            placement = [
                ("kind", .string(place.replaced == nil ? "insertion" : "replacement")),
                ("requestedAt", place.requested.map(JSONValue.decimal) ?? .null),
                ("cutAt", .decimal(place.cut)),
                ("replaced", place.replaced.map(JSONValue.decimal) ?? .null),
                ("markerLine", place.markerLine.map(JSONValue.integer) ?? .null),
            ]
        }
        let candidates: [JSONValue] = planned.candidates.map { candidate in
            var members: [(String, JSONValue)] = [
                ("ad", .string(candidate.ad.id)), ("duration", .decimal(candidate.ad.asset.duration)),
                ("weight", .number(candidate.weight)),
                ("boosts", .array(candidate.boosts.map { .object([("rule", .string($0.rule)), ("factor", .number($0.factor))]) })),
            ]
            switch candidate.outcome {
            case .chosen(let position):
                members += [("outcome", .string("chosen")), ("position", .integer(position))]
            case .excluded(let rule, let reason):
                members += [("outcome", .string("excluded")), ("rule", .string(rule)), ("reason", .string(reason))]
            case .notChosen(let reason):
                members += [("outcome", .string("not-chosen")), ("reason", .string(reason))]
            }
            return .object(members)
        }
        var members: [(String, JSONValue)] = [("id", .string(planned.adBreak.id))]
        members += placement
        members += [
            ("start", .decimal(planned.start)), ("end", .decimal(planned.end)),
            ("duration", .decimal(planned.duration)), ("nominal", .decimal(planned.adBreak.duration)),
            ("pools", .array(planned.pools.map(JSONValue.string))), ("restrict", .array(planned.adBreak.restrict.names.map(JSONValue.string))),
            ("slates", .integer(planned.slates)), ("unfilled", .decimal(planned.unfilled)),
            ("candidates", .array(candidates)),
        ]
        return .object(members)
    }

    // MARK: - Text

    /// The report as a timeline a person reads in a terminal.
    public var text: String {
        let plan = self.plan
        let variants = plan.campaign.templateAsset?.variants.map(\.streamInf) ?? []
        var out = "Campaign \(plan.campaign.id) (revision \(plan.campaign.revision))\n"
        out += "Session \(plan.context.session) at \(DateTime.iso8601(millisecondsSinceEpoch: plan.context.milliseconds, alwaysMilliseconds: false))"
        let attributes = plan.context.attributes.keys.sorted().map { "\($0)=\(plan.context.attributes[$0] ?? "")" }
        out += attributes.isEmpty ? "\n" : " with \(attributes.joined(separator: " "))\n"
        out += "Rules applied: \(plan.appliedRules.isEmpty ? "none" : plan.appliedRules.joined(separator: ", "))\n"
        if self.rewrites != nil {
            out += "Rewrites in force: \(self.rewritesInForce.isEmpty ? "none" : self.rewritesInForce.joined(separator: ", "))\n"
        }
        out += "\nTimeline (\(plan.duration) s)\n"
        for (position, piece) in plan.pieces.enumerated() {
            let range = "\(Self.pad(piece.start))–\(Self.pad(piece.start + piece.duration))"
            var line: String
            switch piece.kind {
            case .island: line = "  \(range)  island \(piece.id)"
            case .ad(_, let breakID): line = "  \(range)    ad \(piece.id)  [\(breakID)]"
            case .slate(let breakID): line = "  \(range)    slate  [\(breakID)]"
            }
            if let rewrites = self.rewrites?[position] {
                line += rewrites.isEmpty ? "  URIs as they are" : "  URIs rewritten by \(rewrites.joined(separator: ", "))"
            }
            out += line + "\n"
        }
        for planned in plan.breaks {
            out += "\nBreak \(planned.adBreak.id): \(planned.start)–\(planned.end) s, \(planned.duration) of \(planned.adBreak.duration) s"
            out += " from \(planned.pools.joined(separator: ", "))"
            if let place = planned.adBreak.placement {
                out += place.replaced.map { ", replacing \($0) s of programme" } ?? ", inserted"
                out += " at \(place.cut) s"
                if let requested = place.requested, requested != place.cut { out += " (asked for \(requested) s)" }
                if let line = place.markerLine { out += " (marker on line \(line))" }
            }
            if planned.slates > 0 { out += "; slate ×\(planned.slates)" }
            if planned.unfilled > .zero { out += "; \(planned.unfilled) s unfilled" }
            if !planned.adBreak.restrict.isEmpty { out += "; restrict \(planned.adBreak.restrict.names.joined(separator: ", "))" }
            out += "\n"
            for candidate in planned.candidates {
                let boosts = candidate.boosts.map { " × \($0.factor) (\($0.rule))" }.joined()
                switch candidate.outcome {
                case .chosen(let position):
                    out +=
                        "  ✓ \(candidate.ad.id) (\(candidate.ad.asset.duration) s): chosen #\(position + 1), weight \(candidate.ad.weight)\(boosts)\n"
                case .excluded(let rule, let reason):
                    out += "  ✗ \(candidate.ad.id): excluded by rule \"\(rule)\" — \(reason)\n"
                case .notChosen(let reason):
                    out += "  · \(candidate.ad.id) (\(candidate.ad.asset.duration) s): not chosen — \(reason)\n"
                }
            }
        }
        out += "\nStartup variant: \(Self.describe(variants, plan.startup.variant)) — \(plan.startup.reason)"
        out += plan.startup.rule.map { " (startup entry \($0 + 1))\n" } ?? "\n"
        out += "Variant order:\n"
        for (position, index) in plan.startup.order.enumerated() {
            out += "  \(position + 1). \(Self.describe(variants, index))\n"
        }
        return out
    }

    private static func describe(_ variants: [StreamInf], _ index: Int) -> String {
        (["v\(index)"] + Self.variantTraits(variants, index)).joined(separator: " ")
    }

    /// A variant of the ladder as a person reads it: resolution, bandwidth, codecs, video range
    /// (when given); empty for an index outside the ladder. The CLI and the preview page share it.
    public static func variantTraits(_ variants: [StreamInf], _ index: Int) -> [String] {
        guard variants.indices.contains(index) else { return [] }
        let variant = variants[index]
        var parts: [String] = []
        if let resolution = variant.resolution { parts.append(resolution.description) }
        if let bandwidth = variant.bandwidth { parts.append("\(bandwidth) b/s") }
        parts.append(variant.codecs.joined(separator: ","))
        if let range = variant.videoRange { parts.append(range) }
        return parts
    }

    private static func pad(_ value: ExactDecimal) -> String {
        let text = value.formatted(minimumFractionDigits: 2)
        return String(repeating: " ", count: max(0, 8 - text.count)) + text
    }
}
