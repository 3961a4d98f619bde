import AdCampaign
import Crypto
import Foundation

/// A folder of campaigns as the store polls it: which campaign files it holds, and a cheap
/// fingerprint of everything a campaign reads, to tell when one changed.
package struct CampaignFolder: Sendable {
    let url: URL

    package init(url: URL) {
        self.url = url
    }

    /// A YAML file of the folder that is not loaded as a campaign, and why (the log at start and
    /// `GET /v1/campaigns` say so: a file skipped without a word looks like a campaign that loaded).
    package struct Skipped: Sendable, Hashable {
        /// Relative to the folder.
        package let file: String
        package let reason: String
    }

    /// The campaign files of the folder, sorted: every `*.yaml` (`*.yml`) at the top and every
    /// `*/campaign.yaml`; with the YAML files one folder down that are not loaded, and why.
    /// Throws when the folder cannot be listed.
    func campaignFiles() throws -> (files: [URL], skipped: [Skipped]) {
        let manager = FileManager.default
        var files: [URL] = []
        var skipped: [Skipped] = []
        func isYAML(_ name: String) -> Bool { name.hasSuffix(".yaml") || name.hasSuffix(".yml") }
        for name in try manager.contentsOfDirectory(atPath: self.url.path) {
            let url = self.url.appendingPathComponent(name)
            if isYAML(name) {
                files.append(url)
                continue
            }
            var isFolder: ObjCBool = false
            guard manager.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue else { continue }
            let inside = ((try? manager.contentsOfDirectory(atPath: url.path)) ?? []).filter(isYAML).sorted()
            let hasCampaign = inside.contains("campaign.yaml")
            if hasCampaign { files.append(url.appendingPathComponent("campaign.yaml")) }
            for other in inside where other != "campaign.yaml" {
                let reason =
                    if hasCampaign {
                        "\(name)/ holds one campaign, its campaign.yaml: move this one into a folder of its own (as campaign.yaml) or to the top of the campaigns folder"
                    } else if other == "campaign.yml" {
                        "a folder's campaign is named campaign.yaml: rename it \(name)/campaign.yaml"
                    } else {
                        "\(name)/ has no campaign.yaml, and a folder's campaign is its campaign.yaml: rename it \(name)/campaign.yaml, or move it to the top of the campaigns folder"
                    }
                skipped.append(Skipped(file: "\(name)/\(other)", reason: reason))
            }
        }
        return (files.sorted { $0.path < $1.path }, skipped.sorted { $0.file < $1.file })
    }

    /// The files a load referenced (playlists, segments, keys, init sections) as sorted paths:
    /// worked out once per load, stamped on every poll.
    static func watched(_ files: CampaignFiles?) -> [String] {
        guard let files else { return [] }
        return Set(files.playlists.map(\.path) + files.media.keys.map(\.path)).sorted()
    }

    /// Sizes and modification times of the campaign file, every playlist under its folder and
    /// every file its last good load referenced (`watched`: segments, keys, init sections): cheap
    /// to compute every few seconds, and it changes when anything the campaign reads does — a
    /// deleted segment included.
    package func fingerprint(_ file: URL, watched: [String]) -> String {
        var paths = Set([file.path])
        if file.lastPathComponent == "campaign.yaml" {
            paths.formUnion(Self.playlists(under: file.deletingLastPathComponent().path))
        }
        // One stat(2) per file and a digest of path, size and time, without a string per file:
        // a two-hour campaign references some ten thousand files, polled every few seconds.
        var hasher = SHA256()
        func stamp(_ path: String) {
            var status = stat()
            let found = stat(path, &status) == 0
            #if canImport(Darwin)
            let time = status.st_mtimespec
            #else
            let time = status.st_mtim
            #endif
            var path = path
            path.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
            var numbers = found ? (Int64(status.st_size), Int64(time.tv_sec), Int64(time.tv_nsec)) : (-1, 0, 0)
            withUnsafeBytes(of: &numbers) { hasher.update(bufferPointer: $0) }
        }
        for path in paths.sorted() { stamp(path) }
        for path in watched { stamp(path) }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// The paths of the `.m3u8` files under `folder` and its subfolders (not through symlinked
    /// folders), read with `readdir`: a campaign folder holds thousands of segments, and
    /// Foundation's enumerator spent half of every poll rewriting their paths.
    package static func playlists(under folder: String) -> [String] {
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var found: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name != ".", name != ".." else { continue }
            let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            var type = entry.pointee.d_type
            if type == UInt8(DT_UNKNOWN) {  // some file systems do not say: ask
                var status = stat()
                guard lstat(path, &status) == 0 else { continue }
                type = (status.st_mode & S_IFMT) == S_IFDIR ? UInt8(DT_DIR) : UInt8(DT_REG)
            }
            if type == UInt8(DT_DIR) {
                found += Self.playlists(under: path)
            } else if name.hasSuffix(".m3u8") {
                found.append(path)
            }
        }
        return found
    }

    /// What a campaign file is called before it has loaded: its folder for `*/campaign.yaml`.
    static func name(of file: URL) -> String {
        file.lastPathComponent == "campaign.yaml"
            ? file.deletingLastPathComponent().lastPathComponent : file.deletingPathExtension().lastPathComponent
    }
}
