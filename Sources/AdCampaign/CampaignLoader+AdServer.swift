import HLSPlaylist
import Yams

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Loader {
    /// The `ad_server:` block: a VAST request per break (docs/campaign-format.md "Ad decision servers").
    ///
    /// - Parameter field: where it stands (`ad_server`, or `ad_servers.NAME` for a named one).
    mutating func adServer(_ node: Node?, pools: [String], field: String = "ad_server") -> AdServerSettings? {
        guard let node else { return nil }
        let fields = self.reader.mapping(node, field, allowed: ["vast", "vmap", "timeout", "max_wrappers", "fallback"])
        if fields["vast"] != nil, fields["vmap"] != nil {
            self.reader.issue(node, field, "gives both vast and vmap; give one: a VAST request per break, or one VMAP request per session")
            return nil
        }
        let key = fields["vmap"] != nil ? "vmap" : "vast"
        guard let source = self.reader.string(fields[key], "\(field).\(key)", required: true, parent: node) else { return nil }
        let template: AdServerTemplate
        do {
            template = try AdServerTemplate(source)
        } catch {
            self.reader.issue(
                fields[key],
                "\(field).\(key)",
                "'\(source)' \(error.message)",
                columnOffset: Self.columnOffset(of: fields[key], byteOffset: error.offset)
            )
            return nil
        }
        if key == "vmap", template.namesBreak {
            self.reader.issue(
                fields[key],
                "\(field).vmap",
                "'\(source)' names a break placeholder, but one VMAP request serves every break; use {session}, {program.id}, "
                    + "{program.duration}, {cachebuster} and viewer attributes"
            )
            return nil
        }
        var timeout = AdServerSettings.defaultTimeout
        if let seconds = self.reader.decimal(fields["timeout"], "\(field).timeout") {
            let value = Duration.milliseconds(Int64(clamping: (seconds.scaledValue * 1000) / ExactDecimal(1).scaledValue))
            if AdServerSettings.timeouts.contains(value) {
                timeout = value
            } else {
                self.reader.issue(fields["timeout"], "\(field).timeout", "is \(seconds) s; give 0.1 to 30 seconds (the whole chain of one break)")
            }
        }
        var maxWrappers = AdServerSettings.defaultMaxWrappers
        if let value = self.reader.integer(fields["max_wrappers"], "\(field).max_wrappers") {
            if AdServerSettings.maxWrappersRange.contains(value) {
                maxWrappers = value
            } else {
                self.reader.issue(fields["max_wrappers"], "\(field).max_wrappers", "is \(value); give 0 to 10")
            }
        }
        var fallback: [String]?
        if let node = fields["fallback"] {
            let names = self.reader.strings(node, "\(field).fallback")
            for name in names where !pools.contains(name) {
                self.reader.issue(
                    node,
                    "\(field).fallback",
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

    /// `ad_servers:` — named ad decision servers a rule chooses among (`then: { ad_server: NAME }`),
    /// each written as `ad_server:` is.
    mutating func adServers(_ node: Node?, pools: [String]) -> [String: AdServerSettings] {
        guard let node else { return [:] }
        guard case .mapping(let mapping) = node else {
            self.reader.issue(node, "ad_servers", "expected a mapping of names to ad servers: { gam: { vast: URL }, fw: { vast: URL } }")
            return [:]
        }
        var servers: [String: AdServerSettings] = [:]
        for (key, value) in mapping {
            guard let name = key.string, !name.isEmpty, name != "none" else {
                self.reader.issue(key, "ad_servers", "a server's name is a word other than \"none\" (which a rule uses for no ad server)")
                continue
            }
            if let settings = self.adServer(value, pools: pools, field: "ad_servers.\(name)") { servers[name] = settings }
        }
        return servers
    }
}
