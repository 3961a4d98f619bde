import AdOrigin
import ArgumentParser
import Foundation

/// `--origin-…` (serve, validate, stitch, preview): how remote playlists are fetched, and for
/// `serve` polled, where a campaign's `origin:` block does not say (docs/campaign-format.md).
struct OriginFlags: ParsableArguments {
    @Option(name: .customLong("origin-connect-timeout"), help: "Seconds to connect to an origin.")
    var connectTimeout: Double = 2

    @Option(name: .customLong("origin-timeout"), help: "Seconds for a whole playlist request, redirects included.")
    var timeout: Double = 5

    @Option(name: .customLong("origin-poll"), help: "Seconds between conditional re-fetches of a campaign's remote playlists (serve).")
    var poll: Double = 30

    @Option(name: .customLong("origin-max-redirects"), help: "Redirects followed before a fetch fails.")
    var maxRedirects = 5

    @Option(name: .customLong("origin-max-bytes"), help: "The most bytes a remote playlist may have.")
    var maxBytes = 16 << 20

    @Option(name: .customLong("origin-attempts"), help: "Tries per fetch: connection errors, timeouts and 5xx are tried again, 4xx never.")
    var attempts = 3

    @Option(
        name: .customLong("media-root"),
        help: ArgumentHelp(
            "A folder a campaign's local media may lie in through a symbolic link inside the campaign's folder (a shared ad library); repeatable.",
            valueName: "dir"
        )
    )
    var mediaRoots: [String] = []

    func validate() throws {
        guard (0.1...60).contains(self.connectTimeout) else { throw ValidationError("--origin-connect-timeout must be from 0.1 to 60 seconds") }
        guard (0.1...300).contains(self.timeout) else { throw ValidationError("--origin-timeout must be from 0.1 to 300 seconds") }
        guard (1...86_400).contains(self.poll) else { throw ValidationError("--origin-poll must be from 1 to 86400 seconds") }
        guard (0...20).contains(self.maxRedirects) else { throw ValidationError("--origin-max-redirects must be from 0 to 20") }
        guard (1_024...(16 << 20)).contains(self.maxBytes) else { throw ValidationError("--origin-max-bytes must be from 1024 to 16777216") }
        guard (1...10).contains(self.attempts) else { throw ValidationError("--origin-attempts must be from 1 to 10") }
        for root in self.mediaRoots {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--media-root \(root) is not a folder")
            }
        }
    }

    /// The `--media-root` folders.
    var mediaRootURLs: [URL] { self.mediaRoots.map { URL(fileURLWithPath: $0, isDirectory: true) } }

    var settings: OriginSettings {
        var settings = OriginSettings()
        settings.connectTimeout = .milliseconds(Int64((self.connectTimeout * 1_000).rounded()))
        settings.timeout = .milliseconds(Int64((self.timeout * 1_000).rounded()))
        settings.poll = .milliseconds(Int64((self.poll * 1_000).rounded()))
        settings.maxRedirects = self.maxRedirects
        settings.maxBytes = self.maxBytes
        settings.attempts = self.attempts
        return settings
    }
}

/// `--title` (validate, stitch, preview): which title of a catalogue campaign to load.
struct TitleOption: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "For a catalogue campaign (program: { catalogue: URL }): the title to load, the path of its multivariant playlist below the prefix.",
            valueName: "path"
        )
    )
    var title: String?
}
