import Hummingbird
import NIOCore

/// The context of a request the router answers: Hummingbird's core, and the connection's other
/// end — the viewer's address when no proxy stands in front, what an ad server is told the
/// viewer's is (VAST 4.3 §2.4.2 `X-Device-IP`, ``SessionController/deviceHeaders(_:peer:)``).
public struct AdStitchRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = CoreRequestContextStorage(source: source)
        self.remoteAddress = source.channel.remoteAddress
    }
}
