import CLibXML2
import Foundation

/// An XML document as a tree of elements, read by libxml2's SAX2 parser: VAST and VMAP are small
/// documents read whole, and a tree lets each spec's rules be written as lookups rather than
/// parser states. Names are local (namespace prefixes dropped: VMAP's `vmap:AdBreak` is
/// `AdBreak`); text is the concatenation of character data and CDATA, trimmed.
///
/// libxml2 directly, not Foundation's `XMLParser` (the same libxml2 underneath): on Linux that
/// wrapper bridges every callback through Foundation strings and dictionaries, and cost four
/// times the parse (docs/performance.md "Ad server answers"). No DTD is loaded, no entity
/// substituted, no network used.
public final class XMLElementNode: Sendable {
    public let name: String
    public let attributes: XMLAttributes
    public let text: String
    public let children: [XMLElementNode]
    /// The line it starts on, for messages.
    public let line: Int

    init(name: String, attributes: XMLAttributes, text: String, children: [XMLElementNode], line: Int) {
        self.name = name
        self.attributes = attributes
        self.text = text
        self.children = children
        self.line = line
    }

    /// `text` without leading and trailing XML white space: attribute values (`sequence=" 2 "`)
    /// and clock values, trimmed without Foundation's bridging.
    public static func trimmed(_ text: some StringProtocol) -> Substring {
        let text = Substring(text)
        guard let first = text.utf8.firstIndex(where: { !isSpace($0) }), let last = text.utf8.lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return text[first...last]
    }

    /// XML white space (XML 1.0 §2.3 `S`: space, tab, CR, LF).
    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    /// The first child named `name`.
    public func child(_ name: String) -> XMLElementNode? { self.children.first { $0.name == name } }

    /// Every child named `name`, in order.
    public func children(_ name: String) -> [XMLElementNode] { self.children.filter { $0.name == name } }

    /// The element at `path` of child names.
    public func descendant(_ path: String...) -> XMLElementNode? {
        var node: XMLElementNode? = self
        for name in path { node = node?.child(name) }
        return node
    }

    /// libxml2's global state, set up once before any parse (required before threads parse).
    private static let initialized: Void = xmlInitParser()

    /// Reads `data`; throws ``XMLError`` with the line and libxml2's message when it is not
    /// well-formed, or nests deeper than any VAST answer does.
    public static func parse(_ data: Data) throws(XMLError) -> XMLElementNode {
        _ = Self.initialized
        let builder = TreeBuilder()
        var handler = xmlSAXHandler()
        handler.initialized = clibxml2_sax2_magic()
        handler.startElementNs = { context, name, _, _, _, _, count, _, attributes in
            TreeBuilder.from(context).start(name, count: Int(count), attributes)
        }
        handler.endElementNs = { context, _, _, _ in TreeBuilder.from(context).end() }
        handler.characters = { context, bytes, length in TreeBuilder.from(context).characters(bytes, Int(length)) }
        handler.cdataBlock = { context, bytes, length in TreeBuilder.from(context).characters(bytes, Int(length)) }
        handler.serror = { context, error in
            guard let context, let error else { return }
            TreeBuilder.from(context).error(error.pointee)
        }
        let unmanaged = Unmanaged.passRetained(builder)
        defer { unmanaged.release() }
        let result: Int32 = data.withUnsafeBytes { buffer in
            guard let parser = xmlCreatePushParserCtxt(&handler, unmanaged.toOpaque(), nil, 0, nil) else { return -1 }
            defer { xmlFreeParserCtxt(parser) }
            // No network, no DTD, no entity substitution: what a hostile answer can ask for, refused.
            _ = xmlCtxtUseOptions(parser, Int32(XML_PARSE_NONET.rawValue))
            builder.parser = parser
            let bytes = buffer.bindMemory(to: CChar.self)
            var status = xmlParseChunk(parser, bytes.baseAddress, Int32(clamping: bytes.count), 1)
            if parser.pointee.wellFormed == 0 || builder.tooDeep { status = status == 0 ? -1 : status }
            builder.parser = nil
            return status
        }
        guard result == 0, !builder.tooDeep, let root = builder.root else {
            let message =
                builder.tooDeep
                ? "elements nest deeper than \(TreeBuilder.maxDepth) levels" : builder.message ?? "no root element"
            throw XMLError(line: builder.errorLine, message: "not well-formed XML: \(message)")
        }
        return root
    }
}

extension XMLElementNode {
    /// The root element of an ad server's answer, which must be `<root>`: throws ``VASTError``
    /// 100 when the answer is not XML, 101 when its root is another element.
    static func answer(_ data: Data, root name: String) throws(VASTError) -> XMLElementNode {
        let root: XMLElementNode
        do {
            root = try XMLElementNode.parse(data)
        } catch {
            throw VASTError(.xmlParsing, error.description)
        }
        guard root.name == name else { throw VASTError(.schema, "line \(root.line): the root element is <\(root.name)>, not <\(name)>") }
        return root
    }
}

