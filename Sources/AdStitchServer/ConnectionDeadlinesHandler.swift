import NIOCore
import NIOHTTPTypes

/// The deadlines that keep one client from holding a connection for ever, whatever it sends or
/// fails to read (docs/reliability.md "Connections"):
///
/// - **the first request head** within `requestTimeout` of the connection opening: a client that
///   opens sockets and trickles its headers a byte at a time (slowloris) holds each for seconds;
/// - **every request whole** — head, body, end — within `requestTimeout` of its head: no route
///   takes a body, and one that trickles in (a byte every 2 s, on a POST, a GET with a
///   Content-Length, or chunked) is not a request a viewer sends. Hummingbird's idle timeout does
///   not apply while a request is arriving;
/// - **a client that reads** while answers wait: when the connection stops being writable (its
///   socket's send buffer and our high-water mark full) and stays so for `readTimeout`, it is
///   closed — 150 clients that pipeline requests and never read would otherwise keep their
///   answers in memory for good.
///
/// Between requests Hummingbird's idle timeout applies.
final class ConnectionDeadlinesHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    let requestTimeout: TimeAmount
    let readTimeout: TimeAmount
    /// Closes the connection unless the request being received (or the first) has ended.
    private var requestDeadline: Scheduled<Void>?
    /// Closes the connection unless it has become writable again.
    private var readDeadline: Scheduled<Void>?
    /// Whether a request's head has arrived and its end not yet; nil before the first head.
    private var receiving: Bool?

    init(requestTimeout: TimeAmount, readTimeout: TimeAmount) {
        self.requestTimeout = requestTimeout
        self.readTimeout = readTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { self.startRequestDeadline(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        self.startRequestDeadline(context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.requestDeadline?.cancel()
        self.requestDeadline = nil
        self.readDeadline?.cancel()
        self.readDeadline = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head:
            // The first head ends the connection's first deadline; every head starts its request's.
            self.requestDeadline?.cancel()
            self.requestDeadline = nil
            self.receiving = true
            self.startRequestDeadline(context)
        case .body:
            break
        case .end:
            self.receiving = false
            self.requestDeadline?.cancel()
            self.requestDeadline = nil
        }
        context.fireChannelRead(data)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            self.readDeadline?.cancel()
            self.readDeadline = nil
        } else if self.readDeadline == nil {
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            self.readDeadline = context.eventLoop.scheduleTask(in: self.readTimeout) {
                let (handler, context) = loopBound.value
                handler.readDeadline = nil
                if !context.channel.isWritable { context.close(promise: nil) }
            }
        }
        context.fireChannelWritabilityChanged()
    }

    private func startRequestDeadline(_ context: ChannelHandlerContext) {
        guard self.requestDeadline == nil, self.receiving != false else { return }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        self.requestDeadline = context.eventLoop.scheduleTask(in: self.requestTimeout) {
            let (handler, context) = loopBound.value
            handler.requestDeadline = nil
            // Before the first head, or a request still arriving.
            if handler.receiving != false { context.close(promise: nil) }
        }
    }
}
