import ArgumentParser
import CloudModel
import CommandLineSupport
import Foundation
import TodoStore
import TodoSync

extension DeviceSession {
    /// The list a command-line argument names: a record ID (prefix) or a title (case-insensitive), own or shared.
    ///
    /// A list this device has not seen yet (a new device, a list made elsewhere) is looked for again after fetching.
    func list(named text: String) async throws -> TodoItem {
        let list: TodoItem
        do {
            list = try await cachedList(named: text)
        } catch let error as ListNotFound {
            await engine.sync(.manualRefresh)
            guard let found = try? await cachedList(named: text) else { throw error }
            return found
        }
        guard list.key.scope == .shared else { return list }
        // Someone else's list: fetch first, so its access (and existence) is the cloud's current word.
        await engine.sync(.manualRefresh)
        return try await cachedList(named: text)
    }

    private func cachedList(named text: String) async throws -> TodoItem {
        let lists = try await engine.lists()
        if let exact = lists.first(where: { $0.key.recordName == text }) { return exact }
        let byTitle = lists.filter { $0.title.caseInsensitiveCompare(text) == .orderedSame }
        let byID = RecordNames.matching(text, in: lists) { $0.key.recordName }
        let matches = byTitle.isEmpty ? byID : byTitle
        guard let first = matches.first else { throw ListNotFound(name: text) }
        guard matches.count == 1 else {
            let ids = matches.map { "\($0.shortID) (\($0.key.scope.rawValue))" }.joined(separator: ", ")
            throw DeviceCommandError("'\(text)' names several lists: \(ids); give the ID")
        }
        return first
    }
}

/// No list has the name or ID given on the command line.
struct ListNotFound: Error, CustomStringConvertible {
    var name: String
    var description: String { "no list named '\(name)' (see todo lists)" }
}

/// `todo lists`: own lists and lists shared with you, with their todos counted.
struct Lists: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "lists", abstract: "Show your lists and lists shared with you.")

    @OptionGroup var device: DeviceOptionGroup

    @Flag(help: "Do not ask the cloud; show the cache.")
    var offline = false

    func run() async throws {
        try await device.withFreshSession(offline: offline) { session in
            let snapshot = await session.engine.snapshot()
            for scope in [DatabaseScope.private, .shared] {
                let items = snapshot.todos(in: scope)
                let shares = items.compactMap(ShareState.init)
                for list in items where list.isList {
                    let count = items.count { !$0.isList && $0.key.zone == list.key.zone && $0.listName == list.key.recordName }
                    var parts = [list.shortID, scope == .private ? "own" : "shared", "\(count) todo\(count == 1 ? "" : "s")"]
                    let share = shares.first { $0.rootRecordName == list.key.recordName && $0.key.zone == list.key.zone }
                    if scope == .shared {
                        parts.append("from \(share?.ownerAccount ?? "?") (\(list.sharePermission.map(\.words) ?? "access unknown"))")
                    } else if let share, !share.members.isEmpty {
                        parts.append("shared with " + share.members.map(\.summary).joined(separator: ", "))
                    }
                    if list.hasPendingChanges { parts.append("*") }
                    parts.append(list.title)
                    print(parts.joined(separator: "  "))
                }
            }
        }
    }
}

/// `todo newlist TITLE`.
struct NewList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "newlist", abstract: "Create a list.")

    @OptionGroup var device: DeviceOptionGroup

    @Argument(help: "The list's title.")
    var title: String

    func validate() throws {
        guard !title.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("the title must not be empty") }
    }

    func run() async throws {
        try await device.withSession { session in
            print(try await session.engine.addList(title: title).shortID)
            try await sendAndReport(session)
        }
    }
}

/// `todo move ID LIST`: puts a todo into another list (`none`: into none).
struct Move: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "move", abstract: "Move a todo to another list (none: out of any list).")

    @OptionGroup var device: DeviceOptionGroup

    @OptionGroup var output: QuietOption

    @Argument(help: "The todo's ID, as `todo list` shows it (or its first 4 characters or more).", completion: CacheCompletion.ids)
    var id: String

    @Argument(help: "The list's title or ID, or none.", completion: CacheCompletion.lists)
    var list: String

    func validate() throws { try checkTodoNames([id]) }

    func run() async throws {
        try await device.withTodo(id) { session, item in
            let target = list.lowercased() == "none" ? nil : try await session.list(named: list)
            let moved = try await session.engine.move(item.key, toList: target?.key)
            let before = item.listName.map {
                RecordKey(scope: item.key.scope, zoneName: item.key.zoneName, zoneOwner: item.key.zoneOwner, recordName: $0)
            }
            session.remember("moved \(quoted(item))", [.move(moved.key, before)])
            let into = target.map { "into '\($0.title)'" } ?? "out of its list"
            // Into a list of another database the todo is a new record: its new ID is said.
            output.say("Moved \(quoted(item)) \(into)" + (moved.key != item.key ? "; its ID is now \(moved.shortID)" : ""))
        }
    }
}

