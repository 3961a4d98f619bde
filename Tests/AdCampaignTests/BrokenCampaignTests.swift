import AdCampaign
import Foundation
import Testing

/// A campaign a careless author (or an attacker with write access to one file) could publish,
/// and the error it must get: the field it names and what the message says. None may crash,
/// hang or load (docs/campaign-format.md "Limits"; docs/reliability.md).
struct BrokenCampaign: Sendable, CustomTestStringConvertible {
    var name: String
    /// The campaign file's text.
    var yaml: String
    /// Playlists written beside it, by path, over the defaults of ``BrokenCampaignTests/files``.
    var files: [String: String] = [:]
    /// The field of the issue expected (`breaks[0].duration`, `FRAME-RATE`, "" for the file).
    var field: String
    /// A fragment of its message.
    var message: String

    var testDescription: String { self.name }
}

/// A small valid campaign: one island, one break, one ad, each its own asset.
let brokenBase = """
    version: 1
    id: broken
    program:
      islands:
        - { id: act-1, playlist: p/master.m3u8 }
    breaks:
      - { id: mid, after: act-1, duration: 10, pools: [prime] }
    pools:
      prime:
        - { id: alpha, playlist: a/master.m3u8 }
    """

/// The base campaign with each `(old, new)` replaced, or text appended.
func edited(_ replacements: [(String, String)] = [], appending: String = "") -> String {
    var yaml = brokenBase
    for (old, new) in replacements {
        precondition(yaml.contains(old), "the base campaign has no \(old)")
        yaml = yaml.replacingOccurrences(of: old, with: new)
    }
    return appending.isEmpty ? yaml : yaml + "\n" + appending
}

/// A multivariant playlist of one H.264 variant.
func master(bandwidth: String = "800000", frameRate: String = "25.000", codecs: String = "avc1.42c01e,mp4a.40.2", extra: String = "") -> String {
    "#EXTM3U\n\(extra)#EXT-X-STREAM-INF:BANDWIDTH=\(bandwidth),CODECS=\"\(codecs)\",RESOLUTION=640x360,FRAME-RATE=\(frameRate)\nv.m3u8\n"
}

/// A VOD media playlist with these segment durations (target duration to match) and URIs.
func media(_ durations: [String] = ["4", "4"], uri: (Int) -> String = { "seg\($0).ts" }, header: String = "", endList: Bool = true) -> String {
    let target = durations.compactMap { Double($0) }.map { Int($0.rounded()) }.max() ?? 4
    var text = "#EXTM3U\n#EXT-X-VERSION:6\n#EXT-X-TARGETDURATION:\(max(1, target))\n#EXT-X-PLAYLIST-TYPE:VOD\n\(header)"
    for (index, duration) in durations.enumerated() { text += "#EXTINF:\(duration),\n\(uri(index))\n" }
    return text + (endList ? "#EXT-X-ENDLIST\n" : "")
}

/// An alias bomb: a list of ten, each level ten aliases of the one below.
let nodeBomb: String = {
    var text = "x-bomb:\n  l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n"
    for level in 1...6 { text += "  l\(level): &l\(level) [" + Array(repeating: "*l\(level - 1)", count: 10).joined(separator: ", ") + "]\n" }
    return text
}()

let adBomb: String = {
    var text = "pools:\n  prime: &ads\n" + (0..<100).map { "    - { id: ad-\($0), playlist: a/master.m3u8 }\n" }.joined()
    text += (0..<101).map { "  pool-\($0): *ads\n" }.joined()
    return text
}()

@Suite("Broken campaigns")
struct BrokenCampaignTests {
    /// The playlists every case starts from: programme `p/`, ad `a/`, slate `s/`.
    static let files: [String: String] = [
        "p/master.m3u8": master(), "p/v.m3u8": media(["4", "4", "4"]),
        "a/master.m3u8": master(), "a/v.m3u8": media(["4", "4"]),
        "s/master.m3u8": master(), "s/v.m3u8": media(["2"]),
    ]

    static let cases: [BrokenCampaign] = Self.yamlCases + Self.breakCases + Self.poolCases + Self.ruleCases + Self.startupCases + Self.playlistCases

