import Foundation

/// The XML namespaces of WebDAV, CalDAV and the two vendor namespaces clients ask in.
enum DAVNamespace {
    static let dav = "DAV:"
    static let caldav = "urn:ietf:params:xml:ns:caldav"
    static let calendarServer = "http://calendarserver.org/ns/"
    static let apple = "http://apple.com/ns/ical/"

    /// The prefix the answers use for a namespace (declared on the root element), nil for any other.
    static func prefix(_ namespace: String) -> String? {
        switch namespace {
        case dav: "d"
        case caldav: "c"
        case calendarServer: "cs"
        case apple: "ic"
        default: nil
        }
    }
}

/// A property name: namespace and local name.
struct DAVName: Hashable, Sendable {
    var namespace: String
    var name: String

    init(_ namespace: String, _ name: String) {
        self.namespace = namespace
        self.name = name
    }
}

/// Builds a WebDAV answer body: `<d:multistatus>` with the four namespaces declared once.
struct DAVWriter {
    private(set) var text = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"

    /// Opens the root element `name` of the DAV: namespace.
    init(root name: String) {
        text += "<d:\(name) xmlns:d=\"DAV:\" xmlns:c=\"\(DAVNamespace.caldav)\" xmlns:cs=\"\(DAVNamespace.calendarServer)\" xmlns:ic=\"\(DAVNamespace.apple)\">"
    }

    /// `<tag>` of a property name (an unknown namespace declared on the element itself).
    static func open(_ name: DAVName) -> String {
        if let prefix = DAVNamespace.prefix(name.namespace) { return "<\(prefix):\(name.name)>" }
        return "<x:\(name.name) xmlns:x=\"\(escape(name.namespace))\">"
    }

    static func close(_ name: DAVName) -> String {
        if let prefix = DAVNamespace.prefix(name.namespace) { return "</\(prefix):\(name.name)>" }
        return "</x:\(name.name)>"
    }

    static func empty(_ name: DAVName) -> String {
        if let prefix = DAVNamespace.prefix(name.namespace) { return "<\(prefix):\(name.name)/>" }
        return "<x:\(name.name) xmlns:x=\"\(escape(name.namespace))\"/>"
    }

    /// Text as XML character data.
    static func escape(_ text: String) -> String {
        // By UTF-8 bytes: every calendar-data of a multiget passes here (the characters escaped are all ASCII, and
        // no byte of a multi-byte character is below 0x80).
        let utf8 = text.utf8
        if utf8.withContiguousStorageIfAvailable({ $0.allSatisfy { $0 >= 0x20 && $0 != 0x26 && $0 != 0x3C && $0 != 0x3E && $0 != 0x22 || $0 == 0x0A || $0 == 0x09 } }) == true {
            return text
        }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count + utf8.count / 8)
        for byte in utf8 {
            switch byte {
            case 0x26: out += "&amp;".utf8
            case 0x3C: out += "&lt;".utf8
            case 0x3E: out += "&gt;".utf8
            case 0x22: out += "&quot;".utf8
            case 0x0D: out += "&#13;".utf8
            case 0x0A, 0x09: out.append(byte)
            // XML 1.0 cannot carry other control characters at all.
            case ..<0x20: continue
            default: out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// One `<d:response>`: the href, then a propstat per status of the properties given (name → inner XML).
    mutating func response(href: String, found: [(DAVName, String)], missing: [DAVName], forbidden: [DAVName] = []) {
        text += "<d:response><d:href>\(Self.escape(href))</d:href>"
        if !found.isEmpty {
            text += "<d:propstat><d:prop>"
            for (name, value) in found { text += value.isEmpty ? Self.empty(name) : Self.open(name) + value + Self.close(name) }
            text += "</d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat>"
        }
        emptyPropstats([("404 Not Found", missing), ("403 Forbidden", forbidden)])
        if found.isEmpty && missing.isEmpty && forbidden.isEmpty {
            text += "<d:propstat><d:prop/><d:status>HTTP/1.1 200 OK</d:status></d:propstat>"
        }
        text += "</d:response>"
    }

    /// One `<d:response>` of properties by status only, each named without a value (a refused `PROPPATCH`).
    mutating func response(href: String, statuses: [(String, [DAVName])]) {
        text += "<d:response><d:href>\(Self.escape(href))</d:href>"
        emptyPropstats(statuses)
        text += "</d:response>"
    }

    /// A propstat per status that names properties (empty elements), for each status with any.
    private mutating func emptyPropstats(_ statuses: [(String, [DAVName])]) {
        for (status, names) in statuses where !names.isEmpty {
            text += "<d:propstat><d:prop>"
            for name in names { text += Self.empty(name) }
            text += "</d:prop><d:status>HTTP/1.1 \(status)</d:status></d:propstat>"
        }
    }

    /// The `<d:sync-token>` that ends a `sync-collection` answer.
    mutating func syncToken(_ uri: String) {
        text += "<d:sync-token>\(Self.escape(uri))</d:sync-token>"
    }

    /// A `<d:response>` of a member that is gone (sync-collection) or was not found (multiget).
    mutating func status(href: String, _ status: String) {
        text += "<d:response><d:href>\(Self.escape(href))</d:href><d:status>HTTP/1.1 \(status)</d:status></d:response>"
    }

    /// The finished document, closing root `name`.
    func finish(root name: String) -> String { text + "</d:\(name)>" }
}
