import AdCampaign
import Foundation
import Testing

/// The campaigns and playlists under `Fixtures/`.
enum Fixture {
    static let directory = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!

    static func url(_ path: String) -> URL { Self.directory.appendingPathComponent(path) }

    /// The path the loader reports for a playlist: resolved against the campaign's folder, standardised.
    static func path(_ path: String) -> String { Self.url(path).standardizedFileURL.path }

    static func load(_ name: String) throws(CampaignError) -> Campaign {
        try CampaignLoader.load(Self.url(name))
    }
}

/// The issues loading `yaml` reports, as if it were the file `name` in the fixtures folder (so its
/// playlist paths resolve against `Fixtures/`); empty when it loads.
func issues(_ yaml: String, as name: String = "inline.yaml") -> [CampaignIssue] {
    do {
        _ = try CampaignLoader.load(yaml: yaml, file: Fixture.url(name))
        return []
    } catch {
        return error.issues
    }
}

/// The only issue loading `yaml` reports: each validation test proves one finding, and that nothing
/// else in the campaign is blamed for it.
func onlyIssue(_ yaml: String, as name: String = "inline.yaml", sourceLocation: SourceLocation = #_sourceLocation) throws -> CampaignIssue {
    let found = issues(yaml, as: name)
    #expect(found.count == 1, "expected one issue, got:\n\(CampaignError(found))", sourceLocation: sourceLocation)
    return try #require(found.first, sourceLocation: sourceLocation)
}

/// The issue about `field`, when loading reports others as well.
func issue(at field: String, in issues: [CampaignIssue], sourceLocation: SourceLocation = #_sourceLocation) throws -> CampaignIssue {
    try #require(issues.first { $0.field == field }, "no issue at \(field) in:\n\(CampaignError(issues))", sourceLocation: sourceLocation)
}

/// The campaign file's path as issues report it.
let inlineFile = Fixture.url("inline.yaml").path

/// A valid campaign to vary: one island, one break, one pool. Tests copy it and change one thing, so
/// each test's YAML shows the line and column its assertion names.
let minimalCampaign = """
    version: 1
    id: minimal
    program:
      islands:
        - { id: act-1, playlist: media/program/act-1/master.m3u8 }
    breaks:
      - { id: mid, after: act-1, duration: 10, pools: [prime] }
    pools:
      prime:
        - { id: alpha, playlist: media/ads/alpha/master.m3u8 }
    """

/// The 1-based column (in Unicode scalars, as libyaml counts) where `needle` first appears on the
/// 1-based `line` of `yaml`; 0 when it does not, so the assertion using it fails.
func column(of needle: String, line: Int, in yaml: String) -> Int {
    let lines = yaml.split(separator: "\n", omittingEmptySubsequences: false)
    guard lines.indices.contains(line - 1), let range = lines[line - 1].range(of: needle) else { return 0 }
    return lines[line - 1][..<range.lowerBound].unicodeScalars.count + 1
}
