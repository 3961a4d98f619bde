import AdCampaignStore
import AdStitching
import CompressNIO
import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// What every response needs whatever the route: CORS for web players (every origin may read
/// playlists and media; preflights answered), HEAD answered like GET without the body
/// (RFC 9110 §9.3.2; routes register both with ``Router/getAndHead(_:use:)``), and conditional
/// GET on the responses that carry an ETag (RFC 9110 §13.1.2).
struct HTTPSemanticsMiddleware: RouterMiddleware {
    typealias Context = AdStitchRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // A tunnel is no resource of ours, whatever its target (RFC 9110 §9.3.6).
        if request.method == .connect {
            var response = Problem(status: .methodNotAllowed, title: "Method not allowed", detail: "this server answers GET, HEAD and OPTIONS only")
                .response
            response.headers[.allow] = "GET, HEAD, OPTIONS"
            return Self.finish(response, method: request.method, ifNoneMatch: nil).response
        }
        if let problem = Self.pathProblem(request.uri.path), !(request.method == .options && request.uri.path == "*") {
            return Self.finish(problem.response, method: request.method, ifNoneMatch: nil).response
        }
        if request.method == .options { return Self.preflight(for: request.uri.path) }
        return try Self.finish(await next(request, context), method: request.method, ifNoneMatch: request.headers[.ifNoneMatch]).response
    }

    /// The answer to `OPTIONS` (a CORS preflight) of `path`: a session's quality reports are
    /// posted as JSON from web players' pages (``QualityController``); everything else is read-only.
    static func preflight(for path: String) -> Response {
        guard path.hasSuffix("/" + Routes.sessionQualityFile), let (_, _, file) = Routes.sessionFile(in: path), file == Routes.sessionQualityFile
        else { return Self.preflight }
        var response = Self.preflight
        response.headers[.accessControlAllowMethods] = "GET, HEAD, POST, OPTIONS"
        response.headers[.accessControlAllowHeaders] = "Range, If-None-Match, Content-Type"
        return response
    }

    /// The answer to `OPTIONS` (a CORS preflight) of any read-only path.
    static var preflight: Response {
        Response(
            status: .noContent,
            headers: [
                .accessControlAllowOrigin: "*", .accessControlAllowMethods: "GET, HEAD, OPTIONS",
                .accessControlAllowHeaders: "Range, If-None-Match", .accessControlMaxAge: "86400",
            ]
        )
    }

    /// What the middleware does to every answer on its way out, in one place for the router and
    /// for ``SessionFileDoor``: the CORS headers, `304 Not Modified` (its
    /// headers without Content-Length) when an If-None-Match matches the ETag of a 200, and no
    /// body for HEAD. `sendsBody`: whether the response's body goes out with it.
    static func finish(_ response: Response, method: HTTPRequest.Method, ifNoneMatch: String?) -> (response: Response, sendsBody: Bool) {
        var response = response
        response.headers[.accessControlAllowOrigin] = "*"
        response.headers[.accessControlExposeHeaders] = "Content-Length, Content-Range, ETag, AdStitch-Ignored-Attributes"
        // RFC 9110 §13.2.2: If-None-Match is evaluated before Range, so a 206 can become a 304 too.
        if let ifNoneMatch, response.status == .ok || response.status == .partialContent, let etag = response.headers.value(.eTag),
            Self.matches(ifNoneMatch, etag: etag)
        {
            var headers = response.headers
            headers[.contentLength] = nil
            headers[.contentRange] = nil
            return (Response(status: .notModified, headers: headers), false)
        }
        if method == .head {
            return (Response(status: response.status, headers: response.headers), false)
        }
        return (response, true)
    }
}

extension HTTPSemanticsMiddleware {
    /// The one rule for request paths: absolute (`/…`), with no empty segment (`//`, or a trailing
    /// `/` but for the root) and no `.` or `..` segment, percent-encoded or not. A router reads
    /// `media//ads` as `media/ads`, so such a path named a file under two names; now it names
    /// none (400). ``SessionFileDoor`` claims no such path: the router answers it, through this rule.
    static func pathProblem(_ path: String) -> Problem? {
        guard path.hasPrefix("/") else { return Problem.badRequest("the request target must be a path starting with /") }
        guard path != "/", !Self.isPlain(path) else { return nil }
        return Self.segmentProblem(path)
    }

    /// The rule read segment by segment, each percent-decoded: the problem of an absolute path
    /// ``isPlain(_:)`` could not vouch for.
    static func segmentProblem(_ path: String) -> Problem? {
        let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        for segment in segments {
            if segment.isEmpty { return Problem.badRequest("paths have no empty segments (// or a trailing /): \(path)") }
            // A malformed escape, or octets that are no UTF-8 (%c0%ae is an overlong '.' that
            // lenient decoders behind us would take for one).
            guard let decoded = segment.removingPercentEncoding else {
                return Problem.badRequest("a path segment is not percent-encoded UTF-8: \(segment.prefix(80))")
            }
            if decoded == "." || decoded == ".." { return Problem.badRequest("paths have no . or .. segments: \(path)") }
        }
        return nil
    }