    static let yamlCases: [BrokenCampaign] = [
        .init(
            name: "YAML syntax",
            yaml: edited([("id: broken", "id: broken: news")]),
            field: "",
            message: "YAML syntax: mapping values are not allowed"
        ),
        .init(name: "unclosed quote", yaml: edited([("id: broken", "id: \"broken")]), field: "", message: "while scanning a quoted scalar at line 2"),
        .init(name: "undefined alias", yaml: edited([("id: broken", "id: *name")]), field: "", message: "found undefined alias"),
        .init(
            name: "nesting deeper than the parser allows",
            yaml: edited(appending: "x: " + String(repeating: "[", count: 2000) + String(repeating: "]", count: 2000)),
            field: "",
            message: "nests deeper than the YAML parser allows; a campaign needs a few levels"
        ),
        .init(name: "tab indentation", yaml: "version: 1\n\tid: broken\n", field: "", message: "YAML syntax"),
        .init(
            name: "unknown top-level key",
            yaml: edited(appending: "titel: Broken"),
            field: "titel",
            message: "unknown key; expected one of version, id"
        ),
        .init(name: "unknown nested key", yaml: edited([("duration: 10", "duraton: 10")]), field: "breaks[0].duraton", message: "unknown key"),
        .init(name: "version 2", yaml: edited([("version: 1", "version: 2")]), field: "version", message: "only version 1 is supported"),
        .init(name: "no version", yaml: edited([("version: 1\n", "")]), field: "version", message: "is required (version: 1)"),
        .init(name: "version as a word", yaml: edited([("version: 1", "version: one")]), field: "version", message: "expected a whole number"),
        .init(name: "no id", yaml: edited([("id: broken\n", "")]), field: "id", message: "is required"),
        .init(name: "upper-case id", yaml: edited([("id: broken", "id: Broken")]), field: "id", message: "may contain only a-z, 0-9 and '-'"),
        .init(name: "id with a slash", yaml: edited([("id: broken", "id: a/b")]), field: "id", message: "may contain only a-z, 0-9 and '-'"),
        .init(name: "id as a list", yaml: edited([("id: broken", "id: [a, b]")]), field: "id", message: "expected a string"),
        .init(name: "empty file", yaml: "", field: "", message: "the campaign file is empty"),
        .init(name: "a list at the top", yaml: "- version: 1\n", field: "", message: "expected a mapping"),
        .init(name: "a repeated key", yaml: edited(appending: "id: again"), field: "id", message: "appears twice in this mapping"),
        .init(
            name: "no programme",
            yaml: edited([("program:\n  islands:\n    - { id: act-1, playlist: p/master.m3u8 }\n", "")]),
            field: "program",
            message: "is required"
        ),
        .init(
            name: "no islands",
            yaml: edited([("    - { id: act-1, playlist: p/master.m3u8 }\n", ""), ("  islands:", "  islands: []")]),
            field: "program.islands",
            message: "needs at least one island"
        ),
        .init(
            name: "island without id",
            yaml: edited([("{ id: act-1, playlist: p/master.m3u8 }", "{ playlist: p/master.m3u8 }")]),
            field: "program.islands[0].id",
            message: "is required"
        ),
        .init(
            name: "island without playlist",
            yaml: edited([("{ id: act-1, playlist: p/master.m3u8 }", "{ id: act-1 }")]),
            field: "program.islands[0].playlist",
            message: "is required"
        ),
        .init(
            name: "island twice",
            yaml: edited([
                (
                    "    - { id: act-1, playlist: p/master.m3u8 }",
                    "    - { id: act-1, playlist: p/master.m3u8 }\n    - { id: act-1, playlist: p/master.m3u8 }"
                )
            ]),
            field: "program.islands[1].id",
            message: "is defined twice"
        ),
        .init(
            name: "empty playlist path",
            yaml: edited([("playlist: p/master.m3u8", "playlist: \"\"")]),
            field: "program.islands[0].playlist",
            message: "is empty; write the path"
        ),
        .init(
            name: "blank playlist path",
            yaml: edited([("playlist: p/master.m3u8", "playlist: \"   \"")]),
            field: "program.islands[0].playlist",
            message: "is empty; write the path"
        ),
        .init(
            name: "NUL in a playlist path",
            yaml: edited([("playlist: p/master.m3u8", "playlist: \"p/mas\\0ter.m3u8\"")]),
            field: "program.islands[0].playlist",
            message: "contains a NUL byte"
        ),
        .init(
            name: "playlist outside the folder",
            yaml: edited([("playlist: p/master.m3u8", "playlist: ../../../../../../etc/master.m3u8")]),
            field: "program.islands[0].playlist",
            message: "outside the campaign's folder"
        ),
        .init(
            name: "/etc/passwd as a playlist",
            yaml: edited([("playlist: p/master.m3u8", "playlist: /etc/passwd")]),
            field: "program.islands[0].playlist",
            message: "outside the campaign's folder"
        ),
        .init(
            name: "/proc/self/environ as a playlist",
            yaml: edited([("playlist: p/master.m3u8", "playlist: /proc/self/environ")]),
            field: "program.islands[0].playlist",
            message: "outside the campaign's folder"
        ),
        .init(
            name: "a missing playlist",
            yaml: edited([("playlist: p/master.m3u8", "playlist: p/nothing.m3u8")]),
            field: "program.islands[0].playlist",
            message: "cannot read"
        ),
        .init(
            name: "a media playlist as the programme",
            yaml: edited([("playlist: p/master.m3u8", "playlist: p/v.m3u8")]),
            field: "program.islands[0].playlist",
            message: "is a media playlist"
        ),
        .init(
            name: "a remote programme",
            yaml: edited([("playlist: p/master.m3u8", "playlist: https://origin.example/p.m3u8")]),
            field: "program.islands[0].playlist",
            message: "remote"
        ),
        .init(
            name: "a playlist as a list",
            yaml: edited([("playlist: p/master.m3u8", "playlist: [p/master.m3u8]")]),
            field: "program.islands[0].playlist",
            message: "expected a string"
        ),
        .init(
            name: "campaign file over 1 MiB",
            yaml: edited(appending: "# " + String(repeating: "x", count: 1 << 20)),
            field: "",
            message: "a campaign may be at most 1048576 bytes"
        ),
        .init(name: "alias bomb (nodes)", yaml: edited(appending: nodeBomb), field: "", message: "expands to more than 200000 YAML nodes"),
        .init(name: "markers unknown", yaml: edited(appending: "markers: [ssai]"), field: "markers[0]", message: "is not a marker kind"),
        .init(
            name: "trusted_attributes as a mapping",
            yaml: edited(appending: "trusted_attributes: { seen: yes }"),
            field: "trusted_attributes",
            message: "expected a list"
        ),
    ]

