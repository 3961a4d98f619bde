/// CMCD version 2 event mode (CTA-5004-B): a player's reports posted as `application/cmcd` — one
/// report a line, each a CMCD payload (the Structured Field dictionary syntax of RFC 8941 that the
/// query form uses: `e=ps,sid="s-1",ts=1700000000000,sta=r,pt=12300,v=2`) — read into the same
/// ``QualityEvent``s as the JSON reports:
///
/// - `msd` (media start delay, ms) → a `startup`;
/// - a `ps` (play state) report with `sta=r` (rebuffering) opens a stall at `pt` (playhead, ms);
///   the next play state closes it, its length the difference of the two reports' `ts` — the
///   device's clock, but only the difference of two of its readings, which no offset moves; a
///   stall still open at the report's last line is closed there;
/// - `sta=e` (ended) or `q` (quit) → `ended` at `pt`; `sta=f` (fatal error) → a fatal `error`,
///   its `ec` codes; an `e=e` report → an `error`, fatal if `sta=f`;
/// - `br` (encoded bitrate, kbps) where it changes → a `level` of `br` × 1000 at `pt`.
///
/// Keys and tokens as CTA-5004-B names them; a line without `e`, unknown keys and event types
/// are ignored. A value of the wrong kind names its line and key.
extension QualityReport {
    /// Lines one report may carry.
    public static let maxCMCDLines = 200

    public init(cmcd body: [UInt8], received: Int64) throws(Problem) {
        guard body.count <= Self.maxBytes else {
            throw Problem(field: "", message: "a report is at most \(Self.maxBytes) bytes; send more often, with fewer entries")
        }
        let lines = body.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).map {
            $0.last == UInt8(ascii: "\r") ? $0.dropLast() : $0
        }
        guard lines.count <= Self.maxCMCDLines else {
            throw Problem(field: "", message: "\(lines.count) lines; a CMCD report carries at most \(Self.maxCMCDLines)")
        }
        var events: [QualityEvent] = []
        var ignored = 0
        var stall: (at: Int64, since: Int64)?
        var bitrate: Int64?
        var lastTime: Int64?
        for (index, line) in lines.enumerated() {
            let field = "line \(index + 1)"
            let report = try CMCDPayload(line, field: field)
            guard let type = report.token("e") else {
                ignored += 1
                continue
            }
            let time = try report.integer("ts", field: field, upTo: 1 << 53)
            let at = try report.integer("pt", field: field, upTo: Int64(Self.maxStreamSeconds) * 1000)
            if let time { lastTime = time }
            if let delay = try report.integer("msd", field: field, upTo: Int64(Self.maxStartupMilliseconds)) {
                events.append(QualityEvent(kind: .startup, ms: delay, received: received))
            }
            if let kbps = try report.integer("br", field: field, upTo: Int64(Self.maxBandwidth) / 1000), kbps > 0, kbps != bitrate {
                bitrate = kbps
                events.append(QualityEvent(kind: .level, at: at ?? 0, bandwidth: kbps * 1000, received: received))
            }
            let state = report.token("sta")
            let codes = report.strings("ec").joined(separator: " ")
            switch type {
            case "ps":
                if let open = stall, let time {
                    events.append(QualityEvent(kind: .stall, at: open.at, ms: max(0, min(time - open.since, 86_400_000)), received: received))
                    stall = nil
                }
                switch state {
                case "r":
                    if let at, let time { stall = (at, time) }
                case "e", "q":
                    if let at { events.append(QualityEvent(kind: .ended, at: at, received: received)) }
                case "f":
                    events.append(
                        QualityEvent(
                            kind: .error,
                            at: at,
                            fatal: true,
                            code: codes.isEmpty ? nil : String(codes.prefix(Self.maxCodeBytes)),
                            received: received
                        )
                    )
                default:
                    break
                }
            case "e":
                events.append(
                    QualityEvent(
                        kind: .error,
                        at: at,
                        fatal: state == "f",
                        code: codes.isEmpty ? nil : String(codes.prefix(Self.maxCodeBytes)),
                        received: received
                    )
                )
            case "t", "c", "b", "m", "um", "pe", "pc", "rr":
                // Reported keys (msd, br) are read above; the event itself says nothing more here.
                break
            default:
                ignored += 1
            }
        }
        if let open = stall, let lastTime, lastTime > open.since {
            events.append(QualityEvent(kind: .stall, at: open.at, ms: min(lastTime - open.since, 86_400_000), received: received))
        }
        guard events.count <= Self.maxEntries else {
            throw Problem(field: "", message: "\(events.count) events; a report carries at most \(Self.maxEntries)")
        }
        self.events = events
        self.replacesAccessLog = false
        self.ignored = ignored
    }
}

