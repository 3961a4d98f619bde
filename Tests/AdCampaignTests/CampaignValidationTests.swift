import AdCampaign
import Foundation
import Testing

/// One test per finding: each names the file, line and column (libyaml's marks, 1-based), the field
/// path, and checks that the message says what to do about it.
@Suite("Campaign validation")
struct CampaignValidationTests {
    // MARK: - YAML and structure

    @Test func yamlSyntaxErrorPointsAtTheProblem() throws {
        let yaml = """
            version: 1
            id: minimal: news
            """
        let issue = try onlyIssue(yaml)
        #expect(issue.file == inlineFile)
        #expect(issue.line == 2)
        #expect(issue.column == column(of: ": news", line: 2, in: yaml))
        #expect(issue.field == "")
        #expect(issue.message == "YAML syntax: mapping values are not allowed in this context")
    }

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

    @Test func undefinedAliasPointsAtIt() throws {
        let yaml = minimalCampaign.replacingOccurrences(of: "id: minimal", with: "id: *name")
        let issue = try onlyIssue(yaml)
        #expect(issue.file == inlineFile)
        #expect(issue.line == 2)
        #expect(issue.column == column(of: "*name", line: 2, in: yaml))
        #expect(issue.field == "")
        #expect(issue.message == "YAML syntax: found undefined alias")
    }

    @Test func unknownTopLevelKeyListsTheKnownOnes() throws {
        let yaml = minimalCampaign + "\ntitel: Evening News"
        let issue = try onlyIssue(yaml)
        #expect(issue.file == inlineFile)
        #expect(issue.line == 11)
        #expect(issue.column == 1)
        #expect(issue.field == "titel")
        #expect(issue.message.hasPrefix("unknown key; expected one of version, id, title, program"))
    }

    @Test func unknownNestedKeyNamesItsPath() throws {
        let yaml = minimalCampaign.replacingOccurrences(of: "duration: 10", with: "duraton: 10")
        let found = issues(yaml)
        let unknown = try issue(at: "breaks[0].duraton", in: found)
        #expect(unknown.file == inlineFile)
        #expect(unknown.line == 7)
        #expect(unknown.column == column(of: "duraton", line: 7, in: yaml))
        #expect(unknown.message == "unknown key; expected one of id, before, after, duration, pools, restrict")
        // …and so the break has no duration, reported at the break.
        let missing = try issue(at: "breaks[0].duration", in: found)
        #expect(missing.line == 7)
        #expect(missing.column == column(of: "{", line: 7, in: yaml))
        #expect(missing.message == "is required")
        #expect(found.count == 2)
    }

    @Test func unsupportedVersion() throws {
        let yaml = minimalCampaign.replacingOccurrences(of: "version: 1", with: "version: 2")
        let issue = try onlyIssue(yaml)
        #expect(issue.file == inlineFile)
        #expect(issue.line == 1)
        #expect(issue.column == 10)
        #expect(issue.field == "version")
        #expect(issue.message.contains("version 1"))
    }

    @Test func missingVersion() throws {
        let yaml = minimalCampaign.replacingOccurrences(of: "version: 1\n", with: "")
        let issue = try onlyIssue(yaml)
        #expect(issue.line == 1)
        #expect(issue.column == 1)
        #expect(issue.field == "version")
        #expect(issue.message == "is required (version: 1)")
    }

    @Test func campaignIDMustBeURLSafe() throws {
        let yaml = minimalCampaign.replacingOccurrences(of: "id: minimal", with: "id: Evening_News")
        let issue = try onlyIssue(yaml)
        #expect(issue.file == inlineFile)
        #expect(issue.line == 2)
        #expect(issue.column == 5)
        #expect(issue.field == "id")
        #expect(issue.message == "may contain only a-z, 0-9 and '-' (it appears in URLs)")
    }

    // MARK: - Ids

