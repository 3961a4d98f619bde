import Yams

extension Loader {
    /// Viewer attributes every campaign may use as placeholders (docs/http-api.md "Viewer context").
    static let standardAttributes: Set<String> = ["locale", "device", "market", "seen", "bandwidth"]

    /// The `rewrite:` list. `attributes`: the viewer attributes the campaign names elsewhere,
    /// which its templates may use as placeholders too.
    mutating func rewrites(_ node: Node?, attributes: Set<String>) -> [RewriteRule] {
        var rules: [RewriteRule] = []
        let list = self.reader.sequence(node, "rewrite")
        if list.count > CampaignLimits.maxRewriteRules {
            self.reader.issue(node, "rewrite", "has \(list.count) rules; a campaign may have at most \(CampaignLimits.maxRewriteRules)")
            return []
        }
        var names: Set<String> = []
        for (index, item) in list.enumerated() {
            let field = "rewrite[\(index)]"
            let fields = self.reader.mapping(item, field, allowed: ["name", "when", "applies_to", "match", "replace"])
            let name = self.reader.string(fields["name"], "\(field).name", required: true, parent: item) ?? ""
            if !name.isEmpty, !names.insert(name).inserted {
                self.reader.issue(fields["name"], "\(field).name", "rewrite \"\(name)\" is defined twice; names must be unique")
            }
            let condition = self.condition(fields["when"], "\(field).when")
            var targets: RewriteTargets = fields["applies_to"] == nil ? .default : []
            let named = self.reader.strings(fields["applies_to"], "\(field).applies_to")
            for value in named {
                guard let target = RewriteTargets.named.first(where: { $0.name == value })?.target else {
                    self.reader.issue(
                        fields["applies_to"],
                        "\(field).applies_to",
                        "\"\(value)\" is not a target; use program, ads, slate and/or keys"
                    )
                    continue
                }
                targets.insert(target)
            }
            if fields["applies_to"] != nil, named.isEmpty {
                self.reader.issue(fields["applies_to"], "\(field).applies_to", "names no target; use program, ads, slate and/or keys")
            }
            if fields["match"] == nil { self.reader.issue(item, "\(field).match", "is required: a PCRE2 pattern over the URI") }
            let pattern = self.reader.pattern(fields["match"], "\(field).match")
            let source = self.reader.string(fields["replace"], "\(field).replace", required: true, parent: item)
            guard let pattern, let source else { continue }
            let template: RewriteTemplate
            do {
                template = try RewriteTemplate(
                    source,
                    pattern: pattern,
                    attributes: attributes.union(Self.standardAttributes).union(condition.attributeNames)
                )
            } catch {
                self.reader.issue(
                    fields["replace"],
                    "\(field).replace",
                    "'\(source)' \(error.message)",
                    columnOffset: Self.columnOffset(of: fields["replace"], byteOffset: error.offset)
                )
                continue
            }
            rules.append(RewriteRule(name: name, condition: condition, appliesTo: targets, match: pattern, replace: template))
        }
        return rules
    }

    /// The column of a byte in a one-line scalar, from the scalar's own: past the opening quote
    /// when quoted. (Escapes in double quotes would shift it; templates rarely have any.)
    static func columnOffset(of node: Node?, byteOffset: Int) -> Int {
        guard case .scalar(let scalar)? = node else { return 0 }
        switch scalar.style {
        case .singleQuoted, .doubleQuoted: return byteOffset + 1
        case .plain: return byteOffset
        default: return 0
        }
    }
}

extension Condition {
    /// The viewer attributes the condition reads.
    var attributeNames: [String] { self.attributes.map(\.name) }
}
