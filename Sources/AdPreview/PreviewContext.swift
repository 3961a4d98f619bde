import AdCampaign
import AdDecision
import AdSessions
import Foundation
import HLSPlaylist

/// The viewer context of a preview page, from its query string: `session`, `at` (ISO 8601)
/// and attributes — the form's `locale`, `device`, `market`, `seen`, `bandwidth`, any other
/// parameter, and `more` (one `key=value` per line). Empty fields are not attributes, so
/// submitting the form untouched previews a viewer with none.
package struct PreviewContext: Sendable {
    /// The attributes the form has a field for, in form order.
    static let fields = ["locale", "device", "market", "seen", "bandwidth"]

    package var session: String
    /// Whole milliseconds since the epoch: what a session token carries, so the page and the
    /// player plan with the same instant.
    package var at: Int64
    package var attributes: [String: String]
    /// `insertion=`: the mode the player's session gets (not an attribute); nil: the campaign's.
    package var insertion: Insertion?
    /// `reporting=`: who fires the ads' events in the player's session (not an attribute); nil:
    /// the campaign's.
    package var reporting: Campaign.Reporting?
    /// `title=`: a catalogue's title, the path of its multivariant playlist below the catalogue's
    /// prefix (not an attribute); nil for a campaign, or a catalogue's list of titles.
    package var title: String?
    /// What was wrong with the query, one message per problem; the page shows them.
    package var errors: [String] = []

    package var viewer: ViewerContext {
        ViewerContext(session: self.session, milliseconds: self.at, attributes: self.attributes)
    }

    /// `at` as the form and the CLI write it (UTC, milliseconds only when there are some).
    var atText: String { DateTime.iso8601(millisecondsSinceEpoch: self.at, alwaysMilliseconds: false) }

    init(session: String, at: Int64, attributes: [String: String]) {
        self.session = session
        self.at = at
        self.attributes = attributes
    }

    /// Reads the query; a missing session is `preview-1`, a missing `at` is `now`.
    package init(query: [(key: String, value: String)], now: Date = Date()) {
        self.session = "preview-1"
        self.at = Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
        self.attributes = [:]
        for (key, value) in query {
            guard ViewerAttributes.fits(name: key.isEmpty ? "-" : key, value: value) else {
                self.errors.append(ViewerAttributes.limitsText)
                continue
            }
            let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
            switch key {
            case "session":
                if !trimmed.isEmpty { self.session = trimmed }
            case "at":
                guard !trimmed.isEmpty else { continue }
                if let date = DateTime(trimmed) {
                    let milliseconds = date.secondsSinceEpoch * 1000
                    let whole = Int64(milliseconds.roundedToInteger)
                    if milliseconds != ExactDecimal(Int(whole)) {
                        self.errors.append("at: \(trimmed) has more precision than milliseconds")
                    } else if !SessionToken.decisionTimes.contains(whole) {
                        self.errors.append("at: \(trimmed) is outside 1970-01-01T00:00:00Z … 9999-11-30T23:59:59.999Z")
                    } else {
                        self.at = whole
                    }
                } else {
                    self.errors.append("at: \(trimmed) is not an ISO 8601 date-time such as 2026-11-27T19:30:00Z")
                }
            case "more":
                for line in trimmed.split(whereSeparator: \.isNewline) where !line.trimmingCharacters(in: .whitespaces).isEmpty {
                    let parts = line.split(separator: "=", maxSplits: 1)
                    let name = parts.first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
                    guard parts.count == 2, !name.isEmpty else {
                        self.errors.append("more attributes: \"\(line)\" must be key=value")
                        continue
                    }
                    self.attributes[name] = parts[1].trimmingCharacters(in: .whitespaces)
                }
            case "count":  // the compare view's, not an attribute
                continue
            case "title":
                if !trimmed.isEmpty { self.title = trimmed }
            case "reporting":
                guard !trimmed.isEmpty else { continue }
                if let mode = Campaign.Reporting(rawValue: trimmed) {
                    self.reporting = mode
                } else {
                    self.errors.append("reporting: \(trimmed) is not a mode; use \(Campaign.Reporting.choices)")
                }
            case "insertion":
                guard !trimmed.isEmpty else { continue }
                if let mode = Insertion(rawValue: trimmed) {
                    self.insertion = mode
                } else {
                    self.errors.append("insertion: \(trimmed) is not a mode; use stitched, interstitials or auto")
                }
            default:
                if !key.isEmpty, !trimmed.isEmpty { self.attributes[key] = trimmed }
            }
        }
        if !SessionToken.fits(session: self.session, attributes: self.attributes) {
            self.errors.append("the session and attributes add up to more than \(SessionToken.maxContextBytes) bytes")
        }
    }

    /// The context as a query string (sorted, percent-encoded): links to the page, the compare
    /// view and the preview master carry it.
    var query: String {
        var items = self.title.map { [("title", $0)] } ?? []
        items += [("session", self.session), ("at", self.atText)]
        items += self.attributes.keys.sorted().map { ($0, self.attributes[$0] ?? "") }
        if let reporting = self.reporting { items.append(("reporting", reporting.rawValue)) }
        return items.map { "\(Self.encode($0))=\(Self.encode($1))" }.joined(separator: "&")
    }

    /// The same context for another session (the compare view's rows).
    package func with(session: String) -> PreviewContext {
        var copy = self
        copy.session = session
        return copy
    }

    /// A query string as HTML forms write it (`application/x-www-form-urlencoded`: `+` is a
    /// space), names and values percent-decoded; undecodable pairs are kept as written.
    package static func pairs(_ query: String?) -> [(key: String, value: String)] {
        guard let query, !query.isEmpty else { return [] }
        return query.split(separator: "&").map { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String {
                let spaced = part.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    static func encode(_ text: String) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+?#")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
