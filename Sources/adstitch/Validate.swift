import AdCampaign
import AdStitching
import ArgumentParser
import Foundation
import HLSPlaylist

/// `adstitch validate FILE…`: lint playlists like mediastreamvalidator.
struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check campaigns, and playlists against RFC 8216 / draft-pantos-hls-rfc8216bis.",
        discussion: """
            A .yaml/.yml file is a campaign: its fields, every playlist it references and whether its ads can be \
            stitched into its programme are checked. Other files are playlists. Prints each finding as \
            file:line: error|warning: message; exits 1 when any error is found.
            """
    )

    @OptionGroup(title: "Origins")
    var origin: OriginFlags

    @Argument(help: "Campaign files (.yaml) and playlist files (.m3u8).")
    var files: [String]

    func validate() throws {
        guard !self.files.isEmpty else { throw ValidationError("Name at least one playlist file.") }
    }

    func run() throws {
        // Playlists on origins through one client for all the files.
        let errors = CampaignFile.withSource(self.origin) { source in self.validate(self.files, source: source) }
        if errors > 0 { throw ExitCode(1) }
    }

    /// Validates each file; returns the number of errors.
    private func validate(_ files: [String], source: PlaylistSource) -> Int {
        var errors = 0
        for file in files {
            if file.hasSuffix(".yaml") || file.hasSuffix(".yml") {
                errors += self.validateCampaign(file, source: source)
                continue
            }
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
        return errors
    }

    /// Loads the campaign (which lints every playlist it references and reports errors), then
    /// prints the warnings of those playlists too. Returns the number of errors.
    private func validateCampaign(_ file: String, source: PlaylistSource) -> Int {
        let campaign: Campaign
        do {
            campaign = try CampaignLoader.load(URL(fileURLWithPath: file), source: source)
        } catch {
            for issue in error.issues { Output.write(CampaignFile.format(issue) + "\n") }
            return error.issues.count
        }
        // Every segment, key and init section the playlists name must be there (the server refuses
        // a revision that lacks one, so validate does too).
        let missing = campaign.missingMedia()
        for issue in missing { Output.write(CampaignFile.format(issue) + "\n") }
        guard missing.isEmpty else { return missing.count }
        // The alignment of every asset in every rendition (docs/architecture.md invariant 2) is checked when the
        // stitch layout is built: do it here too, so validate finds what stitching would refuse.
        do {
            _ = try StitchLayout(campaign: campaign, uris: .absolute)
        } catch {
            Output.write("\(file): error: \(error.message)\n")
            return 1
        }
        var urls: [URL] = []
        let assets = campaign.islands.map(\.asset) + campaign.ads.map(\.asset) + (campaign.slate.map { [$0] } ?? [])
        for asset in assets {
            urls.append(asset.url)
            urls += asset.variants.map(\.url) + asset.iFrameVariants.map(\.url) + asset.renditions.compactMap(\.url)
        }
        var seen: Set<URL> = []
        for url in urls where seen.insert(url).inserted {
            guard let input = try? InputFile.read(url.path), let playlist = try? PlaylistParser().parse(bytes: input.bytes, url: url) else {
                continue
            }
            for warning in PlaylistLinter().lint(playlist) where warning.severity == .warning {
                Output.write("\(url.path)\(warning.line.map { ":\($0)" } ?? ""): warning: \(warning.message) [\(warning.rule)]\n")
            }
        }
        for warning in campaign.warnings {
            Output.write(CampaignFile.format(warning, severity: "warning") + "\n")
        }
        Output.write(
            "\(file): campaign \(campaign.id) is valid: \(campaign.islands.count) islands, \(campaign.breaks.count) breaks, "
                + "\(campaign.ads.count) ads, \(seen.count) playlists\n"
        )
        return 0
    }
}
