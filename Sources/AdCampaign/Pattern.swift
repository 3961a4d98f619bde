import CPCRE2
import Synchronization

/// A PCRE2 pattern, compiled (and JIT-compiled where the platform allows) once when a campaign
/// loads and matched for every viewer.
///
/// Matching is thread-safe: the compiled code is immutable and each match gets its own match
/// data, so one `Pattern` serves every request at once.
/// Every match runs under explicit limits (``matchLimit``, ``depthLimit``): a pattern that
/// backtracks catastrophically on some viewer's value stops there instead of freezing a worker.
/// Such a match counts as no match and is counted in ``limitHits``; patterns that hit the
/// limits on simple probe values are refused at load (``hitsLimits``).
public final class Pattern: @unchecked Sendable, CustomStringConvertible {
    /// The pattern as written in the campaign.
    public let source: String
    private let code: OpaquePointer

    /// At most this many internal match steps per match (PCRE2's default is 10,000,000): far
    /// more than any sane pattern needs on a 1,024-character attribute value.
    public static let matchLimit: UInt32 = 1_000_000
    /// At most this much backtracking depth per match (the interpreter's; JIT has its own stack).
    public static let depthLimit: UInt32 = 10_000

    /// Matches stopped by a limit since the process started (the server exports it as a metric).
    public static var limitHits: Int { Self.limitHitCount.load(ordering: .relaxed) }
    private static let limitHitCount = Atomic<Int>(0)

    /// The match context with the limits: written once here, then only read by pcre2_match,
    /// which is safe from any thread.
    nonisolated(unsafe) private static let context: OpaquePointer? = {
        let context = pcre2_match_context_create_8(nil)
        if let context {
            pcre2_set_match_limit_8(context, Pattern.matchLimit)
            pcre2_set_depth_limit_8(context, Pattern.depthLimit)
        }
        return context
    }()

    /// Compiles `source` with UTF-8 and Unicode properties enabled. Throws PCRE2's own message
    /// and the offset where it stopped.
    public init(_ source: String) throws(PatternError) {
        var errorCode: Int32 = 0
        var errorOffset = 0
        let compiled = source.withCString { pointer in
            pcre2_compile_8(
                UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self),
                source.utf8.count,
                UInt32(PCRE2_UTF | PCRE2_UCP),
                &errorCode,
                &errorOffset,
                nil
            )
        }
        guard let compiled else {
            throw PatternError(pattern: source, message: Self.message(for: errorCode), offset: errorOffset)
        }
        // JIT is an optimisation: where it is unavailable, pcre2_match interprets.
        _ = pcre2_jit_compile_8(compiled, UInt32(PCRE2_JIT_COMPLETE))
        self.source = source
        self.code = compiled
    }

    deinit {
        pcre2_code_free_8(self.code)
    }

    /// Whether the pattern matches anywhere in `subject` (anchor with `^…$` to match whole).
    /// A match stopped by a limit is no match, and counted in ``limitHits``.
    public func matches(_ subject: String) -> Bool {
        switch self.match(subject) {
        case .match: return true
        case .noMatch: return false
        case .limitHit:
            Self.limitHitCount.add(1, ordering: .relaxed)
            return false
        }
    }

    enum Outcome { case match, noMatch, limitHit }

    func match(_ subject: String) -> Outcome {
        guard let matchData = pcre2_match_data_create_from_pattern_8(self.code, nil) else { return .noMatch }
        defer { pcre2_match_data_free_8(matchData) }
        var subject = subject
        let result = subject.withUTF8 { bytes in
            let base = bytes.baseAddress ?? UnsafePointer(bitPattern: 1)!
            return pcre2_match_8(self.code, base, bytes.count, 0, 0, matchData, Self.context)
        }
        if result >= 0 { return .match }
        return cpcre2_is_limit_error(result) != 0 ? .limitHit : .noMatch
    }

    /// Whether matching hits the limits on a probe value: 1,024 repeats of a character the
    /// pattern names (or a common one), then one it does not expect and the pattern's letters — the shape that makes
    /// nested quantifiers such as `(a+)+$` backtrack exponentially. Checked at load.
    public var hitsLimits: Bool {
        var characters: [Character] = ["a", "0", " ", "-", ".", "_"]
        for character in self.source where character.isASCII && (character.isLetter || character.isNumber) && !characters.contains(character) {
            characters.append(character)
        }
        // The pattern's own letters after the run: PCRE2 skips a subject that lacks a letter the
        // pattern requires (`y` in `(x+x+)+y`), and an attacker's value would not lack it.
        let tail = "\u{1}" + String(characters.dropFirst(6))
        return characters.contains { character in
            self.match(String(repeating: character, count: 1024) + tail) == .limitHit
        }
    }

    public var description: String { self.source }

    /// How many capturing groups the pattern has.
    public var captureCount: Int {
        var count: UInt32 = 0
        pcre2_pattern_info_8(self.code, UInt32(PCRE2_INFO_CAPTURECOUNT), &count)
        return Int(count)
    }

    /// The number of the capturing group called `name`, or nil when there is none.
    public func groupNumber(named name: String) -> Int? {
        let number = name.withCString { pointer in
            pcre2_substring_number_from_name_8(self.code, UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self))
        }
        return number > 0 ? Int(number) : nil
    }

    /// The groups of the first match in `subject` — index 0 the whole match, then each group
    /// (nil when it took no part) — or nil when there is no match (a match stopped by a limit
    /// is none, and counted in ``limitHits``).
    public func captures(in subject: String) -> [Substring?]? {
        guard let matchData = pcre2_match_data_create_from_pattern_8(self.code, nil) else { return nil }
        defer { pcre2_match_data_free_8(matchData) }
        var subject = subject
        let result = subject.withUTF8 { bytes in
            let base = bytes.baseAddress ?? UnsafePointer(bitPattern: 1)!
            return pcre2_match_8(self.code, base, bytes.count, 0, 0, matchData, Self.context)
        }
        guard result >= 0 else {
            if cpcre2_is_limit_error(result) != 0 { Self.limitHitCount.add(1, ordering: .relaxed) }
            return nil
        }
        let ovector = pcre2_get_ovector_pointer_8(matchData)!
        let utf8 = subject.utf8
        return (0...self.captureCount).map { group in
            let start = ovector[2 * group]
            let end = ovector[2 * group + 1]
            guard start != cpcre2_unset(), end != cpcre2_unset(), start <= end else { return nil }
            let lower = utf8.index(utf8.startIndex, offsetBy: start)
            let upper = utf8.index(utf8.startIndex, offsetBy: end)
            return subject[lower..<upper]
        }
    }

    private static func message(for code: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 256)
        let length = pcre2_get_error_message_8(code, &buffer, buffer.count)
        return length > 0 ? String(decoding: buffer.prefix(Int(length)), as: UTF8.self) : "error \(code)"
    }
}

/// A pattern PCRE2 would not compile.
public struct PatternError: Error, Sendable, Hashable, CustomStringConvertible {
    public var pattern: String
    /// PCRE2's message.
    public var message: String
    /// The offset in the pattern (in bytes) where PCRE2 stopped.
    public var offset: Int

    public var description: String {
        "invalid pattern '\(self.pattern)': \(self.message) at offset \(self.offset)"
    }
}
