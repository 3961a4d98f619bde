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

    /// Local files.
    public static let files = PlaylistSource(read: { try Data(contentsOf: $0) }, resolvesSymlinks: true)

    /// The playlists in `playlists` (keyed by path relative to `root`) and nothing else.
    public static func memory(_ playlists: [String: String], root: URL) -> PlaylistSource {
        let base = root.standardizedFileURL
        let byPath = Dictionary(
            uniqueKeysWithValues: playlists.map { (base.appendingPathComponent($0.key).standardizedFileURL.path, Data($0.value.utf8)) }
        )
        return PlaylistSource(
            read: { url in
                guard let data = byPath[url.standardizedFileURL.path] else { throw CocoaError(.fileReadNoSuchFile) }
                return data
            },
            resolvesSymlinks: false
        )
    }
}
