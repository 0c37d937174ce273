import CloudModel
import Foundation
import Hummingbird
import TodoStore

/// PROPFIND and PROPPATCH: the properties of the root, the principal, the calendar home, the collections and the
/// todos.
extension CalDAVHandler {
    /// What a PROPFIND asks: named properties, or all of them.
    enum Asked {
        case all
        case names
        case props([DAVName])
    }

    static let d = DAVNamespace.dav
    static let c = DAVNamespace.caldav

    /// The properties `allprop` and an empty body stand for (RFC 4918 leaves out the expensive ones; so do we).
    static let allProps: [DAVName] = [
        DAVName(d, "resourcetype"), DAVName(d, "displayname"), DAVName(d, "getetag"), DAVName(d, "getcontenttype"),
        DAVName(d, "current-user-principal"), DAVName(d, "sync-token"), DAVName(DAVNamespace.calendarServer, "getctag"),
        DAVName(DAVNamespace.apple, "calendar-color"), DAVName(DAVNamespace.apple, "calendar-order"), DAVName(c, "supported-calendar-component-set"),
    ]

    static func asked(_ body: Data) throws -> Asked {
        guard !body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) else { return .all }
        let root = try DAVXML.parse(body)
        guard root.isElement(d, "propfind") else { throw CalDAVFailure(400, "PROPFIND takes a DAV:propfind body") }
        if root.child(d, "propname") != nil { return .names }
        if let prop = root.child(d, "prop") { return .props(prop.children.map { DAVName($0.namespace, $0.name) }) }
        return .all
    }

    func propfind(_ request: CalDAVRequest) async throws -> Response {
        let asked = try Self.asked(request.body)
        let depth = request.depth(otherwise: 1)
        let account = request.account
        let text = try await service.store.read { tx -> String in
            var out = DAVWriter(root: "multistatus")
            switch request.target {
            case .root:
                Self.write(&out, href: request.path == "/" ? "/" : CalDAVPath.root, props: self.rootProps(account), asked)
            case .principal:
                Self.write(&out, href: CalDAVPath.principal(account.account), props: self.principalProps(account), asked)
            case .home:
                Self.write(&out, href: CalDAVPath.home(account.account), props: self.homeProps(account), asked)
                if depth > 0 {
                    for collection in try await self.service.calDAVCollections(account, tx) {
                        let props = try await self.collectionProps(account, collection, tx)
                        Self.write(&out, href: CalDAVPath.collection(account.account, collection.id), props: props, asked)
                    }
                }
            case .collection(_, let id):
                guard let collection = try await self.service.calDAVCollection(account, id, tx) else {
                    throw CalDAVFailure(404, "no such collection")
                }
                let props = try await self.collectionProps(account, collection, tx)
                Self.write(&out, href: CalDAVPath.collection(account.account, id), props: props, asked)
                if depth > 0 {
                    for item in try await self.service.calDAVMembers(collection, tx) {
                        Self.write(&out, href: CalDAVPath.object(account.account, id, item.key.recordName), props: Self.objectProps(item, collection), asked)
                    }
                }
            case .object(_, let id, let name):
                guard let collection = try await self.service.calDAVCollection(account, id, tx),
                    let item = try await self.service.calDAVMember(collection, name: name, tx)
                else { throw CalDAVFailure(404, "no such todo") }
                Self.write(&out, href: CalDAVPath.object(account.account, id, name), props: Self.objectProps(item, collection), asked)
            }
            return out.finish(root: "multistatus")
        }
        return Self.xml(text)
    }

    /// Properties of a resource: each name with a function giving its inner XML (computed only when asked).
    typealias Props = [DAVName: () -> String]

    static func write(_ out: inout DAVWriter, href: String, props: Props, _ asked: Asked) {
        switch asked {
        case .names:
            out.response(href: href, found: props.keys.sorted { $0.name < $1.name }.map { ($0, "") }, missing: [])
        case .all:
            let names = allProps.filter { props[$0] != nil }
            out.response(href: href, found: names.map { ($0, props[$0]!()) }, missing: [])
        case .props(let names):
            out.response(href: href, found: names.compactMap { name in props[name].map { (name, $0()) } }, missing: names.filter { props[$0] == nil })
        }
    }

    private func common(_ account: CalDAVAccount) -> Props {
        let principal = CalDAVPath.principal(account.account)
        return [
            DAVName(Self.d, "current-user-principal"): { "<d:href>\(DAVWriter.escape(principal))</d:href>" },
            DAVName(Self.d, "principal-collection-set"): { "<d:href>/dav/principals/</d:href>" },
            DAVName(Self.c, "calendar-home-set"): { "<d:href>\(DAVWriter.escape(CalDAVPath.home(account.account)))</d:href>" },
        ]
    }

    func rootProps(_ account: CalDAVAccount) -> Props {
        var props = common(account)
        props[DAVName(Self.d, "resourcetype")] = { "<d:collection/>" }
        props[DAVName(Self.d, "displayname")] = { "CloudTodo" }
        return props
    }

    func principalProps(_ account: CalDAVAccount) -> Props {
        var props = common(account)
        let principal = CalDAVPath.principal(account.account)
        props[DAVName(Self.d, "resourcetype")] = { "<d:principal/>" }
        props[DAVName(Self.d, "displayname")] = { DAVWriter.escape(account.account) }
        props[DAVName(Self.d, "principal-URL")] = { "<d:href>\(DAVWriter.escape(principal))</d:href>" }
        props[DAVName(Self.c, "calendar-user-address-set")] = { "<d:href>\(DAVWriter.escape(principal))</d:href>" }
        return props
    }

    func homeProps(_ account: CalDAVAccount) -> Props {
        var props = common(account)
        props[DAVName(Self.d, "resourcetype")] = { "<d:collection/>" }
        props[DAVName(Self.d, "displayname")] = { "Lists" }
        props[DAVName(Self.d, "owner")] = { "<d:href>\(DAVWriter.escape(CalDAVPath.principal(account.account)))</d:href>" }
        props[DAVName(Self.d, "current-user-privilege-set")] = { Self.privileges(readOnly: false) }
        return props
    }

    static func privileges(readOnly: Bool) -> String {
        let names = readOnly
            ? ["d:read", "d:read-current-user-privilege-set", "c:read-free-busy"]
            : ["d:read", "d:read-current-user-privilege-set", "c:read-free-busy", "d:write", "d:write-properties", "d:write-content", "d:bind", "d:unbind"]
        return names.map { "<d:privilege><\($0)/></d:privilege>" }.joined()
    }

    func collectionProps(_ account: CalDAVAccount, _ collection: CalDAVCollection, _ tx: any StoreTransaction) async throws -> Props {
        var props = common(account)
        let token = try await service.calDAVToken(collection, heads, tx).uri
        props[DAVName(Self.d, "resourcetype")] = { "<d:collection/><c:calendar/>" }
        props[DAVName(Self.d, "displayname")] = { DAVWriter.escape(collection.title) }
        props[DAVName(DAVNamespace.apple, "calendar-color")] = { collection.color }
        if let order = collection.order { props[DAVName(DAVNamespace.apple, "calendar-order")] = { String(order) } }
        props[DAVName(Self.c, "supported-calendar-component-set")] = { "<c:comp name=\"VTODO\"/>" }
        props[DAVName(Self.c, "supported-calendar-data")] = { "<c:calendar-data content-type=\"text/calendar\" version=\"2.0\"/>" }
        props[DAVName(Self.c, "max-resource-size")] = { String(VTodoMapping.maxObjectBytes) }
        props[DAVName(Self.d, "sync-token")] = { DAVWriter.escape(token) }
        props[DAVName(DAVNamespace.calendarServer, "getctag")] = { DAVWriter.escape(token) }
        props[DAVName(Self.d, "current-user-privilege-set")] = { Self.privileges(readOnly: collection.readOnly) }
        props[DAVName(Self.d, "owner")] = { "<d:href>\(DAVWriter.escape(CalDAVPath.principal(account.account)))</d:href>" }
        props[DAVName(Self.d, "supported-report-set")] = {
            ["c:calendar-multiget", "c:calendar-query", "d:sync-collection"].map { "<d:supported-report><d:report><\($0)/></d:report></d:supported-report>" }.joined()
        }
        return props
    }

    static func objectProps(_ item: TodoItem, _ collection: CalDAVCollection) -> Props {
        [
            DAVName(d, "resourcetype"): { "" },
            DAVName(d, "getetag"): { DAVWriter.escape(etag(item.system.changeTag)) },
            DAVName(d, "getcontenttype"): { "text/calendar; charset=utf-8; component=VTODO" },
            DAVName(c, "calendar-data"): { DAVWriter.escape(VTodoMapping.calendarObject(item)) },
            DAVName(d, "current-user-privilege-set"): { privileges(readOnly: collection.readOnly) },
        ]
    }

    // MARK: PROPPATCH

    /// PROPPATCH of a list's collection: `displayname` renames the list, `calendar-color` sets its colour. Any other
    /// property is refused (403) and then nothing changes (424 for the rest), as RFC 4918 has it.
    func proppatch(_ request: CalDAVRequest) async throws -> Response {
        guard case .collection(_, let id) = request.target else { throw CalDAVFailure(403, "only a list's collection takes PROPPATCH") }
        let root = try DAVXML.parse(request.body)
        guard root.isElement(Self.d, "propertyupdate") else { throw CalDAVFailure(400, "PROPPATCH takes a DAV:propertyupdate body") }
        var sets: [(DAVName, String?)] = []
        for update in root.children where update.isElement(Self.d, "set") || update.isElement(Self.d, "remove") {
            for prop in update.all(Self.d, "prop") {
                for element in prop.children {
                    sets.append((DAVName(element.namespace, element.name), update.name == "set" ? element.text.trimmingCharacters(in: .whitespacesAndNewlines) : nil))
                }
            }
        }
        let account = request.account
        guard let collection = try await service.store.read({ try await self.service.calDAVCollection(account, id, $0) }) else {
            throw CalDAVFailure(404, "no such collection")
        }
        let writable: Set<DAVName> = [DAVName(Self.d, "displayname"), DAVName(DAVNamespace.apple, "calendar-color"), DAVName(DAVNamespace.apple, "calendar-order")]
        // A colour or order that is none is refused as a property the list cannot take.
        func valid(_ name: DAVName, _ value: String?) -> Bool {
            guard let value else { return true }
            switch name.name {
            case "calendar-color": return CalDAVColor.normalized(value) != nil
            case "calendar-order": return Int64(value) != nil
            default: return true
            }
        }
        let ownList = collection.list != nil && !collection.readOnly && collection.id == .own(list: collection.list?.key.recordName ?? "")
        let refused = sets.filter { !ownList || !writable.contains($0.0) || !valid($0.0, $0.1) }.map(\.0)
        var out = DAVWriter(root: "multistatus")
        let href = CalDAVPath.collection(account.account, id)
        if !refused.isEmpty || sets.isEmpty {
            let refusedSet = Set(refused)
            out.response(
                href: href, statuses: [("403 Forbidden", refused), ("424 Failed Dependency", sets.map(\.0).filter { !refusedSet.contains($0) })])
            return Self.xml(out.finish(root: "multistatus"))
        }
        var list = collection.list!
        for (name, value) in sets {
            switch name.name {
            case "displayname": list.title = value.map { String($0.prefix(200)) } ?? ""
            case "calendar-order": list.extraFields[CloudService.listOrderField] = value.flatMap { Int64($0) }.map(FieldValue.int64)
            default: list.extraFields[CloudService.listColorField] = value.flatMap(CalDAVColor.normalized).map(FieldValue.string)
            }
        }
        try await service.calDAVWrite(account, collection, saving: [list])
        out.response(href: href, found: sets.map { ($0.0, "") }, missing: [])
        return Self.xml(out.finish(root: "multistatus"))
    }
}
