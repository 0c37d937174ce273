import ArgumentParser
import CloudModel
import CommandLineSupport
import Foundation
import TodoStore
import TodoSync

/// `--depends ID[,ID…]` and `--no-depends ID` on `todo add` and `todo edit`: which todos this one waits on. A blocker
/// is a todo of the same database (yours, or the same shared list's owner); an edit that would close a cycle is
/// refused with the cycle named.
struct DependencyOptions: ParsableArguments {
    @Option(name: .customLong("depends"), help: ArgumentHelp("Wait on these todos (IDs, comma-separated; repeat the flag for more).", valueName: "ids"), completion: CacheCompletion.ids)
    var depends: [String] = []

    @Option(name: .customLong("no-depends"), help: ArgumentHelp("No longer wait on this todo (repeat the flag for several).", valueName: "id"), completion: CacheCompletion.ids)
    var noDepends: [String] = []

    /// Every name given to `--depends`, split at commas.
    var blockerNames: [String] { depends.flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }.filter { !$0.isEmpty } }

    func validate() throws {
        if !depends.isEmpty && blockerNames.isEmpty { throw ValidationError("--depends is empty: give the IDs of the todos it waits on") }
        try checkTodoNames(blockerNames + noDepends)
    }

    /// Whether neither flag was given.
    var isEmpty: Bool { depends.isEmpty && noDepends.isEmpty }

    /// Puts the named blockers into `edit` for `item`: each found as `todo done` finds a todo, in `item`'s database;
    /// refused when one is `item` itself or the new edges close a cycle.
    func apply(to edit: inout TodoEdit, for item: TodoItem, in session: DeviceSession) async throws {
        guard !isEmpty else { return }
        var added: [TodoItem] = []
        for name in blockerNames {
            let blocker = try await session.todo(named: name)
            guard blocker.key.recordName != item.key.recordName else { throw DeviceCommandError("\(quoted(item)) cannot wait on itself") }
            guard blocker.key.scope == item.key.scope, blocker.key.zoneOwner == item.key.zoneOwner else {
                throw DeviceCommandError("\(quoted(blocker)) is in another account's list: a todo can wait only on todos of its own account's lists")
            }
            added.append(blocker)
        }
        var removed: [String] = []
        for name in noDepends { removed.append(try await session.todo(named: name).key.recordName) }
        if !added.isEmpty {
            let todos = try await session.engine.store.todos(in: item.key.scope, includeTrashed: false)
            let byName = Dictionary(todos.map { ($0.key.recordName, $0) }, uniquingKeysWith: { first, _ in first })
            if let cycle = Self.cycle(through: item, waitingOn: added, among: byName) {
                let path = (cycle + [item]).map { "\(quoted($0)) (\($0.shortID))" }.joined(separator: " → ")
                throw DeviceCommandError("that would make a cycle: \(path); a todo cannot wait on what waits on it")
            }
        }
        edit.addDepends += added.map(\.key.recordName)
        edit.removeDepends += removed
    }

    /// The todos from `item` through one of `blockers` back to `item` when the new edges close a cycle, else nil
    /// (a depth-first walk over the `depends` of the cached todos, each visited once).
    static func cycle(through item: TodoItem, waitingOn blockers: [TodoItem], among todos: [String: TodoItem]) -> [TodoItem]? {
        var visited = Set<String>()
        func walk(_ current: TodoItem, _ path: [TodoItem]) -> [TodoItem]? {
            guard visited.insert(current.key.recordName).inserted else { return nil }
            for name in current.depends {
                if name == item.key.recordName { return path + [current] }
                if let next = todos[name], let found = walk(next, path + [current]) { return found }
            }
            return nil
        }
        for blocker in blockers {
            if let found = walk(todos[blocker.key.recordName] ?? blocker, [item]) { return found }
        }
        return nil
    }
}

extension DeviceSession {
    /// The one todo a command-line name gives (fetching first when this device has not seen it), not in the trash.
    func todo(named id: String) async throws -> TodoItem {
        var found = try await todos(named: id)
        if found.isEmpty {
            await engine.sync(.manualRefresh)
            found = try await todos(named: id)
        }
        guard let item = found.first else { throw DeviceCommandError("no todo has the ID '\(id)' (todo list --all shows every ID)") }
        guard found.count == 1 else { throw AmbiguousTodoName(name: id, candidates: Array(found.prefix(10)), more: found.count > 10) }
        guard !item.isTrashed else { throw DeviceCommandError("'\(item.title)' (\(item.shortID)) is in the trash") }
        return item
    }
}
