import ArgumentParser

/// `adstitch`: the command-line front end. Each verb lives in its own file.
@main
struct AdStitchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "adstitch",
        abstract: "Dynamic ad stitching for HTTP Live Streaming.",
        subcommands: [Serve.self, Stitch.self, Preview.self, Validate.self, Condition.self, Format.self]
    )
}
