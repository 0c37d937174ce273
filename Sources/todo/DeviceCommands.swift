import ArgumentParser
import CloudClient
import CloudModel
import Foundation
import Terminal
import TodoApp
import TodoStore
import TodoSync
import TodoUI

/// A user-facing failure of a device verb.
struct DeviceCommandError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Reads a due date with the grammar the app's edit form uses (`DueDateGrammar`); nil for `none`.
func parseDueDate(_ text: String) throws(DueDateError) -> Date? {
    try DueDateGrammar().parse(text)
}

/// Checks a `--due` value while the command line is validated, so a date that does not exist is a usage error.
func validateDueDate(_ text: String) throws {
    do {
        _ = try parseDueDate(text)
    } catch {
        throw ValidationError(error.description)
    }
}

/// `YYYY-MM-DD` in the local calendar.
func formatDay(_ date: Date) -> String {
    Formatting.day(date, calendar: Formatting.isoCalendar)
}

/// Sends what waits and says so when the cloud is out of reach.
func sendAndReport(_ session: DeviceSession) async throws {
    await session.engine.sync(.localEdit)
    try await printNewConflicts(session, toStandardError: true)
    let snapshot = await session.engine.status()
    if snapshot.connection != .online || snapshot.pendingCount > 0 {
        // Saved here, not sent yet: say so (the edit is kept and goes out with the next sync).
        var line = "Saved on this device, not sent yet (\(snapshot.statusLine))"
        if let error = snapshot.lastError {
            // The status already says offline; the reason says why.
            line += ": " + plainMessage(error.hasPrefix("offline: ") ? String(error.dropFirst(9)) : error)
        }
        printError(line)
    } else if let error = snapshot.lastError {
        // Sent, but the cloud refused something (e.g. access lowered meanwhile: the edit was reverted).
        throw DeviceCommandError(plainMessage(error))
    }
}

/// `todo add TITLE [--due] [--priority] [--notes] [--public]`.
struct Add: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a todo.")

    @OptionGroup var device: DeviceOptionGroup

    @Argument(help: "The todo's title.")
    var title: String

    @Option(help: "Due date: YYYY-MM-DD, today, tomorrow, +3d, +2w or an ISO 8601 time.")
    var due: String?

    @Option(help: "Priority, 0 (none) to 3 (high).")
    var priority: Int = 0

    @Option(help: "Notes.")
    var notes: String = ""

    @Flag(name: .customLong("public"), help: "Post to the public board instead of your private list.")
    var toPublicBoard = false

    @Option(help: "The list to add it to (title or ID; yours or one shared with you read-write).")
    var list: String?

    func validate() throws {
        guard (0...3).contains(priority) else { throw ValidationError("--priority must be 0 to 3") }
        guard !title.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("the title must not be empty") }
        if let due { try validateDueDate(due) }
    }

    func run() async throws {
        let dueDate = try due.flatMap(parseDueDate)
        try await device.withSession { session in
            let item: TodoItem
            if let list {
                let target = try await session.list(named: list)
                item = try await session.engine.add(
                    title: title, notes: notes, dueDate: dueDate, priority: priority, toList: target.key)
            } else {
                item = try await session.engine.add(
                    title: title, notes: notes, dueDate: dueDate, priority: priority, to: toPublicBoard ? .public : .private)
            }
            print(item.shortID)
            try await sendAndReport(session)
        }
    }
}