    @Test func duplicateIslandID() throws {
        let yaml = """
            version: 1
            id: minimal
            program:
              islands:
                - { id: act-1, playlist: media/program/act-1/master.m3u8 }
                - { id: act-1, playlist: media/program/act-2/master.m3u8 }
            breaks:
              - { id: mid, after: act-1, duration: 10, pools: [prime] }
            pools:
              prime:
                - { id: alpha, playlist: media/ads/alpha/master.m3u8 }
            """
        let issue = try onlyIssue(yaml)
        #expect(issue.file == inlineFile)
        #expect(issue.line == 6)
        #expect(issue.column == column(of: "act-1", line: 6, in: yaml))
        #expect(issue.field == "program.islands[1].id")
        #expect(issue.message == "island \"act-1\" is defined twice; island ids must be unique")
    }

    @Test func duplicateBreakID() throws {
        let yaml = """
            version: 1
            id: minimal
            program:
              islands:
                - { id: act-1, playlist: media/program/act-1/master.m3u8 }
            breaks:
              - { id: mid, after: act-1, duration: 10, pools: [prime] }
              - { id: mid, before: act-1, duration: 10, pools: [prime] }
            pools:
              prime:
                - { id: alpha, playlist: media/ads/alpha/master.m3u8 }
            """
        let issue = try onlyIssue(yaml)
        #expect(issue.file == inlineFile)
        #expect(issue.line == 8)
        #expect(issue.column == column(of: "mid", line: 8, in: yaml))
        #expect(issue.field == "breaks[1].id")
        #expect(issue.message == "break \"mid\" is defined twice; break ids must be unique")
    }

    /// libyaml's composer (through Yams) refuses a mapping with a repeated key before the loader
    /// sees it; the issue must still say where and what to do.
    @Test func duplicatePoolID() throws {
        let yaml = """
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
              prime:
                - { id: bravo, playlist: media/ads/bravo/master.m3u8 }
            """
        let issue = try onlyIssue(yaml)
        #expect(issue.file == inlineFile)
        #expect(issue.line == 9)
        #expect(issue.column == 3)
        #expect(issue.field == "prime")
        #expect(issue.message == "\"prime\" appears twice in this mapping (first here); keep one — keys, pool names included, must be unique")
    }

    @Test func duplicateAdIDInOnePool() throws {
        let yaml = """
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
                - { id: alpha, playlist: media/ads/alpha/master.m3u8 }
            """
        let issue = try onlyIssue(yaml)
        #expect(issue.file == inlineFile)
        #expect(issue.line == 11)
        #expect(issue.column == column(of: "alpha", line: 11, in: yaml))
        #expect(issue.field == "pools.prime[1].id")
        #expect(issue.message.hasPrefix("ad \"alpha\" appears twice in pool \"prime\"; list it once"))
    }

    @Test func duplicateAdIDForAnotherPlaylist() throws {
        let yaml = """
            version: 1
            id: minimal
            program:
              islands:
                - { id: act-1, playlist: media/program/act-1/master.m3u8 }
            breaks:
              - { id: mid, after: act-1, duration: 10, pools: [prime, house] }
            pools:
              prime:
                - { id: alpha, playlist: media/ads/alpha/master.m3u8 }
              house:
                - { id: alpha, playlist: media/ads/bravo/master.m3u8 }
            """
        let issue = try onlyIssue(yaml)
        #expect(issue.file == inlineFile)
        #expect(issue.line == 12)
        #expect(issue.column == column(of: "alpha", line: 12, in: yaml))
        #expect(issue.field == "pools.house[0].id")
        #expect(issue.message == "ad id \"alpha\" is already used for media/ads/alpha/master.m3u8; give this ad another id")
    }

    // MARK: - Breaks

    @Test func breakNamingAMissingIsland() throws {
        let yaml = minimalCampaign.replacingOccurrences(of: "after: act-1", with: "after: act-9")
        let issue = try onlyIssue(yaml)
        #expect(issue.file == inlineFile)
        #expect(issue.line == 7)
        #expect(issue.column == column(of: "act-9", line: 7, in: yaml))
        #expect(issue.field == "breaks[0].after")
        #expect(issue.message == "names island \"act-9\", which does not exist; islands are act-1")
    }

