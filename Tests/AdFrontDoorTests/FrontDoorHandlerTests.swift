import AdFrontDoor
import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Synchronization
import Testing

/// The handler on a test channel: what it writes, what it passes on, in which order, with a
/// service whose answers are ready at once or when the test lets them go.
@Suite("Front door handler")
struct FrontDoorHandlerTests {
    /// Claims `/door/now/…` (answered at once) and `/door/later/…` (answered when ``release()``
    /// is called); the body is the path.
    final class Service: FrontDoorService {
        private let gate = Mutex<[CheckedContinuation<Void, Never>]>([])
        private let released = Mutex(false)

        func claims(_ head: HTTPRequest) -> Bool {
            head.path?.hasPrefix("/door/") == true
        }

        func answer(_ head: HTTPRequest, peer: SocketAddress?) -> FrontDoorAnswer {
            let path = head.path ?? ""
            guard path.hasPrefix("/door/later/") else { return .now(Self.response(path)) }
            return .later {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let go = self.released.withLock { $0 }
                    if go { continuation.resume() } else { self.gate.withLock { $0.append(continuation) } }
                }
                return Self.response(path)
            }
        }

        func release() {
            self.released.withLock { $0 = true }
            for waiting in self.gate.withLock({ gate in
                defer { gate = [] }
                return gate
            }) { waiting.resume() }
        }

