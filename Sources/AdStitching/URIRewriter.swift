import AdCampaign
import AdDecision
import Foundation

/// The campaign's `rewrite:` rules applied to the URIs a ``URIStyle`` writes (docs/campaign-format.md).
///
/// Rules run when a layout's blocks are made, never per request: a block rewritten for one set
/// of a viewer's rules is made once and shared. A template's per-viewer values (`{session}`,
/// `{market}`) go into the block as slot markers — a NUL byte, the slot's number, a NUL byte;
/// no URI or playlist line can hold a NUL — and ``SegmentBlock/seal(id:)`` cuts the block at
/// them, so a request writes the shared pieces and the viewer's values between them.
struct URIRewriter: Sendable {
    let rules: [RewriteRule]
    /// How URIs are written before (and without) rules.
    let base: URIStyle
    /// The per-viewer values templates use, by slot number − 1: `.session` or `.attribute(name)`.
    let slots: [RewriteTemplate.Part]

    init(rules: [RewriteRule], base: URIStyle) {
        self.rules = rules
        self.base = base
        var slots: [RewriteTemplate.Part] = []
        for rule in rules {
            for part in rule.replace.parts where !slots.contains(part) {
                switch part {
                case .session, .attribute: slots.append(part)
                default: continue
                }
            }
        }
        self.slots = slots
    }

    /// The NUL byte that opens and closes a slot marker.
    static let marker: UInt8 = 0

    /// The position of the rule that writes `url` for a piece of `kind` among `set`, and its
    /// text (with slot markers), or nil when no rule takes it. Control characters a source URI
    /// holds (a playlist may not, RFC 8216 §4.1, but one can) come out percent-encoded, so the
    /// only NUL bytes in the text are slot markers.
    func apply(_ url: URL, as role: URIStyle.Role, kind: RewriteTargets, among set: RewriteSet) -> (rule: Int, text: String)? {
        let subject = Self.withoutControlCharacters(self.base.write(url, as: role))
        let target = role == .key ? RewriteTargets.keys : kind
        for position in set.positions where self.rules[position].appliesTo.contains(target) {
            let rule = self.rules[position]
            guard let groups = rule.match.captures(in: subject) else { continue }
            var text = ""
            for part in rule.replace.parts {
                switch part {
                case .literal(let literal): text += literal
                case .capture(let group): text += groups[group].map(String.init) ?? ""
                case .session, .attribute:
                    let slot = (self.slots.firstIndex(of: part) ?? 0) + 1
                    text += "\u{0}" + String(UnicodeScalar(UInt8(slot))) + "\u{0}"
                }
            }
            return (position, text)
        }
        return nil
    }

    /// The style for pieces of `kind` of a viewer whose rules are `set`.
    func style(kind: RewriteTargets, set: RewriteSet) -> URIStyle {
        URIStyle(roles: { url, role in
            self.apply(url, as: role, kind: kind, among: set)?.text ?? Self.withoutControlCharacters(self.base.write(url, as: role))
        })
    }

    /// `text` with C0 control characters and DEL percent-encoded.
    static func withoutControlCharacters(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7f }) else { return text }
        var bytes: [UInt8] = []
        for byte in text.utf8 {
            if byte < 0x20 || byte == 0x7f {
                bytes += Array(String(format: "%%%02X", byte).utf8)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A viewer's value for each slot, percent-encoded (RFC 3986: all but unreserved
    /// characters), by slot number (index 0 unused).
    func values(for context: ViewerContext) -> [[UInt8]] {
        [[]]
            + self.slots.map { slot in
                switch slot {
                case .session: Self.percentEncoded(context.session)
                case .attribute(let name): Self.percentEncoded(context.attributes[name] ?? "")
                default: []
                }
            }
    }

    /// Appends `text` to `bytes` with each slot marker replaced by the viewer's value.
    static func fill(_ text: String, with values: [[UInt8]], into bytes: inout [UInt8]) {
        var utf8 = text.utf8.makeIterator()
        while let byte = utf8.next() {
            guard byte == Self.marker, let slot = utf8.next() else {
                bytes.append(byte)
                continue
            }
            _ = utf8.next()
            bytes += values[Int(slot)]
        }
    }

    static func percentEncoded(_ value: String) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(value.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                bytes.append(byte)
            default:
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xf)]]
            }
        }
        return bytes
    }
}