    static let breakCases: [BrokenCampaign] = [
        .init(
            name: "break with no position",
            yaml: edited([("after: act-1, ", "")]),
            field: "breaks[0]",
            message: "needs exactly one of before: ISLAND or after: ISLAND"
        ),
        .init(
            name: "break before and after",
            yaml: edited([("after: act-1,", "after: act-1, before: act-1,")]),
            field: "breaks[0]",
            message: "needs exactly one of"
        ),
        .init(
            name: "break after a missing island",
            yaml: edited([("after: act-1", "after: act-9")]),
            field: "breaks[0].after",
            message: "names island \"act-9\", which does not exist"
        ),
        .init(
            name: "break before a missing island",
            yaml: edited([("after: act-1", "before: act-0")]),
            field: "breaks[0].before",
            message: "which does not exist"
        ),
        .init(name: "zero duration", yaml: edited([("duration: 10", "duration: 0")]), field: "breaks[0].duration", message: "must be above 0"),
        .init(name: "negative duration", yaml: edited([("duration: 10", "duration: -5")]), field: "breaks[0].duration", message: "must be above 0"),
        .init(
            name: "duration as a word",
            yaml: edited([("duration: 10", "duration: ten")]),
            field: "breaks[0].duration",
            message: "expected a decimal number"
        ),
        .init(
            name: "duration with an exponent",
            yaml: edited([("duration: 10", "duration: 1e3")]),
            field: "breaks[0].duration",
            message: "expected a decimal number"
        ),
        .init(
            name: "duration 10^19 - 1 (froze every master request)",
            yaml: edited([("duration: 10", "duration: 9999999999999999999")]),
            field: "breaks[0].duration",
            message: "longer than a break may run (3600 s)"
        ),
        .init(
            name: "duration 10^20",
            yaml: edited([("duration: 10", "duration: 100000000000000000000")]),
            field: "breaks[0].duration",
            message: "expected a decimal number"
        ),
        .init(
            name: "duration a million seconds (52 MB a session)",
            yaml: edited([("duration: 10", "duration: 1000000")]),
            field: "breaks[0].duration",
            message: "longer than a break may run"
        ),
        .init(
            name: "duration just over an hour",
            yaml: edited([("duration: 10", "duration: 3600.000001")]),
            field: "breaks[0].duration",
            message: "longer than a break may run"
        ),
        .init(name: "no duration", yaml: edited([("duration: 10, ", "")]), field: "breaks[0].duration", message: "is required"),
        .init(
            name: "no pools",
            yaml: edited([(", pools: [prime] }", " }")]),
            field: "breaks[0].pools",
            message: "is required: the pools that fill this break"
        ),
        .init(
            name: "a missing pool",
            yaml: edited([("pools: [prime] }", "pools: [prime, gold] }")]),
            field: "breaks[0].pools",
            message: "names pool \"gold\", which does not exist"
        ),
        .init(
            name: "restrict unknown",
            yaml: edited([("pools: [prime] }", "pools: [prime], restrict: [seek] }")]),
            field: "breaks[0].restrict",
            message: "\"seek\" is not a policy"
        ),
        .init(
            name: "skip after the break's end",
            yaml: edited([("pools: [prime] }", "pools: [prime], skip: { after: 10 } }")]),
            field: "breaks[0].skip.after",
            message: "must be from 0 to less than the break's duration (10 s)"
        ),
        .init(
            name: "skip without after",
            yaml: edited([("pools: [prime] }", "pools: [prime], skip: { for: 3 } }")]),
            field: "breaks[0].skip.after",
            message: "required"
        ),
        .init(
            name: "skip shown for no time",
            yaml: edited([("pools: [prime] }", "pools: [prime], skip: { after: 5, for: 0 } }")]),
            field: "breaks[0].skip.for",
            message: "must be above 0"
        ),
        .init(
            name: "skip with a label that is no id",
            yaml: edited([("pools: [prime] }", "pools: [prime], skip: { after: 5, label: 'skip \"now\"' } }")]),
            field: "breaks[0].skip.label",
            message: "is not a valid id"
        ),
        .init(
            name: "skip beside restrict skip",
            yaml: edited([("pools: [prime] }", "pools: [prime], restrict: [skip], skip: { after: 5 } }")]),
            field: "breaks[0].skip",
            message: "a break that restricts skip cannot offer a skip control"
        ),
        .init(
            name: "skip with an unknown key",
            yaml: edited([("pools: [prime] }", "pools: [prime], skip: { after: 5, until: 8 } }")]),
            field: "breaks[0].skip.until",
            message: "unknown key; expected one of after, for, label"
        ),
        .init(
            name: "break twice",
            yaml: edited([
                (
                    "  - { id: mid, after: act-1, duration: 10, pools: [prime] }",
                    "  - { id: mid, after: act-1, duration: 10, pools: [prime] }\n  - { id: mid, after: act-1, duration: 10, pools: [prime] }"
                )
            ]),
            field: "breaks[1].id",
            message: "is defined twice"
        ),
        .init(name: "break without id", yaml: edited([("{ id: mid, ", "{ ")]), field: "breaks[0].id", message: "is required"),
        .init(
            name: "breaks as a mapping",
            yaml: edited([("breaks:\n  - { id: mid, after: act-1, duration: 10, pools: [prime] }", "breaks: { mid: 10 }")]),
            field: "breaks",
            message: "expected a list"
        ),
        .init(
            name: "breaks adding up to more than a day",
            yaml: edited([
                (
                    "  - { id: mid, after: act-1, duration: 10, pools: [prime] }",
                    (0..<25).map { "  - { id: b\($0), after: act-1, duration: 3600, pools: [prime] }" }.joined(separator: "\n")
                )
            ]),
            field: "breaks",
            message: "a campaign's breaks may run at most 86400 s in all"
        ),
    ]

