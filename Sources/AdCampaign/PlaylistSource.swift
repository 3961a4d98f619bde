#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a campaign's playlists are read from: the file system, or (for tests and tools) a set of
/// playlists held in memory by path. Everything else about loading — limits, linting, the
/// revision digest, the folder rule — is the same for both.
public struct PlaylistSource: Sendable {
    /// The bytes at a local URL; throws when there is none.
    let read: @Sendable (URL) throws -> Data
    /// Whether paths are checked against the folder after resolving symlinks (files only).
    let resolvesSymlinks: Bool
    /// The bytes of an http(s) playlist and its URL after redirects, fetched as the campaign's
    /// `origin:` block says; nil: remote playlists are refused.
    let fetch: Fetch?
    /// ``fetch`` without the observer ``observingRemote(_:)`` adds: for a live channel's media
    /// playlists, read once at load to learn their shape — not part of the revision and not
    /// polled for changes (they change every few seconds; the channel's poller reads them).
    let unobservedFetch: Fetch?
    /// Folders outside a campaign's own that its local media may lie in, reached through a
    /// symbolic link inside the campaign's folder (`--media-root`: one ad library, many
    /// campaigns, no copies); resolved paths, each ending in `/`.
    public private(set) var mediaRoots: [String] = []

    public typealias Fetch = @Sendable (URL, OriginOptions) throws -> (data: Data, url: URL)

    init(read: @escaping @Sendable (URL) throws -> Data, resolvesSymlinks: Bool, fetch: Fetch? = nil, unobservedFetch: Fetch? = nil) {
        self.read = read
        self.resolvesSymlinks = resolvesSymlinks
        self.fetch = fetch
        self.unobservedFetch = unobservedFetch ?? fetch
    }

    /// The same source, letting a campaign's links lead into `roots` (``mediaRoots``).
    public func allowingLinks(into roots: [URL]) -> PlaylistSource {
        var source = self
        source.mediaRoots = roots.map { root in
            let path = root.standardizedFileURL.resolvingSymlinksInPath().path
            return path.hasSuffix("/") ? path : path + "/"
        }
        return source
    }

    /// Local files.
    public static let files = PlaylistSource(read: { try Data(contentsOf: $0) }, resolvesSymlinks: true)

    /// Local files, and playlists on http(s) origins through `fetch`, which returns a playlist's
    /// bytes and its URL after redirects (relative URIs inside it resolve against that) or throws
    /// an error whose description names the URL and what went wrong.
    public static func files(remote fetch: @escaping Fetch) -> PlaylistSource {
        PlaylistSource(read: { try Data(contentsOf: $0) }, resolvesSymlinks: true, fetch: fetch)
    }

    /// The same source, calling `observe` before each remote fetch (the server notes which
    /// playlists a campaign fetched, to ask the origin again whether they changed).
    public func observingRemote(_ observe: @escaping @Sendable (URL, OriginOptions) -> Void) -> PlaylistSource {
        guard let fetch = self.fetch else { return self }
        var source = PlaylistSource(
            read: self.read,
            resolvesSymlinks: self.resolvesSymlinks,
            fetch: { url, options in
                observe(url, options)
                return try fetch(url, options)
            },
            unobservedFetch: self.unobservedFetch
        )
        source.mediaRoots = self.mediaRoots
        return source
    }

    /// The same source, fetching the remote playlists `routes` says yes to through `fetch`
    /// instead (a catalogue's titles, fetched fresh, beside ads read from known answers).
    public func routingRemote(_ routes: @escaping @Sendable (URL) -> Bool, to fetch: @escaping Fetch) -> PlaylistSource {
        let original = self.fetch
        var source = PlaylistSource(
            read: self.read,
            resolvesSymlinks: self.resolvesSymlinks,
            fetch: { url, options in
                if routes(url) { return try fetch(url, options) }
                guard let original else { throw RemoteRefused(url: url) }
                return try original(url, options)
            },
            unobservedFetch: self.unobservedFetch
        )
        source.mediaRoots = self.mediaRoots
        return source
    }

    /// The playlists in `playlists` (keyed by path relative to `root`) and nothing else; remote
    /// ones through `remote` when given.
    public static func memory(_ playlists: [String: String], root: URL, remote: Fetch? = nil) -> PlaylistSource {
        let base = root.standardizedFileURL
        let byPath = Dictionary(
            uniqueKeysWithValues: playlists.map { (base.appendingPathComponent($0.key).standardizedFileURL.path, Data($0.value.utf8)) }
        )
        return PlaylistSource(
            read: { url in
                guard let data = byPath[url.standardizedFileURL.path] else { throw CocoaError(.fileReadNoSuchFile) }
                return data
            },
            resolvesSymlinks: false,
            fetch: remote
        )
    }
}

/// A remote playlist asked of a source that reads local files only.
struct RemoteRefused: Error, CustomStringConvertible {
    var url: URL
    var description: String { "\(self.url.absoluteString): this source reads local files only" }
}
