import ArgumentParser
import CloudClient
import CloudModel
import CommandLineSupport
import Foundation
import Terminal
import TodoApp
import TodoPlanning
import TodoStore
import TodoSync
import TodoUI

/// `YYYY-MM-DD` (all day) or `YYYY-MM-DD HH:MM` in the local calendar.
func formatDue(_ due: DueDate) -> String {
    due.text(in: planningCalendar)
}

/// Sends what waits and says so when the cloud is out of reach.
func sendAndReport(_ session: DeviceSession) async throws {
    await session.engine.sync(.localEdit)
    do {
        try await printNewConflicts(session, toStandardError: true)
    } catch let error as StoreError where error.isStorageFailure {
        printError(keptChangeWarning(error.description))  // the change was committed before: it is kept
        return
    }
    let snapshot = await session.engine.status()
    if let error = snapshot.lastError, isStorageMessage(error) {
        // The cache could not record the cloud's answer: the change may be in the cloud already, so not "not sent yet".
        printError(keptChangeWarning(error))
    } else if snapshot.connection != .online || snapshot.pendingCount > 0 {
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

/// `todo add TITLE [--due] [--priority] [--notes] [--tag]... [--repeat] [--public] [--list]`.
struct Add: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a todo.")

    @OptionGroup var output: QuietOption
    @OptionGroup var device: DeviceOptionGroup

    @Argument(help: "The todo's title.")
    var title: String

    @OptionGroup var planning: PlanningOptions

    @OptionGroup var dates: DateFieldOptions

    @OptionGroup var dependencies: DependencyOptions

    @OptionGroup var project: ProjectOption

    @Option(help: "Priority, 0 (none) to 3 (high).")
    var priority: Int = 0

    @Option(help: "Notes.")
    var notes: String = ""

    @Flag(name: .customLong("public"), help: "Post to the public board instead of your private list.")
    var toPublicBoard = false

    @Option(help: "The list to add it to (title or ID; yours or one shared with you read-write).", completion: CacheCompletion.lists)
    var list: String?

    func validate() throws {
        guard (0...3).contains(priority) else { throw ValidationError("--priority must be 0 to 3") }
        guard !title.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("the title must not be empty") }
        if !planning.untags.isEmpty { throw ValidationError("--untag is for todo edit: a new todo has no tags to remove") }
        if planning.noRepeat { throw ValidationError("--no-repeat is for todo edit: a new todo repeats only with --repeat") }
        if !dependencies.noDepends.isEmpty { throw ValidationError("--no-depends is for todo edit: a new todo waits on nothing yet") }
        if project.project != nil && (list != nil || toPublicBoard) { throw ValidationError("--project names the list: give --project or --list (or --public), not both") }
    }

    func run() async throws {
        let due = try planning.dueDate() ?? nil
        let repeating = try planning.repeatSetting() ?? nil
        var dated = TodoEdit()
        try dates.apply(to: &dated)
        // The context's tags and project go into the new todo (Taskwarrior's write context); a flag given wins.
        let context = try activeContext(try device.deviceOptions())
        let written = context?.filter.contextWrite ?? ContextWrite(tags: [], project: nil)
        let tags = ContextWrite.merged(planning.addTags, written.tags)
        let contextProject = project.project == nil && list == nil && !toPublicBoard ? written.project : nil
        try await device.withSession { session in
            var item: TodoItem
            let projectList: TodoItem?
            if let contextProject {
                projectList = try await ProjectOption.list(named: contextProject, in: session)
            } else {
                projectList = try await project.list(in: session)
            }
            if let projectList {
                item = try await session.engine.add(
                    title: title, notes: notes, due: due, priority: priority, tags: tags, repeat: repeating, toList: projectList.key)
            } else if let list {
                let target = try await session.list(named: list)
                item = try await session.engine.add(
                    title: title, notes: notes, due: due, priority: priority, tags: tags, repeat: repeating, toList: target.key)
            } else {
                item = try await session.engine.add(
                    title: title, notes: notes, due: due, priority: priority, tags: tags, repeat: repeating,
                    to: toPublicBoard ? .public : .private)
            }
            if let context, !output.quiet, tags != planning.addTags || contextProject != nil {
                printError(contextWriteLine(context.name, tags: tags.filter { !planning.addTags.contains($0) }, project: contextProject))
            }
            if !dates.isEmpty || !dependencies.isEmpty {
                var edit = dated
                try await dependencies.apply(to: &edit, for: item, in: session)
                item = try await session.engine.edit(item.key, edit)
            }
            session.remember("added \(quoted(item))", [.trash(item.key)])
            // The ID alone on standard output, for scripts; the words for a person on standard error.
            print(item.shortID)
            if !output.quiet { printError("Added \(quoted(item))\(item.due.map { "; due \(dueWords($0))" } ?? "")") }
            try await sendAndReport(session)
        }
    }
}

