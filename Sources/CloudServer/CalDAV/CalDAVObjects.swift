import CloudModel
import Foundation
import Hummingbird
import TodoPlanning
import TodoStore

/// GET, PUT and DELETE of todos; MKCALENDAR and DELETE of lists.
extension CalDAVHandler {
    func get(_ request: CalDAVRequest, head: Bool) async throws -> Response {
        guard case .object(_, let id, let name) = request.target else {
            throw CalDAVFailure(405, "GET a todo (.ics); PROPFIND or REPORT a collection")
        }
        let account = request.account
        let item = try await service.store.read { tx -> TodoItem in
            guard let collection = try await self.service.calDAVCollection(account, id, tx),
                let item = try await self.service.calDAVMember(collection, name: name, tx)
            else { throw CalDAVFailure(404, "no such todo") }
            return item
        }
        let text = VTodoMapping.calendarObject(item)
        var headers = HTTPFields()
        headers[.contentType] = "text/calendar; charset=utf-8"
        headers[.eTag] = Self.etag(item.system.changeTag)
        if head {
            headers[.contentLength] = String(text.utf8.count)
            return Response(status: .ok, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// Refuses the write when `If-Match` / `If-None-Match` do not hold for the current version (nil: none).
    static func checkPreconditions(_ request: CalDAVRequest, current: TodoItem?) throws {
        if let match = request.header("If-Match")?.trimmingCharacters(in: .whitespaces) {
            guard let current, match == "*" || match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag(current.system.changeTag) })
            else { throw CalDAVFailure(412, "If-Match: the todo changed (or is gone) since you read it; fetch it again") }
        }
        if let noneMatch = request.header("If-None-Match")?.trimmingCharacters(in: .whitespaces), let current {
            if noneMatch == "*" || noneMatch.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag(current.system.changeTag) }) {
                throw CalDAVFailure(412, "If-None-Match: the todo exists already")
            }
        }
    }

    /// The calendar calendar arithmetic of repeats uses on the cloud: Gregorian, in the cloud's time zone.
    static var planningCalendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        return calendar
    }

    func put(_ request: CalDAVRequest) async throws -> Response {
        guard case .object(_, let id, let name) = request.target else { throw CalDAVFailure(405, "PUT a todo as NAME.ics inside a collection") }
        guard name.utf8.count <= 200, !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw CalDAVFailure(400, "resource names are at most 200 bytes, without control characters")
        }
        if let type = request.header("Content-Type")?.lowercased(), !type.hasPrefix("text/calendar") {
            throw CalDAVFailure(415, "a todo is sent as text/calendar", condition: "<c:supported-calendar-data/>")
        }
        guard request.body.count <= VTodoMapping.maxObjectBytes else {
            throw CalDAVFailure(413, "a todo is at most \(VTodoMapping.maxObjectBytes) bytes of iCalendar", condition: "<c:max-resource-size/>")
        }
        guard let bodyText = String(data: request.body, encoding: .utf8) else {
            throw CalDAVFailure(400, "the body is not UTF-8 text", condition: "<c:valid-calendar-data/>")
        }
        let sent = ICalendarObject(bodyText)
        guard sent.wellFormed else {
            throw CalDAVFailure(400, "not an iCalendar object: it must start with BEGIN:VCALENDAR and close every component", condition: "<c:valid-calendar-data/>")
        }
        guard sent.others.isEmpty, !sent.todos.isEmpty else {
            let what = sent.others.first.map { "a \($0)" } ?? "no VTODO"
            throw CalDAVFailure(403, "this collection holds one VTODO per resource; the object holds \(what)", condition: "<c:supported-calendar-component/>")
        }
        let (text, object) = try CalDAVOverrides.resolve(bodyText, sent)
        guard object.todos.count == 1 else {
            let what = object.others.first.map { "a \($0)" } ?? (object.todos.isEmpty ? "no VTODO" : "\(object.todos.count) VTODOs")
            throw CalDAVFailure(403, "this collection holds one VTODO per resource; the object holds \(what)", condition: "<c:supported-calendar-component/>")
        }
        guard object.todos[0].properties.contains(where: { $0.name == "UID" && !$0.value.trimmingCharacters(in: .whitespaces).isEmpty }) else {
            throw CalDAVFailure(400, "the VTODO has no UID", condition: "<c:valid-calendar-object-resource/>")
        }
        let todo: PortableTodo
        do {
            guard let read = try VTodoMapping.decode(text) else {
                throw CalDAVFailure(400, "the VTODO could not be read (a DUE that is no date)", condition: "<c:valid-calendar-object-resource/>")
            }
            todo = read
        } catch let error as ICalendarError {
            throw CalDAVFailure(400, error.description, condition: "<c:valid-calendar-data/>")
        }
        let account = request.account
        let (collection, existing, nextExists) = try await service.store.read { tx -> (CalDAVCollection, TodoItem?, Bool) in
            guard let collection = try await self.service.calDAVCollection(account, id, tx) else { throw CalDAVFailure(409, "no such collection") }
            var existing: TodoItem?
            if let zone = collection.zone, let row = try await tx.record(zonePK: zone.pk, name: name), !row.deleted, row.recordType == TodoSchema.todoType {
                existing = TodoItem(record: try row.record(zoneID: collection.zoneID), scope: collection.database.scope)
            }
            var nextExists = false
            if let zone = collection.zone, let key = existing?.nextOccurrenceKey {
                nextExists = try await tx.record(zonePK: zone.pk, name: key.recordName).map { !$0.deleted } ?? false
            }
            return (collection, existing, nextExists)
        }
        if collection.readOnly { throw CalDAVFailure(403, "this list is shared with you to read only", condition: "<d:need-privileges/>") }
        // A trashed todo of that name counts as absent for the preconditions (and is brought back by the write).
        let visible = existing.flatMap { $0.isTrashed ? nil : $0 }
        try Self.checkPreconditions(request, current: visible)
        let zoneOwner = collection.database.scope == .shared ? collection.zoneID.ownerRecordName ?? "" : ""
        var item = existing ?? TodoItem(key: RecordKey(scope: collection.database.scope, zoneName: TodoSchema.zoneName, zoneOwner: zoneOwner, recordName: name), title: "")
        let wasCompleted = visible?.isCompleted ?? false
        VTodoMapping.apply(todo, object: object, to: &item)
        item.setList(collection.id.listName)
        var saving = [item]
        // Completing an occurrence of a repeating todo makes the next one, as on a device.
        if item.isCompleted, !wasCompleted, visible != nil, !nextExists,
            let next = item.nextOccurrence(completedAt: Date(), calendar: Self.planningCalendar)
        {
            var next = next
            next.extraFields[VTodoMapping.keptField] = nil
            next.system = SystemFields()
            saving.append(next)
        }
        let saved = try await service.calDAVWrite(account, collection, saving: saving)
        let tag = saved.first { $0.recordName == name }?.recordChangeTag
        return Self.empty(visible == nil ? 201 : 204, etag: Self.etag(tag))
    }

    func delete(_ request: CalDAVRequest) async throws -> Response {
        let account = request.account
        switch request.target {
        case .object(_, let id, let name):
            let (collection, item) = try await service.store.read { tx -> (CalDAVCollection, TodoItem) in
                guard let collection = try await self.service.calDAVCollection(account, id, tx),
                    let item = try await self.service.calDAVMember(collection, name: name, tx)
                else { throw CalDAVFailure(404, "no such todo") }
                return (collection, item)
            }
            if collection.readOnly { throw CalDAVFailure(403, "this list is shared with you to read only", condition: "<d:need-privileges/>") }
            try Self.checkPreconditions(request, current: item)
            // Into the trash, as `todo trash` does: `todo restore` brings it back.
            var trashed = item
            trashed.isTrashed = true
            try await service.calDAVWrite(account, collection, saving: [trashed])
            return Self.empty(204)
        case .collection(_, let id):
            let (collection, members) = try await service.store.read { tx -> (CalDAVCollection, [TodoItem]) in
                guard let collection = try await self.service.calDAVCollection(account, id, tx) else { throw CalDAVFailure(404, "no such collection") }
                return (collection, try await self.service.calDAVMembers(collection, tx))
            }
            guard case .own = id, let list = collection.list else {
                throw CalDAVFailure(403, id == .inbox ? "the default collection (todos in no list) cannot be deleted" : "only the owner deletes a shared list")
            }
            // As the app deletes a list: its todos and the list itself (in requests of at most 200 records).
            let names = members.map { ($0.key.recordName, Optional<String>.none) } + [(list.key.recordName, nil)]
            for start in stride(from: 0, to: names.count, by: CloudLimits.maxOperationsPerRequest) {
                try await service.calDAVWrite(account, collection, saving: [], deleting: Array(names[start..<min(start + CloudLimits.maxOperationsPerRequest, names.count)]))
            }
            return Self.empty(204)
        default:
            throw CalDAVFailure(403, "only todos and lists can be deleted")
        }
    }

    /// MKCALENDAR (and an extended MKCOL) at a new collection's path: a new list, titled by `displayname`.
    func makeCalendar(_ request: CalDAVRequest) async throws -> Response {
        guard case .collection(_, let id) = request.target, case .own(let name) = id else {
            throw CalDAVFailure(403, "make a list at /dav/calendars/ACCOUNT/NAME/", condition: "<d:resource-must-be-null/>")
        }
        guard !name.hasPrefix("shared~"), name.utf8.count <= 200, !name.unicodeScalars.contains(where: { $0.value < 0x20 }) else {
            throw CalDAVFailure(403, "a list's name is at most 200 bytes and does not start with shared~")
        }
        var title = name
        var color: String?
        var order: Int64?
        if !request.body.isEmpty {
            let root = try DAVXML.parse(request.body)
            guard root.isElement(Self.c, "mkcalendar") || root.isElement(Self.d, "mkcol") else {
                throw CalDAVFailure(400, "\(request.method) takes a mkcalendar (or mkcol) body")
            }
            for set in root.all(Self.d, "set") {
                for prop in set.all(Self.d, "prop") {
                    if let text = prop.child(Self.d, "displayname")?.text.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty { title = String(text.prefix(200)) }
                    if let text = prop.child(DAVNamespace.apple, "calendar-color")?.text { color = CalDAVColor.normalized(text) }
                    if let text = prop.child(DAVNamespace.apple, "calendar-order")?.text { order = Int64(text.trimmingCharacters(in: .whitespacesAndNewlines)) }
                    if let set = prop.child(Self.c, "supported-calendar-component-set"), !set.all(Self.c, "comp").contains(where: { $0.attributes["name"]?.uppercased() == "VTODO" }) {
                        throw CalDAVFailure(403, "this cloud makes todo lists only (VTODO)", condition: "<c:supported-calendar-component/>")
                    }
                }
            }
        }
        let account = request.account
        let home = try await service.store.read { tx -> CalDAVCollection in
            let collections = try await self.service.calDAVCollections(account, tx)
            if collections.contains(where: { $0.id == id }) { throw CalDAVFailure(405, "a list is at that path already", condition: "<d:resource-must-be-null/>") }
            return collections[0]
        }
        var list = TodoItem(key: .privateTodo(name), recordType: TodoSchema.listType, title: title)
        if let color { list.extraFields[CloudService.listColorField] = .string(color) }
        if let order { list.extraFields[CloudService.listOrderField] = .int64(order) }
        try await service.calDAVWrite(account, home, saving: [list])
        return Self.empty(201)
    }
}