        static func response(_ path: String) -> FrontDoorResponse {
            let body = ByteBuffer(string: path)
            return FrontDoorResponse(head: HTTPResponse(status: .ok, headerFields: [.contentLength: String(body.readableBytes)]), body: [body])
        }
    }

    /// Counts the reads that reach the head of the pipeline.
    final class ReadCounter: ChannelOutboundHandler, @unchecked Sendable {
        typealias OutboundIn = Any
        let reads = Atomic<Int>(0)
        func read(context: ChannelHandlerContext) {
            self.reads.add(1, ordering: .relaxed)
            context.read()
        }
    }

    /// Counts the parts that reach the application and have not been followed by a
    /// `channelReadComplete` yet (an async channel hands its reader nothing before one).
    final class ReadCompletions: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPRequestPart
        let undelivered = Atomic<Int>(0)
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            self.undelivered.add(1, ordering: .relaxed)
            context.fireChannelRead(data)
        }
        func channelReadComplete(context: ChannelHandlerContext) {
            self.undelivered.store(0, ordering: .relaxed)
            context.fireChannelReadComplete()
        }
    }

    static func channel(
        _ service: Service,
        completions: ReadCompletions = ReadCompletions()
    ) async throws -> (NIOAsyncTestingChannel, ReadCounter) {
        let counter = ReadCounter()
        let channel = try await NIOAsyncTestingChannel {
            try $0.pipeline.syncOperations.addHandler(counter)
            try $0.pipeline.syncOperations.addHandler(FrontDoorHandler(service: service, serverName: "Test", dates: HTTPDateCache()))
            try $0.pipeline.syncOperations.addHandler(completions)
        }
        return (channel, counter)
    }

    static func request(_ path: String, close: Bool = false, body: String? = nil) -> [HTTPRequestPart] {
        var head = HTTPRequest(method: .get, scheme: nil, authority: "a", path: path)
        if close { head.headerFields[.connection] = "close" }
        return [.head(head)] + (body.map { [.body(ByteBuffer(string: $0))] } ?? []) + [.end(nil)]
    }

    /// The next answer written: its head and its body as text.
    static func answer(_ channel: NIOAsyncTestingChannel) async throws -> (HTTPResponse, String) {
        guard case .head(let head) = try await channel.waitForOutboundWrite(as: HTTPResponsePart.self) else {
            throw TestFailure("expected a head")
        }
        var body = ""
        while true {
            switch try await channel.waitForOutboundWrite(as: HTTPResponsePart.self) {
            case .body(let buffer): body += String(buffer: buffer)
            case .end: return (head, body)
            case .head: throw TestFailure("a head inside an answer")
            }
        }
    }

    /// The paths of the request heads passed on so far (their other parts read and dropped).
    static func passedOn(_ channel: NIOAsyncTestingChannel) async throws -> [String] {
        var paths: [String] = []
        while let part = try await channel.readInbound(as: HTTPRequestPart.self) {
            if case .head(let head) = part { paths.append(head.path ?? "") }
        }
        return paths
    }

    /// The application's answer to a request passed on.
    static func applicationAnswers(_ channel: NIOAsyncTestingChannel, _ text: String) async throws {
        try await channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
        try await channel.writeOutbound(HTTPResponsePart.body(ByteBuffer(string: text)))
        try await channel.writeOutbound(HTTPResponsePart.end(nil))
    }

    struct TestFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test("claimed requests are answered with Date and Server, in order with the application's answers")
    func pipelined() async throws {
        let service = Service()
        let (channel, _) = try await Self.channel(service)
        for part in Self.request("/door/now/1", body: "dropped") + Self.request("/app/2") + Self.request("/door/now/3") {
            try await channel.writeInbound(part)
        }
        let (first, body) = try await Self.answer(channel)
        #expect(body == "/door/now/1")
        #expect(first.headerFields[.server] == "Test")
        #expect(first.headerFields[.date]?.hasSuffix(" GMT") == true)
        // The third waits for the application's answer to the second.
        #expect(try await Self.passedOn(channel) == ["/app/2"], "the claimed request's body is not passed on")
        #expect(try await channel.readOutbound(as: HTTPResponsePart.self) == nil, "answered before the application")
        try await Self.applicationAnswers(channel, "app 2")
        #expect(try await Self.answer(channel).1 == "app 2")
        #expect(try await Self.answer(channel).1 == "/door/now/3")
        _ = try await channel.finish()
    }

    @Test("an answer made later holds the requests behind it, and the reads, until it is written")
    func later() async throws {
        let service = Service()
        let (channel, counter) = try await Self.channel(service)
        for part in Self.request("/door/later/1") + Self.request("/app/2") + Self.request("/door/now/3") {
            try await channel.writeInbound(part)
        }
        let readsBefore = counter.reads.load(ordering: .relaxed)
        channel.read()
        try await channel.testingEventLoop.executeInContext {}
        #expect(counter.reads.load(ordering: .relaxed) == readsBefore, "a read passed while requests were held")
        #expect(try await Self.passedOn(channel).isEmpty, "the application's request overtook the answer being made")
        service.release()
        #expect(try await Self.answer(channel).1 == "/door/later/1")
        #expect(try await Self.passedOn(channel) == ["/app/2"])
        #expect(counter.reads.load(ordering: .relaxed) == readsBefore, "a read passed while the third request was held")
        try await Self.applicationAnswers(channel, "app 2")
        #expect(try await Self.answer(channel).1 == "app 2")
        #expect(try await Self.answer(channel).1 == "/door/now/3")
        // The held read goes on once nothing is held.
        #expect(counter.reads.load(ordering: .relaxed) == readsBefore + 1, "the held read was not passed on")
        _ = try await channel.finish()
    }

    @Test("parts let through after an answer is written reach the application with a read completion of their own")
    func readCompletions() async throws {
        let service = Service()
        let completions = ReadCompletions()
        let (channel, _) = try await Self.channel(service, completions: completions)
        for part in Self.request("/door/now/1") + Self.request("/app/2") + Self.request("/door/now/3") + Self.request("/app/4") {
            try await channel.writeInbound(part)
        }
        #expect(try await Self.answer(channel).1 == "/door/now/1")
        #expect(try await Self.passedOn(channel) == ["/app/2"])
        // Not inside a read: the fourth is let through when the application's answer ends.
        try await Self.applicationAnswers(channel, "app 2")
        #expect(try await Self.answer(channel).1 == "app 2")
        #expect(try await Self.answer(channel).1 == "/door/now/3")
        #expect(try await Self.passedOn(channel) == ["/app/4"])
        #expect(completions.undelivered.load(ordering: .relaxed) == 0, "passed on with no channelReadComplete after it")
        _ = try await channel.finish()
    }

    @Test("a claimed request waits while the channel is not writable")
    func unwritable() async throws {
        let service = Service()
        let (channel, _) = try await Self.channel(service)
        channel.isWritable = false
        try await channel.testingEventLoop.executeInContext { channel.pipeline.fireChannelWritabilityChanged() }
        for part in Self.request("/door/now/1") { try await channel.writeInbound(part) }
        #expect(try await channel.readOutbound(as: HTTPResponsePart.self) == nil)
        channel.isWritable = true
        try await channel.testingEventLoop.executeInContext { channel.pipeline.fireChannelWritabilityChanged() }
        #expect(try await Self.answer(channel).1 == "/door/now/1")
        _ = try await channel.finish()
    }

    @Test("Connection: close ends the connection after the answer; later requests get nothing")
    func close() async throws {
        let service = Service()
        let (channel, _) = try await Self.channel(service)
        for part in Self.request("/door/now/1", close: true) + Self.request("/app/2") { try await channel.writeInbound(part) }
        #expect(try await Self.answer(channel).1 == "/door/now/1")
        try await channel.closeFuture.get()
        #expect(try await Self.passedOn(channel).isEmpty)
    }
}
