import ArgumentParser
import CloudModel
import Foundation
import TodoApp
import TodoPlanning
import TodoStore
import TodoSync

/// `todo next [FILTER...] [--limit N] [--json] [--offline]`: what to do now, most urgent first.
struct Next: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "next", abstract: "Open todos, most urgent first, each with its urgency (Taskwarrior's next report).",
        discussion: """
            Urgency is Taskwarrior's: a sum of coefficients times factors, for the due date (0.2 two weeks ahead up to \
            1.0 a week overdue, times 12), priority (high 6, medium 3.9, low 1.8), the next tag (15), tags and \
            annotations (1), age (2 at a year), being in a list (1). config.toml's [urgency] table replaces any \
            coefficient (docs/USAGE.md lists them). Private todos and those of lists shared with you; a filter as \
            todo list takes narrows them; waiting todos are left out unless it says is:waiting.
            """)

    @OptionGroup var device: DeviceOptionGroup

    @Flag(help: "Print JSON for scripts (each todo with its urgency).")
    var json = false

    @Option(help: "Show at most this many (0: all).")
    var limit = 25

    @Flag(help: "Do not ask the cloud; rank the cache.")
    var offline = false

    @Argument(parsing: .allUnrecognized, help: "Filter terms, as todo list takes them.")
    var filter: [String] = []

    func validate() throws {
        try refuseUnknownOptions(in: filter, of: Next.self)
        guard limit >= 0 else { throw ValidationError("--limit must be 0 (all) or more") }
        _ = try parseFilter(filter)
    }

    func run() async throws {
        let filter = try parseFilter(filter)
        try await device.withSession(orSignedOut: true) { session in
            if !offline { await session.engine.sync(.manualRefresh) }
            let urgency = try urgency(session.options)
            var todos: [ListedTodo] = []
            for scope in [DatabaseScope.private, .shared] {
                todos += try await session.listedTodos(in: scope, includeTrashed: false).filter { !$0.item.isCompleted && !$0.item.isTrashed }
            }
            // Waiting todos are out of the ranking unless the filter asks for them (Taskwarrior's next does the same).
            let now = Date()
            let asksForWaiting = filter.summary.split(separator: " ").contains("is:waiting")
            let visible = todos.filter { asksForWaiting || !$0.isHidden(at: now) }
            let context = try activeContext(session.options)
            let matched = filter.isEmpty && context == nil ? visible : visible.filter { filter.matches($0) && context?.filter.matches($0) != false }
            let ranked = NextOrder.ranked(matched, by: urgency)
            let shown = limit == 0 ? ranked[...] : ranked.prefix(limit)
            if json {
                try printTodosJSON(shown.map(\.todo), urgency: urgency)
            } else {
                for entry in shown { print(Urgency.text(entry.score).leftPadded(to: 6) + "  " + todoLine(entry.todo)) }
            }
            if shown.isEmpty { printError("nothing to do: no open todos match") }
            if let context, !json { printError(contextLine(context)) }
            if let line = signedOutLine(await session.engine.status()) { printError(line) }
        }
    }
}

/// The order of `todo next`: `NextRanking`, the app's Next view's order too. Each score is computed once, so
/// ranking n todos is one O(n log n) sort.
enum NextOrder {
    static func ranked(_ todos: [ListedTodo], by urgency: Urgency) -> [(todo: ListedTodo, score: Double)] {
        let scores = todos.map { urgency.score($0.urgencyFacts) }
        let keys = todos.indices.map { NextRanking.Key(score: scores[$0], due: todos[$0].item.due, title: todos[$0].item.title, id: todos[$0].item.key.recordName) }
        return NextRanking.order(keys).map { (todos[$0], scores[$0]) }
    }
}

extension String {
    /// This text with spaces before it up to `width` characters.
    func leftPadded(to width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