/// `todo done ID [--undo]`.
struct Done: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "done", abstract: "Mark a todo done.")

    @OptionGroup var device: DeviceOptionGroup

    @OptionGroup var output: QuietOption

    @Argument(help: "The todo's ID, as `todo list` shows it (or its first 4 characters or more, when no other ID starts so).", completion: CacheCompletion.ids)
    var id: String

    @Flag(help: "Mark it not done again.")
    var undo = false

    func validate() throws { try checkTodoNames([id]) }

    func run() async throws {
        try await device.withTodo(id) { session, item in
            guard item.isCompleted == undo else {
                output.say("\(quoted(item)) is \(undo ? "not done" : "done") already")
                return
            }
            let saved = try await session.engine.setCompleted(item.key, !undo)
            session.remember("\(undo ? "reopened" : "completed") \(quoted(item))", [.setCompleted(item.key, item.isCompleted)])
            guard !undo else {
                output.say("Reopened \(quoted(saved))")
                return
            }
            var line = "Completed \(quoted(saved))"
            if saved.isRepeating {
                let next = RecordKey(
                    scope: item.key.scope, zoneName: item.key.zoneName, zoneOwner: item.key.zoneOwner,
                    recordName: SyncEngine.occurrenceName(series: item.seriesName, number: item.occurrence + 1))
                if let following = try await session.engine.todo(next) {
                    line += "; next occurrence " + (following.due.map { dueWords($0) } ?? "made") + " (\(following.shortID))"
                } else {
                    line += "; the series ends"
                }
            }
            output.say(line)
        }
    }
}

/// `todo trash ID`: deletes, marks trashed (public board), or refuses with the reason.
struct Trash: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "trash", abstract: "Trash a todo (public board posts are marked trashed).")

    @OptionGroup var device: DeviceOptionGroup

    @OptionGroup var output: QuietOption

    @Argument(help: "The todo's ID, as `todo list` shows it (or its first 4 characters or more, when no other ID starts so).", completion: CacheCompletion.ids)
    var id: String

    func validate() throws { try checkTodoNames([id]) }

    func run() async throws {
        try await device.withTodo(id) { session, item in
            if case .refuse(let reason) = try await session.engine.trash(item.key) {
                throw DeviceCommandError("cannot trash \(quoted(item)) (\(item.shortID)): \(reason)")
            }
            session.remember("trashed \(quoted(item))", [.untrash(item.key, KeptFields(item))])
            output.say("Trashed \(item.key.scope == .public ? "public post " : "")\(quoted(item))")
        }
    }
}

/// `todo sync`: the whole sequence once (account, zone, subscriptions, fetch, send, public board).
struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sync", abstract: "Fetch what changed and send what waits.")

    @OptionGroup var device: DeviceOptionGroup

    func run() async throws { try await request.run() }

    /// What this command line asks, as plain values.
    var request: SyncRequest { SyncRequest(device: device.flags) }
}

/// What `todo sync` is asked, as plain values: `Sync` reads them with ArgumentParser, `QuickCommandLine` without.
struct SyncRequest: Sendable, Equatable {
    var device = DeviceFlags()

    /// One whole pass; prints the status line and any new conflicts, and exits 3 (offline) or 1 when it failed.
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
        try await device.withSession(orSignedOut: true) { session in
            let snapshot = await session.engine.snapshot()
            if let line = signedOutLine(snapshot) { printError(line) }
            let state = try await session.store.syncState()
            let options = session.options
            func show(_ label: String, _ value: String?) { print("\(label.padding(toLength: 18, withPad: " ", startingAt: 0))\(value ?? "-")") }
            show("account", options.account)
            show("user", session.credentials?.userRecordName ?? state.lastKnownUser)
            show("device", options.device + (session.credentials.map { " (\($0.deviceID))" } ?? ""))
            show("cloud", options.server.absoluteString)
            show("cloud from", launch.source.description)
            show("trusts", launch.trust.caFile.map { "the system's certificates and \($0)" } ?? "the system's certificates")
            show("signed in", snapshot.connection == .signedOut ? "no" : "yes")
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
        let launch = try device.launch()
        announceCloud(launch)
        let options = launch.options
        if options.isDefaultLocalServer {
            // The embedded cloud: its kept (or given) password, the account made on first use (and said so).
            _ = try await LocalCloudBootstrap.signInCreatingAccount(options, announce: announceOnStandardError)
        } else {
            let prompt = "Password for \(options.account) at \(options.server.absoluteString): "
            let password = try DeviceSession.givenPassword(options) ?? PasswordPrompt.password(prompt)
            _ = try await DeviceSession.signIn(options, password: password)
        }
        print("Signed in \(options.account) on \(options.device)")
    }
}
