/// Why a session could not be stitched — always something about the media, said so a person
/// can fix it.
public struct StitchError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { self.message }
}