/// One CMCD payload: its keys and values as RFC 8941 §3.2 dictionary members — a bare key is
/// `true`, `?0`/`?1` booleans, integers and decimals, `"strings"` (with `\"` and `\\`), tokens,
/// and inner lists `(a b "c")` (CMCD v2's `bl=(5000)`, `ec=("a" "b")`). Parameters (`;…`) are
/// skipped. Every key at most once: the first wins.
struct CMCDPayload {
    enum Value {
        case boolean(Bool)
        case number(Double)
        case string(String)
        case token(String)
        case list([Value])
    }

    private(set) var members: [String: Value] = [:]

    init(_ bytes: ArraySlice<UInt8>, field: String) throws(QualityReport.Problem) {
        guard bytes.count <= 4_096 else { throw QualityReport.Problem(field: field, message: "is longer than 4096 bytes") }
        var reader = Reader(bytes: bytes, field: field)
        while true {
            reader.skipSpaces()
            guard !reader.atEnd else { break }
            let key = try reader.key()
            let value: Value
            if reader.take(UInt8(ascii: "=")) {
                value = try reader.item()
            } else {
                value = .boolean(true)
            }
            try reader.skipParameters()
            if self.members[key] == nil { self.members[key] = value }
            reader.skipSpaces()
            guard !reader.atEnd else { break }
            guard reader.take(UInt8(ascii: ",")) else { throw reader.problem("expected , between keys") }
        }
    }

    var isEmpty: Bool { self.members.isEmpty }

    /// A key present as true (`bs`, `bs=?1`); false when absent or `?0`.
    func boolean(_ key: String) -> Bool {
        if case .boolean(let value) = self.members[key] { return value }
        return false
    }

    func token(_ key: String) -> String? {
        switch self.members[key] {
        case .token(let text), .string(let text): text
        default: nil
        }
    }

    /// An integer value (a one-item inner list too, as v2's `bl=(5000)`), within 0…`bound`.
    func integer(_ key: String, field: String, upTo bound: Int64) throws(QualityReport.Problem) -> Int64? {
        var value = self.members[key]
        if case .list(let items) = value, items.count == 1 { value = items[0] }
        guard let value else { return nil }
        guard case .number(let number) = value, number.isFinite, number >= 0, number <= Double(bound) else {
            throw QualityReport.Problem(field: "\(field) \(key)", message: "must be a number from 0 to \(bound)")
        }
        return Int64(number.rounded())
    }

    /// A string or token, or an inner list of them (`ec`).
    func strings(_ key: String) -> [String] {
        switch self.members[key] {
        case .string(let text), .token(let text): [text]
        case .list(let items):
            items.compactMap {
                switch $0 {
                case .string(let text), .token(let text): text
                default: nil
                }
            }
        default: []
        }
    }

    private struct Reader {
        let bytes: ArraySlice<UInt8>
        let field: String
        var index: Int

        init(bytes: ArraySlice<UInt8>, field: String) {
            self.bytes = bytes
            self.field = field
            self.index = bytes.startIndex
        }

