import Foundation
import HLSPlaylist
import Yams

/// Loads a campaign file (docs/campaign-format.md, `version: 1`): reads the YAML, checks
/// every field, loads every referenced playlist once, and validates that the ads can be
/// stitched into the programme. All issues are collected and thrown together.
public enum CampaignLoader {
    /// - Parameter title: for a catalogue (`program: { catalogue: URL }`), the path below its
    ///   prefix of the title to load as the programme; nil: the campaign as it is (a catalogue
    ///   then loads as a template, ``Programme/catalogue(_:)``).
    /// - Parameter leavingOut: the id of an ad being made (`adstitch condition --id`): the pools'
    ///   entries for it are not loaded — its playlist may not exist yet — and the campaign is
    ///   checked without it.
    public static func load(
        _ file: URL,
        source: PlaylistSource = .files,
        title: String? = nil,
        reusing known: KnownAssets? = nil,
        leavingOut: String? = nil
    ) throws(CampaignError) -> Campaign {
        let data: Data
        do {
            data = try source.read(file)
        } catch {
            throw CampaignError([
                CampaignIssue(file: file.path, line: 0, column: 0, field: "", "cannot read the campaign file: it is missing or unreadable")
            ])
        }
        guard data.count <= CampaignLimits.maxCampaignFileBytes else {
            throw CampaignError([
                CampaignIssue(
                    file: file.path,
                    line: 0,
                    column: 0,
                    field: "",
                    "the campaign file is \(data.count) bytes; a campaign may be at most \(CampaignLimits.maxCampaignFileBytes) bytes — split it into several campaigns"
                )
            ])
        }
        guard let yaml = String(validating: data, as: UTF8.self) else {
            throw CampaignError([CampaignIssue(file: file.path, line: 0, column: 0, field: "", "the campaign file is not UTF-8")])
        }
        return try self.load(yaml: yaml, file: file, source: source, title: title, reusing: known, leavingOut: leavingOut)
    }

    /// Loads a campaign from YAML text; playlist paths resolve against `file`'s folder and are
    /// read from `source`.
    /// `known`: the local assets a load of the same campaign file read (a catalogue's template,
    /// ``Campaign/knownAssets``), used as they were read — the same revision and files as reading
    /// them again, without the reading.
    public static func load(
        yaml: String,
        file: URL,
        source: PlaylistSource = .files,
        title: String? = nil,
        reusing known: KnownAssets? = nil,
        leavingOut: String? = nil
    ) throws(CampaignError) -> Campaign {
        var loader = Loader(file: file, source: source)
        loader.title = title
        loader.leavingOut = leavingOut
        loader.assets.known = known
        loader.assets.feed(Array(yaml.utf8))
        let root: Node?
        do {
            root = try Yams.compose(yaml: yaml)
        } catch {
            throw CampaignError([Self.syntaxIssue(error, file: file.path)])
        }
        guard let root else {
            throw CampaignError([CampaignIssue(file: file.path, line: 0, column: 0, field: "", "the campaign file is empty")])
        }
        if let issue = Self.checkSize(root, file: file.path) { throw CampaignError([issue]) }
        let campaign = loader.campaign(root)
        let issues = loader.reader.issues + loader.assets.issues + loader.validationIssues
        guard let campaign, issues.isEmpty else {
            throw CampaignError(
                issues.isEmpty ? [CampaignIssue(file: file.path, line: 0, column: 0, field: "", "the campaign is incomplete")] : issues
            )
        }
        return campaign
    }

    /// YAML aliases share nodes, so a small file can expand to millions of them (1,000 pools each
    /// aliasing one 1,000-ad list): count the expanded tree, stopping at the bound, before walking it.
    private static func checkSize(_ root: Node, file: String) -> CampaignIssue? {
        var nodes = 0
        var adEntries = 0
        var stack: [(node: Node, depth: Int, inPools: Bool)] = [(root, 0, false)]
        while let (node, depth, inPools) = stack.popLast() {
            nodes += 1
            guard nodes <= CampaignLimits.maxNodes else {
                return CampaignIssue(
                    file: file,
                    line: node.mark?.line ?? 0,
                    column: node.mark?.column ?? 0,
                    field: "",
                    "the campaign expands to more than \(CampaignLimits.maxNodes) YAML nodes (aliases count once per use); "
                        + "write lists out or split the campaign"
                )
            }
            switch node {
            case .mapping(let mapping):
                for (key, value) in mapping {
                    // The ads of each pool: the mapping under the top-level `pools`.
                    if depth == 1, inPools, case .sequence(let ads) = value {
                        adEntries += ads.count
                        if adEntries > CampaignLimits.maxAdEntries {
                            return CampaignIssue(
                                file: file,
                                line: value.mark?.line ?? 0,
                                column: value.mark?.column ?? 0,
                                field: "pools.\(key.string ?? "")",
                                "the pools hold more than \(CampaignLimits.maxAdEntries) ad entries in all (aliases count once per use); "
                                    + "keep each ad in the pools that need it"
                            )
                        }
                    }
                    stack.append((key, depth + 1, false))
                    stack.append((value, depth + 1, depth == 0 && key.string == "pools"))
                }
            case .sequence(let sequence):
                for item in sequence { stack.append((item, depth + 1, false)) }
            default:
                continue
            }
        }
        return nil
    }

    private static func syntaxIssue(_ error: any Error, file: String) -> CampaignIssue {
        if let yamlError = error as? YamlError {
            switch yamlError {
            case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
                .composer(let context, let problem, let mark, _):
                // libyaml's context says where the construct it was reading began: for an unclosed
                // quote or bracket that is where to look, while the mark is where the file ended.
                let start = context.map { " (\($0.text) at line \($0.mark.line), column \($0.mark.column))" } ?? ""
                // libyaml names its own C setter here; say what it means for a campaign instead.
                if problem.hasPrefix("Maximum nesting level reached") {
                    return CampaignIssue(
                        file: file,
                        line: mark.line,
                        column: mark.column,
                        field: "",
                        "YAML syntax: the document nests deeper than the YAML parser allows; a campaign needs a few levels — flatten it"
                    )
                }
                return CampaignIssue(file: file, line: mark.line, column: mark.column, field: "", "YAML syntax: \(problem)\(start)")
            case .duplicatedKeysInMapping(let duplicates, let context):
                // Yams refuses a repeated key (a pool defined twice, say) before the loader sees the
                // tree, and its own description quotes the whole file: point at the key instead.
                // Yams marks the first occurrence.
                let keys = duplicates.map { "\"\($0)\"" }.joined(separator: ", ")
                return CampaignIssue(
                    file: file,
                    line: context.mark.line,
                    column: context.mark.column,
                    field: duplicates.joined(separator: ", "),
                    "\(keys) \(duplicates.count == 1 ? "appears" : "appear") twice in this mapping (first here); "
                        + "keep one — keys, pool names included, must be unique"
                )
            default:
                break
            }
        }
        return CampaignIssue(file: file, line: 0, column: 0, field: "", "YAML syntax: \(error)")
    }
}
