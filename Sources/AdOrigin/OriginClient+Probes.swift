import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// What the client does besides fetching playlists: a source's validators (`HEAD`), a tracking
/// pixel's ping, a creative's download to a file, and whether an address policy refuses a URL.
extension OriginClient {
    /// What identifies the bytes at `url` now, from a `HEAD` (one try, within `timeout`): its
    /// `ETag`, `Last-Modified` and `Content-Length`, as one string (empty parts when not sent);
    /// nil when the server does not answer 2xx. A creative's source changes when this does.
    public func validators(_ url: URL, timeout: Duration, settings: OriginSettings? = nil) async -> String? {
        let settings = settings ?? self.settings
        guard let checked = await self.checked(url, settings.addresses), let client = self.client(for: settings) else { return nil }
        do {
            var headers = HTTPHeaders([("User-Agent", settings.userAgent)])
            if let host = checked.host { headers.replaceOrAdd(name: "Host", value: host) }
            let request = try HTTPClient.Request(url: checked.connect, method: .HEAD, headers: headers)
            let response = try await client.execute(request: request, deadline: .now() + TimeAmount(timeout)).get()
            guard (200..<300).contains(Int(response.status.code)) else { return nil }
            return ["ETag", "Last-Modified", "Content-Length"].map { response.headers.first(name: $0) ?? "" }.joined(separator: "|")
        } catch {
            return nil
        }
    }

    /// What a tracking request came to.
    public enum Ping: Sendable, Equatable {
        /// The answer's status.
        case answered(Int)
        /// No answer (connection, timeout).
        case unanswered
        /// Not asked: not an http(s) URL, or the settings' address policy refuses it (asking again
        /// would not change that).
        case refused
    }

    /// A tracking request: one `GET` of `url` with `headers`, its body dropped, within `timeout`.
    /// Not counted with the origins' requests.
    public func ping(_ url: URL, headers: [(name: String, value: String)], timeout: Duration, settings: OriginSettings? = nil) async -> Ping {
        let settings = settings ?? self.settings
        guard let checked = await self.checked(url, settings.addresses) else { return .refused }
        guard let client = self.client(for: settings) else { return .unanswered }
        do {
            var fields = HTTPHeaders([("User-Agent", settings.userAgent)])
            for (name, value) in headers { fields.add(name: name, value: value) }
            if let host = checked.host { fields.replaceOrAdd(name: "Host", value: host) }
            let request = try HTTPClient.Request(url: checked.connect, method: .GET, headers: fields)
            let response = try await client.execute(request: request, deadline: .now() + TimeAmount(timeout)).get()
            return .answered(Int(response.status.code))
        } catch {
            return .unanswered
        }
    }

    /// Downloads `url` into the file at `path` (replaced): at most `settings.maxBytes` (a larger
    /// answer is cut off and refused, however it announces itself), the whole of it within
    /// `settings.timeout` (a source that crawls or never ends is stopped), redirects followed —
    /// each hop checked under the settings' address policy — and the caller's cancellation
    /// heeded. Returns the bytes written. What conditioning reads: ffmpeg never fetches a URL an
    /// ad server named.
    public func download(_ url: URL, to path: String, settings: OriginSettings) async throws(OriginError) -> Int {
        let deadline = NIODeadline.now() + TimeAmount(settings.timeout)
        var hop = url
        for redirects in 0...settings.maxRedirects {
            try? FileManager.default.removeItem(atPath: path)
            guard let checked = await self.checked(hop, settings.addresses) else {
                let reason: OriginError.Reason =
                    hop.scheme.map({ ["http", "https"].contains($0.lowercased()) }) == true ? .refused("its address is not public") : .notHTTP
                throw OriginError(url: hop, reason: reason, attempts: 1)
            }
            let progress: FileDownloadDelegate.Progress
            do {
                var headers = HTTPHeaders([("User-Agent", settings.userAgent)])
                if let host = checked.host { headers.replaceOrAdd(name: "Host", value: host) }
                let request = try HTTPClient.Request(url: checked.connect, method: .GET, headers: headers)
                let limit = settings.maxBytes
                let delegate = try FileDownloadDelegate(
                    path: path,
                    reportHead: { task, head in
                        if let length = head.headers.first(name: "Content-Length").flatMap(Int.init), length > limit { task.cancel() }
                    },
                    reportProgress: { task, progress in
                        if progress.receivedBytes > limit { task.cancel() }
                    }
                )
                guard let client = self.client(for: settings) else { throw ShutDown() }
                let task = client.execute(request: request, delegate: delegate, deadline: deadline)
                progress = try await withTaskCancellationHandler {
                    try await task.futureResult.get()
                } onCancel: {
                    task.cancel()
                }
            } catch {
                try? FileManager.default.removeItem(atPath: path)
                let cancelled = (error as? HTTPClientError) == .cancelled
                if cancelled, !Task.isCancelled { throw OriginError(url: hop, reason: .tooLarge(limit: settings.maxBytes), attempts: 1) }
                if cancelled { throw OriginError(url: hop, reason: .cancelled, attempts: 1) }
                if (error as? HTTPClientError) == .deadlineExceeded { throw OriginError(url: hop, reason: .timeout, attempts: 1) }
                throw OriginError(url: hop, reason: .connection("\(error)"), attempts: 1)
            }
            let status = Int(progress.head.status.code)
            if [301, 302, 303, 307, 308].contains(status), let location = progress.head.headers.first(name: "Location") {
                guard redirects < settings.maxRedirects, let next = URL(string: location, relativeTo: hop)?.absoluteURL else { break }
                hop = next
                continue
            }
            guard (200..<300).contains(status) else {
                try? FileManager.default.removeItem(atPath: path)
                throw OriginError(url: hop, reason: .status(status), attempts: 1)
            }
            return progress.receivedBytes
        }
        try? FileManager.default.removeItem(atPath: path)
        throw OriginError(url: url, reason: .tooManyRedirects(limit: settings.maxRedirects), attempts: 1)
    }

    /// Why `policy` refuses `url`, or nil when it may be fetched (its host resolved off any event
    /// loop when it must be).
    public func refusal(of url: URL, under policy: AddressPolicy) async -> String? {
        let result: Result<AddressPolicy.Checked, AddressPolicy.Refusal>?
        if let decided = policy.checkWithoutResolving(url) {
            result = decided
        } else {
            result = try? await self.resolver.runIfActive { policy.check(url) }
        }
        switch result {
        case .success?: return nil
        case .failure(let refusal)?: return refusal.description
        case nil: return "\(Redaction.url(url.absoluteString)) is not fetched: \(ShutDown())"
        }
    }
}
