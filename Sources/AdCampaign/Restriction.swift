/// What the player UI must not let a viewer do while a break plays (`restrict: [skip, jump]`),
/// carried into the boundary manifest.
public struct Restriction: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Skip the break (or the ad) playing.
    public static let skip = Restriction(rawValue: 1 << 0)
    /// Seek past the break without playing it.
    public static let jump = Restriction(rawValue: 1 << 1)

    /// Each policy with its campaign (and boundary manifest) name, in that order.
    public static let named: [(name: String, restriction: Restriction)] = [("skip", .skip), ("jump", .jump)]

    /// The policy called `name` in a campaign, or nil.
    public init?(name: String) {
        guard let match = Self.named.first(where: { $0.name == name }) else { return nil }
        self = match.restriction
    }

    /// The names of the policies in force, in canonical order (`["skip", "jump"]`).
    public var names: [String] { Self.named.filter { self.contains($0.restriction) }.map(\.name) }
}