/// `todo share LIST --with NAME [--read-only]`.
struct Share: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "share", abstract: "Share a list with another account (or change their access).")

    @OptionGroup var device: DeviceOptionGroup

    @Argument(help: "The list's title or ID.", completion: CacheCompletion.lists)
    var list: String

    @Option(name: .customLong("with"), help: "The account to share with.")
    var account: String

    @Flag(name: .customLong("read-only"), help: "They may read but not change it (default: read-write).")
    var readOnly = false

    func run() async throws {
        try await device.withSession { session in
            let item = try await session.list(named: list)
            try await session.engine.share(list: item.key, with: account, permission: readOnly ? .readOnly : .readWrite)
            let share = try await session.engine.ownedShares().first { $0.rootRecordName == item.key.recordName }
            let accepted = share?.participants.contains { $0.account == account && $0.acceptanceStatus == .accepted } ?? false
            print("Shared '\(item.title)' with \(account) (\(readOnly ? "read-only" : "read-write"))" + (accepted ? "" : "; they accept with: todo accept"))
        }
    }
}

/// `todo unshare LIST [--with NAME]`.
struct Unshare: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unshare", abstract: "Stop sharing a list, with everyone or with one account.")

    @OptionGroup var device: DeviceOptionGroup

    @Argument(help: "The list's title or ID.", completion: CacheCompletion.lists)
    var list: String

    @Option(name: .customLong("with"), help: "Only take this account off the share.")
    var account: String?

    func run() async throws {
        try await device.withSession { session in
            let item = try await session.list(named: list)
            if let account {
                try await session.engine.removeParticipant(list: item.key, account: account)
                print("Stopped sharing '\(item.title)' with \(account)")
            } else {
                try await session.engine.stopSharing(list: item.key)
                print("Stopped sharing '\(item.title)'")
            }
        }
    }
}

/// `todo shares`: what you share, and what others share with you (invitations included).
struct Shares: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "shares", abstract: "Show the lists you share and those shared with you.")

    @OptionGroup var device: DeviceOptionGroup

    func run() async throws {
        try await device.withSession { session in
            await session.engine.sync(.manualRefresh)
            let owned = try await session.engine.ownedShares()
            let withMe = try await session.engine.sharedWithMe()
            print("You share:" + (owned.isEmpty ? " nothing" : ""))
            for share in owned {
                let people = share.participants.map { person in
                    let member = ShareMember(
                        userRecordName: person.userRecordName, account: person.account ?? person.userRecordName,
                        permission: SharePermission(person.permission), hasAccepted: person.acceptanceStatus == .accepted)
                    return member.summary
                }
                print("  \(share.rootTitle ?? share.rootRecordName)  with " + (people.isEmpty ? "nobody" : people.joined(separator: ", ")))
            }
            print("Shared with you:" + (withMe.isEmpty ? " nothing" : ""))
            for info in withMe {
                let owner = info.share.owner.account ?? info.share.owner.userRecordName
                let state = info.isAccepted ? "accepted" : "invitation: todo accept '\(info.share.rootTitle ?? info.share.rootRecordName)'"
                print("  \(info.share.rootTitle ?? info.share.rootRecordName)  from \(owner)  \(info.permission.words)  \(state)")
            }
        }
    }
}

/// `todo accept [LIST]`: accepts one invitation, or all of them.
struct Accept: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "accept", abstract: "Accept invitations to shared lists (all, or the one named).")

    @OptionGroup var device: DeviceOptionGroup

    @Argument(help: "The shared list's title (default: every pending invitation).")
    var list: String?

    func run() async throws {
        try await device.withSession { session in
            let pending = try await session.engine.sharedWithMe().filter { !$0.isAccepted }
            let chosen = list.map { name in pending.filter { ($0.share.rootTitle ?? "").caseInsensitiveCompare(name) == .orderedSame } } ?? pending
            guard !chosen.isEmpty else {
                throw DeviceCommandError(list.map { "no invitation to a list named '\($0)' (see todo shares)" } ?? "no invitations waiting")
            }
            for info in chosen {
                try await session.engine.accept(info.reference)
                print("Accepted '\(info.share.rootTitle ?? info.share.rootRecordName)' from \(info.share.owner.account ?? "?")")
            }
        }
    }
}

/// `todo leave LIST`: leaves a list someone shares with you (or declines the invitation).
struct Leave: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "leave", abstract: "Leave a list shared with you, or decline its invitation.")

    @OptionGroup var device: DeviceOptionGroup

    @Argument(help: "The shared list's title or ID.")
    var list: String

    func run() async throws {
        try await device.withSession { session in
            await session.engine.sync(.manualRefresh)
            let all = try await session.engine.sharedWithMe()
            if let item = try? await session.list(named: list), item.key.scope == .shared {
                try await session.engine.leave(list: item.key)
                print("Left '\(item.title)'")
                return
            }
            guard let info = all.first(where: { ($0.share.rootTitle ?? "").caseInsensitiveCompare(list) == .orderedSame }) else {
                throw DeviceCommandError("no list named '\(list)' is shared with you (see todo shares)")
            }
            try await session.engine.leave(info.reference)
            print(info.isAccepted ? "Left '\(list)'" : "Declined the invitation to '\(list)'")
        }
    }
}

extension SharePermission {
    /// "read-only" / "read-write".
    var words: String { self == .readOnly ? "read-only" : "read-write" }
}

extension ShareMember {
    /// "bob (read-only, invited)".
    var summary: String {
        var notes: [String] = [permission.words]
        if !hasAccepted { notes.append("invited") }
        return "\(account) (\(notes.joined(separator: ", ")))"
    }
}
