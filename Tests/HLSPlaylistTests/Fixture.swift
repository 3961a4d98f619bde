import Foundation
import HLSPlaylist

/// Loads the real playlists under `Fixtures/`.
enum Fixture {
    static let directory = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!

    /// Every fixture file name (`*.m3u8`), sorted.
    static var names: [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { $0.hasSuffix(".m3u8") }.sorted()
    }

    static func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    static func text(_ name: String) throws -> String {
        try String(contentsOf: url(name), encoding: .utf8)
    }

    static func parse(_ name: String) throws -> Playlist {
        try PlaylistParser().parse(try text(name), url: url(name))
    }
}
