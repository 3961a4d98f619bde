import AdCampaignStore
import AdFrontDoor
import AdMetrics
import AdSessions
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The one door of a viewer's session files (`/v1/campaigns/{id}/sessions/{token}/{file}`: media
/// playlists, boundary manifests, asset lists, live playlists, ad playlists), in every method:
/// answered in the connection's pipeline by an ``AdFrontDoor/FrontDoorHandler``, past the
/// router and its middleware — the request a service exists for, and most of the requests it
/// gets (docs/performance.md "One front door"). The router has no such route.
///
/// What the router's middleware does to its answers is done here by the same code: the
/// problem an error answers as (``ProblemMiddleware/problem(_:path:logger:)``), CORS, `304` and
/// `HEAD` (``HTTPSemanticsMiddleware/finish(_:method:ifNoneMatch:)``), the preflight, the request
/// metrics, and at debug level the access log line of `LogRequestsMiddleware` with a request id of
/// its own. The handler adds `Date` and `Server` as the application does.
struct SessionFileDoor: FrontDoorService {
    let sessions: SessionController
    /// The application's logger: at debug level, a line per request (``logRequest(_:)``).
    let logger: Logger

    func claims(_ head: HTTPRequest) -> Bool {
        // A session's quality reports share the route's shape but are the router's (they are posted).
        guard let path = head.path, let (_, _, file) = Routes.sessionFile(in: path) else { return false }
        return file != Routes.sessionQualityFile
    }

    func answer(_ head: HTTPRequest, peer: SocketAddress?) -> FrontDoorAnswer {
        // Claimed: the path is the route's (read again here, a pass over a few dozen bytes,
        // rather than kept through the handler's queue, which would make it generic).
        guard let (id, token, file) = head.path.flatMap(Routes.sessionFile(in:)) else {
            return .now(self.finish(Problem.notFound("no such resource: \(head.path ?? "")"), head, since: .now))
        }
        let start = ContinuousClock.now
        if self.logger.logLevel <= .debug { self.logRequest(head) }
        switch head.method {
        case .get, .head:
            let asked = SessionController.SessionFileRequest(
                campaign: String(id),
                token: String(token),
                file: String(file),
                gzip: Response.acceptsGzip(head.headerFields.value(.acceptEncoding), range: head.headerFields.value(.range)),
                scope: .viewer,
                peer: peer
            )
            do {
                let answer = try self.sessions.answer(asked)
                if let parts = try self.sessions.completedNow(answer, asked, head) {
                    self.sessions.observe(asked, head, status: parts.status)
                    return .now(self.finish(parts, head, since: start))
                }
            } catch {
                return .now(self.finish(error, head, since: start))
            }
            // A title to load, ad decisions to read or ask for: the answer is looked up again
            // once the session is ready.
            return .later {
                do {
                    let parts = try await self.sessions.completed(self.sessions.answer(asked), asked, head)
                    self.sessions.observe(asked, head, status: parts.status)
                    return self.finish(parts, head, since: start)
                } catch {
                    return self.finish(error, head, since: start)
                }
            }
        case .options:
            // As the middleware answers it, before any other.
            let preflight = HTTPSemanticsMiddleware.preflight
            self.count(head, preflight.status, since: start)
            return .now(FrontDoorResponse(head: preflight.head, body: []))
        default:
            let (headers, body) = Problem.readOnlyParts
            return .now(self.finish((.methodNotAllowed, headers, AnswerBody(body)), head, since: start))
        }
    }

    /// The problem an error answers as, finished.
    private func finish(_ error: any Error, _ head: HTTPRequest, since start: ContinuousClock.Instant) -> FrontDoorResponse {
        let problem = ProblemMiddleware.problem(error, path: head.path ?? "", logger: self.logger)
        let (headers, body) = problem.parts
        return self.finish((problem.status, headers, AnswerBody(body)), head, since: start)
    }

    /// An answer as the middleware leaves it (CORS, `304`, `HEAD`), counted.
    private func finish(_ parts: SessionController.SessionFileParts, _ head: HTTPRequest, since start: ContinuousClock.Instant) -> FrontDoorResponse {
        var headers = parts.headers
        // As the application's writer frames a body it holds whole (no Content-Length in a 204).
        if !headers.contains(.contentLength), parts.status != .noContent { headers[.contentLength] = String(parts.body.count) }
        let (response, sendsBody) = HTTPSemanticsMiddleware.finish(
            Response(status: parts.status, headers: headers),
            method: head.method,
            ifNoneMatch: head.headerFields.value(.ifNoneMatch)
        )
        self.count(head, response.status, since: start)
        return FrontDoorResponse(head: response.head, body: sendsBody ? parts.body.buffers : [])
    }

    /// The request in the metrics, as the router's metrics middleware counts its routes.
    private func count(_ head: HTTPRequest, _ status: HTTPResponse.Status, since start: ContinuousClock.Instant) {
        self.sessions.store.metrics.request(
            route: Routes.sessionFileRoute,
            method: head.method,
            status: status,
            duration: ContinuousClock.now - start
        )
    }

    /// The line the router's `LogRequestsMiddleware` writes for a request, with the same message,
    /// metadata keys and source, and a request id made as Hummingbird makes one: an access log
    /// reads one format whichever door answered.
    private func logRequest(_ head: HTTPRequest) {
        var logger = self.logger
        logger[metadataKey: "hb.request.id"] = .stringConvertible(RequestID())
        logger.debug(
            "Request",
            metadata: ["hb.request.path": .string(head.path ?? ""), "hb.request.method": .string(head.method.rawValue)],
            source: "Hummingbird"
        )
    }
}
