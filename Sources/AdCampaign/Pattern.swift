import CPCRE2

/// A PCRE2 pattern, compiled (and JIT-compiled where the platform allows) once when a campaign
/// loads and matched for every viewer.
///
/// Matching is thread-safe: the compiled code is immutable and each match gets its own match
/// data, so one `Pattern` serves every request at once.
public final class Pattern: @unchecked Sendable, CustomStringConvertible {
    /// The pattern as written in the campaign.
    public let source: String
    private let code: OpaquePointer

    /// Compiles `source` with UTF-8 and Unicode properties enabled. Throws PCRE2's own message
    /// and the offset where it stopped.
    public init(_ source: String) throws(PatternError) {
        var errorCode: Int32 = 0
        var errorOffset = 0
        let compiled = source.withCString { pointer in
            pcre2_compile_8(
                UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), source.utf8.count,
                UInt32(PCRE2_UTF | PCRE2_UCP), &errorCode, &errorOffset, nil)
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
    public func matches(_ subject: String) -> Bool {
        guard let matchData = pcre2_match_data_create_from_pattern_8(self.code, nil) else { return false }
        defer { pcre2_match_data_free_8(matchData) }
        var subject = subject
        return subject.withUTF8 { bytes in
            let base = bytes.baseAddress ?? UnsafePointer(bitPattern: 1)!
            return pcre2_match_8(self.code, base, bytes.count, 0, 0, matchData, nil) >= 0
        }
    }

    public var description: String { self.source }

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
