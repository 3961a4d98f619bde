#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where an ad server's MP4 creatives are conditioned to the programme's ladder, and whether they
/// are (`creatives:`, docs/campaign-format.md "Conditioning ad server creatives"): a creative
/// with no HLS media file that fits is queued for conditioning, skipped until it is done, then
/// played from the store.
public struct CreativeSettings: Sendable, Hashable {
    /// The folder conditioned creatives are written to, one folder each (a volume every replica
    /// shares, at the same path, when several serve the campaign).
    public let store: URL
    /// `condition: auto` (queue what is missing) or `off` (play what is in the store only).
    public let conditions: Bool
    /// Integrated loudness creatives are normalised to, LUFS (EBU R128: −23).
    public let loudness: Double

    public static let defaultLoudness = -23.0
    public static let loudnessRange = -70.0 ... -5.0

    public init(store: URL, conditions: Bool = true, loudness: Double = Self.defaultLoudness) {
        self.store = store
        self.conditions = conditions
        self.loudness = loudness
    }

    /// The folder a creative of identity `id` is conditioned into: its id with anything but
    /// letters, digits, `.`, `_` and `-` written `_` (at most 64 characters), then the FNV-1a
    /// hash of the whole id, so two ids never share a folder and none leaves the store.
    public func folder(for id: String) -> URL {
        let safe = String(
            id.unicodeScalars.prefix(64).map { scalar -> Character in
                scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "._-".unicodeScalars.contains(scalar))
                    ? Character(scalar) : "_"
            }
        )
        var hash = FNV1a()
        hash.feed(id.utf8)
        let name = (safe.hasPrefix(".") ? "_" + safe.dropFirst() : safe) + "-" + String(hash.value, radix: 16)
        return self.store.appendingPathComponent(name, isDirectory: true)
    }

    /// The folder of one conditioning of creative `id`: one per version of its source (`version`:
    /// its validators — ETag, Last-Modified, length — when it was conditioned), so a source that
    /// changes is conditioned again beside the old encode, which sessions already planned keep
    /// playing.
    public func folder(for id: String, version: String) -> URL {
        var hash = FNV1a()
        hash.feed(version.utf8)
        return self.folder(for: id).appendingPathComponent("v" + String(hash.value, radix: 16), isDirectory: true)
    }

    /// The multivariant playlist of a version's conditioning, once it is there.
    public func master(for id: String, version: String) -> URL {
        self.folder(for: id, version: version).appendingPathComponent("master.m3u8")
    }

    /// The file naming the version last conditioned (its folder's name), written after it.
    public func current(for id: String) -> URL { self.folder(for: id).appendingPathComponent("current") }
}
