import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// One element of a WebDAV request body: its namespace and local name, its text and its child elements.
struct DAVElement: Sendable, Hashable {
    var namespace: String
    var name: String
    var attributes: [String: String] = [:]
    var text = ""
    var children: [DAVElement] = []

    /// The first child of that namespace and name.
    func child(_ namespace: String, _ name: String) -> DAVElement? {
        children.first { $0.namespace == namespace && $0.name == name }
    }

    /// Every child of that namespace and name.
    func all(_ namespace: String, _ name: String) -> [DAVElement] {
        children.filter { $0.namespace == namespace && $0.name == name }
    }

    /// Whether it is that element.
    func isElement(_ namespace: String, _ name: String) -> Bool { self.namespace == namespace && self.name == name }
}

/// Why a request body is not the XML a WebDAV method takes; answered 400 (or 415) with the sentence.
struct DAVBodyError: Error, Sendable {
    var status = 400
    var reason: String
}

/// Reads WebDAV request bodies with Foundation's XML parser (libxml2), namespace-aware.
///
/// No WebDAV body needs a document type declaration, and entity definitions are how the external-entity and
/// "billion laughs" tricks work: a body with `<!DOCTYPE` is refused before the parser sees it. Depth and element
/// counts are bounded, so a hostile body costs bounded time and memory.
enum DAVXML {
    /// The deepest element nesting read (CalDAV filters nest five or six deep).
    static let maxDepth = 32
    /// The most elements read from one body (a multiget of 10,000 hrefs needs 10,000 and a few).
    static let maxElements = 200_000

    /// The root element of `body`.
    static func parse(_ body: Data) throws(DAVBodyError) -> DAVElement {
        guard !body.isEmpty else { throw DAVBodyError(reason: "the request needs an XML body") }
        if body.range(of: Data("<!DOCTYPE".utf8)) != nil || body.range(of: Data("<!doctype".utf8)) != nil
            || body.range(of: Data("<!ENTITY".utf8)) != nil
        {
            throw DAVBodyError(reason: "document type declarations and entities are not accepted in WebDAV bodies")
        }
        let builder = TreeBuilder()
        let parser = XMLParser(data: body)
        parser.shouldProcessNamespaces = true
        parser.shouldReportNamespacePrefixes = false
        parser.shouldResolveExternalEntities = false
        parser.delegate = builder
        let parsed = parser.parse()
        if let limit = builder.overLimit { throw DAVBodyError(reason: limit) }
        guard parsed, let root = builder.root else {
            let detail = parser.parserError.map { " (\(($0 as NSError).code) at line \(parser.lineNumber))" } ?? ""
            throw DAVBodyError(reason: "the body is not well-formed XML\(detail)")
        }
        return root
    }
}

/// Builds the element tree as the parser reports it.
private final class TreeBuilder: NSObject, XMLParserDelegate {
    var stack: [DAVElement] = []
    var root: DAVElement?
    var count = 0
    var overLimit: String?

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
        attributes attributeDict: [String: String] = [:]
    ) {
        count += 1
        if stack.count >= DAVXML.maxDepth || count > DAVXML.maxElements {
            overLimit = stack.count >= DAVXML.maxDepth
                ? "XML nested deeper than \(DAVXML.maxDepth) elements" : "more than \(DAVXML.maxElements) XML elements"
            parser.abortParsing()
            return
        }
        stack.append(DAVElement(namespace: namespaceURI ?? "", name: elementName, attributes: attributeDict))
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        guard let element = stack.popLast() else { return }
        if stack.isEmpty { root = element } else { stack[stack.count - 1].children.append(element) }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard !stack.isEmpty, stack[stack.count - 1].text.utf8.count < 1_048_576 else { return }
        stack[stack.count - 1].text += string
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += String(decoding: CDATABlock, as: UTF8.self)
    }
}
