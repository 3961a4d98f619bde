import HLSPlaylist

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The local files a campaign is made of: what a replica watches for changes and what its media
/// route may serve — nothing else in the folder (the campaign file, key-info files) is public.
public struct CampaignFiles: Sendable, Hashable {
    /// The campaign's playlists (multivariant and media), read at load.
    public var playlists: Set<URL> = []
    /// Segments, init sections (`EXT-X-MAP`) and keys the playlists reference (standardised),
    /// each with the first playlist line that does.
    public var media: [URL: Reference] = [:]

    /// A playlist line that names a file.
    public struct Reference: Sendable, Hashable {
        public var playlist: String
        public var line: Int
    }

    public init() {}
}

extension Campaign {
    /// The media files the playlists reference that are not there, each reported at the playlist
    /// line that names it (at most `limit`). Reads the file system: the server and `adstitch
    /// validate` call it; stitching tests over playlists without media do not.
    public func missingMedia(limit: Int = 20) -> [CampaignIssue] {
        var issues: [CampaignIssue] = []
        for (url, reference) in self.files.media.sorted(by: { ($0.value.playlist, $0.value.line) < ($1.value.playlist, $1.value.line) }) {
            guard !FileManager.default.fileExists(atPath: url.path) else { continue }
            issues.append(
                CampaignIssue(
                    file: reference.playlist,
                    line: reference.line,
                    column: 0,
                    field: "uri",
                    "\(url.lastPathComponent) is missing (\(url.path)); restore it or fix the playlist"
                )
            )
            if issues.count == limit { break }
        }
        return issues
    }
}

