import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// The door of a connection's pipeline: the requests its ``FrontDoorService`` claims are
/// answered here, on the channel's event loop (or by the service's task, then written on it),
/// without the application's async channel, router or middleware; every other request goes on
/// to the application untouched. The order of requests and answers is the
/// ``FrontDoorStateMachine``'s; this class only carries its actions out.
///
/// It sits after the connection's state handler (idle timeout, graceful shutdown) and the
/// request deadlines, which see its requests and answers like any other, and before the
/// application's async channel.
public final class FrontDoorHandler: ChannelDuplexHandler, RemovableChannelHandler {
    public typealias InboundIn = HTTPRequestPart
    public typealias InboundOut = HTTPRequestPart
    public typealias OutboundIn = HTTPResponsePart
    public typealias OutboundOut = HTTPResponsePart

    let service: any FrontDoorService
    let serverName: String?
    let dates: HTTPDateCache
    private var machine = FrontDoorStateMachine()
    /// The context of NIO's HTTP/1 response encoder, through which a body of several buffers is
    /// written (``writeBody(_:context:)``), when the pipeline has one.
    private var encoder: ChannelHandlerContext?
    /// Inside `channelRead`: parts passed on now reach the application with the read's own
    /// `channelReadComplete`.
    private var reading = false
    /// The connection's other end, read once (a viewer's address, for what the service asks on
    /// their behalf).
    private var peer: SocketAddress?

    /// `serverName`: the `Server` header, as the application sends it; `dates` shared by a
    /// server's connections.
    public init(service: any FrontDoorService, serverName: String?, dates: HTTPDateCache) {
        self.service = service
        self.serverName = serverName
        self.dates = dates
    }

    public func handlerAdded(context: ChannelHandlerContext) {
        self.encoder = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)
        self.peer = context.channel.remoteAddress
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        self.encoder = nil
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part: FrontDoorStateMachine.Inbound =
            switch self.unwrapInboundIn(data) {
            case .head(let head): .head(head, claimed: self.service.claims(head))
            case .body(let buffer): .body(buffer)
            case .end(let trailers): .end(trailers)
            }
        self.reading = true
        defer { self.reading = false }
        self.perform(self.machine.received(part), context: context)
    }

    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let ended = if case .end = self.unwrapOutboundIn(data) { true } else { false }
        context.write(data, promise: promise)
        if ended { self.perform(self.machine.passedOnAnswerEnded(), context: context) }
    }

    public func read(context: ChannelHandlerContext) {
        if self.machine.shouldRead() { context.read() }
    }

    public func channelWritabilityChanged(context: ChannelHandlerContext) {
        self.perform(self.machine.writabilityChanged(context.channel.isWritable), context: context)
        context.fireChannelWritabilityChanged()
    }

    public func channelInactive(context: ChannelHandlerContext) {
        self.machine.close()
        context.fireChannelInactive()
    }

    private func perform(_ actions: [FrontDoorStateMachine.Action], context: ChannelHandlerContext) {
        var passedOn = false
        // Parts let through outside a read (an answer written, the channel writable again) end
        // with a `channelReadComplete` of their own: the application's async channel hands what
        // it was passed to its reader only then.
        defer { if passedOn, !self.reading { context.fireChannelReadComplete() } }
        for action in actions {
            switch action {
            case .passOn(let part):
                passedOn = true
                context.fireChannelRead(self.wrapInboundOut(part))
            case .read:
                context.read()
            case .answer(let head):
                switch self.service.answer(head, peer: self.peer) {
                case .now(let response):
                    self.write(response, to: head, context: context)
                case .later(let make):
                    let loop = context.eventLoop
                    let bound = NIOLoopBound((self, context), eventLoop: loop)
                    Task {
                        let response = await make()
                        loop.execute {
                            let (handler, context) = bound.value
                            handler.write(response, to: head, context: context)
                        }
                    }
                }
            }
        }
    }

    /// Writes an answer with its `Date` and `Server`, then lets the requests behind it through.
    /// As the application does, a request that says `Connection: close` (or an HTTP/1.0 one
    /// without keep-alive, marked so before the codec) ends the connection after its answer.
    private func write(_ response: FrontDoorResponse, to request: HTTPRequest, context: ChannelHandlerContext) {
        var head = response.head
        head.headerFields[.date] = self.dates.current
        if let serverName = self.serverName { head.headerFields[.server] = serverName }
        context.write(self.wrapOutboundOut(.head(head)), promise: nil)
        self.writeBody(response.body, context: context)
        let closing = request.headerFields[.connection] == "close"
        if closing {
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(self.wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
        } else {
            context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil)
        }
        self.perform(self.machine.answered(closing: closing), context: context)
    }

    /// Writes the buffers of a body. A stitched media playlist of a long programme has several
    /// (the session's own bytes between long shared blocks). Each crossing the outbound handlers
    /// between here and the encoder — the connection state, HTTPTypes' codec — would be wrapped
    /// and unwrapped at each; so they are written past the encoder, as it passes on the body of
    /// an answer with a `Content-Length` (NIOHTTP1's `writeChunk`: not chunked, each buffer as it
    /// is), in order between the head and the end written through the pipeline — what those
    /// handlers look at (the connection state counts ends; the codec and the encoder convert and
    /// frame the head) — all on this event loop in one call, so nothing can come between them. A
    /// single buffer goes the ordinary way.
    private func writeBody(_ buffers: [ByteBuffer], context: ChannelHandlerContext) {
        guard buffers.count > 1, let encoder = self.encoder else {
            for buffer in buffers { context.write(self.wrapOutboundOut(.body(buffer)), promise: nil) }
            return
        }
        for buffer in buffers { encoder.write(NIOAny(IOData.byteBuffer(buffer)), promise: nil) }
    }
}

@available(*, unavailable)
extension FrontDoorHandler: Sendable {}
