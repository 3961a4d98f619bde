import Foundation
import HLSPlaylist

/// `docs/boundary-manifest.schema.json` (and `docs/asset-list.schema.json`) applied in Swift, so the tests need no Python: the
/// subset of JSON Schema draft 2020-12 the schema uses. A keyword outside that subset is itself a
/// finding, so the schema cannot grow a rule this check silently ignores.
struct ManifestSchema: Sendable {
    let root: ExactJSON

    /// Keywords applied as the draft defines them.
    static let applied: Set<String> = [
        "type", "const", "enum", "required", "properties", "additionalProperties", "items", "minItems", "uniqueItems",
        "minimum", "exclusiveMinimum", "minLength", "pattern", "$ref",
    ]
    /// Keywords that only annotate.
    static let annotations: Set<String> = ["$schema", "$id", "title", "description", "$comment", "$defs"]

    static let shared: Result<ManifestSchema, any Error> = Result {
        ManifestSchema(root: try ExactJSON.parse(String(contentsOf: Repository.manifestSchema, encoding: .utf8)))
    }

    /// `docs/asset-list.schema.json`, applied the same way.
    static let assetList: Result<ManifestSchema, any Error> = Result {
        ManifestSchema(root: try ExactJSON.parse(String(contentsOf: Repository.assetListSchema, encoding: .utf8)))
    }

    /// `docs/live-boundary-manifest.schema.json`, applied the same way.
    static let live: Result<ManifestSchema, any Error> = Result {
        ManifestSchema(root: try ExactJSON.parse(String(contentsOf: Repository.liveManifestSchema, encoding: .utf8)))
    }

    /// `docs/tracking.schema.json`, applied the same way.
    static let tracking: Result<ManifestSchema, any Error> = Result {
        ManifestSchema(root: try ExactJSON.parse(String(contentsOf: Repository.trackingSchema, encoding: .utf8)))
    }

    /// Every violation in `document`, as `pointer: message`; empty when it is valid.
    func violations(of document: ExactJSON) -> [String] {
        var found: [String] = []
        self.check(document, against: self.root, at: "", into: &found)
        return found
    }

    private func check(_ value: ExactJSON, against schema: ExactJSON, at path: String, into found: inout [String]) {
        if case .bool(let accepts) = schema {
            if !accepts { found.append("\(path): no value is allowed here") }
            return
        }
        guard let members = schema.members else { return found.append("\(path): the schema is neither an object nor a boolean") }
        for keyword in members.map(\.key) where !Self.applied.contains(keyword) && !Self.annotations.contains(keyword) {
            found.append("\(path): the schema uses \(keyword), which this check does not apply")
        }
        if let reference = schema["$ref"]?.string {
            guard reference.hasPrefix("#/"), let target = self.resolve(reference) else {
                return found.append("\(path): cannot resolve $ref \(reference)")
            }
            self.check(value, against: target, at: path, into: &found)
        }
        if let type = schema["type"] {
            let allowed = type.items?.compactMap(\.string) ?? [type.string].compactMap { $0 }
            let actual = value.typeName
            // JSON Schema: every integer is also a number.
            if !allowed.contains(actual), !(actual == "integer" && allowed.contains("number")) {
                found.append("\(path): expected \(allowed.joined(separator: " or ")), found \(actual)")
                return
            }
        }
        if let constant = schema["const"], !value.isEqual(to: constant) {
            found.append("\(path): must be \(constant)")
        }
        if let options = schema["enum"]?.items, !options.contains(where: { value.isEqual(to: $0) }) {
            found.append("\(path): must be one of \(options)")
        }
        if let number = value.decimal {
            if let minimum = schema["minimum"]?.decimal, number < minimum { found.append("\(path): \(number) is below \(minimum)") }
            if let minimum = schema["exclusiveMinimum"]?.decimal, number <= minimum {
                found.append("\(path): \(number) is not above \(minimum)")
            }
        } else if value.numberText != nil, schema["minimum"] != nil || schema["exclusiveMinimum"] != nil {
            found.append("\(path): \(value.numberText!) is not a plain decimal")
        }
        if let text = value.string {
            if let minimum = schema["minLength"]?.decimal, ExactDecimal(text.unicodeScalars.count) < minimum {
                found.append("\(path): shorter than \(minimum) characters")
            }
            if let pattern = schema["pattern"]?.string, text.range(of: pattern, options: .regularExpression) == nil {
                found.append("\(path): \"\(text)\" does not match \(pattern)")
            }
        }
        if let items = value.items {
            if let minimum = schema["minItems"]?.decimal, ExactDecimal(items.count) < minimum {
                found.append("\(path): fewer than \(minimum) items")
            }
            if schema["uniqueItems"]?.bool == true {
                for (index, item) in items.enumerated() where items[..<index].contains(where: { $0.isEqual(to: item) }) {
                    found.append("\(path)/\(index): repeats an earlier item")
                }
            }
            if let itemSchema = schema["items"] {
                for (index, item) in items.enumerated() { self.check(item, against: itemSchema, at: "\(path)/\(index)", into: &found) }
            }
        }
        if let object = value.members {
            for required in schema["required"]?.items?.compactMap(\.string) ?? [] where value[required] == nil {
                found.append("\(path): \(required) is required")
            }
            let properties = schema["properties"]
            for member in object {
                let memberPath = "\(path)/\(member.key)"
                if let propertySchema = properties?[member.key] {
                    self.check(member.value, against: propertySchema, at: memberPath, into: &found)
                } else if let additional = schema["additionalProperties"] {
                    if case .bool(false) = additional {
                        found.append("\(memberPath): not a field of the manifest")
                    } else {
                        self.check(member.value, against: additional, at: memberPath, into: &found)
                    }
                }
            }
        }
    }

    /// A JSON Pointer into the schema document (`#/$defs/time`).
    private func resolve(_ reference: String) -> ExactJSON? {
        var node: ExactJSON? = self.root
        for token in reference.dropFirst(2).split(separator: "/") {
            node = node?[token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")]
        }
        return node
    }
}
