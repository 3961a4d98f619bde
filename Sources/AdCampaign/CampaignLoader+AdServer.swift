import HLSPlaylist
import Yams

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Loader {
    /// The `ad_server:` block: a VAST request per break (docs/campaign-format.md "Ad decision servers").
    mutating func adServer(_ node: Node?, pools: [String]) -> AdServerSettings? {
        guard let node else { return nil }
        let fields = self.reader.mapping(node, "ad_server", allowed: ["vast", "vmap", "timeout", "max_wrappers", "fallback"])
        if fields["vast"] != nil, fields["vmap"] != nil {
            self.reader.issue(node, "ad_server", "gives both vast and vmap; give one: a VAST request per break, or one VMAP request per session")
            return nil
        }
        let key = fields["vmap"] != nil ? "vmap" : "vast"
        guard let source = self.reader.string(fields[key], "ad_server.\(key)", required: true, parent: node) else { return nil }
        let template: AdServerTemplate
        do {
            template = try AdServerTemplate(source)
        } catch {
            self.reader.issue(
                fields[key],
                "ad_server.\(key)",
                "'\(source)' \(error.message)",
                columnOffset: Self.columnOffset(of: fields[key], byteOffset: error.offset)
            )
            return nil
        }
        if key == "vmap", template.namesBreak {
            self.reader.issue(
                fields[key],
                "ad_server.vmap",
                "'\(source)' names a break placeholder, but one VMAP request serves every break; use {session}, {program.id}, "
                    + "{program.duration}, {cachebuster} and viewer attributes"
            )
            return nil
        }
        var timeout = AdServerSettings.defaultTimeout
        if let seconds = self.reader.decimal(fields["timeout"], "ad_server.timeout") {
            let value = Duration.milliseconds(Int64(clamping: (seconds.scaledValue * 1000) / ExactDecimal(1).scaledValue))
            if AdServerSettings.timeouts.contains(value) {
                timeout = value
            } else {
                self.reader.issue(fields["timeout"], "ad_server.timeout", "is \(seconds) s; give 0.1 to 30 seconds (the whole chain of one break)")
            }
        }
        var maxWrappers = AdServerSettings.defaultMaxWrappers
        if let value = self.reader.integer(fields["max_wrappers"], "ad_server.max_wrappers") {
            if AdServerSettings.maxWrappersRange.contains(value) {
                maxWrappers = value
            } else {
                self.reader.issue(fields["max_wrappers"], "ad_server.max_wrappers", "is \(value); give 0 to 10")
            }
        }
        var fallback: [String]?
        if let node = fields["fallback"] {
            let names = self.reader.strings(node, "ad_server.fallback")
            for name in names where !pools.contains(name) {
                self.reader.issue(
                    node,
                    "ad_server.fallback",
                    "names pool \"\(name)\", which is not defined (pools: \(pools.joined(separator: ", ")))"
                )
            }
            fallback = names
        }
        return AdServerSettings(
            request: key == "vmap" ? .vmap(template) : .vast(template),
            timeout: timeout,
            maxWrappers: maxWrappers,
            fallback: fallback
        )
    }
}