    static let poolCases: [BrokenCampaign] = [
        .init(
            name: "pools as a list",
            yaml: edited([("pools:\n  prime:\n    - { id: alpha, playlist: a/master.m3u8 }", "pools: [prime]")]),
            field: "pools",
            message: "expected a mapping of pool names"
        ),
        .init(
            name: "ad id with a quote (broke the DATERANGE line)",
            yaml: edited([("{ id: alpha,", "{ id: 'al\"pha',")]),
            field: "pools.prime[0].id",
            message: "is not a valid id: use 1 to 64 letters, digits"
        ),
        .init(
            name: "ad id with a comma (ambiguous in seen=)",
            yaml: edited([("{ id: alpha,", "{ id: 'alpha,beta',")]),
            field: "pools.prime[0].id",
            message: "is not a valid id"
        ),
        .init(
            name: "ad id of 65 characters",
            yaml: edited([("{ id: alpha,", "{ id: \(String(repeating: "a", count: 65)),")]),
            field: "pools.prime[0].id",
            message: "is not a valid id"
        ),
        .init(
            name: "pool name with a space",
            yaml: edited([("  prime:\n", "  'prime time':\n"), ("pools: [prime] }", "pools: ['prime time'] }")]),
            field: "pools",
            message: "\"prime time\" is not a valid id"
        ),
        .init(name: "break id with a slash", yaml: edited([("{ id: mid,", "{ id: mid/1,")]), field: "breaks[0].id", message: "is not a valid id"),
        .init(
            name: "island id starting with a dash",
            yaml: edited([("{ id: act-1, playlist", "{ id: '-act', playlist"), ("after: act-1", "after: '-act'")]),
            field: "program.islands[0].id",
            message: "is not a valid id"
        ),
        .init(name: "ad without id", yaml: edited([("{ id: alpha, playlist", "{ playlist")]), field: "pools.prime[0].id", message: "is required"),
        .init(
            name: "ad without playlist",
            yaml: edited([("{ id: alpha, playlist: a/master.m3u8 }", "{ id: alpha }")]),
            field: "pools.prime[0].playlist",
            message: "is required"
        ),
        .init(
            name: "ad twice in a pool",
            yaml: edited([
                (
                    "    - { id: alpha, playlist: a/master.m3u8 }",
                    "    - { id: alpha, playlist: a/master.m3u8 }\n    - { id: alpha, playlist: a/master.m3u8 }"
                )
            ]),
            field: "pools.prime[1].id",
            message: "appears twice in pool \"prime\""
        ),
        .init(
            name: "one ad id, two playlists",
            yaml: edited([
                (
                    "    - { id: alpha, playlist: a/master.m3u8 }",
                    "    - { id: alpha, playlist: a/master.m3u8 }\n  house:\n    - { id: alpha, playlist: s/master.m3u8 }"
                )
            ]),
            field: "pools.house[0].id",
            message: "is already used for a/master.m3u8"
        ),
        .init(
            name: "weight 0",
            yaml: edited([("a/master.m3u8 }", "a/master.m3u8, weight: 0 }")]),
            field: "pools.prime[0].weight",
            message: "must be above 0 and at most 1000000"
        ),
        .init(
            name: "negative weight",
            yaml: edited([("a/master.m3u8 }", "a/master.m3u8, weight: -1 }")]),
            field: "pools.prime[0].weight",
            message: "must be above 0 and at most 1000000"
        ),
        .init(
            name: "weight 1e308 (its boosts overflow)",
            yaml: edited([("a/master.m3u8 }", "a/master.m3u8, weight: 1e308 }")]),
            field: "pools.prime[0].weight",
            message: "must be above 0 and at most 1000000"
        ),
        .init(
            name: "weight just over a million",
            yaml: edited([("a/master.m3u8 }", "a/master.m3u8, weight: 1000001 }")]),
            field: "pools.prime[0].weight",
            message: "at most 1000000"
        ),
        .init(
            name: "weight as a word",
            yaml: edited([("a/master.m3u8 }", "a/master.m3u8, weight: heavy }")]),
            field: "pools.prime[0].weight",
            message: "expected a number"
        ),
        .init(
            name: "infinite weight",
            yaml: edited([("a/master.m3u8 }", "a/master.m3u8, weight: .inf }")]),
            field: "pools.prime[0].weight",
            message: "expected a number"
        ),
        .init(
            name: "NaN weight",
            yaml: edited([("a/master.m3u8 }", "a/master.m3u8, weight: .nan }")]),
            field: "pools.prime[0].weight",
            message: "expected a number"
        ),
        .init(
            name: "tracking as a list",
            yaml: edited([("a/master.m3u8 }", "a/master.m3u8, tracking: [x] }")]),
            field: "pools.prime[0].tracking",
            message: "expected a mapping of events to URL lists"
        ),
        .init(
            name: "unknown ad key",
            yaml: edited([("a/master.m3u8 }", "a/master.m3u8, wieght: 2 }")]),
            field: "pools.prime[0].wieght",
            message: "unknown key"
        ),
        .init(
            name: "ad outside the folder",
            yaml: edited([("playlist: a/master.m3u8", "playlist: /etc/hostname")]),
            field: "pools.prime[0].playlist",
            message: "outside the campaign's folder"
        ),
        .init(
            name: "a missing ad",
            yaml: edited([("playlist: a/master.m3u8", "playlist: a/none.m3u8")]),
            field: "pools.prime[0].playlist",
            message: "cannot read"
        ),
        .init(
            name: "an ad longer than every break",
            yaml: edited([("duration: 10", "duration: 5")]),
            field: "pools.prime[0]",
            message: "could never play"
        ),
        .init(
            name: "alias bomb (ads)",
            yaml: edited([("pools:\n  prime:\n    - { id: alpha, playlist: a/master.m3u8 }", adBomb)]),
            field: "pools.pool-99",
            message: "more than 10000 ad entries"
        ),
        .init(name: "slate as a list", yaml: edited(appending: "slate: [s/master.m3u8]"), field: "slate", message: "expected a mapping"),
        .init(name: "slate without playlist", yaml: edited(appending: "slate: { }"), field: "slate.playlist", message: "is required"),
        .init(
            name: "slate unknown key",
            yaml: edited(appending: "slate: { playlist: s/master.m3u8, loop: true }"),
            field: "slate.loop",
            message: "unknown key"
        ),
        .init(
            name: "slate longer than every break",
            yaml: edited(appending: "slate: { playlist: s/master.m3u8 }"),
            files: ["s/v.m3u8": media(["11"])],
            field: "slate.playlist",
            message: "longer than every break"
        ),
        .init(
            name: "slate that repeats 10,000 times",
            yaml: edited([("duration: 10", "duration: 3600")], appending: "slate: { playlist: s/master.m3u8 }"),
            files: ["s/v.m3u8": media(["0.001"]), "s/master.m3u8": master(frameRate: "1000")],
            field: "slate.playlist",
            message: "would repeat it more than 3600 times"
        ),
        .init(
            name: "slate outside the folder",
            yaml: edited(appending: "slate: { playlist: ../slate/master.m3u8 }"),
            field: "slate.playlist",
            message: "outside the campaign's folder"
        ),
        .init(
            name: "a fragmented-MP4 ad in a TS programme",
            yaml: edited(),
            files: ["a/v.m3u8": media(["4", "4"], uri: { "seg\($0).m4s" }, header: "#EXT-X-MAP:URI=\"init.mp4\"\n")],
            field: "pools.prime[0].playlist",
            message: "one playlist cannot switch containers"
        ),
        .init(
            name: "an HEVC-only ad for an H.264 programme",
            yaml: edited(),
            files: ["a/master.m3u8": master(codecs: "hvc1.1.6.L93.B0,mp4a.40.2")],
            field: "pools.prime[0].playlist",
            message: "has no avc variant"
        ),
    ]

