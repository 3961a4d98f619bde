import ArgumentParser
import HLSPlaylist

/// `adstitch validate FILE…`: lint playlists like mediastreamvalidator.
struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check playlists against RFC 8216 / draft-pantos-hls-rfc8216bis.",
        discussion: "Prints each finding as file:line: error|warning: message. Exits 1 when any error is found."
    )

    @Argument(help: "Playlist files (.m3u8).")
    var files: [String]

    func validate() throws {
        guard !self.files.isEmpty else { throw ValidationError("Name at least one playlist file.") }
    }

    func run() throws {
        var errors = 0
        for file in self.files {
            let input: InputFile
            do {
                input = try InputFile.read(file)
            } catch {
                Output.error("\(file): error: \(error)")
                errors += 1
                continue
            }
            let diagnostics: [Diagnostic]
            do {
                let playlist = try PlaylistParser().parse(bytes: input.bytes, url: input.url)
                diagnostics = PlaylistLinter().lint(playlist)
            } catch {
                diagnostics = [.error(error.code.rawValue, line: error.line, "\(error.message)\(error.text.isEmpty ? "" : ": \(error.text)")")]
            }
            for diagnostic in diagnostics {
                let location = diagnostic.line.map { "\(input.displayName):\($0)" } ?? input.displayName
                Output.write("\(location): \(diagnostic.severity.rawValue): \(diagnostic.message) [\(diagnostic.rule)]\n")
                if diagnostic.severity == .error { errors += 1 }
            }
        }
        if errors > 0 { throw ExitCode(1) }
    }
}
