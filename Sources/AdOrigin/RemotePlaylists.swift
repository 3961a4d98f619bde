import AdCampaign
import Foundation
import Synchronization

/// The last answer of every remote playlist a server loaded, with its validators. A poll asks
/// the origin whether each of a campaign's playlists changed (conditional requests: an unchanged
/// playlist costs a 304 and no parse); the load a change brings reads the answers that poll got.
/// Each replica keeps its own: it is a cache of what the origin said, and replicas that got the
/// same bytes compute the same revision (the revision is a digest of the bytes).
public final class RemotePlaylists: Sendable {
    public let client: OriginClient
    private let answers = Mutex([URL: FetchedPlaylist]())

    public init(client: OriginClient) {
        self.client = client
    }

    /// Local files, and remote playlists through the client: a playlist with a known answer is
    /// asked for conditionally (304: the known bytes). With `current`, known answers are used as
    /// they are, without asking: for the load right after ``changed(_:)`` asked for each.
    public func source(current: Bool = false) -> PlaylistSource {
        PlaylistSource.files { url, options in
            let known = self.answers.withLock { $0[url] }
            if current, let known { return (Data(known.bytes), known.url) }
            let settings = self.client.settings.applying(options)
            switch try self.client.fetchWaiting(url, settings: settings, etag: known?.etag, lastModified: known?.lastModified) {
            case .fetched(let playlist):
                self.answers.withLock { $0[url] = playlist }
                return (Data(playlist.bytes), playlist.url)
            case .notModified:
                // A 304 answers only the validators sent, so there is a known answer.
                guard let known else { throw OriginError(url: url, reason: .status(304), attempts: 1) }
                return (Data(known.bytes), known.url)
            }
        }
    }

    /// Whether any of `playlists` (each with its campaign's `origin:` options) changed since its
    /// known answer: a conditional request each (all of them, so that the load after a change
    /// reads current answers only), stopping at the first failure. A playlist without a known
    /// answer (its first fetch failed) counts as changed once it answers.
    public func changed(_ playlists: [URL: OriginOptions]) throws(OriginError) -> Bool {
        var changed = false
        for (url, options) in playlists.sorted(by: { $0.key.absoluteString < $1.key.absoluteString }) {
            let known = self.answers.withLock { $0[url] }
            let settings = self.client.settings.applying(options)
            let outcome = try self.client.fetchWaiting(url, settings: settings, etag: known?.etag, lastModified: known?.lastModified)
            guard case .fetched(let playlist) = outcome else { continue }
            self.answers.withLock { $0[url] = playlist }
            // An origin without validators answers 200 each time: the bytes tell.
            if known?.bytes != playlist.bytes || known?.url != playlist.url { changed = true }
        }
        return changed
    }

    /// Forgets the answers of playlists no campaign uses any more.
    public func keep(only urls: Set<URL>) {
        self.answers.withLock { answers in answers = answers.filter { urls.contains($0.key) } }
    }
}
