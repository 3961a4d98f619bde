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
        guard let reference = URL(string: uri, relativeTo: base) ?? Self.encoded(uri).flatMap({ URL(string: $0, relativeTo: base) })
        else { return nil }
        return reference.absoluteURL
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
