import HLSPlaylist

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The local assets (ads, slate) a catalogue's template read, each with what reading it did to
/// the load: the bytes it fed the revision's digest, in order, the files it named, the playlists
/// it parsed. Every title of the catalogue loads the same campaign file again with its own
/// programme; reusing these, a title's load reads, parses, lints and checks no ad playlist and no
/// ad segment path again, and still ends with the revision and files a load from scratch gives
/// (replicas and `adstitch stitch --title` agree on a title's revision).
///
/// The template is loaded again when its folder changes, so its readings are never older than
/// what the campaign serves.
public final class KnownAssets: Sendable {
    struct Entry: Sendable {
        let asset: Asset
        let feeds: [[UInt8]]
        let playlists: Set<URL>
        let media: [URL: CampaignFiles.Reference]
        let multivariants: [URL: MultivariantPlaylist]
        let mediaPlaylists: [URL: MediaPlaylist]
    }

    let entries: [URL: Entry]

    init(entries: [URL: Entry]) {
        self.entries = entries
    }

    /// The assets' multivariant playlist URLs.
    public var urls: Set<URL> { Set(self.entries.keys) }
}
