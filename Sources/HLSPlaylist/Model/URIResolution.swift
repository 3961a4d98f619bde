#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Resolves playlist URIs (RFC 8216bis §4.1: relative URIs resolve against the playlist's URI,
/// per RFC 3986 §5).
public enum URIResolution {
    /// `uri` resolved against `base` (a file or http URL); nil when it is not a URI at all.
    /// Absolute URIs (`https://…`), scheme-relative ones (`//host/…`), absolute paths (`/…`) and
    /// `../` all resolve as RFC 3986 says; a query string and percent-encoding are kept.
    public static func resolve(_ uri: String, against base: URL?) -> URL? {
        Self.resolve(uri, against: base, directory: base.flatMap(Self.directory(of:)))
    }

    /// ``resolve(_:against:)`` with the base's ``directory(of:)`` worked out once (a playlist
    /// keeps its own for every line it resolves).
    static func resolve(_ uri: String, against base: URL?, directory: Substring?) -> URL? {
        if let directory, Self.isPlainRelative(uri), let resolved = URL(string: directory + uri) { return resolved }
        return Self.generalResolution(uri, against: base)
    }

    /// Any reference, as Foundation resolves it (`URL(string:relativeTo:)`, then absolute).
    static func generalResolution(_ uri: String, against base: URL?) -> URL? {
        guard let reference = URL(string: uri, relativeTo: base) ?? Self.encoded(uri).flatMap({ URL(string: $0, relativeTo: base) })
        else { return nil }
        return reference.absoluteURL
    }

    /// The shape nearly every segment line has — a relative path of plain characters, perhaps
    /// with a query (`segment_12.ts`, `1080p/seg-3.m4s?token=a`) — against an http(s) or file
    /// URL whose path has no dot segments: by RFC 3986 §5.2.2–5.2.3 the result is the base up to
    /// the last `/` of its path, then the reference, so it is joined as text and parsed once
    /// (a fifth of Foundation's relative resolution, which runs once per segment of every
    /// title a catalogue loads). Nil for any other shape: a scheme, an authority, an absolute
    /// path, a `.` or `..` segment, percent-encoding, a fragment, characters a URI may not hold
    /// raw; ``generalResolution(_:against:)`` resolves those.
    static func plainResolution(_ uri: String, against base: URL) -> URL? {
        guard let directory = Self.directory(of: base), Self.isPlainRelative(uri) else { return nil }
        return URL(string: directory + uri)
    }

    /// The absolute URI of `uri` against a remote playlist whose directory is `directory`, as
    /// text: the plain shape (``plainResolution(_:against:)``) against a lowercase `http://` or
    /// `https://` directory, which Foundation writes back as joined. Nil for anything else.
    static func plainText(_ uri: Substring, directory: Substring) -> String? {
        var text = ""
        return Self.appendPlainText(uri, directory: directory, to: &text) ? text : nil
    }

    /// ``plainText(_:directory:)`` appended to `text`; false (and `text` as it was) when `uri`
    /// is not of the plain shape.
    static func appendPlainText(_ uri: Substring, directory: Substring, to text: inout String) -> Bool {
        guard Self.isTextDirectory(directory), Self.isPlainRelative(uri) else { return false }
        text += directory
        text += uri
        return true
    }

    /// Whether plain references join `directory` as text: a lowercase `http://` or `https://` one.
    static func isTextDirectory(_ directory: Substring) -> Bool {
        directory.utf8.starts(with: "https://".utf8) || directory.utf8.starts(with: "http://".utf8)
    }

    /// `base` up to and including the last `/` of its path (query and fragment dropped), when
    /// it is an http(s) or file URL with an authority and a path free of dot segments.
    static func directory(of base: URL) -> Substring? {
        let text = base.absoluteString
        let utf8 = text.utf8
        guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let scheme = text[..<colon].lowercased()
        guard scheme == "http" || scheme == "https" || scheme == "file", utf8[colon...].starts(with: "://".utf8) else { return nil }
        let afterAuthority = utf8.index(colon, offsetBy: 3)
        let end = utf8[afterAuthority...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? utf8.endIndex
        // The path starts at the first `/` after the authority; without one there is no directory to join.
        guard let pathStart = utf8[afterAuthority..<end].firstIndex(of: UInt8(ascii: "/")),
            let lastSlash = utf8[pathStart..<end].lastIndex(of: UInt8(ascii: "/"))
        else { return nil }
        let path = text[pathStart...lastSlash]
        // `/./` and `/../` in the base's own path would be removed by the general resolution.
        for segment in path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            if segment.elementsEqual(".".utf8) || segment.elementsEqual("..".utf8) { return nil }
        }
        return text[...lastSlash]
    }

    /// A relative-path reference (RFC 3986 §4.2) of unreserved characters, sub-delimiters and
    /// `@` with no `.` or `..` segment, perhaps with a query of those and `/`, `?`, `:`; no
    /// percent-encoding or fragment.
    static func isPlainRelative(_ uri: some StringProtocol) -> Bool {
        // Over contiguous bytes (a segment line of a parsed playlist), else a copy of them.
        uri.utf8.withContiguousStorageIfAvailable(Self.isPlainRelative(bytes:))
            ?? Array(uri.utf8).withUnsafeBufferPointer(Self.isPlainRelative(bytes:))
    }

    private static func isPlainRelative(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var utf8 = bytes.makeIterator()
        var segmentLength = 0
        var dotsOnly = true
        var first = true
        while let byte = utf8.next() {
            if byte == UInt8(ascii: "?") {
                guard !first, !(dotsOnly && segmentLength > 0) else { return false }
                while let byte = utf8.next() {
                    guard Self.isPlain(byte) || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: ":") else {
                        return false
                    }
                }
                return true
            }
            if byte == UInt8(ascii: "/") {
                // No leading `/` (an absolute path or an authority), no `.` or `..` segment.
                guard !first, !(dotsOnly && segmentLength > 0) else { return false }
                segmentLength = 0
                dotsOnly = true
            } else {
                guard Self.isPlain(byte) else { return false }
                segmentLength += 1
                if byte != UInt8(ascii: ".") { dotsOnly = false }
            }
            first = false
        }
        return !first && !(dotsOnly && segmentLength > 0)
    }

    /// Unreserved (`A–Z a–z 0–9 - . _ ~`), sub-delimiters (`! $ & ' ( ) * + , ; =`) and `@`.
    private static func isPlain(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "@"): true
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"): true
        case UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="): true
        default: false
        }
    }

    /// Percent-encodes what a URI may not contain raw (spaces, non-ASCII), keeping what it may.
    private static func encoded(_ uri: String) -> String? {
        var result = ""
        for byte in uri.utf8 {
            if byte > 0x20, byte < 0x7F, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "<"), byte != UInt8(ascii: ">"),
                byte != UInt8(ascii: "\\"), byte != UInt8(ascii: "^"), byte != UInt8(ascii: "`"), byte != UInt8(ascii: "{"),
                byte != UInt8(ascii: "|"), byte != UInt8(ascii: "}")
            {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                result += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return result
    }
}
