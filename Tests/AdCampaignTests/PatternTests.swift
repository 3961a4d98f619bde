import AdCampaign
import Testing

@Suite("PCRE2 patterns")
struct PatternTests {
    @Test func matchesAnywhereUnlessAnchored() throws {
        let loose = try Pattern("es")
        #expect(loose.matches("es-ES"))
        #expect(loose.matches("fr-es"))
        #expect(!loose.matches("en-GB"))

        let anchored = try Pattern("^es(-|$)")
        #expect(anchored.matches("es"))
        #expect(anchored.matches("es-ES"))
        #expect(!anchored.matches("fr-es"))
        #expect(!anchored.matches("esperanto"))

        let whole = try Pattern("^bravo$")
        #expect(whole.matches("bravo"))
        #expect(!whole.matches("bravo-2"))
        #expect(!whole.matches("xbravo"))
    }

    @Test func caseInsensitiveOption() throws {
        let tv = try Pattern("(?i)tv")
        #expect(tv.matches("AppleTV"))
        #expect(tv.matches("smart-tv"))
        #expect(!tv.matches("phone"))
        #expect(!(try Pattern("tv")).matches("AppleTV"))
    }

    @Test func matchesUTF8SubjectsByCharacter() throws {
        // UTF mode: `.` is one code point (ñ is two bytes), \p{…} knows Unicode properties.
        #expect(try Pattern("^Espa.ol$").matches("Español"))
        #expect(try Pattern("^.{3}$").matches("日本語"))
        #expect(!(try Pattern("^.{9}$")).matches("日本語"))
        #expect(try Pattern("^\\p{Lu}").matches("Ñandú"))
        #expect(try Pattern("(?i)^ÑANDÚ$").matches("ñandú"))
        #expect(try Pattern("ü").matches("Zürich"))
    }

    @Test func emptySubjectsAndPatterns() throws {
        #expect(try Pattern("^$").matches(""))
        #expect(try Pattern("").matches("anything"))
        #expect(!(try Pattern(".")).matches(""))
    }

    @Test func keepsItsSource() throws {
        let pattern = try Pattern("^es(-|$)")
        #expect(pattern.source == "^es(-|$)")
        #expect(pattern.description == "^es(-|$)")
    }

    @Test(arguments: [
        ("(unclosed", "missing closing parenthesis", 9),
        ("*bravo", "quantifier does not follow a repeatable item", 0),
        ("a{2,1}", "numbers out of order in {} quantifier", 5),
        ("[z-a]", "range out of order in character class", 3),
    ])
    func invalidPatternThrowsPCRE2sMessageAndOffset(_ source: String, _ message: String, _ offset: Int) throws {
        let error = try #require(compileError(source))
        #expect(error.pattern == source)
        #expect(error.message == message)
        #expect(error.offset == offset)
    }

    @Test func errorOffsetCountsBytes() throws {
        // "ñ" is two bytes in UTF-8: PCRE2 stops after "ñ(" at byte 3.
        let error = try #require(compileError("ñ("))
        #expect(error.offset == 3)
        #expect(error.description == "invalid pattern 'ñ(': missing closing parenthesis at offset 3")
    }

    /// One compiled pattern serves every request at once.
    @Test func matchesConcurrently() async throws {
        let pattern = try Pattern("^(alpha|bravo)-[0-9]+$")
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<200 {
                group.addTask { pattern.matches(index.isMultiple(of: 2) ? "alpha-\(index)" : "charlie-\(index)") == index.isMultiple(of: 2) }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 200)
        #expect(results.allSatisfy { $0 })
    }
}

/// The error compiling `source` throws, or nil when it compiles.
private func compileError(_ source: String) -> PatternError? {
    do {
        _ = try Pattern(source)
        return nil
    } catch {
        return error
    }
}

@Suite("Pattern limits")
struct PatternLimitTests {
    @Test("a match that backtracks past PCRE2's limits stops, counts as no match and is counted")
    func catastrophicBacktrackingStops() throws {
        let pattern = try Pattern("^(\\w+\\s?)*$")
        #expect(pattern.hitsLimits)
        let before = Pattern.limitHits
        #expect(!pattern.matches(String(repeating: "word ", count: 200) + "!"))
        #expect(Pattern.limitHits > before)
        #expect(pattern.matches("two words"))
    }

    @Test("ordinary patterns stay within the limits on the probes")
    func ordinaryPatternsPass() throws {
        for source in ["^es(-|$)", "(?i)tv", ".", "^[0-9]+$", "^(alpha|bravo)$", "a.*b.*c"] {
            #expect(try !Pattern(source).hitsLimits, "\(source)")
        }
    }
}