    /// Whether `path` (starting with `/`, longer than it) obviously keeps the rule, read in one
    /// pass over its bytes: no `%` (so nothing to decode), no empty segment, no segment `.` or
    /// `..`. Most requests' paths are; the rule's own reading (a split, a decoding per segment)
    /// cost a seventh of the CPU of a session file answered through the router (docs/performance.md
    /// "One front door: measured, not taken").
    static func isPlain(_ path: some StringProtocol) -> Bool {
        var segmentLength = 0
        var dots = 0
        for byte in path.utf8.dropFirst() {
            switch byte {
            case UInt8(ascii: "/"):
                if segmentLength == 0 || segmentLength == dots && dots <= 2 { return false }
                (segmentLength, dots) = (0, 0)
            case UInt8(ascii: "%"):
                return false
            case UInt8(ascii: "."):
                segmentLength += 1
                dots += 1
            default:
                segmentLength += 1
            }
        }
        return segmentLength > 0 && !(segmentLength == dots && dots <= 2)
    }

    /// RFC 9110 §13.1.2: If-None-Match uses the weak comparison — `W/"x"` matches `"x"` and
    /// `W/"x"` — and `*` matches any current representation.
    static func matches(_ condition: String, etag: String) -> Bool {
        func opaque(_ tag: some StringProtocol) -> Substring {
            let trimmed = Substring(tag.trimmingCharacters(in: .whitespaces))
            return trimmed.hasPrefix("W/") ? trimmed.dropFirst(2) : trimmed
        }
        if condition.trimmingCharacters(in: .whitespaces) == "*" { return true }
        let current = opaque(etag)
        return condition.split(separator: ",").contains { opaque($0) == current }
    }
}

extension Response {
    /// A complete body with its strong ETag (a digest of the bytes) and Content-Length, gzipped
    /// when the request accepts it and the body is worth it (RFC 9110 §8.4; the gzip
    /// representation has its own ETag, and `Vary: Accept-Encoding` tells caches).
    /// `etag` (without quotes) names the bytes when the caller knows them by something cheaper
    /// than hashing them (a token-scoped answer by its token and file); else the body's digest.
    static func tagged(_ text: String, contentType: String, cache: String, for request: Request? = nil, etag: String? = nil) -> Response {
        let (headers, body) = Self.taggedParts(text, contentType: contentType, cache: cache, for: request, etag: etag)
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
    }

    /// The headers and body of ``tagged(_:contentType:cache:for:etag:)``, for callers that keep them.
    static func taggedParts(_ text: String, contentType: String, cache: String, for request: Request?, etag: String?) -> (HTTPFields, ByteBuffer) {
        Self.taggedParts(
            count: text.utf8.count,
            contentType: contentType,
            cache: cache,
            acceptsGzip: request.map { Self.acceptsGzip($0.headers[.acceptEncoding], range: $0.headers[.range]) } ?? false,
            etag: etag ?? Self.digest(text.utf8),
            plain: { ByteBuffer(string: text) },
            gzip: { Self.compressed(ByteBuffer(string: text)) }
        )
    }

    /// A stitched file's headers and body: gzip joined from the blocks `body` deflated at load
    /// when the file has any (``StitchedBody/gzip(_:)``), else compressed now; plain, the
    /// session's own bytes between the shared blocks' buffers (``StitchedBody/plainBody(_:)``).
    static func stitchedParts(
        _ file: RenderedBytes,
        _ body: StitchedBody,
        contentType: String,
        cache: String,
        gzip acceptsGzip: Bool,
        etag: String
    ) -> (HTTPFields, AnswerBody) {
        var headers = Self.headers(contentType: contentType, cache: cache)
        let hasBlocks = file.parts.contains { if case .block = $0 { true } else { false } }
        // Gzip only when it is smaller: a file whose rows all carry the viewer's values (a token in
        // every URI) goes out as stored deflate blocks, a little longer than plain — and a client
        // that decodes fewer bytes than Content-Length (libsoup: GStreamer) takes it as cut short.
        if acceptsGzip, file.count >= Self.gzipMinimum,
            let compressed = hasBlocks ? body.gzip(file) : Self.compressed(StitchedBody.plain(file)),
            compressed.readableBytes < file.count
        {
            Self.finish(&headers, gzip: true, etag: etag, count: compressed.readableBytes)
            return (headers, AnswerBody(compressed))
        }
        let plain = body.plainBody(file)
        Self.finish(&headers, gzip: false, etag: etag, count: plain.count)
        return (headers, plain)
    }

