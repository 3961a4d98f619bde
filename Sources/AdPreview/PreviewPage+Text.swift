/// The preview pages' text helpers: escaping for HTML and for JSON inside a script element, an ad's
/// colour, numbers as the pages print them.
extension PreviewPage {
    /// Text for HTML content and quoted attribute values. By Unicode scalar, never by `Character`:
    /// `"` followed by a combining mark (U+0301) is one grapheme that no `case "\""` matches, and
    /// once let through it ends the attribute it stands in.
    package static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// JSON inside `<script type="application/json">`: `<` as `\u003c`, so no `</script>` or
    /// `<!--` in a string can end the element (JSON parsers read it back unchanged).
    static func scriptJSON(_ json: String) -> String {
        var out = ""
        out.reserveCapacity(json.utf8.count)
        // By Unicode scalar, as ``escape(_:)``: a `<` with a combining mark after it is one `Character`.
        for scalar in json.unicodeScalars {
            if scalar == "<" { out += "\\u003c" } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }

    /// One of six colours per ad id, the same on every page (FNV-1a of the id).
    static func colour(_ id: String) -> Int {
        var hash: UInt32 = 2_166_136_261
        for byte in id.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return Int(hash % 6)
    }

    static func format(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
