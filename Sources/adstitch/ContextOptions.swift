import AdDecision
import ArgumentParser
import Foundation
import HLSPlaylist

/// The viewer context flags shared by `stitch` and `preview`.
struct ContextOptions: ParsableArguments {
    @Option(help: "The session id (default: a fresh random one).")
    var session: String?

    @Option(help: "When the decision is made, ISO 8601 (default: now), e.g. 2026-11-27T19:30:00+01:00.")
    var at: String?

    @Option(
        name: .customLong("set"),
        help: ArgumentHelp("A viewer attribute, e.g. --set locale=es-ES --set seen=alpha,bravo.", valueName: "key=value")
    )
    var attributes: [String] = []

    func validate() throws {
        if let at, DateTime(at) == nil {
            throw ValidationError("--at \(at) is not an ISO 8601 date-time such as 2026-11-27T19:30:00Z")
        }
        for attribute in self.attributes where !attribute.contains("=") || attribute.hasPrefix("=") {
            throw ValidationError("--set \(attribute) must be key=value")
        }
    }

    var context: ViewerContext {
        var values: [String: String] = [:]
        for attribute in self.attributes {
            let parts = attribute.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            values[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        let date = self.at.flatMap(DateTime.init).map { Date(timeIntervalSince1970: $0.secondsSinceEpoch.doubleValue) } ?? Date()
        return ViewerContext(session: self.session ?? "s-" + UUID().uuidString.lowercased().prefix(8), at: date, attributes: values)
    }
}
