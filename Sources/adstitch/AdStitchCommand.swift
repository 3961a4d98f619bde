import ArgumentParser

/// `adstitch`: the command-line front end. Each verb lives in its own file.
@main
struct AdStitchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "adstitch",
        abstract: "Dynamic ad stitching for HTTP Live Streaming.",
        subcommands: [Format.self, Validate.self]
    )
}
