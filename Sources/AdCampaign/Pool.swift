/// An ad pool.
public struct Pool: Sendable {
    public let id: String
    public let ads: [Ad]
}
