import AdCampaign
import Foundation
import Testing

/// A campaign with one thing wrong, and the one issue loading it must report: the line, the column
/// (libyaml's marks, 1-based), the field path, and a message that says what to do about it.
struct InvalidCampaign: Sendable, CustomTestStringConvertible {
    /// What the issue's message must be, or begin with, end with or contain.
    enum Message: Sendable, CustomStringConvertible {
        case exact(String)
        case prefix(String)
        case suffix(String)
        case contains(String)

        var description: String {
            switch self {
            case .exact(let text): "is \"\(text)\""
            case .prefix(let text): "begins \"\(text)\""
            case .suffix(let text): "ends \"\(text)\""
            case .contains(let text): "contains \"\(text)\""
            }
        }
    }

    var name: String
    /// The campaign file's text, loaded as `inline.yaml` in the fixtures folder.
    var yaml: String
    /// The issue's line in `yaml`.
    var line: Int
    /// The text the issue's column points at: its first appearance on `line` gives the column. Nil
    /// where the case does not check the column.
    var column: String?
    /// The issue's field path ("" for the file as a whole).
    var field: String
    /// Every way the message must match; at least one.
    var message: [Message]

    var testDescription: String { self.name }

    init(_ name: String, yaml: String, line: Int, column: String?, field: String, message: Message...) {
        self.name = name
        self.yaml = yaml
        self.line = line
        self.column = column
        self.field = field
        self.message = message
    }
}

/// `minimalCampaign` with each `(old, new)` replaced (every occurrence of `old`, which must be there),
/// then `appending` on lines of its own.
private func minimal(_ replacements: [(String, String)] = [], appending: String = "") -> String {
    var yaml = minimalCampaign
    for (old, new) in replacements {
        precondition(yaml.contains(old), "the minimal campaign has no \(old)")
        yaml = yaml.replacingOccurrences(of: old, with: new)
    }
    return appending.isEmpty ? yaml : yaml + "\n" + appending
}

/// One finding per campaign: each names the file, line and column (libyaml's marks, 1-based), the
/// field path, and checks that the message says what to do about it.
@Suite("Campaign validation")
struct CampaignValidationTests {
    static let cases: [InvalidCampaign] =
        Self.structureCases + Self.idCases + Self.breakCases + Self.adCases + Self.ruleCases + Self.playlistCases + Self.capCases
        + Self.qualityCases

    // MARK: - Viewing quality

    static let qualityCases: [InvalidCampaign] = [
        .init(
            "a retention in an unknown unit",
            yaml: minimal(appending: "qoe: { retention: 2y }"),
            line: 11,
            column: "2y",
            field: "qoe.retention",
            message: .exact("\"2y\" is not a duration from 1h to 90d; write it as 7d, 48h or 3600s")
        ),
        .init(
            "a retention shorter than an hour",
            yaml: minimal(appending: "qoe: { retention: 10m }"),
            line: 11,
            column: "10m",
            field: "qoe.retention",
            message: .prefix("\"10m\" is not a duration from 1h to 90d")
        ),
        .init(
            "an unknown qoe field",
            yaml: minimal(appending: "qoe: { keep: 7d }"),
            line: 11,
            column: nil,
            field: "qoe.keep",
            message: .exact("unknown key; expected one of retention")
        ),
    ]

    // MARK: - Frequency caps

