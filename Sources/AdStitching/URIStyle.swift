import Foundation
import HLSPlaylist

/// How stitched playlists write the URIs of segments, keys and maps.
public struct URIStyle: Sendable {
    /// What a URI is for: a segment or an init section (`EXT-X-MAP`), or a key.
    public enum Role: Sendable, Hashable {
        case media
        case key
    }

    private let write: @Sendable (URL, Role) -> String
    /// Whether every http(s) URL is written as its `absoluteString` in every role (the styles
    /// below): a segment line can then be written from text, without making a URL
    /// (``HLSPlaylist/MediaPlaylist/appendResolvedText(_:to:)``).
    let writesRemoteAsIs: Bool

    /// The same style for every role.
    public init(_ rewrite: @escaping @Sendable (URL) -> String) {
        self.init(writesRemoteAsIs: false) { url, _ in rewrite(url) }
    }

    public init(roles write: @escaping @Sendable (URL, Role) -> String) {
        self.init(writesRemoteAsIs: false, write)
    }

    private init(writesRemoteAsIs: Bool, _ write: @escaping @Sendable (URL, Role) -> String) {
        self.write = write
        self.writesRemoteAsIs = writesRemoteAsIs
    }

    /// How a segment or map URI is written.
    public func rewrite(_ url: URL) -> String { self.write(url, .media) }

    /// How `url` is written in its role.
    public func write(_ url: URL, as role: Role) -> String { self.write(url, role) }

    /// Absolute URLs (`file:///…`, `https://…`).
    public static let absolute = URIStyle(writesRemoteAsIs: true) { url, _ in url.absoluteString }

    /// Local files as paths relative to `directory` (where the stitched playlists are written);
    /// remote URLs stay absolute.
    public static func relative(to directory: URL) -> URIStyle {
        let base = directory.standardizedFileURL.pathComponents
        return URIStyle(writesRemoteAsIs: true) { url, _ in
            guard url.isFileURL else { return url.absoluteString }
            let target = url.standardizedFileURL.pathComponents
            var common = 0
            while common < min(base.count, target.count), base[common] == target[common] { common += 1 }
            let up = Array(repeating: "..", count: base.count - common)
            let path = (up + target[common...]).joined(separator: "/")
            return path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
        }
    }

    /// Local files under `root` as URLs under `base` (`--base-url`): `root/media/a.ts` → `base/media/a.ts`.
    public static func rebased(root: URL, onto base: URL) -> URIStyle {
        let rootPath = root.standardizedFileURL.path.hasSuffix("/") ? root.standardizedFileURL.path : root.standardizedFileURL.path + "/"
        let baseText = base.absoluteString.hasSuffix("/") ? base.absoluteString : base.absoluteString + "/"
        return URIStyle(writesRemoteAsIs: true) { url, _ in
            guard url.isFileURL else { return url.absoluteString }
            // Every local segment of every ad a layout writes comes here: the path as it is when it
            // has no dot segment to remove, and no percent-encoding when nothing needs it — the
            // Foundation calls were a quarter of a catalogue title's layout.
            let plain = url.path
            let path = Self.hasDotSegments(plain) ? url.standardizedFileURL.path : plain
            guard path.hasPrefix(rootPath) else { return url.absoluteString }
            let relative = String(path.dropFirst(rootPath.count))
            if relative.utf8.allSatisfy(Self.isPathAllowed) { return baseText + relative }
            return baseText + (relative.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? relative)
        }
    }

    /// Whether `path` has a `.` or `..` segment or an empty one (`//`): what standardising removes.
    private static func hasDotSegments(_ path: String) -> Bool {
        var segment = 0
        var dots = 0
        for byte in path.utf8.dropFirst() {
            if byte == UInt8(ascii: "/") {
                if segment == 0 || (segment == dots && dots <= 2) { return true }
                (segment, dots) = (0, 0)
            } else {
                segment += 1
                if byte == UInt8(ascii: ".") { dots += 1 }
            }
        }
        return segment == dots && dots >= 1 && dots <= 2
    }

    /// Foundation's `urlPathAllowed` as bytes (RFC 3986 `pchar` and `/`, less `;`): written as they are.
    private static func isPathAllowed(_ byte: UInt8) -> Bool {
        URIBytes.isUnreserved(byte) || Self.pathPunctuation.contains(byte)
    }

    private static let pathPunctuation: Set<UInt8> = Set("!$&'()*+,=:@/".utf8)
}
