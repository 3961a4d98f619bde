import AdCampaign
import AdMedia
import AdStitching
import ArgumentParser
import Foundation
import HLSPlaylist

/// `adstitch validate FILE…`: lint playlists like mediastreamvalidator; check campaigns, and with
/// `--media` the segments they play.
struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check campaigns, and playlists against RFC 8216 / draft-pantos-hls-rfc8216bis.",
        discussion: """
            A .yaml/.yml file is a campaign: its fields, every playlist it references and whether its ads can be \
            stitched into its programme are checked. Other files are playlists. Prints each finding as \
            file:line: error|warning: message; exits 1 when any error is found. With --media, ffprobe (Debian \
            ffmpeg) reads the first and last segment of every rendition of every piece a campaign plays: the \
            first frame a keyframe, PAT/PMT first (MPEG-TS), codecs against CODECS, audio against video start; \
            and every segment's size gives the peak bit rate against BANDWIDTH.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @OptionGroup(title: "Origins")
    var origin: OriginFlags

    @OptionGroup var catalogue: TitleOption

    @Flag(help: "Also look inside the media segments of each campaign (needs ffprobe).")
    var media = false

    @Option(help: "text (a line per finding) or json (one document: every file, its findings, and what --media measured).")
    var format: Format = .text

    @Argument(help: "Campaign files (.yaml) and playlist files (.m3u8).")
    var files: [String]

    func validate() throws {
        guard !self.files.isEmpty else { throw ValidationError("Name at least one playlist file.") }
    }

    func run() throws {
        // Playlists on origins through one client for all the files.
        let results = CampaignFile.withSource(self.origin) { source in self.files.map { self.check($0, source: source) } }
        if self.format == .json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            Output.write(String(decoding: (try? encoder.encode(["files": results])) ?? Data(), as: UTF8.self) + "\n")
        }
        if results.contains(where: { !$0.valid }) { throw ExitCode(1) }
    }

    /// One finding, in any file.
    struct Finding: Encodable {
        var file: String
        var line: Int?
        var column: Int?
        var severity: String
        var field: String?
        var rule: String?
        var message: String
        /// How text output writes it.
        var text: String
    }

    /// What validate says of one file.
    struct FileResult: Encodable {
        var file: String
        var kind: String
        var findings: [Finding] = []
        var summary: String?
        var media: MediaReport?
        var valid: Bool { !self.findings.contains { $0.severity == "error" } && (self.media?.errors ?? 0) == 0 }
    }

    /// Adds a finding; text output writes it at once.
    private func report(_ finding: Finding, to result: inout FileResult) {
        result.findings.append(finding)
        if self.format == .text { Output.write(finding.text + "\n") }
    }

    private func report(_ issue: CampaignIssue, severity: String = "error", to result: inout FileResult) {
        let text = CampaignFile.format(issue, severity: severity)
        self.report(
            Finding(
                file: issue.file,
                line: issue.line > 0 ? issue.line : nil,
                column: issue.column > 0 ? issue.column : nil,
                severity: severity,
                field: issue.field.isEmpty ? nil : issue.field,
                message: issue.message,
                text: text
            ),
            to: &result
        )
    }

    private func check(_ file: String, source: PlaylistSource) -> FileResult {
        if file.hasSuffix(".yaml") || file.hasSuffix(".yml") { return self.checkCampaign(file, source: source) }
        var result = FileResult(file: file, kind: "playlist")
        let input: InputFile
        do {
            input = try InputFile.read(file)
        } catch {
            result.findings.append(Finding(file: file, severity: "error", message: "\(error)", text: "\(file): error: \(error)"))
            if self.format == .text { Output.error("\(file): error: \(error)") }
            return result
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
            let text = "\(location): \(diagnostic.severity.rawValue): \(diagnostic.message) [\(diagnostic.rule)]"
            self.report(
                Finding(
                    file: input.displayName,
                    line: diagnostic.line,
                    severity: diagnostic.severity.rawValue,
                    rule: diagnostic.rule,
                    message: diagnostic.message,
                    text: text
                ),
                to: &result
            )
        }
        return result
    }

    /// Loads the campaign (which lints every playlist it references and reports errors), then
    /// reports the warnings of those playlists too; with `--media`, probes its segments.
    private func checkCampaign(_ file: String, source: PlaylistSource) -> FileResult {
        var result = FileResult(file: file, kind: "campaign")
        let campaign: Campaign
        do {
            campaign = try CampaignLoader.load(URL(fileURLWithPath: file), source: source, title: self.catalogue.title)
        } catch {
            for issue in error.issues { self.report(issue, to: &result) }
            return result
        }
        // A catalogue's titles load as viewers start them: without --title its settings, pools and
        // ads are what there is to check.
        if let catalogue = campaign.catalogue {
            let summary =
                "\(file): catalogue \(campaign.id) is valid: titles below \(catalogue.prefix.absoluteString), \(campaign.ads.count) ads; "
                + "give --title PATH to check a title"
            result.summary = summary
            if self.format == .text { Output.write(summary + "\n") }
            return result
        }
        // Every segment, key and init section the playlists name must be there (the server refuses
        // a revision that lacks one, so validate does too).
        let missing = campaign.missingMedia()
        for issue in missing { self.report(issue, to: &result) }
        guard missing.isEmpty else { return result }
        // The alignment of every asset in every rendition (docs/architecture.md invariant 2) is checked when the
        // stitch layout is built: do it here too, so validate finds what stitching would refuse.
        do {
            _ = try StitchLayout(campaign: campaign, uris: .absolute)
        } catch {
            self.report(Finding(file: file, severity: "error", message: error.message, text: "\(file): error: \(error.message)"), to: &result)
            return result
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
                let text = "\(url.path)\(warning.line.map { ":\($0)" } ?? ""): warning: \(warning.message) [\(warning.rule)]"
                self.report(
                    Finding(file: url.path, line: warning.line, severity: "warning", rule: warning.rule, message: warning.message, text: text),
                    to: &result
                )
            }
        }
        for warning in campaign.warnings { self.report(warning, severity: "warning", to: &result) }
        let summary =
            "\(file): campaign \(campaign.id) is valid: \(campaign.islands.count) islands, \(campaign.breaks.count) breaks, "
            + "\(campaign.ads.count) ads, \(seen.count) playlists"
        if self.media {
            let report = MediaInspector().inspect(campaign, progress: self.format == .text ? Progress.show : { _, _ in })
            result.media = report
            if self.format == .text {
                for finding in report.findings { Output.write(finding.line + "\n") }
                for note in report.notes { Output.write("\(file): note: \(note)\n") }
                let warnings = report.findings.filter { $0.severity == .warning }.count
                Output.write(
                    "\(file): media: \(report.probed) segments probed in \(report.renditions.count) renditions: "
                        + "\(report.errors) errors, \(warnings) warnings\n"
                )
            }
        }
        if result.valid {
            result.summary = summary
            if self.format == .text { Output.write(summary + "\n") }
        }
        return result
    }
}

/// A progress line on standard error while `--media` probes: rewritten in place on a terminal,
/// else a line at each quarter, so a log shows a long run moving.
enum Progress {
    @Sendable static func show(_ done: Int, _ total: Int) {
        guard total >= 8 else { return }
        if isatty(FileHandle.standardError.fileDescriptor) != 0 {
            var stream = StandardError()
            print("\rprobing segments: \(done)/\(total)", terminator: done == total ? "\n" : "", to: &stream)
        } else if done == total || done % max(1, total / 4) == 0 {
            Output.error("probing segments: \(done)/\(total)")
        }
    }
}