    static let ruleCases: [BrokenCampaign] = {
        func rule(_ text: String) -> String { edited(appending: "rules:\n  - " + text) }
        return [
            .init(
                name: "rule without then",
                yaml: rule("{ name: r, when: { seen: a } }"),
                field: "rules[0].then",
                message: "is required: what the rule does"
            ),
            .init(
                name: "rule unknown key",
                yaml: rule("{ name: r, if: {}, then: { exclude_seen: true } }"),
                field: "rules[0].if",
                message: "unknown key"
            ),
            .init(
                name: "attributes as a list",
                yaml: rule("{ name: r, when: { attributes: [locale] }, then: { exclude_seen: true } }"),
                field: "rules[0].when.attributes",
                message: "expected a mapping of attribute names"
            ),
            .init(
                name: "invalid pattern",
                yaml: rule("{ name: r, when: { attributes: { locale: '(' } }, then: { exclude_seen: true } }"),
                field: "rules[0].when.attributes.locale",
                message: "missing closing parenthesis"
            ),
            .init(
                name: "catastrophic pattern (a+)+$",
                yaml: rule("{ name: r, when: { attributes: { locale: '(a+)+$' } }, then: { exclude_seen: true } }"),
                field: "rules[0].when.attributes.locale",
                message: "backtracks past PCRE2's match limits"
            ),
            .init(
                name: "catastrophic pattern ^(\\d+)*$",
                yaml: rule("{ name: r, when: { attributes: { device: '^(\\d+)*$' } }, then: { exclude_seen: true } }"),
                field: "rules[0].when.attributes.device",
                message: "backtracks past PCRE2's match limits"
            ),
            .init(
                name: "catastrophic pattern (x+x+)+y",
                yaml: rule("{ name: r, when: { seen: '(x+x+)+y' }, then: { exclude_seen: true } }"),
                field: "rules[0].when.seen",
                message: "backtracks past PCRE2's match limits"
            ),
            .init(
                name: "catastrophic exclude pattern",
                yaml: rule("{ name: r, then: { exclude: ['^(a|a)+$'] } }"),
                field: "rules[0].then.exclude[0]",
                message: "backtracks past PCRE2's match limits"
            ),
            .init(
                name: "time 25:00",
                yaml: rule("{ name: r, when: { time: { from: '25:00', to: '26:00' } }, then: { exclude_seen: true } }"),
                field: "rules[0].when.time.from",
                message: "expected a time of day as HH:MM"
            ),
            .init(
                name: "time 18:60",
                yaml: rule("{ name: r, when: { time: { from: '18:60', to: '20:00' } }, then: { exclude_seen: true } }"),
                field: "rules[0].when.time.from",
                message: "expected a time of day as HH:MM"
            ),
            .init(
                name: "time without from",
                yaml: rule("{ name: r, when: { time: { to: '20:00' } }, then: { exclude_seen: true } }"),
                field: "rules[0].when.time.from",
                message: "is required"
            ),
            .init(
                name: "unknown zone",
                yaml: rule("{ name: r, when: { time: { from: '18:00', to: '20:00', zone: Mars/Olympus } }, then: { exclude_seen: true } }"),
                field: "rules[0].when.time.zone",
                message: "is not an IANA time zone"
            ),
            .init(
                name: "unknown day",
                yaml: rule("{ name: r, when: { days: [funday] }, then: { exclude_seen: true } }"),
                field: "rules[0].when.days",
                message: "\"funday\" is not a day"
            ),
            .init(
                name: "31 November",
                yaml: rule("{ name: r, when: { flight: { from: 2026-11-31 } }, then: { exclude_seen: true } }"),
                field: "rules[0].when.flight.from",
                message: "of a real day in the years 1970–9999"
            ),
            .init(
                name: "29 February 2027",
                yaml: rule("{ name: r, when: { flight: { until: 2027-02-29 } }, then: { exclude_seen: true } }"),
                field: "rules[0].when.flight.until",
                message: "of a real day"
            ),
            .init(
                name: "month 13",
                yaml: rule("{ name: r, when: { flight: { from: 2026-13-01 } }, then: { exclude_seen: true } }"),
                field: "rules[0].when.flight.from",
                message: "of a real day"
            ),
            .init(
                name: "year 1969",
                yaml: rule("{ name: r, when: { flight: { from: 1969-12-31 } }, then: { exclude_seen: true } }"),
                field: "rules[0].when.flight.from",
                message: "in the years 1970–9999"
            ),
            .init(
                name: "year 99999",
                yaml: rule("{ name: r, when: { flight: { from: 99999-01-01 } }, then: { exclude_seen: true } }"),
                field: "rules[0].when.flight.from",
                message: "of a real day"
            ),
            .init(
                name: "year Int64.max",
                yaml: rule("{ name: r, when: { flight: { from: '9223372036854775807-01-01' } }, then: { exclude_seen: true } }"),
                field: "rules[0].when.flight.from",
                message: "of a real day"
            ),
            .init(
                name: "flight date-time 24:30",
                yaml: rule("{ name: r, when: { flight: { from: '2026-11-30T24:30:00Z' } }, then: { exclude_seen: true } }"),
                field: "rules[0].when.flight.from",
                message: "of a real day"
            ),
            .init(
                name: "flight as a word",
                yaml: rule("{ name: r, when: { flight: { from: tomorrow } }, then: { exclude_seen: true } }"),
                field: "rules[0].when.flight.from",
                message: "is not a date"
            ),
            .init(
                name: "flight until before from",
                yaml: rule("{ name: r, when: { flight: { from: 2026-12-02, until: 2026-12-01 } }, then: { exclude_seen: true } }"),
                field: "rules[0].when.flight.until",
                message: "must be after from"
            ),
            .init(
                name: "flight without dates",
                yaml: rule("{ name: r, when: { flight: { zone: UTC } }, then: { exclude_seen: true } }"),
                field: "rules[0].when.flight",
                message: "needs from and/or until"
            ),
            .init(
                name: "exclude invalid pattern",
                yaml: rule("{ name: r, then: { exclude: ['[a-'] } }"),
                field: "rules[0].then.exclude[0]",
                message: "missing terminating ]"
            ),
            .init(
                name: "exclude_seen as a word",
                yaml: rule("{ name: r, then: { exclude_seen: sometimes } }"),
                field: "rules[0].then.exclude_seen",
                message: "expected true or false"
            ),
            .init(
                name: "boost as a list",
                yaml: rule("{ name: r, then: { boost: [alpha] } }"),
                field: "rules[0].then.boost",
                message: "expected a mapping of ad ids to weight multipliers"
            ),
            .init(
                name: "negative boost",
                yaml: rule("{ name: r, then: { boost: { alpha: -2 } } }"),
                field: "rules[0].then.boost.alpha",
                message: "a weight multiplier must be from 0 to 1000000"
            ),
            .init(
                name: "boost of ten million",
                yaml: rule("{ name: r, then: { boost: { alpha: 10000000 } } }"),
                field: "rules[0].then.boost.alpha",
                message: "a weight multiplier must be from 0 to 1000000"
            ),
            .init(
                name: "infinite boost",
                yaml: rule("{ name: r, then: { boost: { alpha: .inf } } }"),
                field: "rules[0].then.boost.alpha",
                message: "expected a number"
            ),
            .init(
                name: "boost of an ad in no pool",
                yaml: rule("{ name: r, then: { boost: { zulu: 2 } } }"),
                field: "rules[0].then.boost.zulu",
                message: "names ad \"zulu\", which is in no pool"
            ),
            .init(
                name: "pools override of a missing break",
                yaml: rule("{ name: r, then: { pools: { late: [prime] } } }"),
                field: "rules[0].then.pools.late",
                message: "names break \"late\", which does not exist"
            ),
            .init(
                name: "pools override naming a missing pool",
                yaml: rule("{ name: r, then: { pools: { mid: [gold] } } }"),
                field: "rules[0].then.pools.mid",
                message: "names pool \"gold\", which does not exist"
            ),
            .init(
                name: "pools override as a list",
                yaml: rule("{ name: r, then: { pools: [prime] } }"),
                field: "rules[0].then.pools",
                message: "expected a mapping of break ids to pool lists"
            ),
            .init(
                name: "seen invalid pattern",
                yaml: rule("{ name: r, when: { seen: '*' }, then: { exclude_seen: true } }"),
                field: "rules[0].when.seen",
                message: "quantifier does not follow a repeatable item"
            ),
            .init(name: "rules as a mapping", yaml: edited(appending: "rules: { r: x }"), field: "rules", message: "expected a list"),
        ]
    }()

