import CloudModel
import Foundation
import Hummingbird
import TodoPlanning
import TodoStore

/// REPORT: `calendar-multiget`, `calendar-query` and `sync-collection` on a collection.
extension CalDAVHandler {
    func report(_ request: CalDAVRequest) async throws -> Response {
        let root = try DAVXML.parse(request.body)
        guard case .collection(_, let id) = request.target else {
            if case .object = request.target, root.isElement(Self.c, "calendar-multiget") || root.isElement(Self.c, "calendar-query") {
                throw CalDAVFailure(403, "ask a collection for its todos")
            }
            throw CalDAVFailure(403, "REPORT is answered on a calendar collection", condition: "<d:supported-report/>")
        }
        let props = root.child(Self.d, "prop")?.children.map { DAVName($0.namespace, $0.name) } ?? [DAVName(Self.d, "getetag")]
        let account = request.account
        let href = CalDAVPath.collection(account.account, id)
        let text = try await service.store.read { tx -> String in
            var out = DAVWriter(root: "multistatus")
            guard let collection = try await self.service.calDAVCollection(account, id, tx) else { throw CalDAVFailure(404, "no such collection") }
            func write(_ item: TodoItem) {
                Self.write(&out, href: CalDAVPath.object(account.account, id, item.key.recordName), props: Self.objectProps(item, collection), .props(props))
            }
            if root.isElement(Self.c, "calendar-multiget") {
                var names: [(href: String, name: String?)] = []
                for element in root.all(Self.d, "href") {
                    let text = element.text.trimmingCharacters(in: .whitespacesAndNewlines)
                    names.append((text, Self.memberName(text, collection: href)))
                }
                var found: [String: TodoItem] = [:]
                if let zone = collection.zone {
                    let wanted = names.compactMap(\.name)
                    for chunk in stride(from: 0, to: wanted.count, by: 500) {
                        let rows = try await tx.records(zonePK: zone.pk, names: Array(wanted[chunk..<min(chunk + 500, wanted.count)]))
                        for (name, row) in rows where !row.deleted && collection.holds(row) {
                            let item = TodoItem(record: try row.record(zoneID: collection.zoneID), scope: collection.database.scope)
                            if !item.isTrashed { found[name] = item }
                        }
                    }
                }
                for (text, name) in names {
                    if let name, let item = found[name] { write(item) } else { out.status(href: text, "404 Not Found") }
                }
            } else if root.isElement(Self.c, "calendar-query") {
                let filter = root.child(Self.c, "filter")
                for item in try await self.service.calDAVMembers(collection, tx) where CalDAVFilter.matches(filter, item) {
                    write(item)
                }
            } else if root.isElement(Self.d, "sync-collection") {
                let sent = root.child(Self.d, "sync-token")?.text.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
                var token: CalDAVSyncToken?
                if !sent.isEmpty {
                    guard let parsed = CalDAVSyncToken(uri: sent) else { throw CalDAVTokenExpired() }
                    token = parsed
                }
                let changes = try await self.service.calDAVChanges(collection, after: token, self.heads, tx)
                for item in changes.changed { write(item) }
                for name in changes.removed { out.status(href: CalDAVPath.object(account.account, id, name), "404 Not Found") }
                out.syncToken(changes.token.uri)
            } else {
                throw CalDAVFailure(403, "unknown REPORT {\(root.namespace)}\(root.name)", condition: "<d:supported-report/>")
            }
            return out.finish(root: "multistatus")
        }
        return Self.xml(text)
    }

    /// The record name an href names inside the collection at `collection`, nil for one outside it.
    static func memberName(_ href: String, collection: String) -> String? {
        var path = href
        if let url = URL(string: href), url.scheme != nil { path = url.path(percentEncoded: true) }
        guard let decodedCollection = collection.removingPercentEncoding, let decoded = path.removingPercentEncoding,
            decoded.hasPrefix(decodedCollection)
        else { return nil }
        let rest = decoded.dropFirst(decodedCollection.count)
        guard rest.hasSuffix(".ics"), rest.count > 4, !rest.contains("/") else { return nil }
        return String(rest.dropLast(4))
    }
}

