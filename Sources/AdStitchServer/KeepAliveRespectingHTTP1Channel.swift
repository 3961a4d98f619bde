import AdFrontDoor
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// Hummingbird's HTTP/1 child channel, plus one rule it leaves out: an HTTP/1.0 request without
/// `Connection: keep-alive` ends its connection after the answer (RFC 9112 §9.3). The request
/// types past the codec carry no version, so the rule is applied before it, as a
/// `Connection: close` header Hummingbird honours. Its `door` (``SessionFileDoor``) answers
/// viewers' session files last in the pipeline, before the async channel Hummingbird reads the
/// other requests from.
struct KeepAliveRespectingHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value
    let base: HTTP1Channel
    let door: @Sendable () -> FrontDoorHandler

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        self.base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let codec = try pipeline.context(handlerType: HTTP1ToHTTPServerCodec.self)
            try pipeline.addHandler(HTTP10ConnectionCloseHandler(), position: .before(codec.handler))
            // NIO's default high water mark (64 KiB) is below one media playlist of a long
            // programme (100 KB for two hours): each such answer made the channel unwritable as
            // it was queued and writable again once written, two events through the whole
            // pipeline, Hummingbird's async writer taking its lock for both (2–3 % of the CPU of a
            // stitched answer). Above a few answers, a client that stops reading still makes the
            // channel unwritable, and the door holds its requests.
            try channel.syncOptions?.setOption(ChannelOptions.writeBufferWaterMark, value: Self.waterMark)
            let state = try pipeline.context(handlerType: HTTPConnectionStateHandler.self)
            try pipeline.addHandler(self.door(), position: .after(state.handler))
            return value
        }
    }

    /// The channel's write buffer marks (bytes queued, not yet written).
    static let waterMark = ChannelOptions.Types.WriteBufferWaterMark(low: 256 * 1024, high: 512 * 1024)

    func handle(value: Value, logger: Logger) async {
        await self.base.handle(value: value, logger: logger)
    }
}

/// Marks a request that does not keep its connection alive (HTTP/1.0 without keep-alive) with
/// `Connection: close`.
final class HTTP10ConnectionCloseHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = self.unwrapInboundIn(data), !head.isKeepAlive, !head.headers.contains(name: "connection") else {
            return context.fireChannelRead(data)
        }
        head.headers.add(name: "connection", value: "close")
        context.fireChannelRead(self.wrapInboundOut(.head(head)))
    }
}
