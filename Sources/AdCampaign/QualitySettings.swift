import Yams

/// `qoe:` — viewers' quality reports (docs/campaign-format.md "Viewing quality").
public struct QualitySettings: Sendable, Hashable {
    /// How long reports are kept, seconds (`retention: 7d`; 1 hour to 90 days).
    public var retention: Int = 7 * 86_400
    /// The text it was given as (`7d`), for messages and the preview.
    public var retentionText: String = "7d"

    public static let retentionRange = 3_600...(90 * 86_400)

    public init() {}
}

extension Loader {
    /// `qoe: { retention: 7d }`.
    mutating func quality(_ node: Node) -> QualitySettings {
        let fields = self.reader.mapping(node, "qoe", allowed: ["retention"])
        var settings = QualitySettings()
        if let node = fields["retention"], let text = self.reader.string(node, "qoe.retention") {
            if let seconds = FrequencyCap.seconds(text), QualitySettings.retentionRange.contains(seconds) {
                settings.retention = seconds
                settings.retentionText = text
            } else {
                self.reader.issue(node, "qoe.retention", "\"\(text)\" is not a duration from 1h to 90d; write it as 7d, 48h or 3600s")
            }
        }
        return settings
    }
}
