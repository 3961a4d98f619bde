import AdCampaign
import Crypto
import Foundation

/// A folder of campaigns as the store polls it: which campaign files it holds, and a cheap
/// fingerprint of everything a campaign reads, to tell when one changed.
struct CampaignFolder: Sendable {
    let url: URL

    /// The campaign files of the folder, sorted; throws when the folder cannot be listed.
    func campaignFiles() throws -> [URL] {
        let manager = FileManager.default
        var files: [URL] = []
        for name in try manager.contentsOfDirectory(atPath: self.url.path) {
            let url = self.url.appendingPathComponent(name)
            if name.hasSuffix(".yaml") || name.hasSuffix(".yml") {
                files.append(url)
            } else if manager.fileExists(atPath: url.appendingPathComponent("campaign.yaml").path) {
                files.append(url.appendingPathComponent("campaign.yaml"))
            }
        }
        return files.sorted { $0.path < $1.path }
    }

    /// Sizes and modification times of the campaign file, every playlist under its folder and
    /// every file its last good load referenced (segments, keys, init sections): cheap to
    /// compute every few seconds, and it changes when anything the campaign reads does — a
    /// deleted segment included.
    func fingerprint(_ file: URL, files: CampaignFiles?) -> String {
        var paths = Set([file.path])
        let folder = file.deletingLastPathComponent()
        if file.lastPathComponent == "campaign.yaml", let walker = FileManager.default.enumerator(atPath: folder.path) {
            for case let path as String in walker where path.hasSuffix(".m3u8") {
                paths.insert(folder.appendingPathComponent(path).path)
            }
        }
        if let files {
            for url in files.playlists { paths.insert(url.path) }
            for url in files.media.keys { paths.insert(url.path) }
        }
        // One stat(2) per file and a digest of path, size and time: a two-hour campaign
        // references some ten thousand files, polled every few seconds.
        var hasher = SHA256()
        for path in paths.sorted() {
            var status = stat()
            let found = stat(path, &status) == 0
            #if canImport(Darwin)
            let time = status.st_mtimespec
            #else
            let time = status.st_mtim
            #endif
            let stamp = found ? "\(status.st_size)|\(time.tv_sec).\(time.tv_nsec)" : "-"
            hasher.update(data: Data("\(path)|\(stamp)\n".utf8))
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// What a campaign file is called before it has loaded: its folder for `*/campaign.yaml`.
    static func name(of file: URL) -> String {
        file.lastPathComponent == "campaign.yaml"
            ? file.deletingLastPathComponent().lastPathComponent : file.deletingPathExtension().lastPathComponent
    }
}