    static let startupCases: [BrokenCampaign] = {
        func startup(_ text: String) -> String { edited(appending: "startup:\n  - " + text) }
        return [
            .init(
                name: "startup without pick",
                yaml: startup("{ when: { seen: a } }"),
                field: "startup[0].pick",
                message: "is required, e.g. pick: { lowest: true }"
            ),
            .init(name: "pick unknown key", yaml: startup("{ pick: { fastest: true } }"), field: "startup[0].pick.fastest", message: "unknown key"),
            .init(
                name: "max_bandwidth 0",
                yaml: startup("{ pick: { max_bandwidth: 0 } }"),
                field: "startup[0].pick.max_bandwidth",
                message: "must be bits/s from 1 to 9007199254740991"
            ),
            .init(
                name: "max_bandwidth Int64.max",
                yaml: startup("{ pick: { max_bandwidth: 9223372036854775807 } }"),
                field: "startup[0].pick.max_bandwidth",
                message: "must be bits/s from 1"
            ),
            .init(
                name: "max_bandwidth past Int64",
                yaml: startup("{ pick: { max_bandwidth: 99999999999999999999 } }"),
                field: "startup[0].pick.max_bandwidth",
                message: "expected a whole number"
            ),
            .init(
                name: "max_resolution as a word",
                yaml: startup("{ pick: { max_resolution: big } }"),
                field: "startup[0].pick.max_resolution",
                message: "expected WIDTHxHEIGHT"
            ),
            .init(
                name: "bandwidth_hint 0",
                yaml: startup("{ pick: { bandwidth_hint: 0 } }"),
                field: "startup[0].pick.bandwidth_hint",
                message: "between 0 and 1"
            ),
            .init(
                name: "bandwidth_hint 1.5",
                yaml: startup("{ pick: { bandwidth_hint: 1.5 } }"),
                field: "startup[0].pick.bandwidth_hint",
                message: "between 0 and 1"
            ),
            .init(
                name: "bandwidth_hint as a word",
                yaml: startup("{ pick: { bandwidth_hint: fast } }"),
                field: "startup[0].pick.bandwidth_hint",
                message: "expected a number"
            ),
            .init(
                name: "lowest as a word",
                yaml: startup("{ pick: { lowest: maybe } }"),
                field: "startup[0].pick.lowest",
                message: "expected true or false"
            ),
            .init(name: "startup as a mapping", yaml: edited(appending: "startup: { lowest: true }"), field: "startup", message: "expected a list"),
        ]
    }()

