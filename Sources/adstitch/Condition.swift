import AdCampaign
import AdConditioning
import AdMedia
import AdStitching
import ArgumentParser
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `adstitch condition CREATIVE --campaign FILE`: a creative (an MP4, any file ffmpeg reads,
/// local or http(s)) encoded into an HLS asset that stitches with the campaign's programme, then
/// checked as an ad of that campaign.
struct Condition: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "condition",
        abstract: "Encode a creative (MP4…) into an HLS ad that stitches with a campaign's programme (needs ffmpeg).",
        discussion: """
            One video rendition per programme video variant (codec, profile and level, resolution — scaled and \
            padded to keep the aspect — frame rate, a keyframe at every segment start, the programme's segment \
            duration, peak at or below the variant's BANDWIDTH); audio in the programme's format (codec, channels, \
            sample rate), muxed or per audio rendition as the programme has it, loudness normalised (EBU R128, \
            two-pass loudnorm); the programme's container (MPEG-TS or fMP4). Writes DIR/master.m3u8, then loads \
            it as an ad of the campaign: it must load with no error and no warning. A creative without audio gets \
            silence (said); one shorter than a segment is refused. Progress on standard error.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @OptionGroup(title: "Origins")
    var origin: OriginFlags

    @OptionGroup var catalogue: TitleOption

    @Argument(help: "The creative: a file or an http(s) URL ffmpeg reads.")
    var creative: String

    @Option(help: "The campaign whose programme the creative must stitch with.")
    var campaign: String

    @Option(help: "The ad's id (default: the creative's file name without extension).")
    var id: String?

    @Option(help: "Where to write the HLS asset (default: ./ID).")
    var out: String?

    @Option(help: "Integrated loudness to normalise to, LUFS (EBU R128: -23; ATSC A/85: -24).")
    var loudness: Double = -23

    @Option(help: "text (progress and a summary) or json (one report document on standard output).")
    var format: Format = .text

    func validate() throws {
        guard (-70 ... -5).contains(self.loudness) else { throw ValidationError("--loudness \(self.loudness): give -70 to -5 LUFS.") }
    }

    func run() throws {
        let id = self.id ?? URL(fileURLWithPath: self.creative).deletingPathExtension().lastPathComponent
        // The ad being made may be named by the campaign already, its playlist not there yet
        // (this command makes it): the campaign is loaded without it.
        let campaign = try CampaignFile.load(self.campaign, origin: self.origin, title: self.catalogue.title, leavingOut: id)
        let out = URL(fileURLWithPath: self.out ?? id).standardizedFileURL
        let target: ConditioningTarget
        do {
            target = try ConditioningTarget(campaign: campaign)
        } catch {
            Output.error("\(self.campaign): error: \(error.description)")
            throw ExitCode(1)
        }
        let terminal = isatty(STDERR_FILENO) == 1
        let reporter = ProgressLines(terminal: terminal)
        let report: Conditioner.Report
        do {
            report = try Conditioner(target: target, loudness: self.loudness).condition(self.creative, into: out) { reporter.show($0) }
        } catch {
            Output.error("\(self.creative): error: \(error.description)")
            throw ExitCode(1)
        }
        // The check the command promises: the asset loads as an ad of the campaign, laid out in
        // its sessions, with no warning — read inside the output folder, wherever it was written.
        let problems = CampaignFile.withSource(self.origin) { source in
            Conditioner.problems(report, id: id, campaign: campaign, source: source, folder: out)
        }
        if self.format == .json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            struct Document: Encodable {
                var report: Conditioner.Report
                var id: String
                var problems: [String]
            }
            Output.write(
                String(decoding: (try? encoder.encode(Document(report: report, id: id, problems: problems))) ?? Data(), as: UTF8.self) + "\n"
            )
        } else {
            for note in report.notes { Output.error("\(self.creative): note: \(note)") }
            let loudness = report.inputLoudness.map { String(format: "%.1f LUFS → %.1f LUFS", $0, report.targetLoudness) } ?? "no audio to normalise"
            Output.write(
                "\(report.master): ad \(id), \(report.duration) s, \(report.container), \(report.renditions.count) renditions, \(loudness), "
                    + String(format: "encoded in %.1f s", report.seconds) + "\n"
            )
            for rendition in report.renditions {
                Output.write(
                    "  \(rendition.uri): \(rendition.kind)\(rendition.resolution.map { " \($0)" } ?? ""), \(rendition.segments) segments, "
                        + "peak \(rendition.bandwidth) bit/s, average \(rendition.averageBandwidth) bit/s\n"
                )
            }
            Output.write("  use it in \(self.campaign): - { id: \(id), playlist: \(report.master) }\n")
        }
        for problem in problems { Output.error("\(report.master): \(problem)") }
        if !problems.isEmpty { throw ExitCode(1) }
    }
}

/// Progress on standard error: a bar rewritten in place on a terminal (percent, elapsed, ETA of
/// the step), else a plain line per step and every quarter.
final class ProgressLines: @unchecked Sendable {  // called from ffmpeg's reader queue, one step at a time
    let terminal: Bool
    private var lastQuarter = -1
    private var lastStep = ""

    init(terminal: Bool) { self.terminal = terminal }

    func show(_ progress: Conditioner.Progress) {
        let elapsed = Double(progress.elapsed.components.seconds) + Double(progress.elapsed.components.attoseconds) / 1e18
        let eta = progress.fraction > 0.01 ? elapsed / progress.fraction - elapsed : nil
        let head = "[\(progress.index + 1)/\(progress.count)] \(progress.step)"
        let percent = Int((progress.fraction * 100).rounded(.down))
        let timing = String(format: "%.1f s", elapsed) + (eta.map { String(format: ", ETA %.1f s", $0) } ?? "")
        if self.terminal {
            let width = 24
            let filled = Int(progress.fraction * Double(width))
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            FileHandle.standardError.write(Data("\r\(head) [\(bar)] \(percent)% \(timing)\u{1b}[K".utf8))
            if progress.fraction >= 1 { FileHandle.standardError.write(Data("\n".utf8)) }
        } else {
            if head != self.lastStep { (self.lastStep, self.lastQuarter) = (head, -1) }
            let quarter = Int(progress.fraction * 4)
            guard quarter > self.lastQuarter else { return }
            self.lastQuarter = quarter
            Output.error("\(head): \(percent)% (\(timing))")
        }
    }

}
