import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// The order of one connection's requests and answers when some requests are answered by a
/// ``FrontDoorService`` in the pipeline and the rest are passed on to the application behind it:
/// pure state, no I/O, each event in and what to do out (as async-http-client and postgres-nio
/// write their connection state machines), so every interleaving is tested without a socket.
///
/// The rules:
/// - Answers leave in the order their requests came (RFC 9112 §9.3.2: a client may pipeline).
///   A claimed request is answered only once every request passed on before it has its answer
///   written, and nothing after a claimed request moves until its answer is written.
/// - A claimed request is answered only while the channel is writable: a client that sends
///   requests and reads no answers makes the door hold its requests, not buffer its answers.
/// - While requests are held, the door asks the channel for no more (`read` is held back), so
///   what it holds is bounded by what one read brought.
/// - The body of a claimed request is read and dropped (the session files have none).
/// - After an answer that closes the connection, nothing more is let through.
///
/// Neither the machine nor the handler is generic over its service: NIO calls a handler through
/// its protocol conformance, which for a generic class is the unspecialized code, and its generic
/// metadata lookups cost 5 % of a cached answer's CPU.
public struct FrontDoorStateMachine {
    /// A request part as it arrived; whether the service claims a head is decided on arrival.
    public enum Inbound {
        case head(HTTPRequest, claimed: Bool)
        case body(ByteBuffer)
        case end(HTTPFields?)
    }

    /// What the handler does next, in order.
    public enum Action {
        /// Pass a request part on to the application behind the door.
        case passOn(HTTPRequestPart)
        /// Answer this claimed request, then report it with ``answered(closing:)``.
        case answer(HTTPRequest)
        /// Ask the channel for more (a `read` held back earlier).
        case read
    }

    /// Parts not yet let through, oldest first.
    private var held = CircularBuffer<Inbound>()
    /// Requests passed on whose answers have not ended yet.
    private var passedOn = 0
    /// A claimed request is being answered (its answer not yet written).
    private var answering = false
    /// The claimed request between its head and its end.
    private var claimed: HTTPRequest?
    private var writable = true
    /// A `read` asked for while requests were held, not yet passed on.
    private var readHeld = false
    /// An answer closed the connection, or the channel is gone.
    private var closed = false

    public init() {}

    /// A request part arrived.
    public mutating func received(_ part: Inbound) -> [Action] {
        guard !self.closed else { return [] }
        self.held.append(part)
        return self.advance()
    }

    /// The application behind the door wrote the end of an answer to a request passed on.
    public mutating func passedOnAnswerEnded() -> [Action] {
        self.passedOn = max(0, self.passedOn - 1)
        return self.advance()
    }

    /// The claimed request last handed out by ``Action/answer(_:_:)`` has its answer written;
    /// `closing`: that answer ends the connection.
    public mutating func answered(closing: Bool) -> [Action] {
        self.answering = false
        if closing { self.close() }
        return self.advance()
    }

    /// The channel became writable or not.
    public mutating func writabilityChanged(_ writable: Bool) -> [Action] {
        self.writable = writable
        return self.advance()
    }

    /// The channel asks for more request bytes: whether to pass the `read` on now (else it is
    /// passed on once the held requests are let through, as ``Action/read``).
    public mutating func shouldRead() -> Bool {
        guard self.held.isEmpty, !self.closed else {
            self.readHeld = !self.closed
            return false
        }
        return true
    }

    /// The connection is closing or closed: nothing more is let through.
    public mutating func close() {
        self.closed = true
        self.held.removeAll()
        self.claimed = nil
        self.readHeld = false
    }

    /// Lets through what may go now, in order.
    private mutating func advance() -> [Action] {
        var actions: [Action] = []
        loop: while !self.closed, let next = self.held.first {
            switch next {
            case .head(let head, claimed: true):
                guard self.passedOn == 0, !self.answering else { break loop }
                self.claimed = head
            case .head(let head, claimed: false):
                // Behind an answer being made here, the application's answer would overtake it.
                guard !self.answering else { break loop }
                self.passedOn += 1
                actions.append(.passOn(.head(head)))
            case .body(let buffer):
                if self.claimed == nil { actions.append(.passOn(.body(buffer))) }
            case .end(let trailers):
                if let head = self.claimed {
                    guard self.writable else { break loop }
                    self.claimed = nil
                    self.answering = true
                    actions.append(.answer(head))
                } else {
                    actions.append(.passOn(.end(trailers)))
                }
            }
            self.held.removeFirst()
        }
        if self.held.isEmpty, self.readHeld, !self.closed {
            self.readHeld = false
            actions.append(.read)
        }
        return actions
    }
}