    static let playlistCases: [BrokenCampaign] = [
        .init(
            name: "FRAME-RATE=0.0000000000001 (trapped validate)",
            yaml: edited(),
            files: ["p/master.m3u8": master(frameRate: "0.0000000000001")],
            field: "FRAME-RATE",
            message: "out of range; frames per second from 0.001 to 1000"
        ),
        .init(name: "FRAME-RATE=0", yaml: edited(), files: ["p/master.m3u8": master(frameRate: "0")], field: "FRAME-RATE", message: "out of range"),
        .init(
            name: "FRAME-RATE=1000.5",
            yaml: edited(),
            files: ["a/master.m3u8": master(frameRate: "1000.5")],
            field: "FRAME-RATE",
            message: "out of range"
        ),
        .init(
            name: "BANDWIDTH=2^53",
            yaml: edited(),
            files: ["p/master.m3u8": master(bandwidth: "9007199254740992")],
            field: "BANDWIDTH",
            message: "out of range; bits per second from 0 to 9007199254740991"
        ),
        .init(
            name: "BANDWIDTH past Int64",
            yaml: edited(),
            files: ["a/master.m3u8": master(bandwidth: "99999999999999999999")],
            field: "invalid-attribute-value",
            message: "BANDWIDTH must be a decimal-integer"
        ),
        .init(
            name: "AVERAGE-BANDWIDTH=2^60",
            yaml: edited(),
            files: ["p/master.m3u8": master(bandwidth: "800000,AVERAGE-BANDWIDTH=1152921504606846976")],
            field: "AVERAGE-BANDWIDTH",
            message: "out of range"
        ),
        .init(
            name: "a huge EXTINF (trapped the first media request)",
            yaml: edited(),
            files: ["p/v.m3u8": media(["999999999"])],
            field: "EXTINF",
            message: "an asset may run at most 604800 s"
        ),
        .init(
            name: "an asset of more than a week",
            yaml: edited(),
            files: ["p/v.m3u8": media(["250000", "250000", "250000"])],
            field: "EXTINF",
            message: "the playlist runs 750000 s"
        ),
        .init(
            name: "an ad of more than a week",
            yaml: edited(),
            files: ["a/v.m3u8": media(["700000"])],
            field: "EXTINF",
            message: "at most 604800 s"
        ),
        .init(
            name: "islands of more than a week together",
            yaml: edited([
                (
                    "    - { id: act-1, playlist: p/master.m3u8 }",
                    "    - { id: act-1, playlist: p/master.m3u8 }\n    - { id: act-2, playlist: q/master.m3u8 }"
                )
            ]),
            files: ["p/v.m3u8": media(["300000", "100000"]), "q/master.m3u8": master(), "q/v.m3u8": media(["300000", "100000"])],
            field: "program.islands",
            message: "a programme may run at most 604800 s"
        ),
        .init(
            name: "a segment at file:///etc/passwd",
            yaml: edited(),
            files: ["p/v.m3u8": media(["4"], uri: { _ in "file:///etc/passwd" })],
            field: "uri",
            message: "outside the campaign's folder"
        ),
        .init(
            name: "a segment up and out of the folder",
            yaml: edited(),
            files: ["a/v.m3u8": media(["4"], uri: { _ in "../../../../../../../etc/passwd" })],
            field: "uri",
            message: "outside the campaign's folder"
        ),
        .init(
            name: "a key outside the folder",
            yaml: edited(),
            files: ["p/v.m3u8": media(["4"], header: "#EXT-X-KEY:METHOD=AES-128,URI=\"file:///etc/shadow\"\n")],
            field: "uri",
            message: "outside the campaign's folder"
        ),
        .init(
            name: "an init section outside the folder",
            yaml: edited(),
            files: [
                "p/v.m3u8": media(["4"], uri: { "s\($0).m4s" }, header: "#EXT-X-MAP:URI=\"/proc/self/environ\"\n"),
                "a/v.m3u8": media(["4"], uri: { "s\($0).m4s" }, header: "#EXT-X-MAP:URI=\"init.mp4\"\n"),
            ],
            field: "uri",
            message: "outside the campaign's folder"
        ),
        .init(
            name: "a variant playlist outside the folder",
            yaml: edited(),
            files: ["p/master.m3u8": master().replacingOccurrences(of: "v.m3u8", with: "../../../../../tmp/v.m3u8")],
            field: "uri",
            message: "outside the campaign's folder"
        ),
        .init(
            name: "a live (unended) media playlist",
            yaml: edited(),
            files: ["p/v.m3u8": media(["4"], endList: false)],
            field: "vod",
            message: "no EXT-X-ENDLIST"
        ),
        .init(
            name: "a multivariant playlist without variants",
            yaml: edited(),
            files: ["a/master.m3u8": "#EXTM3U\n#EXT-X-INDEPENDENT-SEGMENTS\n"],
            field: "target-duration",
            message: "has no EXT-X-TARGETDURATION"
        ),
        .init(
            name: "EXTINF above the target duration",
            yaml: edited(),
            files: ["p/v.m3u8": media(["4"]).replacingOccurrences(of: "#EXTINF:4,", with: "#EXTINF:9,")],
            field: "target-duration",
            message: "EXT-X-TARGETDURATION"
        ),
        .init(
            name: "a variable that is never defined",
            yaml: edited(),
            files: ["p/v.m3u8": media(["4"], uri: { _ in "{$base}/seg.ts" })],
            field: "variables",
            message: "variable \"base\" is used but not defined"
        ),
    ]

