import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// An error response as `application/problem+json` (RFC 9457), with a message a person can
/// act on. A Hummingbird `HTTPResponseError`, so it renders itself wherever it is thrown.
struct Problem: HTTPResponseError {
    var status: HTTPResponse.Status
    var title: String
    var detail: String

    static func notFound(_ detail: String) -> Problem { Problem(status: .notFound, title: "Not found", detail: detail) }
    static func badRequest(_ detail: String) -> Problem { Problem(status: .badRequest, title: "Bad request", detail: detail) }
    static func forbidden(_ detail: String) -> Problem { Problem(status: .forbidden, title: "Forbidden", detail: detail) }

    /// The answer of every resource here to a method that would change it (RFC 9110 §15.5.6:
    /// 405 with `Allow`): all are read-only.
    static var readOnly: Response {
        let (headers, body) = Self.readOnlyParts
        return Response(status: .methodNotAllowed, headers: headers, body: ResponseBody(byteBuffer: body))
    }

    /// The headers and body of ``readOnly``.
    static var readOnlyParts: (HTTPFields, ByteBuffer) {
        var (headers, body) = Problem(
            status: .methodNotAllowed,
            title: "Method not allowed",
            detail: "this resource answers GET, HEAD and OPTIONS only"
        )
        .parts
        headers[.contentLength] = String(body.readableBytes)
        headers[.allow] = "GET, HEAD, OPTIONS"
        return (headers, body)
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        self.response
    }

    var response: Response {
        let (headers, body) = self.parts
        return Response(status: self.status, headers: headers, body: ResponseBody(byteBuffer: body))
    }

    /// The headers and body of ``response``.
    var parts: (HTTPFields, ByteBuffer) {
        let body: [String: Any] = ["type": "about:blank", "title": self.title, "status": Int(self.status.code), "detail": self.detail]
        let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
        return ([.contentType: "application/problem+json", .cacheControl: "no-store"], ByteBuffer(bytes: data))
    }
}

/// Turns every thrown error into its `application/problem+json` response inside the middleware
/// stack — ``Problem``s as they render themselves, Hummingbird's `HTTPError`s (an unknown path)
/// and anything unexpected as problems too — so bad input never becomes a bare 500, and the
/// metrics middleware outside counts the status the client gets.
struct ProblemMiddleware: RouterMiddleware {
    typealias Context = AdStitchRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            return Self.problem(error, path: request.uri.path, logger: context.logger).response
        }
    }

    /// The problem an error answers as: a ``Problem`` itself, Hummingbird's `HTTPError` (an
    /// unknown path) as a problem of its status, anything else a logged 500 — for every route,
    /// whichever door answers it.
    static func problem(_ error: any Error, path: String, logger: Logger) -> Problem {
        switch error {
        case let problem as Problem:
            return problem
        case let error as HTTPError:
            let detail = error.body ?? (error.status == .notFound ? "no such resource: \(path)" : error.status.reasonPhrase)
            return Problem(status: error.status, title: error.status.reasonPhrase, detail: detail)
        default:
            logger.error("request failed", metadata: ["error": "\(error)"])
            return Problem(status: .internalServerError, title: "Internal error", detail: "the request failed; the error is logged")
        }
    }
}