    @Test func breakNamingAMissingPool() throws {
        let yaml = minimalCampaign.replacingOccurrences(of: "pools: [prime]", with: "pools: [prime, extra]")
        let issue = try onlyIssue(yaml)
        #expect(issue.file == inlineFile)
        #expect(issue.line == 7)
        #expect(issue.column == column(of: "[prime", line: 7, in: yaml))
        #expect(issue.field == "breaks[0].pools")
        #expect(issue.message == "names pool \"extra\", which does not exist; pools are prime")
    }

    @Test func breakWithBothBeforeAndAfter() throws {
        let yaml = minimalCampaign.replacingOccurrences(of: "after: act-1", with: "before: act-1, after: act-1")
        let issue = try onlyIssue(yaml)
        #expect(issue.file == inlineFile)
        #expect(issue.line == 7)
        #expect(issue.column == column(of: "{", line: 7, in: yaml))
        #expect(issue.field == "breaks[0]")
        #expect(issue.message == "needs exactly one of before: ISLAND or after: ISLAND")
    }

    @Test func breakWithNeitherBeforeNorAfter() throws {
        let yaml = minimalCampaign.replacingOccurrences(of: "after: act-1, ", with: "")
        let issue = try onlyIssue(yaml)
        #expect(issue.line == 7)
        #expect(issue.column == column(of: "{", line: 7, in: yaml))
        #expect(issue.field == "breaks[0]")
        #expect(issue.message == "needs exactly one of before: ISLAND or after: ISLAND")
    }

    @Test(arguments: ["ten", "15s", "1e3", "[10]"])
    func breakDurationThatIsNotADecimal(_ duration: String) throws {
        let yaml = minimalCampaign.replacingOccurrences(of: "duration: 10", with: "duration: \(duration)")
        let issue = try onlyIssue(yaml)
        #expect(issue.file == inlineFile)
        #expect(issue.line == 7)
        #expect(issue.column == column(of: duration, line: 7, in: yaml))
        #expect(issue.field == "breaks[0].duration")
        #expect(issue.message == "expected a decimal number such as 15 or 5.76")
    }

    @Test(arguments: ["0", "-5"])
    func breakDurationMustBePositive(_ duration: String) throws {
        let yaml = minimalCampaign.replacingOccurrences(of: "duration: 10", with: "duration: \(duration)")
        let issue = try onlyIssue(yaml)
        #expect(issue.line == 7)
        #expect(issue.column == column(of: duration, line: 7, in: yaml))
        #expect(issue.field == "breaks[0].duration")
        #expect(issue.message == "must be above 0")
    }

    @Test func unknownRestrictValue() throws {
        let yaml = minimalCampaign.replacingOccurrences(of: "pools: [prime] }", with: "pools: [prime], restrict: [skip, seek] }")
        let issue = try onlyIssue(yaml)
        #expect(issue.file == inlineFile)
        #expect(issue.line == 7)
        #expect(issue.column == column(of: "[skip", line: 7, in: yaml))
        #expect(issue.field == "breaks[0].restrict")
        #expect(issue.message == "\"seek\" is not a policy; use skip and/or jump")
    }

    // MARK: - Ads against breaks and the programme

    @Test func adLongerThanEveryBreakThatMayPlayIt() throws {
        let yaml = """
            version: 1
            id: minimal
            program:
              islands:
                - { id: act-1, playlist: media/program/act-1/master.m3u8 }
            breaks:
              - { id: preroll, before: act-1, duration: 4, pools: [prime] }
              - { id: mid, after: act-1, duration: 6, pools: [prime] }
            pools:
              prime:
                - { id: long, playlist: media/ads/long/master.m3u8 }
            """
        let issue = try onlyIssue(yaml)
        #expect(issue.file == inlineFile)
        #expect(issue.line == 11)
        #expect(issue.column == column(of: "{", line: 11, in: yaml))
        #expect(issue.field == "pools.prime[0]")
        #expect(
            issue.message
                == "ad \"long\" runs 7.68 s, longer than every break that may play it (preroll 4 s, mid 6 s); it could never play — "
                + "shorten it or lengthen a break"
        )
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

