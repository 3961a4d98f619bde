import HTTPTypes
import NIOCore

/// What answers the requests a ``FrontDoorHandler`` claims: transport-neutral (a request head
/// in, an answer out), so its answers are tested without a connection and the door's ordering
/// without a service.
public protocol FrontDoorService: Sendable {
    /// Whether the request is the service's, decided from its head alone; if not, it goes on to
    /// the application behind the door.
    func claims(_ head: HTTPRequest) -> Bool

    /// The answer to a claimed request: ready now, or made by an async task (which must not
    /// throw: a failure is an answer too). `peer` is the connection's other end.
    func answer(_ head: HTTPRequest, peer: SocketAddress?) -> FrontDoorAnswer
}

/// A claimed request's answer.
public enum FrontDoorAnswer: Sendable {
    case now(FrontDoorResponse)
    case later(@Sendable () async -> FrontDoorResponse)
}

/// An answer as written: its head, with its `Content-Length`, and the buffers of its body (none
/// for `HEAD` or a `304`). The door adds `Date` and `Server`.
public struct FrontDoorResponse: Sendable {
    public var head: HTTPResponse
    public var body: [ByteBuffer]

    public init(head: HTTPResponse, body: [ByteBuffer]) {
        self.head = head
        self.body = body
    }
}
