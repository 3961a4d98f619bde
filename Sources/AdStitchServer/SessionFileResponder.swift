import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import Synchronization

/// Answers a viewer's session files (`GET /v1/campaigns/{id}/sessions/{token}/{file}`: media
/// playlists, boundary manifests) in the connection's channel pipeline, on its event loop, without
/// the router: the request a service exists for, and most of the requests it gets, skips the
/// async channel, the task switches, the router and the middleware chain (docs/performance.md,
/// "Direct answers"). The answer is the router's to the byte: the same ``SessionController/answer(_:)``,
/// the same ``HTTPSemanticsMiddleware/finish(_:method:ifNoneMatch:)``, the same metrics, then the
/// `Date` and `Server` headers the application adds, and at debug level the access log line of
/// the router's `LogRequestsMiddleware` with a request id of its own: the log level does not
/// choose how a request is answered.
///
/// Everything else goes on to Hummingbird untouched: other routes and methods, paths it would
/// read differently (percent-escapes, dot segments, a query is fine), requests with a body, the
/// files a request shapes (interstitial asset lists name its host; live playlists), and — so
/// answers keep the order of pipelined requests (RFC 9112 §9.3.2) — every request that arrives
/// while one passed on is still being answered, or while the client does not read its answers.
///
/// It sits last in the pipeline before the async channel, after Hummingbird's connection state
/// handler (idle timeout, graceful shutdown) and the request head timeout, which see its requests
/// and answers like any other.
final class SessionFileResponder: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let sessions: SessionController
    let serverName: String?
    let dates: HTTPDateCache
    /// The application's logger: at debug level, a line per request (``logRequest(_:)``).
    let logger: Logger

    /// Requests passed on whose answers have not ended yet.
    private var passedOn = 0
    /// The request being answered here: its head has arrived, its end not yet.
    private var answering: (head: HTTPRequest, asked: SessionController.SessionFileRequest)?
    /// The context of NIO's HTTP/1 response encoder, through which a body of several buffers is
    /// written (``writeBody(_:context:)``).
    private var encoder: ChannelHandlerContext?

    /// `Server` as the application sends it; `dates` shared by a server's connections.
    init(sessions: SessionController, serverName: String?, dates: HTTPDateCache, logger: Logger) {
        self.sessions = sessions
        self.serverName = serverName
        self.dates = dates
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.encoder = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.encoder = nil
    }

    /// The route's pattern, as the router labels its metrics.
    static let route = "/v1/campaigns/{id}/sessions/{token}/{file}"

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head(let head):
            // While the client is not reading (the channel is not writable), requests go to
            // Hummingbird, whose writer waits for it and whose reader stops reading: a client
            // that pipelines requests and reads nothing cannot make the server buffer answers.
            if self.passedOn == 0, context.channel.isWritable, let asked = Self.sessionFileRequest(head) {
                self.answering = (head, asked)
                return
            }
            self.passedOn += 1
            context.fireChannelRead(data)
        case .body:
            // A request with a body is passed on at its head (``sessionFileRequest(_:)``).
            if self.answering == nil { context.fireChannelRead(data) }
        case .end:
            guard let (head, asked) = self.answering else { return context.fireChannelRead(data) }
            self.answering = nil
            self.answer(head, asked, context: context)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = self.unwrapOutboundIn(data) { self.passedOn = max(0, self.passedOn - 1) }
        context.write(data, promise: promise)
    }

    private func answer(_ head: HTTPRequest, _ asked: SessionController.SessionFileRequest, context: ChannelHandlerContext) {
        let start = ContinuousClock.now
        var response: Response
        var body: AnswerBody
        do {
            switch try self.sessions.answer(asked) {
            case .complete(let headers, let answer):
                // Its headers hold its Content-Length (``Response/stitchedParts``), and the range's.
                let ranged = AnswerBody.ranged(headers, answer, range: head.headerFields[.range], ifRange: head.headerFields[.ifRange])
                (response, body) = (Response(status: ranged.status, headers: ranged.headers), ranged.body)
            case .assetList, .live, .restore, .title:
                // Shaped by the request, or waiting for recorded ad decisions: the router's (the checks above are repeated there; no
                // metric was counted, no line logged).
                self.passedOn += 1
                context.fireChannelRead(self.wrapInboundOut(.head(head)))
                context.fireChannelRead(self.wrapInboundOut(.end(nil)))
                return
            }
        } catch {
            let (headers, buffer) = error.parts
            (response, body) = (Response(status: error.status, headers: headers, body: ResponseBody(byteBuffer: buffer)), AnswerBody(buffer))
        }
        if self.logger.logLevel <= .debug { self.logRequest(head) }
        let (finished, sendsBody) = HTTPSemanticsMiddleware.finish(response, method: head.method, ifNoneMatch: head.headerFields[.ifNoneMatch])
        response = finished
        self.sessions.store.metrics.request(route: Self.route, method: head.method, status: response.status, duration: ContinuousClock.now - start)
        self.sessions.store.metrics.answeredDirectly()
        response.headers[.date] = self.dates.current
        if let serverName = self.serverName { response.headers[.server] = serverName }

        context.write(self.wrapOutboundOut(.head(response.head)), promise: nil)
        if sendsBody { self.writeBody(body, context: context) }
        // As Hummingbird does: a request that says `Connection: close` (or an HTTP/1.0 one
        // without keep-alive: ``HTTP10ConnectionCloseHandler``) ends the connection after its answer.
        guard head.headerFields[.connection] == "close" else {
            return context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil)
        }
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(self.wrapOutboundOut(.end(nil))).whenComplete { _ in loopBound.value.close(promise: nil) }
    }

    /// The line the router's `LogRequestsMiddleware` writes for a request, with the same message,
    /// metadata keys and source, and a request id made as Hummingbird makes one: an access log
    /// reads one format whichever way a request was answered.
    private func logRequest(_ head: HTTPRequest) {
        var logger = self.logger
        logger[metadataKey: "hb.request.id"] = .stringConvertible(RequestID())
        logger.debug(
            "Request",
            metadata: ["hb.request.path": .string(head.path ?? ""), "hb.request.method": .string(head.method.rawValue)],
            source: "Hummingbird"
        )
    }

    /// Writes the buffers of a body. A stitched media playlist of a long programme has several
    /// (the session's own bytes between the long shared blocks: ``AnswerBody``). Each crossing the
    /// outbound handlers between here and the encoder — the connection state, HTTPTypes' codec —
    /// would be wrapped and unwrapped at each; so they are written past the encoder, as it passes
    /// on the body of an answer with a `Content-Length` (NIOHTTP1's `writeChunk`: not chunked,
    /// each buffer as it is), in order between the head and the end this handler writes through
    /// the pipeline — what those handlers look at (the connection state counts ends; the codec and
    /// the encoder convert and frame the head) — all on this event loop in one call, so nothing
    /// can come between them. A single buffer goes the ordinary way.
    private func writeBody(_ body: AnswerBody, context: ChannelHandlerContext) {
        guard body.buffers.count > 1, let encoder = self.encoder else {
            for buffer in body.buffers { context.write(self.wrapOutboundOut(.body(buffer)), promise: nil) }
            return
        }
        for buffer in body.buffers { encoder.write(NIOAny(IOData.byteBuffer(buffer)), promise: nil) }
    }

    /// The session file a request asks for, when it is one this handler answers: `GET` of
    /// `/v1/campaigns/{id}/sessions/{token}/{file}` whose segments are plain (unreserved
    /// characters only, no dot segments: read the same by any router), without a body (no
    /// `Transfer-Encoding`, no `Content-Length` but 0).
    static func sessionFileRequest(_ head: HTTPRequest) -> SessionController.SessionFileRequest? {
        guard head.method == .get, let target = head.path, !head.headerFields.contains(.transferEncoding),
            head.headerFields[.contentLength].map({ $0 == "0" }) ?? true
        else { return nil }
        // One pass over the bytes up to the query: the literal parts, and each named segment
        // (`split` into an array and a string per segment were 4 % of a cached answer's CPU).
        let bytes = target.utf8
        let end = bytes.firstIndex(of: UInt8(ascii: "?")) ?? bytes.endIndex
        var index = bytes.startIndex
        func literal(_ text: String.UTF8View) -> Bool {
            for byte in text {
                guard index < end, bytes[index] == byte else { return false }
                bytes.formIndex(after: &index)
            }
            return true
        }
        func segment() -> Substring? {
            let start = index
            while index < end, bytes[index] != UInt8(ascii: "/") {
                guard Self.isUnreserved(bytes[index]) else { return nil }
                bytes.formIndex(after: &index)
            }
            let segment = target[start..<index]
            guard !segment.isEmpty, segment != ".", segment != ".." else { return nil }
            return segment
        }
        guard literal("/v1/campaigns/".utf8), let id = segment(), literal("/sessions/".utf8), let token = segment(), literal("/".utf8),
            let file = segment(), index == end
        else { return nil }
        return SessionController.SessionFileRequest(
            campaign: String(id),
            token: String(token),
            file: String(file),
            gzip: Response.acceptsGzip(head.headerFields[.acceptEncoding], range: head.headerFields[.range]),
            scope: .viewer
        )
    }

    /// RFC 3986 §2.3: ALPHA, DIGIT, `-`, `.`, `_`, `~`.
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}

@available(*, unavailable)
extension SessionFileResponder: Sendable {}

/// The `Date` header's value (RFC 9110 §5.6.7 IMF-fixdate), formatted once a second.
final class HTTPDateCache: Sendable {
    private let cached = Mutex<(second: Int, text: String)>((-1, ""))

    var current: String {
        let now = time(nil)
        return self.cached.withLock { cached in
            if cached.second != now {
                cached = (now, Self.format(now))
            }
            return cached.text
        }
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT` for `seconds` since 1970.
    static func format(_ seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
