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

        /// Where it stands in a programme of `total` seconds, exactly (VMAP 1.0.1 §2.4.1: a
        /// percentage is of the content's duration); nil for `#n`, which names a break, not a time.
        public func time(inProgrammeOf total: ExactDecimal) -> ExactDecimal? {
            switch self {
            case .start: return .zero
            case .end: return total
            case .time(let time): return time
            case .percent(let percent):
                // total × percent / 100 in twice Int128's width: a week's programme at 99.5 % would
                // overflow the product (10³⁵ × 10²⁰).
                let hundred = ExactDecimal(100).scaledValue
                let product = total.scaledValue.multipliedFullWidth(by: percent.scaledValue)
                return ExactDecimal(scaledValue: hundred.dividingFullWidth(product).quotient)
            case .position: return nil
            }
        }

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
        let nodes = root.children("AdBreak")
        guard nodes.count <= AdServerLimits.maxBreaksPerVMAP else {
            throw VASTError(.schema, "the VMAP has \(nodes.count) <AdBreak>s; at most \(AdServerLimits.maxBreaksPerVMAP) are read")
        }
        for node in nodes {
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
            VASTAd.addTracking(node.child("TrackingEvents"), to: &tracking)
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