/// The `calendar-query` filters of RFC 4791 section 9.7, on a todo: component filters (a VTODO matches, any other
/// component does not), time ranges on the todo (by DUE and DTSTART) or on DUE, DTSTART and COMPLETED,
/// `is-not-defined`, and `text-match` (case-insensitive, or as the collation says) on any property.
enum CalDAVFilter {
    static let c = DAVNamespace.caldav

    static func matches(_ filter: DAVElement?, _ item: TodoItem) -> Bool {
        guard let filter else { return true }
        var lines: [ICalendarLine]?
        func properties() -> [ICalendarLine] {
            if let lines { return lines }
            let made = ICalendarObject(VTodoMapping.calendarObject(item)).todos.first?.properties ?? []
            lines = made
            return made
        }
        return filter.all(c, "comp-filter").allSatisfy { component($0, item, depth: 0, properties) }
    }

    private static func component(_ filter: DAVElement, _ item: TodoItem, depth: Int, _ properties: () -> [ICalendarLine]) -> Bool {
        let name = (filter.attributes["name"] ?? "").uppercased()
        let present = depth == 0 ? name == "VCALENDAR" : name == "VTODO"
        if filter.child(c, "is-not-defined") != nil { return !present }
        guard present else { return depth > 1 }  // (a VALARM filter below VTODO: not judged, let through)
        if depth == 1, let range = filter.child(c, "time-range"), !overlaps(range, start: item.scheduled ?? item.due?.date, end: item.due?.date) {
            return false
        }
        for sub in filter.all(c, "comp-filter") where !component(sub, item, depth: depth + 1, properties) { return false }
        for property in filter.all(c, "prop-filter") where !propertyMatches(property, item, properties) { return false }
        return true
    }

    private static func propertyMatches(_ filter: DAVElement, _ item: TodoItem, _ properties: () -> [ICalendarLine]) -> Bool {
        let name = (filter.attributes["name"] ?? "").uppercased()
        let lines = properties().filter { $0.name == name }
        if filter.child(c, "is-not-defined") != nil { return lines.isEmpty }
        guard !lines.isEmpty else { return false }
        if let range = filter.child(c, "time-range") {
            let moment: Date? = switch name {
            case "DUE": item.due?.date
            case "DTSTART": item.scheduled
            case "COMPLETED": item.isCompleted ? item.system.modified?.date : nil
            default: nil
            }
            guard overlaps(range, start: moment, end: moment), moment != nil else { return false }
        }
        if let match = filter.child(c, "text-match") {
            let needle = match.text.trimmingCharacters(in: .whitespacesAndNewlines)
            let negate = match.attributes["negate-condition"]?.lowercased() == "yes"
            let exact = match.attributes["collation"]?.lowercased() == "i;octet"
            let found = lines.contains { line in
                let value = line.value.replacingOccurrences(of: "\\,", with: ",").replacingOccurrences(of: "\\;", with: ";")
                    .replacingOccurrences(of: "\\n", with: "\n").replacingOccurrences(of: "\\\\", with: "\\")
                return exact ? value.contains(needle) : value.range(of: needle, options: [.caseInsensitive]) != nil
            }
            if found == negate { return false }
        }
        return true
    }

    /// Whether [start, end] meets the filter's range (either bound may be left out); a todo without dates meets any.
    private static func overlaps(_ range: DAVElement, start: Date?, end: Date?) -> Bool {
        guard let first = start ?? end, let last = end ?? start else { return true }
        if let text = range.attributes["start"], let from = utc(text), last < from { return false }
        if let text = range.attributes["end"], let to = utc(text), first >= to { return false }
        return true
    }

    /// A `YYYYMMDDTHHMMSSZ` time.
    static func utc(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.date(from: text)
    }
}
