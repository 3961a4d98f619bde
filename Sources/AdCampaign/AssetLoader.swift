import HLSPlaylist

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Loads HLS assets from files (or another ``PlaylistSource``): each playlist read and parsed once (a campaign may reference a
/// playlist from several places), variables resolved, lint errors reported against the playlist's
/// own file and line. Feeds every byte read into the campaign's revision digest.
struct AssetLoader {
    /// The campaign's folder with symlinks resolved and a trailing `/`: no local file outside it is read or referenced.
    let root: String
    /// The campaign's folder as named, before symbolic links are resolved, ending in `/`.
    let folderPath: String
    private var assets: [URL: Asset] = [:]
    private var multivariants: [URL: MultivariantPlaylist] = [:]
    private var mediaPlaylists: [URL: MediaPlaylist] = [:]
    var issues: [CampaignIssue] = []
    private(set) var digest = FNV1a()
    /// Every local file the assets read or reference.
    var files = CampaignFiles()
    /// Folders (standardised) and where they are once symlinks are resolved, with a trailing `/`.
    var resolvedFolders: [String: String] = [:]

    /// Local assets a catalogue's template read (``KnownAssets``): a title's load replays them.
    var known: KnownAssets?
    /// Set while a catalogue's template loads: each local asset's reading is kept for its titles.
    var recordsAssets = false
    private var recorded: [URL: KnownAssets.Entry] = [:]
    /// The digest's feeds while a local asset is read and recorded.
    private var feeds: [[UInt8]]?

    /// Where playlists are read from.
    let source: PlaylistSource
    /// How remote ones are fetched (the campaign's `origin:` block).
    var origin = OriginOptions()

    init(folder: URL, source: PlaylistSource = .files) {
        let standardized = folder.standardizedFileURL
        let path = source.resolvesSymlinks ? standardized.resolvingSymlinksInPath().path : standardized.path
        self.root = path.hasSuffix("/") ? path : path + "/"
        self.folderPath = standardized.path.hasSuffix("/") ? standardized.path : standardized.path + "/"
        self.source = source
    }

    mutating func feed(_ bytes: some Sequence<UInt8>) {
        self.digest.feed(bytes)
    }

    /// A live channel's asset (`program: { live: URL }`): its multivariant playlist as any other
    /// (in the revision, polled for changes), and one window of each media playlist, read once to
    /// learn the channel's renditions and container — outside the revision, never polled: a
    /// window changes every few seconds. The windows must be live (no `EXT-X-ENDLIST`) and dated
    /// (`EXT-X-PROGRAM-DATE-TIME`: live breaks are placed by date).
    mutating func liveAsset(at url: URL, field: String, campaignFile: String, line: Int, column: Int) -> Asset? {
        self.readingLive = true
        defer { self.readingLive = false }
        return self.asset(at: url, field: field, campaignFile: campaignFile, line: line, column: column)
    }

    /// Set while ``liveAsset(at:field:campaignFile:line:column:)`` reads: media playlists are live windows.
    private var readingLive = false

    /// The asset whose multivariant playlist is at `url`, or nil (with issues) when it cannot be used.
    mutating func asset(at url: URL, field: String, campaignFile: String, line: Int, column: Int) -> Asset? {
        if let loaded = self.assets[url] { return loaded }
        let local = url.isFileURL && !self.readingLive
        if local, let entry = self.known?.entries[url] {
            self.replay(entry)
            return entry.asset
        }
        guard local, self.recordsAssets else { return self.read(at: url, field: field, campaignFile: campaignFile, line: line, column: column) }
        // What reading it does to this load, kept: the digest's feeds, the files, the caches.
        let before = (
            playlists: self.files.playlists, media: Set(self.files.media.keys), multivariants: Set(self.multivariants.keys),
            mediaPlaylists: Set(self.mediaPlaylists.keys)
        )
        self.feeds = []
        defer { self.feeds = nil }
        guard let asset = self.read(at: url, field: field, campaignFile: campaignFile, line: line, column: column) else { return nil }
        self.recorded[url] = KnownAssets.Entry(
            asset: asset,
            feeds: self.feeds ?? [],
            playlists: self.files.playlists.subtracting(before.playlists),
            media: self.files.media.filter { !before.media.contains($0.key) },
            multivariants: self.multivariants.filter { !before.multivariants.contains($0.key) },
            mediaPlaylists: self.mediaPlaylists.filter { !before.mediaPlaylists.contains($0.key) }
        )
        return asset
    }

    /// The local assets this load read and recorded (``recordsAssets``).
    var knownAssets: KnownAssets { KnownAssets(entries: self.recorded) }

    /// What reading `entry`'s asset did to the load it was read in, done to this one: the digest
    /// gets the same bytes in the same order, the files and caches the same entries (a file
    /// another asset named first keeps that reference, as reading would).
    private mutating func replay(_ entry: KnownAssets.Entry) {
        for bytes in entry.feeds { self.digest.feed(bytes) }
        self.files.playlists.formUnion(entry.playlists)
        for (url, reference) in entry.media where self.files.media[url] == nil { self.files.media[url] = reference }
        self.multivariants.merge(entry.multivariants) { current, _ in current }
        self.mediaPlaylists.merge(entry.mediaPlaylists) { current, _ in current }
        self.assets[entry.asset.url] = entry.asset
    }

    private mutating func read(at url: URL, field: String, campaignFile: String, line: Int, column: Int) -> Asset? {
        let refused =
            !url.isFileURL
            ? (self.source.fetch == nil
                ? "\(url.absoluteString) is remote, and this source reads local playlists only — copy the asset next to the campaign" : nil)
            : !self.isInside(url) ? self.outsideMessage(url) : nil
        if let refused {
            self.issues.append(CampaignIssue(file: campaignFile, line: line, column: column, field: field, refused))
            return nil
        }
        guard let multivariant = self.multivariant(at: url, field: field, campaignFile: campaignFile, line: line, column: column) else {
            return nil
        }
        let before = self.issues.count
        self.checkLimits(multivariant, file: Self.name(url))
        var variants: [Asset.Variant] = []
        for variant in multivariant.variants {
            guard let variantURL = multivariant.resolve(variant.uri), let playlist = self.media(at: variantURL, from: url, line: variant.uriLine)
            else { continue }
            variants.append(Asset.Variant(streamInf: variant.streamInf, url: variantURL, playlist: playlist))
        }
        var iFrames: [Asset.IFrameVariant] = []
        for entry in multivariant.iFrameVariants {
            guard let uri = entry.value.uri, let iFrameURL = multivariant.resolve(uri),
                let playlist = self.media(at: iFrameURL, from: url, line: entry.line)
            else { continue }
            iFrames.append(Asset.IFrameVariant(streamInf: entry.value, url: iFrameURL, playlist: playlist))
        }
        var renditions: [Asset.Rendition] = []
        for entry in multivariant.renditions {
            guard let uri = entry.value.uri else {
                renditions.append(Asset.Rendition(media: entry.value, url: nil, playlist: nil))
                continue
            }
            guard let renditionURL = multivariant.resolve(uri), let playlist = self.media(at: renditionURL, from: url, line: entry.line) else {
                continue
            }
            renditions.append(Asset.Rendition(media: entry.value, url: renditionURL, playlist: playlist))
        }
        if variants.isEmpty, self.issues.count == before {
            self.issues.append(
                CampaignIssue(file: Self.name(url), line: 0, column: 0, field: "", "the multivariant playlist has no variant streams")
            )
        }
        guard self.issues.count == before else { return nil }
        let asset = Asset(url: url, multivariant: multivariant, variants: variants, iFrameVariants: iFrames, renditions: renditions)
        self.assets[url] = asset
        return asset
    }

    private mutating func multivariant(at url: URL, field: String, campaignFile: String, line: Int, column: Int) -> MultivariantPlaylist? {
        if let cached = self.multivariants[url] { return cached }
        guard let playlist = self.parse(url, referencedFrom: campaignFile, line: line, column: column, field: field) else { return nil }
        guard case .multivariant(let multivariant) = playlist else {
            self.issues.append(
                CampaignIssue(
                    file: campaignFile,
                    line: line,
                    column: column,
                    field: field,
                    "\(Self.name(url)) is a media playlist; point at the asset's multivariant (master) playlist"
                )
            )
            return nil
        }
        do {
            let resolved = try multivariant.resolvingVariables()
            self.multivariants[url] = resolved
            return resolved
        } catch {
            self.issues.append(CampaignIssue(file: Self.name(url), line: error.line, column: 0, field: error.code.rawValue, error.message))
            return nil
        }
    }

    private mutating func media(at url: URL, from masterURL: URL, line: Int) -> MediaPlaylist? {
        if let cached = self.mediaPlaylists[url] { return cached }
        guard url.isFileURL || self.source.fetch != nil else {
            self.issues.append(
                CampaignIssue(
                    file: Self.name(masterURL),
                    line: line,
                    column: 0,
                    field: "",
                    "\(url.absoluteString) is remote, and this source reads local playlists only"
                )
            )
            return nil
        }
        guard !url.isFileURL || self.isInside(url) else {
            self.issues.append(
                CampaignIssue(
                    file: masterURL.path,
                    line: line,
                    column: 0,
                    field: "uri",
                    self.outsideMessage(url)
                )
            )
            return nil
        }
        guard let playlist = self.parse(url, referencedFrom: Self.name(masterURL), line: line, column: 0, field: "", window: self.readingLive)
        else { return nil }
        guard case .media(let media) = playlist else {
            self.issues.append(
                CampaignIssue(file: Self.name(masterURL), line: line, column: 0, field: "", "\(Self.name(url)) is not a media playlist")
            )
            return nil
        }
        do {
            let multivariant = self.multivariants[masterURL]
            let resolved = try media.resolvingVariables(importingFrom: multivariant)
            if self.readingLive {
                return self.checkLiveWindow(resolved, at: url) ? resolved : nil
            }
            guard resolved.hasEndList else {
                self.issues.append(
                    CampaignIssue(
                        file: Self.name(url),
                        line: 0,
                        column: 0,
                        field: "vod",
                        "the media playlist has no EXT-X-ENDLIST; stitching needs finished (VOD) playlists"
                    )
                )
                return nil
            }
            guard self.checkLimits(resolved, at: url) else { return nil }
            self.mediaPlaylists[url] = resolved
            return resolved
        } catch {
            self.issues.append(CampaignIssue(file: Self.name(url), line: error.line, column: 0, field: error.code.rawValue, error.message))
            return nil
        }
    }

    /// A live channel's window as read at load: live, dated, within the limits.
    private mutating func checkLiveWindow(_ playlist: MediaPlaylist, at url: URL) -> Bool {
        let problem: String? =
            playlist.hasEndList
            ? "the playlist has EXT-X-ENDLIST: the channel has ended or is VOD; use program: { playlist: … } for a finished programme"
            : !playlist.segments.isEmpty && playlist.segments.first?.programDateTime == nil
                ? "the live playlist's first segment has no EXT-X-PROGRAM-DATE-TIME; live breaks are placed by date, so the packager must write it"
                : nil
        if let problem {
            self.issues.append(CampaignIssue(file: Self.name(url), line: 0, column: 0, field: "live", problem))
            return false
        }
        return self.checkLimits(playlist, at: url)
    }

    /// Reads, parses and lints a playlist; lint errors are issues against the playlist's file.
    /// `window`: a live channel's media playlist, fetched without the source's observer and kept
    /// out of the revision digest (``liveAsset(at:field:campaignFile:line:column:)``).
    private mutating func parse(_ url: URL, referencedFrom file: String, line: Int, column: Int, field: String, window: Bool = false) -> Playlist? {
        func refuse(_ message: String) -> Playlist? {
            self.issues.append(CampaignIssue(file: file, line: line, column: column, field: field, message))
            return nil
        }
        let data: Data
        var location = url
        if url.isFileURL {
            guard let bytes = try? self.source.read(url) else {
                return refuse("cannot read \(url.path): the file is missing or unreadable; playlist paths are relative to the campaign file's folder")
            }
            data = bytes
            self.files.playlists.insert(url)
        } else {
            guard let fetch = window ? self.source.unobservedFetch : self.source.fetch else {
                return refuse("\(url.absoluteString) is remote, and this source reads local playlists only")
            }
            do {
                (data, location) = try fetch(url, self.origin)
            } catch {
                return refuse("cannot fetch the playlist: \(error)")
            }
        }
        guard data.count <= CampaignLimits.maxPlaylistBytes else {
            return refuse("\(Self.name(url)) is \(data.count) bytes; playlists may be at most \(CampaignLimits.maxPlaylistBytes) bytes")
        }
        // Not the path: it depends on where this copy of the campaign lives, and every replica must
        // compute the same revision (plans are seeded with it). The YAML and the multivariant
        // playlists, fed too, already name every file; the length keeps files apart in the digest.
        // Comment lines (`#` not followed by `EXT`, RFC 8216bis §4.1) are left out: an origin that
        // stamps each answer with a comment would otherwise make a revision a poll.
        if !window {
            let significant = Self.withoutComments(data)
            let length = Array("\(significant.count)\n".utf8)
            self.digest.feed(length)
            self.digest.feed(significant)
            if self.feeds != nil { self.feeds?.append(contentsOf: [length, [UInt8](significant)]) }
        }
        do {
            // Relative URIs resolve against where the playlist was found (after redirects).
            let playlist = try PlaylistParser().parse(bytes: data, url: location)
            let errors = PlaylistLinter().lint(playlist).filter { $0.severity == .error }
            for error in errors {
                self.issues.append(CampaignIssue(file: Self.name(url), line: error.line ?? 0, column: 0, field: error.rule, error.message))
            }
            return errors.isEmpty ? playlist : nil
        } catch {
            self.issues.append(CampaignIssue(file: Self.name(url), line: error.line, column: 0, field: error.code.rawValue, error.message))
            return nil
        }
    }

    /// The playlist's bytes without its comment lines (the same bytes when it has none — read in
    /// place, not copied: most playlists have none).
    static func withoutComments(_ data: Data) -> Data {
        let kept = data.withUnsafeBytes { raw -> [UInt8]? in
            let bytes = raw.bindMemory(to: UInt8.self)
            var out: [UInt8]?
            var start = 0
            while start < bytes.count {
                let end = bytes.firstIndex(ofByte: UInt8(ascii: "\n"), from: start).map { $0 + 1 } ?? bytes.count
                let line = UnsafeBufferPointer(rebasing: bytes[start..<end])
                let isComment = line.first == UInt8(ascii: "#") && !line.dropFirst().starts(with: "EXT".utf8)
                if isComment, out == nil {
                    out = Array(UnsafeBufferPointer(rebasing: bytes[..<start]))
                } else if !isComment {
                    out?.append(contentsOf: line)
                }
                start = end
            }
            return out
        }
        return kept.map { Data($0) } ?? data
    }

    /// A playlist as issues name it: its path when local, its URL when remote.
    static func name(_ url: URL) -> String {
        url.isFileURL ? url.path : url.absoluteString
    }
}
