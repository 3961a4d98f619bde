#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One thing wrong with a campaign: the file, the line and column, the field, and what to do.
public struct CampaignIssue: Sendable, Hashable, CustomStringConvertible {
    /// `items` for a message, comma-separated: the first `limit`, then how many more (a list of
    /// 3,000 breaks is no message).
    public static func listing(_ items: [String], limit: Int = 8) -> String {
        guard items.count > limit else { return items.joined(separator: ", ") }
        return items.prefix(limit).joined(separator: ", ") + " and \(items.count - limit) more"
    }

    /// The campaign file or the playlist the issue is in.
    public var file: String
    /// 1-based; 0 when unknown.
    public var line: Int
    public var column: Int
    /// The field path in the campaign (`breaks[1].after`), or the playlist rule for playlist findings.
    public var field: String
    public var message: String

    public init(file: String, line: Int, column: Int, field: String, _ message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.field = field
        self.message = message
    }

    /// `file:line:column`.
    public var location: String {
        var location = self.file
        if self.line > 0 { location += ":\(self.line)" }
        if self.column > 0 { location += ":\(self.column)" }
        return location
    }

    /// `file:line:column: field: message`, the way compilers print.
    public var description: String {
        self.field.isEmpty ? "\(self.location): \(self.message)" : "\(self.location): \(self.field): \(self.message)"
    }
}

/// A campaign that could not be loaded, with every issue found.
public struct CampaignError: Error, Sendable, CustomStringConvertible {
    public var issues: [CampaignIssue]

    public init(_ issues: [CampaignIssue]) {
        self.issues = issues
    }

    public var description: String {
        self.issues.map(\.description).joined(separator: "\n")
    }
}
