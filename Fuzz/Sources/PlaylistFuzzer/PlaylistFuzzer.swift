// libFuzzer target over the HLSPlaylist parser (scripts/fuzz.sh builds it with the Fuzz package,
// AddressSanitizer and libFuzzer). Any input may be rejected with a PlaylistError; none may
// crash, hang, or break the properties checked below.
import HLSPlaylist

@_cdecl("LLVMFuzzerTestOneInput")
public func playlistFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let playlist = try? PlaylistParser().parse(bytes: bytes) else { return 0 }

    // Writing is lossless: the canonical text parses again and writes back identically.
    let text = PlaylistWriter().write(playlist)
    guard let again = try? PlaylistParser().parse(text) else {
        fatalError("the canonical form of a parsed playlist does not parse:\n\(text)")
    }
    precondition(PlaylistWriter().write(again) == text, "canonical text is not a fixed point")

    // Every derived view materialises, lints and resolves without trapping.
    for line in playlist.lines { _ = line.text }
    _ = PlaylistLinter().lint(playlist)
    switch playlist {
    case .media(let media):
        var total = ExactDecimal.zero
        for segment in media.segments { total += segment.duration }
        precondition(total == media.duration, "segment durations do not sum to the playlist duration")
        _ = PlaylistWriter(options: .init(explicitByteRangeOffsets: true)).write(media)
        _ = try? media.resolvingVariables()
    case .multivariant(let multivariant):
        _ = try? multivariant.resolvingVariables()
    }
    return 0
}
