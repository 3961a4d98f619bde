import Foundation
import HLSPlaylist

/// A VMAP 1.0.1 playlist: the ad breaks of a programme, each with where it stands and where its
/// ads come from.
public struct VMAPDocument: Sendable, Hashable {
    public var breaks: [Break]

    public struct Break: Sendable, Hashable {
        /// `breakId`, if any.
        public var id: String?
        public var offset: Offset
        /// `breakType`: `linear` (what stitches), `nonlinear`, `display`, or a list of them.
        public var types: [String]
        public var source: Source?
        /// The break's own `<TrackingEvents>` (`breakStart`, `breakEnd`, `error`).
        public var tracking: [String: [String]]

        /// Whether linear ads may play in it.
        public var isLinear: Bool { self.types.isEmpty || self.types.contains("linear") }
    }

    /// Where a break stands (VMAP 1.0.1 §2.4 `timeOffset`).
    public enum Offset: Sendable, Hashable {
        /// `start`: a pre-roll.
        case start
        /// `end`: a post-roll.
        case end
        /// `HH:MM:SS(.mmm)` into the programme.
        case time(ExactDecimal)
        /// `n%` of the programme.
        case percent(ExactDecimal)
        /// `#n`: the n-th (from 1) placement opportunity — a break of the campaign, in order.
        case position(Int)

        public init?(_ text: String) {
            let value = String(XMLElementNode.trimmed(text))
            switch value {
            case "start": self = .start
            case "end": self = .end
            default:
                if value.hasPrefix("#"), let index = Int(value.dropFirst()), index >= 1 {
                    self = .position(index)
                } else if value.hasSuffix("%"), let percent = ExactDecimal(value.dropLast()), percent >= .zero, percent <= ExactDecimal(100) {
                    self = .percent(percent)
                } else if let time = VASTTime.duration(value) {
                    self = .time(time)
                } else {
                    return nil
                }
            }
        }
    }

    /// Where a break's ads come from (`<AdSource>`).
    public enum Source: Sendable, Hashable {
        /// `<VASTAdData>`: the VAST response inline.
        case inline(VASTDocument)
        /// `<AdTagURI>`: a VAST request to make.
        case adTag(String)
    }

    /// Reads a VMAP document; throws ``VASTError`` (100: not XML; 101: not VMAP, or a break
    /// without a readable `timeOffset`).
    public init(_ data: Data) throws(VASTError) {
        let root = try XMLElementNode.answer(data, root: "VMAP")
        var breaks: [Break] = []
        for node in root.children("AdBreak") {
            guard let text = node.attributes["timeOffset"], let offset = Offset(text) else {
                throw VASTError(
                    .schema,
                    "line \(node.line): <AdBreak> timeOffset \"\(node.attributes["timeOffset"] ?? "")\" is not start, end, HH:MM:SS.mmm, n% or #n"
                )
            }
            var source: Source?
            if let adSource = node.child("AdSource") {
                if let data = adSource.child("VASTAdData"), let vast = data.child("VAST") {
                    source = .inline(try VASTDocument(vast))
                } else if let tag = adSource.child("AdTagURI")?.text, !tag.isEmpty {
                    source = .adTag(tag)
                }
            }
            var tracking: [String: [String]] = [:]
            for event in node.child("TrackingEvents")?.children("Tracking") ?? [] {
                guard let name = event.attributes["event"], !event.text.isEmpty else { continue }
                tracking[name, default: []].append(event.text)
            }
            breaks.append(
                Break(
                    id: node.attributes["breakId"],
                    offset: offset,
                    types: (node.attributes["breakType"] ?? "").split(separator: ",").map { String(XMLElementNode.trimmed($0)) },
                    source: source,
                    tracking: tracking
                )
            )
        }
        self.breaks = breaks
    }
}
