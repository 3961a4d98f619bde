import NIOCore
import NIOHTTPTypes

/// Closes a new connection that has not sent a whole request head within `timeout`: a client
/// that opens sockets and trickles its headers a byte at a time (slowloris) holds each for
/// seconds, not for ever. After the first request, Hummingbird's idle timeout takes over (it
/// counts whole request parts, so a trickle does not keep a connection alive either).
final class RequestHeadTimeoutHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    let timeout: TimeAmount
    private var scheduled: Scheduled<Void>?
    private var headArrived = false

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { self.schedule(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        self.schedule(context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.scheduled?.cancel()
        self.scheduled = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !self.headArrived, case .head = self.unwrapInboundIn(data) {
            self.headArrived = true
            self.scheduled?.cancel()
            self.scheduled = nil
        }
        context.fireChannelRead(data)
    }

    private func schedule(_ context: ChannelHandlerContext) {
        guard self.scheduled == nil, !self.headArrived else { return }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        self.scheduled = context.eventLoop.scheduleTask(in: self.timeout) {
            let (handler, context) = loopBound.value
            handler.scheduled = nil
            if !handler.headArrived { context.close(promise: nil) }
        }
    }
}