        var atEnd: Bool { self.index >= self.bytes.endIndex }
        var peek: UInt8? { self.atEnd ? nil : self.bytes[self.index] }

        func problem(_ message: String) -> QualityReport.Problem {
            QualityReport.Problem(field: self.field, message: "\(message) at byte \(self.index - self.bytes.startIndex + 1)")
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard self.peek == byte else { return false }
            self.index += 1
            return true
        }

        mutating func skipSpaces() {
            while let byte = self.peek, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { self.index += 1 }
        }

        /// RFC 8941 §3.1.2 key: lowercase letter or `*`, then lowercase, digits, `_-.*`.
        mutating func key() throws(QualityReport.Problem) -> String {
            let start = self.index
            while let byte = self.peek,
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "*")
            {
                self.index += 1
            }
            guard self.index > start, let first = self.bytes[start...].first, first >= UInt8(ascii: "a") || first == UInt8(ascii: "*") else {
                throw self.problem("expected a key")
            }
            return String(decoding: self.bytes[start..<self.index], as: UTF8.self)
        }

        mutating func item() throws(QualityReport.Problem) -> Value {
            guard let byte = self.peek else { throw self.problem("expected a value") }
            switch byte {
            case UInt8(ascii: "("):
                self.index += 1
                var items: [Value] = []
                while true {
                    self.skipSpaces()
                    if self.take(UInt8(ascii: ")")) { break }
                    guard items.count < 64 else { throw self.problem("more than 64 items in a list") }
                    items.append(try self.item())
                    try self.skipParameters()
                }
                return .list(items)
            case UInt8(ascii: "\""):
                self.index += 1
                var text: [UInt8] = []
                while true {
                    guard let byte = self.peek else { throw self.problem("unterminated string") }
                    self.index += 1
                    if byte == UInt8(ascii: "\"") { break }
                    if byte == UInt8(ascii: "\\") {
                        guard let escaped = self.peek, escaped == UInt8(ascii: "\"") || escaped == UInt8(ascii: "\\") else {
                            throw self.problem("a string escapes only \\\" and \\\\")
                        }
                        self.index += 1
                        text.append(escaped)
                    } else {
                        guard byte >= 0x20, byte < 0x7f else { throw self.problem("a string holds printable ASCII only") }
                        text.append(byte)
                    }
                }
                return .string(String(decoding: text, as: UTF8.self))
            case UInt8(ascii: "?"):
                self.index += 1
                if self.take(UInt8(ascii: "1")) { return .boolean(true) }
                if self.take(UInt8(ascii: "0")) { return .boolean(false) }
                throw self.problem("a boolean is ?0 or ?1")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let start = self.index
                self.index += 1
                while let byte = self.peek, (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: ".") { self.index += 1 }
                // RFC 8941 §3.3.1–2: at most 15 digits before the point, 3 after.
                guard self.index - start <= 20, let number = Double(String(decoding: self.bytes[start..<self.index], as: UTF8.self)) else {
                    throw self.problem("not a number")
                }
                return .number(number)
            default:
                // A token: a letter or `*`, then token characters (RFC 8941 §3.3.4).
                let start = self.index
                while let byte = self.peek, byte > 0x20, byte < 0x7f, byte != UInt8(ascii: ","), byte != UInt8(ascii: ";"),
                    byte != UInt8(ascii: ")"), byte != UInt8(ascii: "("), byte != UInt8(ascii: "\"")
                {
                    self.index += 1
                }
                guard self.index > start else { throw self.problem("expected a value") }
                return .token(String(decoding: self.bytes[start..<self.index], as: UTF8.self))
            }
        }

        /// `;key=value` parameters after an item: read and dropped.
        mutating func skipParameters() throws(QualityReport.Problem) {
            while self.take(UInt8(ascii: ";")) {
                self.skipSpaces()
                _ = try self.key()
                if self.take(UInt8(ascii: "=")) { _ = try self.item() }
            }
        }
    }
}