    @Test("the table holds at least 120 broken campaigns")
    func tableSize() {
        #expect(Self.cases.count >= 120)
        #expect(Set(Self.cases.map(\.name)).count == Self.cases.count, "every case has its own name")
    }

    @Test("each broken campaign gets its error — field and message — and does not load", arguments: Self.cases)
    func refused(_ broken: BrokenCampaign) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("broken-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: folder) }
        for (path, text) in Self.files.merging(broken.files, uniquingKeysWith: { $1 }) {
            let url = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        let file = folder.appendingPathComponent("campaign.yaml")
        try Data(broken.yaml.utf8).write(to: file)
        let issues: [CampaignIssue]
        do {
            _ = try CampaignLoader.load(file)
            Issue.record("\(broken.name): loaded")
            return
        } catch {
            issues = error.issues
        }
        let match = issues.first { $0.field == broken.field && $0.message.contains(broken.message) }
        #expect(match != nil, "\(broken.name): no issue at \"\(broken.field)\" saying \"\(broken.message)\" in:\n\(CampaignError(issues))")
        // Every issue says where: the campaign file or the playlist it is about.
        for issue in issues { #expect(issue.file.hasPrefix(folder.path) || issue.file.hasPrefix("/private" + folder.path), "\(issue)") }
    }

    @Test("the base campaign of the table loads, so each case fails for its own reason")
    func baseLoads() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("broken-base-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: folder) }
        for (path, text) in Self.files {
            let url = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        try Data(edited(appending: "slate: { playlist: s/master.m3u8 }").utf8).write(to: folder.appendingPathComponent("campaign.yaml"))
        let campaign = try CampaignLoader.load(folder.appendingPathComponent("campaign.yaml"))
        #expect(campaign.ads.map(\.id) == ["alpha"])
        #expect(campaign.files.media.count == 6)
    }
}