/// An element's attributes by local name, in document order. A VAST element has a handful, so a
/// list searched in order costs less than a dictionary's hashing (docs/performance.md "Ad server
/// answers").
public struct XMLAttributes: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    public private(set) var pairs: [(name: String, value: String)]

    public init(dictionaryLiteral elements: (String, String)...) {
        self.pairs = elements.map { (name: $0.0, value: $0.1) }
    }

    init(capacity: Int) {
        self.pairs = []
        self.pairs.reserveCapacity(capacity)
    }

    /// The value of the attribute `name` (the first, should a document repeat it).
    public subscript(name: String) -> String? {
        self.pairs.first { $0.name == name }?.value
    }

    mutating func append(_ name: String, _ value: String) { self.pairs.append((name: name, value: value)) }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.pairs.elementsEqual(rhs.pairs) { $0.name == $1.name && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        for pair in self.pairs {
            hasher.combine(pair.name)
            hasher.combine(pair.value)
        }
    }
}

/// XML that does not parse, with the line libxml2 stopped at.
public struct XMLError: Error, Sendable, CustomStringConvertible {
    public var line: Int
    public var message: String
    public var description: String { "line \(self.line): \(self.message)" }
}

/// Builds the tree while libxml2 reads (its SAX user data; one parse, then dropped).
private final class TreeBuilder {
    private struct Open {
        var name: String
        var attributes: XMLAttributes
        var text: [UInt8] = []
        var children: [XMLElementNode] = []
        var line: Int
    }

    /// Elements deeper than this are refused: a VAST answer is a handful of levels deep, and a
    /// hostile one must not exhaust memory or time.
    static let maxDepth = 64

    var parser: xmlParserCtxtPtr?
    private var stack: [Open] = []
    private(set) var root: XMLElementNode?
    private(set) var tooDeep = false
    private(set) var message: String?
    private(set) var errorLine = 0

    static func from(_ context: UnsafeMutableRawPointer?) -> TreeBuilder {
        Unmanaged<TreeBuilder>.fromOpaque(context!).takeUnretainedValue()
    }

    private var line: Int { self.parser.map { Int(xmlSAX2GetLineNumber($0)) } ?? 0 }

    func start(_ name: UnsafePointer<xmlChar>?, count: Int, _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) {
        guard self.stack.count < Self.maxDepth else {
            if !self.tooDeep, let parser = self.parser {
                self.tooDeep = true
                self.errorLine = self.line
                xmlStopParser(parser)
            }
            return
        }
        var values = XMLAttributes(capacity: count)
        if let attributes, count > 0 {
            // Five pointers per attribute: local name, prefix, URI, value start, value end.
            for index in 0..<count {
                let base = index * 5
                guard let local = attributes[base], let start = attributes[base + 3], let end = attributes[base + 4] else { continue }
                let value = UnsafeBufferPointer(start: start, count: end - start)
                values.append(String(cString: local), String(decoding: value, as: UTF8.self))
            }
        }
        self.stack.append(Open(name: name.map { String(cString: $0) } ?? "", attributes: values, line: self.line))
    }

    func characters(_ bytes: UnsafePointer<xmlChar>?, _ length: Int) {
        guard let bytes, length > 0, !self.stack.isEmpty else { return }
        let chunk = UnsafeBufferPointer(start: bytes, count: length)
        let last = self.stack.count - 1
        // White space before any text is trimmed anyway: the indentation between child elements
        // never allocates.
        if self.stack[last].text.isEmpty, chunk.allSatisfy(XMLElementNode.isSpace) { return }
        self.stack[last].text.append(contentsOf: chunk)
    }

    func end() {
        guard !self.tooDeep, let open = self.stack.popLast() else { return }
        let node = XMLElementNode(
            name: open.name,
            attributes: open.attributes,
            text: Self.trimmed(open.text),
            children: open.children,
            line: open.line
        )
        if self.stack.isEmpty {
            self.root = node
        } else {
            self.stack[self.stack.count - 1].children.append(node)
        }
    }

    func error(_ error: xmlError) {
        guard self.message == nil, error.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        self.message = error.message.map { String(XMLElementNode.trimmed(String(cString: $0))) }
        self.errorLine = Int(error.line)
    }

    /// `bytes` as text without leading and trailing XML white space.
    static func trimmed(_ bytes: [UInt8]) -> String {
        guard let first = bytes.firstIndex(where: { !XMLElementNode.isSpace($0) }), let last = bytes.lastIndex(where: { !XMLElementNode.isSpace($0) })
        else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}
