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
        let fields = self.reader.mapping(node, field, allowed: ["vast", "vmap", "timeout", "max_wrappers", "fallback", "trusted_hosts"])
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
        var trustedHosts: [String] = []
        if let node = fields["trusted_hosts"] {
            let hosts = self.reader.strings(node, "\(field).trusted_hosts")
            if hosts.count > AdServerSettings.maxTrustedHosts {
                self.reader.issue(node, "\(field).trusted_hosts", "names \(hosts.count) hosts; give at most \(AdServerSettings.maxTrustedHosts)")
            }
            for host in hosts where !AdServerSettings.isHostName(host) {
                self.reader.issue(
                    node,
                    "\(field).trusted_hosts",
                    "'\(host)' is not a host name or address; give names alone (ads.internal, 127.0.0.1, ::1), without scheme, port or path"
                )
            }
            trustedHosts = hosts.prefix(AdServerSettings.maxTrustedHosts).filter(AdServerSettings.isHostName)
        }
        return AdServerSettings(
            request: key == "vmap" ? .vmap(template) : .vast(template),
            timeout: timeout,
            maxWrappers: maxWrappers,
            fallback: fallback,
            trustedHosts: trustedHosts
        )
    }

    /// `creatives:` — where an ad server's MP4 creatives are conditioned (docs/campaign-format.md
    /// "Conditioning ad server creatives"): `store` (a folder, relative to the campaign file;
    /// default `creatives/`), `condition` (`auto` | `off`), `loudness` (LUFS, −70 to −5).
    mutating func creatives(_ node: Node?) -> CreativeSettings? {
        guard let node else { return nil }
        let fields = self.reader.mapping(node, "creatives", allowed: ["store", "condition", "loudness"])
        let folder = self.file.deletingLastPathComponent()
        var store = folder.appendingPathComponent("creatives", isDirectory: true)
        if let path = self.reader.string(fields["store"], "creatives.store") {
            guard !path.isEmpty, !path.contains("\0"), URL(string: path)?.scheme.map({ $0.count > 1 }) != true else {
                self.reader.issue(
                    fields["store"],
                    "creatives.store",
                    "'\(path)' is not a folder; give a folder, relative to the campaign file (creatives/) or absolute"
                )
                return nil
            }
            store =
                (path.hasPrefix("/") ? URL(fileURLWithPath: path, isDirectory: true) : folder.appendingPathComponent(path, isDirectory: true))
                .standardizedFileURL
            // serve answers a conditioned creative's files under the campaign's media route,
            // which reaches only into the campaign's folder.
            let root = folder.standardizedFileURL.path
            guard store.path.hasPrefix(root.hasSuffix("/") ? root : root + "/") else {
                self.reader.issue(
                    fields["store"],
                    "creatives.store",
                    "'\(path)' is outside the campaign's folder; give a folder inside it (creatives/), mounted from a shared volume when replicas share it"
                )
                return nil
            }
        }
        var conditions = true
        if let value = self.reader.string(fields["condition"], "creatives.condition") {
            switch value {
            case "auto": conditions = true
            case "off": conditions = false
            default:
                self.reader.issue(fields["condition"], "creatives.condition", "is \"\(value)\"; give auto (condition what is missing) or off")
            }
        }
        var loudness = CreativeSettings.defaultLoudness
        if let value = self.reader.decimal(fields["loudness"], "creatives.loudness") {
            let lufs = value.doubleValue
            if CreativeSettings.loudnessRange.contains(lufs) {
                loudness = lufs
            } else {
                self.reader.issue(fields["loudness"], "creatives.loudness", "is \(value) LUFS; give -70 to -5 (EBU R128: -23, ATSC A/85: -24)")
            }
        }
        return CreativeSettings(store: store, conditions: conditions, loudness: loudness)
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
