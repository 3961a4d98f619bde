import Yams

extension Loader {
    /// `frequency_caps:`: a list of `{ ads: PATTERN, max: N, per: DURATION }`.
    mutating func frequencyCaps(_ node: Node?) -> [FrequencyCap] {
        var caps: [FrequencyCap] = []
        for (index, item) in self.reader.sequence(node, "frequency_caps").enumerated() {
            let field = "frequency_caps[\(index)]"
            guard index < FrequencyCap.maxCaps else {
                self.reader.issue(
                    item,
                    field,
                    "a campaign holds at most \(FrequencyCap.maxCaps) frequency caps (a session's token says which it reached); give one cap a pattern that matches several ads"
                )
                continue
            }
            let fields = self.reader.mapping(item, field, allowed: ["ads", "max", "per"])
            for name in ["ads", "max", "per"] where fields[name] == nil {
                self.reader.issue(item, "\(field).\(name)", "is required: a cap is { ads: PATTERN, max: N, per: 24h }")
            }
            let ads = self.reader.pattern(fields["ads"], "\(field).ads")
            var max: Int?
            if let node = fields["max"], let value = self.reader.integer(node, "\(field).max") {
                if (1...FrequencyCap.maxImpressions).contains(value) {
                    max = value
                } else {
                    self.reader.issue(node, "\(field).max", "\(value) impressions: give 1 to \(FrequencyCap.maxImpressions)")
                }
            }
            var per: (seconds: Int, text: String)?
            if let node = fields["per"], let text = self.reader.string(node, "\(field).per") {
                if let seconds = FrequencyCap.seconds(text), seconds >= 1 {
                    per = (seconds, text)
                } else {
                    self.reader.issue(
                        node,
                        "\(field).per",
                        "\"\(text)\" is not a window: give seconds or a number with s, m, h or d (90s, 30m, 24h, 7d), from 1 s to 400 d"
                    )
                }
            }
            if let ads, let max, let per { caps.append(FrequencyCap(ads: ads, max: max, per: per.seconds, perText: per.text)) }
        }
        return caps
    }
}
