import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// An XML document as a tree of elements, read by Foundation's `XMLParser` (libxml2 on Linux):
/// VAST and VMAP are small documents read whole, and a tree lets each spec's rules be written as
/// lookups rather than parser states. Names are local (namespace prefixes dropped: VMAP's
/// `vmap:AdBreak` is `AdBreak`), text is the concatenation of character data and CDATA, trimmed.
public final class XMLElementNode: Sendable {
    public let name: String
    public let attributes: [String: String]
    public let text: String
    public let children: [XMLElementNode]
    /// The line it starts on, for messages.
    public let line: Int

    init(name: String, attributes: [String: String], text: String, children: [XMLElementNode], line: Int) {
        self.name = name
        self.attributes = attributes
        self.text = text
        self.children = children
        self.line = line
    }

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

    /// Reads `data`; throws ``XMLError`` with the line and libxml2's message when it is not
    /// well-formed.
    public static func parse(_ data: Data) throws(XMLError) -> XMLElementNode {
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        let builder = TreeBuilder(parser: parser)
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else {
            let error = parser.parserError.map { "\($0.localizedDescription)" } ?? "no root element"
            throw XMLError(line: parser.lineNumber, message: "not well-formed XML: \(error)")
        }
        return root
    }
}

/// XML that does not parse, with the line libxml2 stopped at.
public struct XMLError: Error, Sendable, CustomStringConvertible {
    public var line: Int
    public var message: String
    public var description: String { "line \(self.line): \(self.message)" }
}

/// Builds the tree while `XMLParser` reads (its delegate; one parse, then dropped).
private final class TreeBuilder: NSObject, XMLParserDelegate {
    private struct Open {
        var name: String
        var attributes: [String: String]
        var text = ""
        var children: [XMLElementNode] = []
        var line: Int
    }

    private weak var parser: XMLParser?
    private var stack: [Open] = []
    private(set) var root: XMLElementNode?
    /// Elements deeper than this are refused: a VAST answer is a handful of levels deep, and a
    /// hostile one must not exhaust the stack.
    private static let maxDepth = 64

    init(parser: XMLParser) {
        self.parser = parser
    }

    func parser(
        _ parser: XMLParser,
        didStartElement elementName: String,
        namespaceURI: String?,
        qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        guard self.stack.count < Self.maxDepth else {
            parser.abortParsing()
            return
        }
        self.stack.append(Open(name: elementName, attributes: attributes, line: parser.lineNumber))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard !self.stack.isEmpty else { return }
        self.stack[self.stack.count - 1].text += string
    }

    func parser(_ parser: XMLParser, foundCDATA block: Data) {
        guard !self.stack.isEmpty else { return }
        self.stack[self.stack.count - 1].text += String(decoding: block, as: UTF8.self)
    }

    /// `text` without leading and trailing XML white space (space, tab, CR, LF), in one pass over
    /// its bytes (Foundation's `trimmingCharacters(in:)` costs more than the parse on Linux).
    static func trimmed(_ text: String) -> String {
        let utf8 = text.utf8
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        guard let first = utf8.firstIndex(where: { !isSpace($0) }), let last = utf8.lastIndex(where: { !isSpace($0) }) else { return "" }
        if first == utf8.startIndex, last == utf8.index(before: utf8.endIndex) { return text }
        return String(text[first...last])
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        guard let open = self.stack.popLast() else { return }
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
}
