import ArgumentParser
import HLSPlaylist

/// `adstitch fmt FILE|-`: the canonical serialisation of a playlist.
struct Format: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fmt",
        abstract: "Print a playlist in canonical form (LF line endings, no blank lines, final newline).",
        discussion: "Untouched lines are written byte for byte. Exits 1 with the error and its line on stderr when the playlist cannot be parsed."
    )

    @Argument(help: "The playlist file, or - for standard input.")
    var file: String

    @Flag(help: "Write every EXT-X-BYTERANGE with its absolute offset.")
    var explicitByteRanges = false

    func run() throws {
        let input = try InputFile.read(self.file)
        do {
            let playlist = try PlaylistParser().parse(bytes: input.bytes, url: input.url)
            let writer = PlaylistWriter(options: .init(explicitByteRangeOffsets: self.explicitByteRanges))
            Output.write(writer.write(playlist))
        } catch {
            Output.error("\(input.displayName):\(error.line): error: \(error.message)\(error.text.isEmpty ? "" : ": \(error.text)")")
            throw ExitCode(1)
        }
    }
}