    /// The headers and the body (`plain`, or `gzip` when the request accepts it and `count`
    /// bytes are worth compressing) of a complete answer named `etag`.
    private static func taggedParts(
        count: Int,
        contentType: String,
        cache: String,
        acceptsGzip: Bool,
        etag: String,
        plain: () -> ByteBuffer,
        gzip: () -> ByteBuffer?
    ) -> (HTTPFields, ByteBuffer) {
        var headers = Self.headers(contentType: contentType, cache: cache)
        if acceptsGzip, count >= Self.gzipMinimum, let compressed = gzip(), compressed.readableBytes < count {
            Self.finish(&headers, gzip: true, etag: etag, count: compressed.readableBytes)
            return (headers, compressed)
        }
        let body = plain()
        Self.finish(&headers, gzip: false, etag: etag, count: body.readableBytes)
        return (headers, body)
    }

    /// Bodies shorter than this go out plain whatever the request accepts.
    private static let gzipMinimum = 1024

    private static func headers(contentType: String, cache: String) -> HTTPFields {
        [.contentType: contentType, .cacheControl: cache, .vary: "Accept-Encoding"]
    }

    /// The headers that depend on the representation sent: its encoding, ETag and length.
    private static func finish(_ headers: inout HTTPFields, gzip: Bool, etag: String, count: Int) {
        if gzip {
            headers[.contentEncoding] = "gzip"
            headers[.eTag] = "\"\(etag)-gz\""
        } else {
            headers[.eTag] = "\"\(etag)\""
        }
        headers[.contentLength] = String(count)
    }

    /// `buffer` gzip-compressed at ``gzip``'s level, right-sized (the compressor's buffer has room
    /// for the uncompressed size, ~20×); nil if zlib fails.
    static func compressed(_ buffer: ByteBuffer) -> ByteBuffer? {
        var buffer = buffer
        guard let compressed = try? buffer.compress(with: Self.gzip) else { return nil }
        return ByteBuffer(bytes: compressed.readableBytesView)
    }

    /// zlib's fastest level: a 100 KB playlist becomes 4.8 KB instead of 4.3 KB at the default
    /// level, in 130 µs instead of 330 µs — playlists are repetitive, CPU is what a replica runs out of.
    static let gzip = CompressionAlgorithm.gzip(configuration: .init(compressionLevel: .fastestCompression))

    /// The first 12 bytes of the SHA-256 of `bytes`, in hex.
    static func digest(_ bytes: some Sequence<UInt8>) -> String {
        var hasher = SHA256()
        bytes.withContiguousStorageIfAvailable { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) } ?? hasher.update(data: Array(bytes))
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(24)
        for byte in hasher.finalize().prefix(12) {
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0xf)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether a request gets gzip: its Accept-Encoding allows it, and it asks for no byte range —
    /// ranges are of the plain bytes (``AnswerBody/ranged(_:_:range:ifRange:)``), as a client that
    /// resumes a cut transfer, or a generic HTTP client, can use a part of them as it is.
    static func acceptsGzip(_ header: String?, range: String?) -> Bool {
        range == nil && Self.acceptsGzip(header)
    }

    /// Whether an Accept-Encoding header allows gzip (and does not give it q=0).
    static func acceptsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        // What players send (`gzip, deflate, br`): a list without parameters, read byte by byte.
        if !header.utf8.contains(UInt8(ascii: ";")) {
            return header.utf8.split(separator: UInt8(ascii: ",")).contains { item in
                let token = item.drop { $0 == UInt8(ascii: " ") || $0 == 9 }.reversed().drop { $0 == UInt8(ascii: " ") || $0 == 9 }
                return token.elementsEqual("*".utf8)
                    || token.count == 4 && zip(token.reversed(), "gzip".utf8).allSatisfy { $0 | 0x20 == $1 }
            }
        }
        for item in header.lowercased().split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.first == "gzip" || parts.first == "*" else { continue }
            let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return quality > 0
        }
        return false
    }
}

extension Router<AdStitchRequestContext> {
    /// Registers `handler` for GET and HEAD (the middleware drops the body of HEAD answers); the
    /// other methods get 405 with `Allow` (RFC 9110 §15.5.6), since every resource here is read-only.
    func getAndHead(
        _ path: RouterPath,
        use handler: @Sendable @escaping (Request, AdStitchRequestContext) async throws -> some ResponseGenerator
    ) {
        self.get(path, use: handler)
        self.head(path, use: handler)
        for method in [HTTPRequest.Method.post, .put, .delete, .patch, .trace, .connect] {
            self.on(path, method: method) { _, _ -> Response in Problem.readOnly }
        }
    }
}

extension HTTPFields {
    /// What `self[name]` answers — the value of the field, the values of a repeated one joined
    /// by ", " (RFC 9110 §5.3) — without its cost on the session-file path: HTTPFields' getter
    /// joins through the standard library's generic `joined(separator:)` and a lazy map, run
    /// unspecialised, 1.4 % of a stitched first answer's CPU in a `perf` profile (issue 53).
    func value(_ name: HTTPField.Name) -> String? {
        var value: String?
        for field in self where field.name == name {
            value = value.map { $0 + ", " + field.value } ?? field.value
        }
        return value
    }
}
