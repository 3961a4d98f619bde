import Foundation
import HLSPlaylist

/// Parses an inline media playlist; a multivariant playlist is an error.
func parseMedia(_ text: String, url: URL? = nil) throws(PlaylistError) -> MediaPlaylist {
    try PlaylistParser().parseMediaPlaylist(text, url: url)
}

/// Parses an inline multivariant playlist; a media playlist is an error.
func parseMultivariant(_ text: String, url: URL? = nil) throws(PlaylistError) -> MultivariantPlaylist {
    try PlaylistParser().parseMultivariantPlaylist(text, url: url)
}

/// Parses and writes back with default options.
func roundTrip(_ text: String) throws(PlaylistError) -> String {
    PlaylistWriter().write(try PlaylistParser().parse(text))
}

/// Parses and lints.
func lint(_ text: String) throws(PlaylistError) -> [Diagnostic] {
    PlaylistLinter().lint(try PlaylistParser().parse(text))
}

/// The error parsing `text` throws, or nil when it parses.
func parseError(_ text: String) -> PlaylistError? {
    do {
        _ = try PlaylistParser().parse(text)
        return nil
    } catch {
        return error
    }
}

/// Lines joined with LF and ended with one, as the writer emits them — the canonical form.
func canonical(_ lines: String...) -> String {
    lines.joined(separator: "\n") + "\n"
}

/// The UTF-8 bytes: `String ==` compares canonical equivalence, a round trip must keep the bytes.
func bytes(_ text: String) -> [UInt8] {
    Array(text.utf8)
}

extension Array where Element == Diagnostic {
    /// The findings of one rule.
    func rule(_ rule: String) -> [Diagnostic] { self.filter { $0.rule == rule } }
    var errors: [Diagnostic] { self.filter { $0.severity == .error } }
    var warnings: [Diagnostic] { self.filter { $0.severity == .warning } }
}

extension Playlist {
    var media: MediaPlaylist? {
        if case .media(let playlist) = self { return playlist }
        return nil
    }

    var multivariant: MultivariantPlaylist? {
        if case .multivariant(let playlist) = self { return playlist }
        return nil
    }
}

/// `text` as an `ExactDecimal`, for expected values written the way a playlist writes them.
func decimal(_ text: String) -> ExactDecimal {
    guard let value = ExactDecimal(text) else { preconditionFailure("\(text) is not a decimal") }
    return value
}
