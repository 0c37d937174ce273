import ArgumentParser
import CloudClient
import CloudModel
import CommandLineSupport
import Foundation
import TodoPlanning
import TodoStore
import TodoSync

/// `todo info ID`: everything about one todo, read from the cache, its history included (Taskwarrior's `info`).
struct Info: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info", abstract: "Show everything about one todo: every field, its list and share, annotations and its history.")

    @OptionGroup var device: DeviceOptionGroup

    @Argument(help: "The todo's ID, as `todo list` shows it (or its first 4 characters or more).", completion: CacheCompletion.ids)
    var id: String

    @Flag(help: "Do not ask the cloud; show the cache.")
    var offline = false

    func validate() throws { try checkTodoNames([id]) }

    func run() async throws {
        try await device.withFreshSession(orSignedOut: true, offline: offline) { session in
            let found = try await session.todos(named: id)
            guard let item = found.first else { throw DeviceCommandError("no todo has the ID '\(id)' (todo list --all shows every ID)") }
            guard found.count == 1 else { throw AmbiguousTodoName(name: id, candidates: Array(found.prefix(10)), more: found.count > 10) }
            let listed = try await session.listedTodos(in: item.key.scope, includeTrashed: true)
            let todo = listed.first { $0.item.key == item.key } ?? ListedTodo(item: item, listTitle: nil)
            let snapshot = await session.engine.snapshot()
            let shares = [DatabaseScope.private, .shared].flatMap { snapshot.todos(in: $0).compactMap(ShareState.init) }
            var names = InfoNames(credentials: session.credentials, shares: shares)
            for list in try await session.store.records(ofType: TodoSchema.listType) where list.key.scope == item.key.scope {
                names.lists[list.key.recordName] = list.title
            }
            for other in listed { names.todos[other.item.key.recordName] = (other.item.shortID, other.item.title) }
            if !offline, session.credentials != nil, let devices = try? await session.client.listDevices() {
                for device in devices { names.devices[device.deviceID] = device.deviceName }
            }
            for (label, value) in lines(todo, shares: shares.filter { $0.key.scope == item.key.scope }, names: names) {
                print(label.padding(toLength: 12, withPad: " ", startingAt: 0) + value)
            }
            let history = try await session.store.history(of: item.key)
            print("History" + (history.isEmpty ? "     none on this device yet" : ""))
            for entry in history {
                let when = momentText(Date(timeIntervalSince1970: Double(entry.at) / 1000))
                let from = names.device(entry.device)
                print("  \(when)  \(from)\(entry.fromCloud ? " (via the cloud)" : ""): " + entry.changes.map(names.change).joined(separator: "; "))
            }
        }
    }

    /// The fields, as label and value.
    private func lines(_ todo: ListedTodo, shares: [ShareState], names: InfoNames) -> [(String, String)] {
        let item = todo.item
        var lines: [(String, String)] = [
            ("ID", "\(item.shortID) (\(item.key.recordName))"),
            ("Title", item.title),
            ("Status", item.isTrashed ? "trashed" : item.isCompleted ? "done" : item.isWaiting(at: Date()) ? "waiting" : "open"),
        ]
        if !item.notes.isEmpty { lines.append(("Notes", item.notes)) }
        lines.append(("Project", todo.listTitle ?? "none"))
        lines.append(("Database", item.key.scope.rawValue + (item.key.zoneOwner.isEmpty ? "" : " (owner \(names.person(item.key.zoneOwner)))")))
        if let listName = item.listName, let share = shares.first(where: { $0.rootRecordName == listName && $0.key.zone == item.key.zone }) {
            if item.key.scope == .shared {
                lines.append(("Shared", "by \(share.ownerAccount ?? "?"), you may \(item.sharePermission == .readOnly ? "read it" : "read and change it")"))
            } else if !share.members.isEmpty {
                lines.append(("Shared", "with " + share.members.map(\.summary).joined(separator: ", ")))
            }
        } else if item.key.scope == .shared {
            lines.append(("Shared", item.sharePermission.map(\.words) ?? "access unknown"))
        }
        lines.append(("Priority", item.priority == 0 ? "none" : String(item.priority)))
        lines.append(("Due", item.due.map(formatDue) ?? "none"))
        if let rule = item.repeatRule { lines.append(("Repeat", rule + (item.repeatFromCompletion ? " (from completion)" : "") + ", occurrence \(item.occurrence)")) }
        for (label, moment) in [("Wait", item.wait), ("Scheduled", item.scheduled), ("Until", item.until)] {
            if let moment { lines.append((label, momentText(moment))) }
        }
        if let start = item.start { lines.append(("Started", "\(momentText(start)) (active \(activeSpan(since: start)))")) }
        if !item.tags.isEmpty { lines.append(("Tags", item.tags.map { "+" + $0 }.joined(separator: " "))) }
        if !todo.blockers.isEmpty { lines.append(("Blocked by", todo.blockers.map { "\($0.shortID) \($0.title)" }.joined(separator: ", "))) }
        if todo.isBlocking { lines.append(("Blocking", "an open todo waits on it")) }
        for (index, note) in item.annotations.enumerated() {
            lines.append((index == 0 ? "Annotations" : "", momentText(note.entry) + "  " + note.text))
        }
        if let created = item.system.created {
            lines.append(("Created", momentText(Date(timeIntervalSince1970: Double(created.timestamp) / 1000)) + " by \(names.person(created.userRecordName))"))
        }
        if let modified = item.system.modified {
            lines.append(("Modified", momentText(Date(timeIntervalSince1970: Double(modified.timestamp) / 1000)) + " by \(names.person(modified.userRecordName))"))
        }
        if item.hasPendingChanges { lines.append(("Pending", "a change waits to be sent")) }
        return lines
    }
}