/// `todo list [--json] [--all] [--public] [--offline]`.
struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List todos (after fetching what changed).")

    @OptionGroup var device: DeviceOptionGroup

    @Flag(help: "Print JSON for scripts.")
    var json = false

    @Flag(help: "Include trashed records.")
    var all = false

    @Flag(name: .customLong("public"), help: "List the public board instead of your private todos.")
    var publicBoard = false

    @Flag(help: "List todos of lists others share with you.")
    var shared = false

    @Flag(help: "Do not ask the cloud; show the cache.")
    var offline = false

    func run() async throws {
        try await device.withSession { session in
            if !offline { await session.engine.sync(.manualRefresh) }
            let scope: DatabaseScope = publicBoard ? .public : shared ? .shared : .private
            let signedOut = await session.engine.snapshot().connection == .signedOut
            // Signed out, private data is unavailable (DESIGN.md §1); the public board stays readable.
            let records = signedOut && scope != .public ? [] : try await session.store.todos(in: scope, includeTrashed: all)
            let lists = Dictionary(records.filter(\.isList).map { ($0.key, $0.title) }, uniquingKeysWith: { first, _ in first })
            let items = records.filter { $0.recordType == TodoSchema.todoType }
            func listTitle(_ item: TodoItem) -> String? {
                item.listName.flatMap { lists[RecordKey(scope: item.key.scope, zoneName: item.key.zoneName, zoneOwner: item.key.zoneOwner, recordName: $0)] }
            }
            if json {
                try printJSON(items, listTitle: listTitle)
            } else {
                for item in items { print(line(for: item, list: listTitle(item))) }
                let snapshot = await session.engine.snapshot()
                if snapshot.connection != .online || snapshot.pendingCount > 0 {
                    printError("Shown from this device's cache (\(snapshot.statusLine))")
                }
            }
        }
    }

    private func line(for item: TodoItem, list: String?) -> String {
        var parts = [item.isCompleted ? "[x]" : "[ ]", item.shortID]
        if let list { parts.append("[\(list)]") }
        if item.priority > 0 { parts.append("P\(item.priority)") }
        if let due = item.dueDate { parts.append("due \(formatDay(due))") }
        if item.isTrashed { parts.append("(trashed)") }
        if item.hasPendingChanges { parts.append("*") }
        parts.append(item.title)
        return parts.joined(separator: "  ")
    }

    private func printJSON(_ items: [TodoItem], listTitle: (TodoItem) -> String?) throws {
        struct Row: Encodable {
            var id: String
            var scope: String
            var title: String
            var notes: String
            var isCompleted: Bool
            var dueDate: String?
            var priority: Int
            var isTrashed: Bool
            var pending: Bool
            var recordChangeTag: String?
            var createdBy: String?
            var modifiedAt: Int64?
            var list: String?
            var listID: String?
        }
        let rows = items.map { item in
            Row(
                id: item.key.recordName, scope: item.key.scope.rawValue, title: item.title, notes: item.notes,
                isCompleted: item.isCompleted, dueDate: item.dueDate.map(formatDay), priority: item.priority,
                isTrashed: item.isTrashed, pending: item.hasPendingChanges, recordChangeTag: item.system.changeTag,
                createdBy: item.system.created?.userRecordName, modifiedAt: item.system.modified?.timestamp,
                list: listTitle(item), listID: item.listName)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // The encoder escapes C0 controls; DEL, C1, bidi controls and line separators are escaped after it.
        printTrusted(escapingTerminalControls(inJSON: String(decoding: try encoder.encode(rows), as: UTF8.self)))
    }
}

/// `todo done ID [--undo]`.
struct Done: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "done", abstract: "Mark a todo done.")

    @OptionGroup var device: DeviceOptionGroup

    @Argument(help: "The todo's ID, as `todo list` shows it (any unique end or start of it is enough).")
    var id: String

    @Flag(help: "Mark it not done again.")
    var undo = false

    func run() async throws {
        try await device.withTodo(id) { session, item in
            _ = try await session.engine.setCompleted(item.key, !undo)
        }
    }
}

/// `todo edit ID [--title] [--notes] [--due] [--priority]`.
struct Edit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "edit", abstract: "Change a todo's fields.")

    @OptionGroup var device: DeviceOptionGroup

    @Argument(help: "The todo's ID, as `todo list` shows it (any unique end or start of it is enough).")
    var id: String

    @Option(help: "New title.")
    var title: String?

    @Option(help: "New notes.")
    var notes: String?

    @Option(help: "New due date (YYYY-MM-DD, today, tomorrow, +3d, +2w, an ISO 8601 time), or none to clear it.")
    var due: String?

    @Option(help: "New priority, 0 to 3.")
    var priority: Int?

    func validate() throws {
        if let priority, !(0...3).contains(priority) { throw ValidationError("--priority must be 0 to 3") }
        if title == nil && notes == nil && due == nil && priority == nil {
            throw ValidationError("say what to change: --title, --notes, --due or --priority")
        }
        if let due { try validateDueDate(due) }
    }

    func run() async throws {
        let dueDate: Date?? = try due.map { try parseDueDate($0) }
        try await device.withTodo(id) { session, item in
            _ = try await session.engine.edit(item.key, TodoEdit(title: title, notes: notes, dueDate: dueDate, priority: priority))
        }
    }
}

/// `todo trash ID`: deletes, marks trashed (public board), or refuses with the reason.
struct Trash: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "trash", abstract: "Trash a todo (public board posts are marked trashed).")

    @OptionGroup var device: DeviceOptionGroup

    @Argument(help: "The todo's ID, as `todo list` shows it (any unique end or start of it is enough).")
    var id: String

    func run() async throws {
        try await device.withTodo(id) { session, item in
            if case .refuse(let reason) = try await session.engine.trash(item.key) {
                throw DeviceCommandError("cannot trash \(item.shortID): \(reason)")
            }
        }
    }
}

/// `todo sync`: the whole sequence once (account, zone, subscriptions, fetch, send, public board).
struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sync", abstract: "Fetch what changed and send what waits.")

    @OptionGroup var device: DeviceOptionGroup

    func run() async throws {
        try await device.withSession { session in
            await session.engine.refresh()
            let snapshot = await session.engine.status()
            try await printNewConflicts(session)
            print(snapshot.statusLine)
            if let error = snapshot.lastError { printError("Last error: " + plainMessage(error)) }
            if snapshot.connection != .online { throw ExitCode(snapshot.connection == .offline ? TodoExitCode.offline : TodoExitCode.failure) }
        }
    }
}

