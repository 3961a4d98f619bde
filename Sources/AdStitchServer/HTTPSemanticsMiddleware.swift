import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// What every response needs whatever the route: CORS for web players (every origin may read
/// playlists and media; preflights answered), HEAD answered like GET without the body
/// (RFC 9110 §9.3.2; routes register both with ``Router/getAndHead(_:use:)``), and conditional
/// GET on the responses that carry an ETag (RFC 9110 §13.1.2).
struct HTTPSemanticsMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.method == .options {
            return Response(
                status: .noContent,
                headers: [
                    .accessControlAllowOrigin: "*", .accessControlAllowMethods: "GET, HEAD, OPTIONS",
                    .accessControlAllowHeaders: "Range, If-None-Match", .accessControlMaxAge: "86400",
                ])
        }
        var response = try await next(request, context)
        response.headers[.accessControlAllowOrigin] = "*"
        response.headers[.accessControlExposeHeaders] = "Content-Length, Content-Range, ETag"
        if let etag = response.headers[.eTag], response.status == .ok,
            let condition = request.headers[.ifNoneMatch],
            condition == "*" || condition.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag })
        {
            var headers = response.headers
            headers[.contentLength] = nil
            return Response(status: .notModified, headers: headers)
        }
        if request.method == .head {
            return Response(status: response.status, headers: response.headers)
        }
        return response
    }
}

extension Response {
    /// A complete body with its strong ETag (a digest of the bytes) and Content-Length.
    static func tagged(_ text: String, contentType: String, cache: String) -> Response {
        let digest = SHA256.hash(data: Data(text.utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
        return Response(
            status: .ok,
            headers: [.contentType: contentType, .cacheControl: cache, .eTag: "\"\(digest)\"", .contentLength: String(text.utf8.count)],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}

extension Router<BasicRequestContext> {
    /// Registers `handler` for GET and HEAD (the middleware drops the body of HEAD answers).
    func getAndHead(
        _ path: RouterPath, use handler: @Sendable @escaping (Request, BasicRequestContext) async throws -> some ResponseGenerator
    ) {
        self.get(path, use: handler)
        self.head(path, use: handler)
    }
}