    static let capCases: [InvalidCampaign] = [
        .init(
            "a frequency cap without its window",
            yaml: minimal(appending: "frequency_caps: [ { ads: '^alpha$', max: 3 } ]"),
            line: 11,
            column: "{ ads",
            field: "frequency_caps[0].per",
            message: .prefix("is required: a cap is { ads: PATTERN, max: N, per: 24h }")
        ),
        .init(
            "a window in an unknown unit",
            yaml: minimal(appending: "frequency_caps: [ { ads: '^alpha$', max: 3, per: 24x } ]"),
            line: 11,
            column: "24x",
            field: "frequency_caps[0].per",
            message: .prefix("\"24x\" is not a window: give seconds or a number with s, m, h or d")
        ),
        .init(
            "a window longer than 400 days",
            yaml: minimal(appending: "frequency_caps: [ { ads: '^alpha$', max: 3, per: 401d } ]"),
            line: 11,
            column: "401d",
            field: "frequency_caps[0].per",
            message: .suffix("from 1 s to 400 d")
        ),
        .init(
            "no impression allowed",
            yaml: minimal(appending: "frequency_caps: [ { ads: '^alpha$', max: 0, per: 1h } ]"),
            line: 11,
            column: "0, per",
            field: "frequency_caps[0].max",
            message: .exact("0 impressions: give 1 to 10000")
        ),
        .init(
            "more caps than a token can carry",
            yaml: minimal(appending: "frequency_caps:\n" + String(repeating: "  - { ads: '^alpha$', max: 2, per: 1h }\n", count: 65)),
            line: 76,
            column: nil,
            field: "frequency_caps[64]",
            message: .prefix("a campaign holds at most 64 frequency caps")
        ),
        .init(
            "a cap's pattern that does not compile",
            yaml: minimal(appending: "frequency_caps:\n  - { ads: '(alpha', max: 2, per: 1h }"),
            line: 12,
            column: nil,
            field: "frequency_caps[0].ads",
            message: .contains("parenthesis")
        ),
        .init(
            "a verification with two scripts",
            yaml: minimal(
                [
                    (
                        "{ id: alpha, playlist: media/ads/alpha/master.m3u8 }",
                        "{ id: alpha, playlist: media/ads/alpha/master.m3u8, verifications: [ { javascript: 'https://v.example/a.js', executable: 'https://v.example/b' } ] }"
                    )
                ]
            ),
            line: 10,
            column: "{ javascript",
            field: "pools.prime[0].verifications[0]",
            message: .exact("give the script as javascript: URL or as executable: URL (one of them)")
        ),
        .init(
            "a verification script that is not an http(s) URL",
            yaml: minimal(
                [
                    (
                        "{ id: alpha, playlist: media/ads/alpha/master.m3u8 }",
                        "{ id: alpha, playlist: media/ads/alpha/master.m3u8, verifications: [ { vendor: v, javascript: 'file:///etc/v.js' } ] }"
                    )
                ]
            ),
            line: 10,
            column: "'file:",
            field: "pools.prime[0].verifications[0].javascript",
            message: .prefix("\"file:///etc/v.js\" is not an http(s) URL")
        ),
        .init(
            "an unknown key in a cap",
            yaml: minimal(appending: "frequency_caps: [ { ads: '^alpha$', max: 2, per: 1h, per_viewer: true } ]"),
            line: 11,
            column: "per_viewer",
            field: "frequency_caps[0].per_viewer",
            message: .prefix("unknown key; expected one of ads, max, per")
        ),
    ]

    @Test("an ad server's creatives added in a pool of their own keep what the load set: caps, reporting, retention")
    func addingKeepsTheLoadsSettings() throws {
        let campaign = try CampaignLoader.load(
            yaml: minimal(appending: "frequency_caps: [ { ads: '^alpha$', max: 3, per: 24h } ]\nreporting: client\nqoe: { retention: 48h }"),
            file: Fixture.url("inline.yaml")
        )
        let added = campaign.adding(campaign.ads, inPool: "ad-server")
        #expect(added.pools.map(\.id) == campaign.pools.map(\.id) + ["ad-server"])
        #expect(added.frequencyCaps.map(\.per) == [86_400] && added.reporting == .client && added.quality.retention == 172_800)
    }

    @Test("qoe.retention loads in s, m, h or d, 1 h to 90 d; without it reports are kept a week")
    func qualityLoads() throws {
        let load = { (yaml: String) in try CampaignLoader.load(yaml: yaml, file: Fixture.url("inline.yaml")) }
        #expect(try load(minimal(appending: "qoe: { retention: 48h }")).quality.retention == 172_800)
        #expect(try load(minimal(appending: "qoe: { retention: 90d }")).quality.retention == 7_776_000)
        #expect(try load(minimal(appending: "qoe: { retention: 3600 }")).quality.retention == 3_600)
        #expect(try load(minimalCampaign).quality.retention == 604_800)
    }

