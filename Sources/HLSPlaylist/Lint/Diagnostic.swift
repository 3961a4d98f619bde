/// A finding of ``PlaylistLinter``, in the manner of Apple's mediastreamvalidator.
public struct Diagnostic: Sendable, Hashable, CustomStringConvertible {
    public enum Severity: String, Sendable, Hashable, Comparable {
        case warning
        case error

        public static func < (lhs: Self, rhs: Self) -> Bool { lhs == .warning && rhs == .error }
    }

    public var severity: Severity
    /// The 1-based line the finding is about, or nil for the playlist as a whole.
    public var line: Int?
    /// A stable identifier of the rule, e.g. `target-duration`.
    public var rule: String
    /// What is wrong and what to do.
    public var message: String

    public init(_ severity: Severity, line: Int?, rule: String, _ message: String) {
        self.severity = severity
        self.line = line
        self.rule = rule
        self.message = message
    }

    public static func error(_ rule: String, line: Int?, _ message: String) -> Self { Self(.error, line: line, rule: rule, message) }
    public static func warning(_ rule: String, line: Int?, _ message: String) -> Self { Self(.warning, line: line, rule: rule, message) }

    /// `error: message [rule]`, prefixed by the line when known.
    public var description: String {
        let location = self.line.map { "line \($0): " } ?? ""
        return "\(location)\(self.severity.rawValue): \(self.message) [\(self.rule)]"
    }
}