/// `todo status`: account, device, tokens, pending changes, last error.
struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show account, device, tokens, pending changes and the last error.")

    @OptionGroup var device: DeviceOptionGroup

    func run() async throws {
        let launch = try device.launch()
        try await device.withSession { session in
            let snapshot = await session.engine.snapshot()
            let state = try await session.store.syncState()
            let options = session.options
            func show(_ label: String, _ value: String?) { print("\(label.padding(toLength: 18, withPad: " ", startingAt: 0))\(value ?? "-")") }
            show("account", options.account)
            show("user", session.credentials?.userRecordName ?? state.lastKnownUser)
            show("device", options.device + (session.credentials.map { " (\($0.deviceID))" } ?? ""))
            show("cloud", options.server.absoluteString)
            show("cloud from", launch.source.description)
            show("trusts", launch.trust.caFile.map { "the system's certificates and \($0)" } ?? "the system's certificates")
            show("signed in", session.credentials == nil ? "no" : "yes")
            show("cache", options.cacheFile.path)
            show("todos", String(try await session.store.recordCount(in: .private)))
            show("public board", String(try await session.store.recordCount(in: .public)))
            show("pending", String(snapshot.pendingCount) + (snapshot.failedCount > 0 ? " (\(snapshot.failedCount) refused)" : ""))
            show("last sync", state.lastSyncAt.map { ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double($0) / 1000)) })
            show("zone created", state.createdCustomZone ? "yes" : "no")
            show("subscriptions", "private \(state.subscribedToPrivateChanges ? "yes" : "no"), shared \(state.subscribedToSharedChanges ? "yes" : "no")")
            for scope in [DatabaseScope.private, .shared] {
                show("\(scope.rawValue) db token", state.databaseTokens[scope]?.rawValue)
            }
            for (zone, token) in state.zoneTokens.sorted(by: { $0.key.description < $1.key.description }) {
                show("zone token", "\(zone) \(token.rawValue)")
            }
            show("last public poll", state.lastPublicPoll.map(String.init))
            let pending = try await session.store.pendingChanges(includeFailed: true)
            for change in pending where change.failedReason != nil {
                show("refused", "\(RecordNames.shortID(change.key.recordName)): \(plainMessage(change.failedReason ?? ""))")
            }
            for notice in try await session.engine.conflicts().prefix(10) { show("conflict", ConflictField.line(notice)) }
            show("last error", snapshot.lastError.map(plainMessage))
            // What the engine undid or removed on its own (reverted edits, data deleted elsewhere), newest last.
            for notice in await session.engine.recentNotices() {
                let time = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(notice.time) / 1000))
                show(notice.kind == .reverted ? "reverted" : "deleted", "\(time) \(notice.text)")
            }
        }
    }
}

/// `todo push DEVICE`: asks the cloud for a test push to one of your devices.
struct Push: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "push", abstract: "Ask the cloud to send a test push to one of your devices.")

    @OptionGroup var device: DeviceOptionGroup

    @Argument(help: "The device to notify.")
    var target: String

    func run() async throws {
        try await device.withSession { session in
            guard session.credentials != nil else { throw DeviceCommandError("signed out: sign in (todo signin) to send pushes") }
            do {
                try await session.client.sendTestPush(toDevice: target)
            } catch let error as CloudError where error.code == .unknownItem {
                throw DeviceCommandError("\(error.reason) (a device receives pushes while its app is open)")
            }
            print("Sent a test push to \(target)")
        }
    }
}

/// `todo signout`: signs this device out; it stays signed out until `todo signin`.
struct SignOut: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "signout", abstract: "Sign this device out.")

    @OptionGroup var device: DeviceOptionGroup

    func run() async throws {
        try await device.withSession { session in
            try await session.signOut()
            print("Signed out \(session.options.account) on \(session.options.device)")
        }
    }
}

/// `todo signin`: signs this device in again after `todo signout`.
struct SignIn: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "signin", abstract: "Sign this device in (again).")

    @OptionGroup var device: DeviceOptionGroup

    func run() async throws {
        let options = try device.deviceOptions()
        if options.isDefaultLocalServer {
            // The embedded cloud: its kept (or given) password, the account made on first use.
            _ = try await LocalCloudBootstrap.signInCreatingAccount(options)
        } else {
            let prompt = "Password for \(options.account) at \(options.server.absoluteString): "
            let password = try DeviceSession.givenPassword(options) ?? PasswordPrompt.password(prompt)
            _ = try await DeviceSession.signIn(options, password: password)
        }
        print("Signed in \(options.account) on \(options.device)")
    }
}