    @Test("frequency caps load: windows in s, m, h, d or plain seconds; a campaign with caps trusts only a signed viewer")
    func capsLoad() throws {
        let yaml = minimal(
            appending:
                "frequency_caps:\n  - { ads: '^alpha$', max: 3, per: 24h }\n  - { ads: '.', max: 10, per: 90 }\n  - { ads: b, max: 1, per: 7d }"
        )
        let campaign = try CampaignLoader.load(yaml: yaml, file: Fixture.url("inline.yaml"))
        #expect(campaign.frequencyCaps.map(\.per) == [86_400, 90, 604_800])
        #expect(campaign.frequencyCaps.map(\.max) == [3, 10, 1] && campaign.frequencyCaps.map(\.perText) == ["24h", "90", "7d"])
        #expect(campaign.trustedAttributes.contains("viewer") && campaign.trustedAttributes.contains("seen"))
        #expect(!(try CampaignLoader.load(yaml: minimalCampaign, file: Fixture.url("inline.yaml"))).trustedAttributes.contains("viewer"))
        #expect(FrequencyCap.seconds("30m") == 1800 && FrequencyCap.seconds("1s") == 1 && FrequencyCap.seconds("400d") == 34_560_000)
        for bad in ["", "h", "-1h", "1.5h", "1 h", "401d", "99999999999999999999"] { #expect(FrequencyCap.seconds(bad) == nil, "\(bad)") }
    }

    // MARK: - YAML and structure

    static let structureCases: [InvalidCampaign] = [
        .init(
            "YAML syntax error points at the problem",
            yaml: "version: 1\nid: minimal: news",
            line: 2,
            column: ": news",
            field: "",
            message: .exact("YAML syntax: mapping values are not allowed in this context")
        ),
        .init(
            "undefined alias points at it",
            yaml: minimal([("id: minimal", "id: *name")]),
            line: 2,
            column: "*name",
            field: "",
            message: .exact("YAML syntax: found undefined alias")
        ),
        .init(
            "unknown top-level key lists the known ones",
            yaml: minimal(appending: "titel: Evening News"),
            line: 11,
            column: "titel",
            field: "titel",
            message: .prefix("unknown key; expected one of version, id, title, origin, program")
        ),
        .init(
            "an origin: poll out of range",
            yaml: minimal(appending: "origin: { timeout: 2, poll: 0.5 }"),
            line: 11,
            column: "0.5",
            field: "origin.poll",
            message: .exact("must be between 1 and 86400 seconds")
        ),
        .init(
            "an ad server template with a placeholder that is none",
            yaml: minimal(appending: "ad_server: { vast: 'https://ads.example/vast?d={break.length}' }"),
            line: 11,
            column: "{break.length}",
            field: "ad_server.vast",
            message: .prefix("'https://ads.example/vast?d={break.length}' names '{break.length}', which is not a placeholder: use {session}")
        ),
        .init(
            "a VMAP request naming a break placeholder",
            yaml: minimal(appending: "ad_server: { vmap: 'https://ads.example/vmap?pos={break.position}' }"),
            line: 11,
            column: "'https",
            field: "ad_server.vmap",
            message: .suffix("use {session}, {program.id}, {program.duration}, {cachebuster} and viewer attributes")
        ),
        .init(
            "an ad server timeout out of range",
            yaml: minimal(appending: "ad_server: { vast: 'https://ads.example/vast?s={session}', timeout: 60 }"),
            line: 11,
            column: "60",
            field: "ad_server.timeout",
            message: .exact("is 60 s; give 0.1 to 30 seconds (the whole chain of one break)")
        ),
        .init(
            "an ad server's trusted host written as a URL",
            yaml: minimal(appending: "ad_server: { vast: 'https://ads.example/vast', trusted_hosts: [ads.internal, 'http://10.0.0.5:8080/'] }"),
            line: 11,
            column: "[ads.internal",
            field: "ad_server.trusted_hosts",
            message: .prefix("'http://10.0.0.5:8080/' is not a host name or address; give names alone")
        ),
        .init(
            "an ad server fallback naming no pool",
            yaml: minimal(appending: "ad_server: { vast: 'https://ads.example/vast', fallback: [house] }"),
            line: 11,
            column: "[house]",
            field: "ad_server.fallback",
            message: .prefix("names pool \"house\", which is not defined")
        ),
        .init(
            "a creatives store outside the campaign's folder",
            yaml: minimal(appending: "creatives: { store: ../elsewhere/ }"),
            line: 11,
            column: "../elsewhere/",
            field: "creatives.store",
            message: .prefix("'../elsewhere/' is outside the campaign's folder; give a folder inside it")
        ),
        .init(
            "a creatives condition that is neither auto nor off",
            yaml: minimal(appending: "creatives: { condition: always }"),
            line: 11,
            column: "always",
            field: "creatives.condition",
            message: .exact("is \"always\"; give auto (condition what is missing) or off")
        ),
        .init(
            "a creatives loudness out of range",
            yaml: minimal(appending: "creatives: { loudness: 3 }"),
            line: 11,
            column: "3",
            field: "creatives.loudness",
            message: .exact("is 3 LUFS; give -70 to -5 (EBU R128: -23, ATSC A/85: -24)")
        ),
        .init(
            "a rewrite template naming a group the pattern lacks points at the reference",
            yaml: minimal(appending: "rewrite:\n  - { name: cdn, match: '^https://o/(.*)$', replace: 'https://cdn/$1/$2' }"),
            line: 12,
            column: "$2",
            field: "rewrite[0].replace",
            message: .contains("refers to group $2, but the pattern has 1 capture group")
        ),
        .init(
            "a rewrite template with an unknown placeholder lists the known ones",
            yaml: minimal(appending: "rewrite:\n  - { name: cdn, match: '^https://o/(.*)$', replace: 'https://cdn/$1?t={tier}' }"),
            line: 12,
            column: "{tier}",
            field: "rewrite[0].replace",
            message: .contains("unknown placeholder {tier}; placeholders are session, bandwidth, device, locale, market, seen")
        ),
        .init(
            "a rewrite template with a space, which would break the playlist line",
            yaml: minimal(appending: "rewrite:\n  - { name: cdn, match: '^https://o/(.*)$', replace: 'https://cdn/$1 x' }"),
            line: 12,
            column: " x'",
            field: "rewrite[0].replace",
            message: .contains("has a space, which a URI cannot hold; percent-encode it (%20)")
        ),
        .init(
            "a rewrite pattern PCRE2 refuses",
            yaml: minimal(appending: "rewrite:\n  - { name: cdn, match: '^https://o/(.*$', replace: 'https://cdn/' }"),
            line: 12,
            column: "'^https",
            field: "rewrite[0].match",
            message: .contains("missing closing parenthesis")
        ),
        .init(
            "a rewrite target that does not exist",
            yaml: minimal(appending: "rewrite:\n  - { name: cdn, applies_to: [segments], match: '^(.*)$', replace: '$1' }"),
            line: 12,
            column: "[segments]",
            field: "rewrite[0].applies_to",
            message: .exact("\"segments\" is not a target; use program, ads, slate and/or keys")
        ),
        .init(
            "unsupported version",
            yaml: minimal([("version: 1", "version: 2")]),
            line: 1,
            column: "2",
            field: "version",
            message: .contains("version 1")
        ),
        .init(
            "missing version",
            yaml: minimal([("version: 1\n", "")]),
            line: 1,
            column: "id",
            field: "version",
            message: .exact("is required (version: 1)")
        ),
        .init(
            "campaign id must be URL-safe",
            yaml: minimal([("id: minimal", "id: Evening_News")]),
            line: 2,
            column: "Evening_News",
            field: "id",
            message: .exact("may contain only a-z, 0-9 and '-' (it appears in URLs)")
        ),
    ]

    // MARK: - Ids

    static let idCases: [InvalidCampaign] = [
        .init(
            "duplicate island id",
            yaml: minimal([
                (
                    "    - { id: act-1, playlist: media/program/act-1/master.m3u8 }",
                    "    - { id: act-1, playlist: media/program/act-1/master.m3u8 }\n    - { id: act-1, playlist: media/program/act-2/master.m3u8 }"
                )
            ]),
            line: 6,
            column: "act-1",
            field: "program.islands[1].id",
            message: .exact("island \"act-1\" is defined twice; island ids must be unique")
        ),
        .init(
            "duplicate break id",
            yaml: minimal([
                (
                    "  - { id: mid, after: act-1, duration: 10, pools: [prime] }",
                    "  - { id: mid, after: act-1, duration: 10, pools: [prime] }\n  - { id: mid, before: act-1, duration: 10, pools: [prime] }"
                )
            ]),
            line: 8,
            column: "mid",
            field: "breaks[1].id",
            message: .exact("break \"mid\" is defined twice; break ids must be unique")
        ),
        // libyaml's composer (through Yams) refuses a mapping with a repeated key before the loader
        // sees it; the issue must still say where and what to do.
        .init(
            "duplicate pool id",
            yaml: minimal(appending: "  prime:\n    - { id: bravo, playlist: media/ads/bravo/master.m3u8 }"),
            line: 9,
            column: "prime",
            field: "prime",
            message: .exact("\"prime\" appears twice in this mapping (first here); keep one — keys, pool names included, must be unique")
        ),
        .init(
            "duplicate ad id in one pool",
            yaml: minimal(appending: "    - { id: alpha, playlist: media/ads/alpha/master.m3u8 }"),
            line: 11,
            column: "alpha",
            field: "pools.prime[1].id",
            message: .prefix("ad \"alpha\" appears twice in pool \"prime\"; list it once")
        ),
        .init(
            "duplicate ad id for another playlist",
            yaml: minimal(
                [("pools: [prime]", "pools: [prime, house]")],
                appending: "  house:\n    - { id: alpha, playlist: media/ads/bravo/master.m3u8 }"
            ),
            line: 12,
            column: "alpha",
            field: "pools.house[0].id",
            message: .exact("ad id \"alpha\" is already used for media/ads/alpha/master.m3u8; give this ad another id")
        ),
    ]

    // MARK: - Breaks

    static let breakCases: [InvalidCampaign] =
        [
            .init(
                "break naming a missing island",
                yaml: minimal([("after: act-1", "after: act-9")]),
                line: 7,
                column: "act-9",
                field: "breaks[0].after",
                message: .exact("names island \"act-9\", which does not exist; islands are act-1")
            ),
            .init(
                "break naming a missing pool",
                yaml: minimal([("pools: [prime]", "pools: [prime, extra]")]),
                line: 7,
                column: "[prime",
                field: "breaks[0].pools",
                message: .exact("names pool \"extra\", which does not exist; pools are prime")
            ),
            .init(
                "break with both before and after",
                yaml: minimal([("after: act-1", "before: act-1, after: act-1")]),
                line: 7,
                column: "{",
                field: "breaks[0]",
                message: .exact("needs exactly one of before: ISLAND or after: ISLAND")
            ),
            .init(
                "break with neither before nor after",
                yaml: minimal([("after: act-1, ", "")]),
                line: 7,
                column: "{",
                field: "breaks[0]",
                message: .exact("needs exactly one of before: ISLAND or after: ISLAND")
            ),
        ]
        + ["ten", "15s", "1e3", "[10]"].map { (duration: String) in
            .init(
                "break duration \(duration) is not a decimal",
                yaml: minimal([("duration: 10", "duration: \(duration)")]),
                line: 7,
                column: duration,
                field: "breaks[0].duration",
                message: .exact("expected a decimal number such as 15 or 5.76")
            )
        }
        + ["0", "-5"].map { (duration: String) in
            .init(
                "break duration \(duration) is not positive",
                yaml: minimal([("duration: 10", "duration: \(duration)")]),
                line: 7,
                column: duration,
                field: "breaks[0].duration",
                message: .exact("must be above 0")
            )
        }
        + [
            .init(
                "unknown restrict value",
                yaml: minimal([("pools: [prime] }", "pools: [prime], restrict: [skip, seek] }")]),
                line: 7,
                column: "[skip",
                field: "breaks[0].restrict",
                message: .exact("\"seek\" is not a policy; use skip and/or jump")
            )
        ]

    // MARK: - Ads against breaks and the programme

    static let adCases: [InvalidCampaign] = [
        .init(
            "ad longer than every break that may play it",
            yaml: minimal([
                (
                    "  - { id: mid, after: act-1, duration: 10, pools: [prime] }",
                    "  - { id: preroll, before: act-1, duration: 4, pools: [prime] }\n  - { id: mid, after: act-1, duration: 6, pools: [prime] }"
                ),
                ("{ id: alpha, playlist: media/ads/alpha/master.m3u8 }", "{ id: long, playlist: media/ads/long/master.m3u8 }"),
            ]),
            line: 11,
            column: "{",
            field: "pools.prime[0]",
            message: .exact(
                "ad \"long\" runs 7.68 s, longer than every break that may play it (preroll 4 s, mid 6 s); it could never play — "
                    + "shorten it or lengthen a break"
            )
        ),
        .init(
            "fragmented MP4 ad in a transport stream programme",
            yaml: minimal([("media/ads/alpha/master.m3u8", "media/ads/fmp4/master.m3u8")]),
            line: 10,
            column: "{",
            field: "pools.prime[0].playlist",
            message: .prefix("ad \"alpha\" plays fMP4 segments in the programme's MPEG-TS variant 320x180 avc1.42c01e,mp4a.40.2"),
            .suffix("encode ad \"alpha\"'s avc rungs as MPEG-TS")
        ),
        .init(
            "muxed ad in a demuxed audio programme",
            yaml: minimal([("media/program/act-1/master.m3u8", "media/program-demuxed/act-1/master.m3u8")]),
            line: 10,
            column: "{",
            field: "pools.prime[0].playlist",
            message: .exact(
                "the programme carries audio in separate renditions (EXT-X-MEDIA TYPE=AUDIO) but ad \"alpha\" has none; "
                    + "package its audio the same way"
            )
        ),
        .init(
            "demuxed audio ad in a muxed programme",
            yaml: minimal([("media/ads/alpha/master.m3u8", "media/ads/demuxed/master.m3u8")]),
            line: 10,
            column: nil,
            field: "pools.prime[0].playlist",
            message: .exact(
                "ad \"alpha\" carries audio in separate renditions but the programme's audio is muxed into its variants; package it the same way"
            )
        ),
        .init(
            "ad without a variant of the programme's codec family",
            yaml: minimal([("media/ads/alpha/master.m3u8", "media/ads/hevc/master.m3u8")]),
            line: 10,
            column: "{",
            field: "pools.prime[0].playlist",
            message: .prefix("ad \"alpha\" has no avc variant for the programme's avc1.42c01e,mp4a.40.2 variant; add one"),
            .contains("hvc1.1.6.L93.B0")
        ),
        .init(
            "slate of another container",
            yaml: minimal(appending: "slate: { playlist: media/ads/fmp4/master.m3u8 }"),
            line: 11,
            column: "{",
            field: "slate.playlist",
            message: .prefix("the slate plays fMP4 segments in the programme's MPEG-TS variant")
        ),
        .init(
            "HEVC ad in MPEG-TS segments",
            yaml: minimal([("media/ads/alpha/master.m3u8", "media/ads/hevc-ts/master.m3u8")]),
            line: 10,
            column: "{",
            field: "pools.prime[0].playlist",
            message: .prefix("ad \"alpha\" carries HEVC in MPEG-TS segments (index.m3u8 in 320x180 hvc1.1.6.L93.B0,mp4a.40.2; index.m3u8 in 640x360"),
            .contains("HEVC must be packaged as fMP4")
        ),
    ]

    // MARK: - Rules

    static let ruleCases: [InvalidCampaign] =
        [
            .init(
                "invalid pattern reports PCRE2's message and offset",
                yaml: minimal(
                    appending: """
                        rules:
                          - name: broken
                            when: { attributes: { locale: '(unclosed' } }
                            then: { exclude: ['^alpha$'] }
                        """
                ),
                line: 13,
                column: "'(unclosed'",
                field: "rules[0].when.attributes.locale",
                message: .exact("missing closing parenthesis at offset 9 in pattern '(unclosed'")
            ),
            .init(
                "invalid exclude pattern",
                yaml: minimal(
                    appending: """
                        rules:
                          - name: broken
                            then: { exclude: ['^alpha$', '*bravo'] }
                        """
                ),
                line: 13,
                column: "'*bravo'",
                field: "rules[0].then.exclude[1]",
                message: .exact("quantifier does not follow a repeatable item at offset 0 in pattern '*bravo'")
            ),
            .init(
                "unknown time zone",
                yaml: minimal(
                    appending: """
                        rules:
                          - name: evening
                            when: { time: { from: "18:00", to: "23:30", zone: Europe/Madird } }
                            then: { boost: { alpha: 2 } }
                        """
                ),
                line: 13,
                column: "Europe/Madird",
                field: "rules[0].when.time.zone",
                message: .exact("\"Europe/Madird\" is not an IANA time zone; use a name such as Europe/Madrid or UTC")
            ),
        ]
        + ["25:00", "18:60", "6pm", "18:30:00", "24:01"].map { (text: String) in
            .init(
                "bad time of day \(text)",
                yaml: minimal(
                    appending: """
                        rules:
                          - name: evening
                            when: { time: { from: "\(text)", to: "23:30", zone: Europe/Madrid } }
                            then: { boost: { alpha: 2 } }
                        """
                ),
                line: 13,
                column: "\"\(text)\"",
                field: "rules[0].when.time.from",
                message: .exact("expected a time of day as HH:MM, e.g. \"18:30\"")
            )
        }
        + [
            .init(
                "unknown day",
                yaml: minimal(
                    appending: """
                        rules:
                          - name: weekend
                            when: { days: [sat, sunday] }
                            then: { boost: { alpha: 2 } }
                        """
                ),
                line: 13,
                column: nil,
                field: "rules[0].when.days",
                message: .exact("\"sunday\" is not a day; use mon, tue, wed, thu, fri, sat, sun")
            ),
            .init(
                "boost naming an ad in no pool",
                yaml: minimal(
                    appending: """
                        rules:
                          - name: evening
                            then: { boost: { zulu: 2 } }
                        """
                ),
                line: 13,
                column: "zulu",
                field: "rules[0].then.boost.zulu",
                message: .exact("names ad \"zulu\", which is in no pool")
            ),
        ]

    // MARK: - Playlists

    static let playlistCases: [InvalidCampaign] = [
        .init(
            "missing playlist file",
            yaml: minimal([("media/ads/alpha/master.m3u8", "media/ads/zulu/master.m3u8")]),
            line: 10,
            column: "media/ads/zulu",
            field: "pools.prime[0].playlist",
            message: .exact(
                "cannot read \(Fixture.path("media/ads/zulu/master.m3u8")): the file is missing or unreadable; "
                    + "playlist paths are relative to the campaign file's folder"
            )
        ),
        .init(
            "media playlist where a multivariant playlist belongs",
            yaml: minimal([("media/ads/alpha/master.m3u8", "media/ads/alpha/360p/index.m3u8")]),
            line: 10,
            column: nil,
            field: "pools.prime[0].playlist",
            message: .suffix("is a media playlist; point at the asset's multivariant (master) playlist")
        ),
    ]

    // MARK: - The table

    @Test("the table holds every single-finding case, each named once and checking its message")
    func table() {
        #expect(Self.cases.count == 67)
        #expect(Set(Self.cases.map(\.name)).count == Self.cases.count, "every case has its own name")
        #expect(Self.cases.allSatisfy { !$0.message.isEmpty }, "every case checks its message")
    }

    @Test("the minimal campaign loads, so each case fails for its own reason")
    func minimalLoads() {
        #expect(issues(minimalCampaign).isEmpty, "\(CampaignError(issues(minimalCampaign)))")
    }

    @Test("each invalid campaign gets its one issue — file, line, column, field and message", arguments: Self.cases)
    func reported(_ invalid: InvalidCampaign) throws {
        let issue = try onlyIssue(invalid.yaml)
        #expect(issue.file == inlineFile)
        #expect(issue.line == invalid.line)
        if let text = invalid.column {
            let expected = column(of: text, line: invalid.line, in: invalid.yaml)
            #expect(expected > 0, "\"\(text)\" is not on line \(invalid.line)")
            #expect(issue.column == expected, "column of \"\(text)\"")
        }
        #expect(issue.field == invalid.field)
        for match in invalid.message {
            switch match {
            case .exact(let text): #expect(issue.message == text, "the message \(match)")
            case .prefix(let text): #expect(issue.message.hasPrefix(text), "the message \(match)")
            case .suffix(let text): #expect(issue.message.hasSuffix(text), "the message \(match)")
            case .contains(let text): #expect(issue.message.contains(text), "the message \(match)")
            }
        }
    }

    // MARK: - Findings with more to check

    @Test func unclosedQuoteSaysWhereItBegan() throws {
        let yaml = """
            version: 1
            id: "minimal
            title: Minimal
            """
        let issue = try onlyIssue(yaml)
        #expect(issue.file == inlineFile)
        // libyaml stops where the file ends, after "title: Minimal"; the message says where the quote opened.
        #expect(issue.line == 3)
        #expect(issue.column == 15)
        #expect(issue.field == "")
        #expect(issue.message == "YAML syntax: found unexpected end of stream (while scanning a quoted scalar at line 2, column 5)")
    }

    @Test func unknownNestedKeyNamesItsPath() throws {
        let yaml = minimalCampaign.replacingOccurrences(of: "duration: 10", with: "duraton: 10")
        let found = issues(yaml)
        let unknown = try issue(at: "breaks[0].duraton", in: found)
        #expect(unknown.file == inlineFile)
        #expect(unknown.line == 7)
        #expect(unknown.column == column(of: "duraton", line: 7, in: yaml))
        #expect(unknown.message == "unknown key; expected one of id, before, after, at, duration, pools, restrict, once, skip")
        // …and so the break has no duration, reported at the break.
        let missing = try issue(at: "breaks[0].duration", in: found)
        #expect(missing.line == 7)
        #expect(missing.column == column(of: "{", line: 7, in: yaml))
        #expect(missing.message == "is required")
        #expect(found.count == 2)
    }

    /// An ad too long for one pool's breaks still plays where another of its pools is used.
    @Test func adThatFitsABreakOfAnotherOfItsPoolsLoads() throws {
        let yaml = """
            version: 1
            id: minimal
            program:
              islands:
                - { id: act-1, playlist: media/program/act-1/master.m3u8 }
            breaks:
              - { id: preroll, before: act-1, duration: 4, pools: [short] }
              - { id: mid, after: act-1, duration: 10, pools: [prime] }
            pools:
              short:
                - { id: charlie, playlist: media/ads/charlie/master.m3u8 }
                - { id: long, playlist: media/ads/long/master.m3u8 }
              prime:
                - { id: long, playlist: media/ads/long/master.m3u8 }
            """
        #expect(issues(yaml).isEmpty, "\(CampaignError(issues(yaml)))")
    }

    /// A rule's per-break pool override counts as a break that may play the pool's ads.
    @Test func adFittingOnlyThroughARulePoolOverrideLoads() throws {
        let campaign = """
            version: 1
            id: minimal
            program:
              islands:
                - { id: act-1, playlist: media/program/act-1/master.m3u8 }
            breaks:
              - { id: preroll, before: act-1, duration: 4, pools: [prime] }
              - { id: mid, after: act-1, duration: 10, pools: [prime] }
            pools:
              prime:
                - { id: charlie, playlist: media/ads/charlie/master.m3u8 }
              late:
                - { id: long, playlist: media/ads/long/master.m3u8 }
            rules:
              - name: night
                when: { time: { from: "22:00", to: "02:00", zone: Europe/Madrid } }
                then: { pools: { mid: [late] } }
            """
        #expect(issues(campaign).isEmpty, "\(CampaignError(issues(campaign)))")
    }

    @Test func playlistLintErrorIsReportedAgainstThePlaylist() throws {
        let yaml = minimalCampaign.replacingOccurrences(of: "media/ads/alpha/master.m3u8", with: "media/ads/overlong-segment/master.m3u8")
        let issue = try onlyIssue(yaml)
        #expect(issue.file == Fixture.path("media/ads/overlong-segment/360p/index.m3u8"))
        #expect(issue.line == 8)
        #expect(issue.column == 0)
        #expect(issue.field == "target-duration")
        #expect(issue.message == "EXTINF 3.840000 rounds to 4, above EXT-X-TARGETDURATION 2; raise the target duration to at least 4")
        #expect(issue.description.hasPrefix("\(Fixture.path("media/ads/overlong-segment/360p/index.m3u8")):8: target-duration: "))
    }

    // MARK: - Together

    @Test func everyIssueIsReportedInOneError() throws {
        let yaml = """
            version: 1
            id: Minimal
            program:
              islands:
                - { id: act-1, playlist: media/program/act-1/master.m3u8 }
            breaks:
              - { id: mid, after: act-9, duration: 10s, pools: [prime], restrict: [seek] }
            pools:
              prime:
                - { id: alpha, playlist: media/ads/alpha/master.m3u8, weight: 0 }
                - { id: zulu, playlist: media/ads/zulu/master.m3u8 }
            rules:
              - name: broken
                when: { attributes: { locale: '(unclosed' }, time: { from: "18:00", to: "7pm" } }
                then: { exclude: ['^alpha$'] }
            markers: [scte35]
            """
        var error: CampaignError?
        do {
            _ = try CampaignLoader.load(yaml: yaml, file: Fixture.url("inline.yaml"))
        } catch let caught {
            error = caught
        }
        let issues = try #require(error).issues
        #expect(
            Set(issues.map(\.field)) == [
                "id", "pools.prime[0].weight", "pools.prime[1].playlist", "breaks[0].after", "breaks[0].duration", "breaks[0].restrict",
                "rules[0].when.attributes.locale", "rules[0].when.time.to", "markers[0]",
            ]
        )
        #expect(issues.allSatisfy { $0.file == inlineFile && $0.line > 0 && $0.column > 0 })
        // Printed the way compilers print, one per line.
        let lines = try #require(error).description.split(separator: "\n")
        #expect(lines.count == issues.count)
        let after = column(of: "act-9", line: 7, in: yaml)
        #expect(lines.contains("\(inlineFile):7:\(after): breaks[0].after: names island \"act-9\", which does not exist; islands are act-1"))
    }

    @Test func unreadableCampaignFile() throws {
        let url = Fixture.url("no-such-campaign.yaml")
        #expect {
            _ = try CampaignLoader.load(url)
        } throws: { error in
            let issues = (error as? CampaignError)?.issues ?? []
            return issues.count == 1 && issues[0].file == url.path
                && issues[0].message == "cannot read the campaign file: it is missing or unreadable"
        }
    }
}
