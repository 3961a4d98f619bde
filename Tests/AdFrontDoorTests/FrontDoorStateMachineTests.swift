import AdFrontDoor
import HTTPTypes
import NIOCore
import NIOHTTPTypes
import Testing

/// The door's ordering rules over every kind of interleaving: random connections of claimed and
/// passed-on requests, bodies, answers that take their time on either side, a client that stops
/// reading, answers that close the connection.
@Suite("Front door state machine")
struct FrontDoorStateMachineTests {
    typealias Machine = FrontDoorStateMachine

    /// A deterministic generator (Knuth's MMIX LCG, high bits), so a failing seed can be replayed.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            self.state = self.state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return self.state ^ (self.state >> 29)
        }
    }

    static func request(_ id: Int, close: Bool = false) -> HTTPRequest {
        var head = HTTPRequest(method: .get, scheme: nil, authority: "a", path: "/r/\(id)")
        if close { head.headerFields[.connection] = "close" }
        return head
    }

    static func id(_ head: HTTPRequest) -> Int { Int(head.path!.dropFirst(3))! }

    /// One simulated connection. The client sends its requests a few parts per read; the
    /// application answers what it was passed in order, whenever it likes; the door's answers
    /// take a random time; the channel's writability comes and goes.
    struct Connection {
        var machine = Machine()
        var generator: Generator
        /// Per request: claimed, has a body, closes.
        let requests: [(claimed: Bool, body: Bool, close: Bool)]
        var toSend: [Machine.Inbound] = []
        var reading = true
        var writable = true
        var toggles = 0
        /// Requests the application was passed, not answered yet, and the parts it saw.
        var application: [Int] = []
        var applicationHeads: [Int] = []
        var applicationBodies = 0
        var applicationEnds = 0
        var applicationAnswered = 0
        var doorAnswering: (id: Int, close: Bool)?
        var written: [Int] = []
        var closed = false
        var failures: [String] = []

        init(seed: UInt64) {
            self.generator = Generator(state: seed)
            let count = Int.random(in: 1...8, using: &self.generator)
            var requests: [(claimed: Bool, body: Bool, close: Bool)] = []
            for index in 0..<count {
                let close = index == count - 1 && Bool.random(using: &self.generator) && Bool.random(using: &self.generator)
                requests.append((Bool.random(using: &self.generator), Int.random(in: 0..<4, using: &self.generator) == 0, close))
            }
            self.requests = requests
            for (id, request) in requests.enumerated() {
                self.toSend.append(.head(FrontDoorStateMachineTests.request(id, close: request.close), claimed: request.claimed))
                if request.body { self.toSend.append(.body(ByteBuffer(string: "body"))) }
                self.toSend.append(.end(nil))
            }
        }

        mutating func perform(_ actions: [Machine.Action]) {
            for action in actions {
                switch action {
                case .passOn(.head(let head)):
                    if self.doorAnswering != nil { self.failures.append("request \(FrontDoorStateMachineTests.id(head)) passed on under an answer") }
                    self.application.append(FrontDoorStateMachineTests.id(head))
                    self.applicationHeads.append(FrontDoorStateMachineTests.id(head))
                case .passOn(.body):
                    self.applicationBodies += 1
                case .passOn(.end):
                    self.applicationEnds += 1
                case .answer(let head):
                    let claim = FrontDoorStateMachineTests.id(head)
                    if !self.writable { self.failures.append("request \(claim) answered while the channel was not writable") }
                    if !self.application.isEmpty { self.failures.append("request \(claim) answered before \(self.application)") }
                    if self.doorAnswering != nil { self.failures.append("two answers at once") }
                    if !self.requests[claim].claimed { self.failures.append("request \(claim) answered, not claimed") }
                    self.doorAnswering = (claim, head.headerFields[.connection] == "close")
                case .read:
                    if self.reading { self.failures.append("a read passed on twice") }
                    self.reading = true
                }
            }
        }

        /// Runs the connection to its end: every request answered, or a deadlock reported.
        mutating func run() {
            var steps = 0
            while !self.closed, self.written.count < self.requests.count, steps < 10_000 {
                steps += 1
                var choices: [Int] = []
                if self.reading, !self.toSend.isEmpty { choices.append(0) }
                // The application answers a request once it has read all of it.
                if self.applicationEnds > self.applicationAnswered { choices.append(1) }
                if self.doorAnswering != nil { choices.append(2) }
                if self.toggles < 6 || !self.writable { choices.append(3) }
                guard let choice = choices.randomElement(using: &self.generator) else {
                    self.failures.append("deadlock: \(self.written.count) of \(self.requests.count) answered")
                    return
                }
                switch choice {
                case 0:
                    // One read brings one to three parts; then the channel asks for more.
                    self.reading = false
                    for _ in 0..<Int.random(in: 1...3, using: &self.generator) where !self.toSend.isEmpty {
                        self.perform(self.machine.received(self.toSend.removeFirst()))
                    }
                    if self.machine.shouldRead() { self.reading = true }
                case 1:
                    let id = self.application.removeFirst()
                    self.applicationAnswered += 1
                    self.written.append(id)
                    self.perform(self.machine.passedOnAnswerEnded())
                case 2:
                    let (id, close) = self.doorAnswering!
                    self.doorAnswering = nil
                    self.written.append(id)
                    if close { self.closed = true }
                    self.perform(self.machine.answered(closing: close))
                default:
                    self.toggles += 1
                    self.writable.toggle()
                    self.perform(self.machine.writabilityChanged(self.writable))
                }
            }
        }
    }

    @Test("answers leave in request order, claimed ones only when writable and alone, over 5,000 random connections")
    func randomConnections() {
        var kinds: Set<String> = []
        for seed in 0..<UInt64(5_000) {
            var connection = Connection(seed: seed)
            connection.run()
            let expected = Array(0..<connection.requests.count)
            #expect(connection.failures.isEmpty, "seed \(seed): \(connection.failures)")
            #expect(connection.written == expected, "seed \(seed): answers in order \(connection.written)")
            // The application saw exactly the requests not claimed, each whole, and no claimed body.
            let passed = connection.requests.enumerated().filter { !$0.element.claimed }
            #expect(connection.applicationHeads == passed.map(\.offset), "seed \(seed)")
            #expect(connection.applicationEnds == passed.count, "seed \(seed)")
            #expect(connection.applicationBodies == passed.filter(\.element.body).count, "seed \(seed)")
            let claimed = connection.requests.map(\.claimed)
            if claimed.contains(true) && claimed.contains(false) { kinds.insert("mixed") }
            if connection.requests.last?.close == true { kinds.insert("close") }
            if connection.requests.contains(where: { $0.claimed && $0.body }) { kinds.insert("claimed body") }
        }
        #expect(kinds == ["mixed", "close", "claimed body"], "the generator covers every shape: \(kinds)")
    }

    @Test("a client that reads nothing: requests are held, no read is passed on, until the channel is writable again")
    func heldWhileUnwritable() {
        var machine = Machine()
        #expect(machine.writabilityChanged(false).isEmpty)
        #expect(machine.received(.head(Self.request(0), claimed: true)).isEmpty)
        #expect(machine.received(.end(nil)).isEmpty)
        let reads = machine.shouldRead()
        #expect(!reads, "a read is held while a request is")
        let actions = machine.writabilityChanged(true)
        guard actions.count == 2, case .answer(let head) = actions[0], case .read = actions[1] else {
            Issue.record("expected the answer, then the held read: \(actions)")
            return
        }
        #expect(head.path == "/r/0")
        let readsNow = machine.shouldRead()
        #expect(readsNow, "nothing held: reads pass")
    }

    @Test("after an answer that closes the connection, nothing more is let through")
    func closing() {
        var machine = Machine()
        _ = machine.received(.head(Self.request(0, close: true), claimed: true))
        _ = machine.received(.end(nil))
        #expect(machine.received(.head(Self.request(1), claimed: false)).isEmpty, "held behind the answer")
        #expect(machine.answered(closing: true).isEmpty, "nothing let through after the close")
        #expect(machine.received(.head(Self.request(2), claimed: true)).isEmpty)
        let reads = machine.shouldRead()
        #expect(!reads)
    }
}
