import HLSPlaylist
import Yams

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads a composed YAML tree field by field, recording an issue (with the node's line and
/// column) for anything missing, unknown or of the wrong type instead of stopping at the first.
struct YAMLReader {
    let file: String
    private(set) var issues: [CampaignIssue] = []

    init(file: String) {
        self.file = file
    }

    /// An issue at `node`, or `columnOffset` columns past its start (a place inside a scalar).
    mutating func issue(_ node: Node?, _ field: String, _ message: String, columnOffset: Int = 0) {
        let mark = node?.mark
        let column = mark.map { $0.column + columnOffset } ?? 0
        self.issues.append(CampaignIssue(file: self.file, line: mark?.line ?? 0, column: column, field: field, message))
    }

    /// The pairs of a mapping, in order; unknown keys are issues.
    mutating func mapping(_ node: Node?, _ field: String, allowed: [String]) -> [String: Node] {
        guard let node else { return [:] }
        guard case .mapping(let mapping) = node else {
            self.issue(node, field, "expected a mapping (key: value pairs)")
            return [:]
        }
        var result: [String: Node] = [:]
        for (key, value) in mapping {
            guard let name = key.string else {
                self.issue(key, field, "keys must be strings")
                continue
            }
            let path = field.isEmpty ? name : "\(field).\(name)"
            // Repeated keys never get here: Yams refuses them while composing, and the loader
            // reports that with the key's position.
            if !allowed.contains(name) {
                self.issue(key, path, "unknown key; expected one of \(allowed.joined(separator: ", "))")
            } else {
                result[name] = value
            }
        }
        return result
    }

    mutating func sequence(_ node: Node?, _ field: String) -> [Node] {
        guard let node else { return [] }
        guard case .sequence(let sequence) = node else {
            self.issue(node, field, "expected a list")
            return []
        }
        return Array(sequence)
    }

    mutating func string(_ node: Node?, _ field: String, required: Bool = false, parent: Node? = nil) -> String? {
        guard let node else {
            if required { self.issue(parent, field, "is required") }
            return nil
        }
        guard case .scalar(let scalar) = node else {
            self.issue(node, field, "expected a string")
            return nil
        }
        return scalar.string
    }

    /// An island, break, pool or ad id: 1 to 64 of `A–Z a–z 0–9 . _ -`, starting with a letter
    /// or digit. Ids travel in playlists (`EXT-X-DATERANGE` `ID`, `X-AD-ID` lists), URLs and the
    /// comma-separated `seen=` list, where a quote or a comma would break them.
    mutating func identifier(_ node: Node?, _ field: String, required: Bool = false, parent: Node? = nil) -> String? {
        guard let text = self.string(node, field, required: required, parent: parent) else { return nil }
        let bytes = Array(text.utf8)
        func allowed(_ byte: UInt8) -> Bool {
            (byte &- UInt8(ascii: "a") < 26) || (byte &- UInt8(ascii: "A") < 26) || (byte &- UInt8(ascii: "0") < 10)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
        guard (1...64).contains(bytes.count), bytes.allSatisfy(allowed), let first = bytes.first, first != UInt8(ascii: "."),
            first != UInt8(ascii: "_"), first != UInt8(ascii: "-")
        else {
            self.issue(
                node,
                field,
                "\"\(text)\" is not a valid id: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit "
                    + "(ids appear in playlists, URLs and the comma-separated seen= list)"
            )
            return nil
        }
        return text
    }

    mutating func strings(_ node: Node?, _ field: String) -> [String] {
        guard let node else { return [] }
        if case .scalar = node { return self.string(node, field).map { [$0] } ?? [] }
        return self.sequence(node, field).enumerated().compactMap { index, item in self.string(item, "\(field)[\(index)]") }
    }

    mutating func bool(_ node: Node?, _ field: String) -> Bool? {
        guard let node else { return nil }
        guard let value = node.bool else {
            self.issue(node, field, "expected true or false")
            return nil
        }
        return value
    }

    mutating func integer(_ node: Node?, _ field: String) -> Int? {
        guard let node else { return nil }
        guard let text = node.string, let value = Int(text) else {
            self.issue(node, field, "expected a whole number")
            return nil
        }
        return value
    }

    /// An exact decimal number of seconds (or any decimal): `15`, `5.76`.
    mutating func decimal(_ node: Node?, _ field: String, required: Bool = false, parent: Node? = nil) -> ExactDecimal? {
        guard let node else {
            if required { self.issue(parent, field, "is required") }
            return nil
        }
        guard let text = node.string, let value = ExactDecimal(text) else {
            self.issue(node, field, "expected a decimal number such as 15 or 5.76")
            return nil
        }
        return value
    }

    mutating func number(_ node: Node?, _ field: String) -> Double? {
        guard let node else { return nil }
        guard let text = node.string, let value = Double(text), value.isFinite else {
            self.issue(node, field, "expected a number")
            return nil
        }
        return value
    }

    /// A PCRE2 pattern, compiled now; PCRE2's message and offset on failure.
    mutating func pattern(_ node: Node?, _ field: String) -> Pattern? {
        guard let source = self.string(node, field) else { return nil }
        do {
            let pattern = try Pattern(source)
            guard !pattern.hitsLimits else {
                self.issue(
                    node,
                    field,
                    "pattern '\(source)' backtracks past PCRE2's match limits on a 1,024-character value, so it would stop matching "
                        + "(and cost a replica time) for some viewers; avoid nested quantifiers such as (a+)+ or (.*)*"
                )
                return nil
            }
            return pattern
        } catch {
            self.issue(node, field, "\(error.message) at offset \(error.offset) in pattern '\(source)'")
            return nil
        }
    }
}
