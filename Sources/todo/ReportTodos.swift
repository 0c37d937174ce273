import CloudModel
import Foundation
import TodoApp
import TodoPlanning
import TodoStore
import TodoSync

extension DeviceSession {
    /// What `todo projects`, `todo tags` and `todo summary` count: the todos of your lists and of those shared with
    /// you that `filter` and the context in effect match, each with how `ReportCounting` counts it (the rule they
    /// share, so their numbers agree).
    func reportTodos(
        matching filter: TodoFilter, context: (name: String, filter: TodoFilter)?, at now: Date
    ) async throws -> [(todo: ListedTodo, standing: ReportCounting.Standing)] {
        var counted: [(todo: ListedTodo, standing: ReportCounting.Standing)] = []
        for scope in [DatabaseScope.private, .shared] {
            for todo in try await listedTodos(in: scope, includeTrashed: false) {
                guard let standing = ReportCounting.standing(of: todo.item, at: now), filter.matches(todo),
                    context?.filter.matches(todo) != false
                else { continue }
                counted.append((todo, standing))
            }
        }
        return counted
    }
}
