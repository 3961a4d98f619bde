/// One non-blank line of a playlist: a tag, a URI or a comment.
///
/// A parsed line keeps the exact text it came from; the writer emits that text for every
/// line whose ``content`` was not changed, so untouched lines round-trip byte for byte.
public struct PlaylistLine: Sendable, Hashable {
    public enum Content: Sendable, Hashable {
        case tag(Tag)
        /// A URI line, as written (variables unresolved until ``MediaPlaylist/resolvingVariables(importingFrom:playlistURL:)``).
        case uri(Substring)
        /// A line starting with `#` but not `#EXT`, including the `#`.
        case comment(Substring)
    }

    /// What the line says. Setting it drops the original text: the line is then written from its content.
    public var content: Content {
        didSet { self.original = nil }
    }

    /// The text the line was parsed from; nil once ``content`` changes or for lines made in code.
    public private(set) var original: Substring?

    /// The 1-based line number in the source, or 0 for a line made in code.
    public let number: Int

    /// A line made in code.
    public init(_ content: Content) {
        self.content = content
        self.original = nil
        self.number = 0
    }

    init(content: Content, original: Substring, number: Int) {
        self.content = content
        self.original = original
        self.number = number
    }

    public var tag: Tag? {
        if case .tag(let tag) = self.content { return tag }
        return nil
    }

    /// The line as the writer emits it (without the newline).
    public var text: Substring {
        if let original { return original }
        switch self.content {
        case .tag(let tag): return Substring(tag.serialized)
        case .uri(let uri): return uri
        case .comment(let comment): return comment
        }
    }
}