extension AssetLoader {
    /// Whether `text` holds `file:` in any case: the only way a remote playlist can name a local file.
    /// Read in place, colon to colon: a media playlist has one on each tag line, and few words.
    static func mentionsFileScheme(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var from = 4
            while let colon = bytes.firstIndex(ofByte: UInt8(ascii: ":"), from: from) {
                if zip(bytes[(colon - 4)..<colon], "file".utf8).allSatisfy({ $0 | 0x20 == $1 }) { return true }
                from = colon + 1
            }
            return false
        }
    }

    /// Whether the local file `url` lies inside the campaign's folder once symlinks are resolved
    /// (a symlink inside pointing outside is outside) — or, named inside the folder, resolves into
    /// one of the source's media roots (`--media-root`). Each folder is resolved once.
    mutating func isInside(_ url: URL) -> Bool {
        let standardized = url.standardizedFileURL
        guard self.source.resolvesSymlinks else { return standardized.path.hasPrefix(self.root) }
        // A path that names a file outside the folder is outside, whatever it resolves to: the
        // media route serves a campaign's files by their path below its folder.
        let linkedInto = self.source.mediaRoots.isEmpty || !standardized.path.hasPrefix(self.folderPath) ? [] : self.source.mediaRoots
        func allowed(_ resolved: String) -> Bool { resolved.hasPrefix(self.root) || linkedInto.contains { resolved.hasPrefix($0) } }
        let folder = standardized.deletingLastPathComponent().path
        let resolvedFolder: String
        if let known = self.resolvedFolders[folder] {
            resolvedFolder = known
        } else {
            let path = URL(fileURLWithPath: folder, isDirectory: true).resolvingSymlinksInPath().path
            resolvedFolder = path.hasSuffix("/") ? path : path + "/"
            self.resolvedFolders[folder] = resolvedFolder
        }
        guard allowed(resolvedFolder) else { return false }
        // The file itself may be a symlink (one that does not exist yet is not).
        let file = resolvedFolder + standardized.lastPathComponent
        guard (try? FileManager.default.destinationOfSymbolicLink(atPath: file)) != nil else { return true }
        return allowed(URL(fileURLWithPath: file).resolvingSymlinksInPath().path)
    }

    /// Why the local file `url` is refused as outside the campaign's folder: a path outside it, or
    /// one inside it that a symbolic link takes out (where the link points is said, since the path
    /// shown is inside).
    func outsideMessage(_ url: URL) -> String {
        let path = url.standardizedFileURL.path
        let advice = "keep the campaign and its media in one folder (copy the files, not a link to them)"
        guard path.hasPrefix(self.folderPath) else { return "\(path) is outside the campaign's folder \(self.root); \(advice)" }
        let resolved = url.standardizedFileURL.resolvingSymlinksInPath().path
        return "\(path) goes through a symbolic link: it resolves to \(resolved), outside the campaign's folder \(self.root); "
            + "files are read and served only from inside it, or from a folder named with --media-root (serve, validate, stitch, "
            + "preview): name the library the link points into, or \(advice)"
    }

    /// BANDWIDTH, AVERAGE-BANDWIDTH and FRAME-RATE of every variant within ``CampaignLimits``.
    mutating func checkLimits(_ multivariant: MultivariantPlaylist, file: String) {
        func check(_ attributes: some VariantAttributes, line: Int) {
            for (name, value) in [("BANDWIDTH", attributes.bandwidth), ("AVERAGE-BANDWIDTH", attributes.averageBandwidth)] {
                if let value, !(0...CampaignLimits.maxBandwidth).contains(value) {
                    self.issues.append(
                        CampaignIssue(
                            file: file,
                            line: line,
                            column: 0,
                            field: name,
                            "\(name)=\(value) is out of range; bits per second from 0 to \(CampaignLimits.maxBandwidth)"
                        )
                    )
                }
            }
            if attributes.attributes["BANDWIDTH"] != nil, attributes.bandwidth == nil {
                self.issues.append(
                    CampaignIssue(file: file, line: line, column: 0, field: "BANDWIDTH", "BANDWIDTH must be a whole number of bits per second")
                )
            }
        }
        for variant in multivariant.variants {
            check(variant.streamInf, line: variant.line)
            if let rate = variant.streamInf.frameRate, !CampaignLimits.frameRates.contains(rate) {
                self.issues.append(
                    CampaignIssue(
                        file: file,
                        line: variant.line,
                        column: 0,
                        field: "FRAME-RATE",
                        "FRAME-RATE=\(rate) is out of range; frames per second from \(CampaignLimits.frameRates.lowerBound) to \(CampaignLimits.frameRates.upperBound), e.g. 25 or 29.970"
                    )
                )
            }
        }
        for entry in multivariant.iFrameVariants { check(entry.value, line: entry.line) }
    }

    /// The playlist's duration within ``CampaignLimits/maxProgramDuration``, and every local URI
    /// it references (segments, keys, init sections) inside the campaign's folder; those are
    /// recorded in ``files``. False when something is wrong (the issues say what).
    mutating func checkLimits(_ playlist: MediaPlaylist, at url: URL) -> Bool {
        let before = self.issues.count
        if playlist.duration > CampaignLimits.maxProgramDuration {
            self.issues.append(
                CampaignIssue(
                    file: Self.name(url),
                    line: 0,
                    column: 0,
                    field: "EXTINF",
                    "the playlist runs \(playlist.duration) s; an asset may run at most \(CampaignLimits.maxProgramDuration) s (7 days)"
                )
            )
        }
        var lastKeys: [Key] = []
        var lastMap: Map?
        // Against a remote playlist only a `file:` URI resolves to a local file (RFC 3986 §5.2.2:
        // any other reference takes the base's scheme or its own): the rest need no resolving.
        let remote = !(playlist.url?.isFileURL ?? true)
        if remote, !Self.mentionsFileScheme(playlist.text) { return self.issues.count == before }
        for segment in playlist.segments {
            var references: [(uri: String, line: Int)] = [(String(segment.uri), segment.uriLineNumber)]
            if segment.keys != lastKeys {
                references += segment.keys.compactMap { key in key.uri.map { ($0, segment.infLineNumber) } }
                lastKeys = segment.keys
            }
            if let map = segment.map, map != lastMap {
                if let uri = map.uri { references.append((uri, segment.infLineNumber)) }
                lastMap = map
            }
            for (uri, line) in references {
                if remote, !uri.utf8.prefix(5).map({ $0 | 0x20 }).elementsEqual("file:".utf8) { continue }
                guard let resolved = playlist.resolve(uri), resolved.isFileURL else { continue }
                // A playlist on an origin names media on an origin: a local file it names (even one
                // inside the campaign's folder) would have this machine's tools (ffprobe) read it.
                if remote {
                    self.issues.append(
                        CampaignIssue(
                            file: Self.name(url),
                            line: line,
                            column: 0,
                            field: "uri",
                            "\(uri): a playlist on an origin names a local file; its media must be on an origin too (http or https)"
                        )
                    )
                    continue
                }
                guard self.isInside(resolved) else {
                    self.issues.append(
                        CampaignIssue(
                            file: Self.name(url),
                            line: line,
                            column: 0,
                            field: "uri",
                            "\(uri): " + self.outsideMessage(resolved) + " (or put the media on an http(s) origin)"
                        )
                    )
                    continue
                }
                let file = resolved.standardizedFileURL
                if self.files.media[file] == nil { self.files.media[file] = CampaignFiles.Reference(playlist: url.path, line: line) }
            }
        }
        return self.issues.count == before
    }
}