    @Test func fragmentedMP4AdInATransportStreamProgramme() throws {
        let yaml = minimalCampaign.replacingOccurrences(of: "media/ads/alpha/master.m3u8", with: "media/ads/fmp4/master.m3u8")
        let issue = try onlyIssue(yaml)
        #expect(issue.file == inlineFile)
        #expect(issue.line == 10)
        #expect(issue.column == column(of: "{", line: 10, in: yaml))
        #expect(issue.field == "pools.prime[0].playlist")
        #expect(issue.message.hasPrefix("ad \"alpha\" is fMP4 but the programme is MPEG-TS"))
        #expect(issue.message.hasSuffix("encode the ad as MPEG-TS"))
    }

    @Test func muxedAdInADemuxedAudioProgramme() throws {
        let yaml = minimalCampaign.replacingOccurrences(of: "media/program/act-1/master.m3u8", with: "media/program-demuxed/act-1/master.m3u8")
        let issue = try onlyIssue(yaml)
        #expect(issue.file == inlineFile)
        #expect(issue.line == 10)
        #expect(issue.column == column(of: "{", line: 10, in: yaml))
        #expect(issue.field == "pools.prime[0].playlist")
        #expect(
            issue.message
                == "the programme carries audio in separate renditions (EXT-X-MEDIA TYPE=AUDIO) but ad \"alpha\" has none; "
                + "package its audio the same way"
        )
    }

    @Test func demuxedAudioAdInAMuxedProgramme() throws {
        let yaml = minimalCampaign.replacingOccurrences(of: "media/ads/alpha/master.m3u8", with: "media/ads/demuxed/master.m3u8")
        let issue = try onlyIssue(yaml)
        #expect(issue.line == 10)
        #expect(issue.field == "pools.prime[0].playlist")
        #expect(
            issue.message
                == "ad \"alpha\" carries audio in separate renditions but the programme's audio is muxed into its variants; package it the same way"
        )
    }

    @Test func adWithoutAVariantOfTheProgrammesCodecFamily() throws {
        let yaml = minimalCampaign.replacingOccurrences(of: "media/ads/alpha/master.m3u8", with: "media/ads/hevc/master.m3u8")
        let issue = try onlyIssue(yaml)
        #expect(issue.file == inlineFile)
        #expect(issue.line == 10)
        #expect(issue.column == column(of: "{", line: 10, in: yaml))
        #expect(issue.field == "pools.prime[0].playlist")
        #expect(issue.message.hasPrefix("ad \"alpha\" has no avc variant for the programme's avc1.42c01e,mp4a.40.2 variant; add one"))
        #expect(issue.message.contains("hvc1.1.6.L93.B0"))
    }

    @Test func slateOfAnotherContainer() throws {
        let yaml = minimalCampaign + "\nslate: { playlist: media/ads/fmp4/master.m3u8 }"
        let issue = try onlyIssue(yaml)
        #expect(issue.line == 11)
        #expect(issue.column == column(of: "{", line: 11, in: yaml))
        #expect(issue.field == "slate.playlist")
        #expect(issue.message.hasPrefix("the slate is fMP4 but the programme is MPEG-TS"))
    }

    // MARK: - Rules

    @Test func invalidPatternReportsPCRE2sMessageAndOffset() throws {
        let yaml =
            minimalCampaign + """

                rules:
                  - name: broken
                    when: { attributes: { locale: '(unclosed' } }
                    then: { exclude: ['^alpha$'] }
                """
        let issue = try onlyIssue(yaml)
        #expect(issue.file == inlineFile)
        #expect(issue.line == 13)
        #expect(issue.column == column(of: "'(unclosed'", line: 13, in: yaml))
        #expect(issue.field == "rules[0].when.attributes.locale")
        #expect(issue.message == "missing closing parenthesis at offset 9 in pattern '(unclosed'")
    }

    @Test func invalidExcludePattern() throws {
        let yaml =
            minimalCampaign + """

                rules:
                  - name: broken
                    then: { exclude: ['^alpha$', '*bravo'] }
                """
        let issue = try onlyIssue(yaml)
        #expect(issue.line == 13)
        #expect(issue.column == column(of: "'*bravo'", line: 13, in: yaml))
        #expect(issue.field == "rules[0].then.exclude[1]")
        #expect(issue.message == "quantifier does not follow a repeatable item at offset 0 in pattern '*bravo'")
    }

    @Test func unknownTimeZone() throws {
        let yaml =
            minimalCampaign + """

                rules:
                  - name: evening
                    when: { time: { from: "18:00", to: "23:30", zone: Europe/Madird } }
                    then: { boost: { alpha: 2 } }
                """
        let issue = try onlyIssue(yaml)
        #expect(issue.file == inlineFile)
        #expect(issue.line == 13)
        #expect(issue.column == column(of: "Europe/Madird", line: 13, in: yaml))
        #expect(issue.field == "rules[0].when.time.zone")
        #expect(issue.message == "\"Europe/Madird\" is not an IANA time zone; use a name such as Europe/Madrid or UTC")
    }

    @Test(arguments: ["25:00", "18:60", "6pm", "18:30:00", "24:01"])
    func badTimeOfDay(_ text: String) throws {
        let yaml =
            minimalCampaign + """

                rules:
                  - name: evening
                    when: { time: { from: "\(text)", to: "23:30", zone: Europe/Madrid } }
                    then: { boost: { alpha: 2 } }
                """
        let issue = try onlyIssue(yaml)
        #expect(issue.file == inlineFile)
        #expect(issue.line == 13)
        #expect(issue.column == column(of: "\"\(text)\"", line: 13, in: yaml))
        #expect(issue.field == "rules[0].when.time.from")
        #expect(issue.message == "expected a time of day as HH:MM, e.g. \"18:30\"")
    }

    @Test func unknownDay() throws {
        let yaml =
            minimalCampaign + """

                rules:
                  - name: weekend
                    when: { days: [sat, sunday] }
                    then: { boost: { alpha: 2 } }
                """
        let issue = try onlyIssue(yaml)
        #expect(issue.line == 13)
        #expect(issue.field == "rules[0].when.days")
        #expect(issue.message == "\"sunday\" is not a day; use mon, tue, wed, thu, fri, sat, sun")
    }

    @Test func boostNamingAnAdInNoPool() throws {
        let yaml =
            minimalCampaign + """

                rules:
                  - name: evening
                    then: { boost: { zulu: 2 } }
                """
        let issue = try onlyIssue(yaml)
        #expect(issue.line == 13)
        #expect(issue.column == column(of: "zulu", line: 13, in: yaml))
        #expect(issue.field == "rules[0].then.boost.zulu")
        #expect(issue.message == "names ad \"zulu\", which is in no pool")
    }

    // MARK: - Playlists

    @Test func missingPlaylistFile() throws {
        let yaml = minimalCampaign.replacingOccurrences(of: "media/ads/alpha/master.m3u8", with: "media/ads/zulu/master.m3u8")
        let issue = try onlyIssue(yaml)
        #expect(issue.file == inlineFile)
        #expect(issue.line == 10)
        #expect(issue.column == column(of: "media/ads/zulu", line: 10, in: yaml))
        #expect(issue.field == "pools.prime[0].playlist")
        #expect(
            issue.message
                == "cannot read \(Fixture.path("media/ads/zulu/master.m3u8")): the file is missing or unreadable; "
                + "playlist paths are relative to the campaign file's folder"
        )
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

    @Test func mediaPlaylistWhereAMultivariantPlaylistBelongs() throws {
        let yaml = minimalCampaign.replacingOccurrences(of: "media/ads/alpha/master.m3u8", with: "media/ads/alpha/360p/index.m3u8")
        let issue = try onlyIssue(yaml)
        #expect(issue.line == 10)
        #expect(issue.field == "pools.prime[0].playlist")
        #expect(issue.message.hasSuffix("is a media playlist; point at the asset's multivariant (master) playlist"))
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
