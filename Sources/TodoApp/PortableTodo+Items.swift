import CloudModel
import Foundation
import TodoPlanning
import TodoStore
import TodoSync

extension PortableTodo {
    /// A cached todo as the interchange formats carry it; `listTitle` is the title of its list.
    public init(_ item: TodoItem, listTitle: String?) {
        self.init(
            uid: item.key.recordName, title: item.title, notes: item.notes, tags: item.tags, due: item.due,
            repeatRule: item.repeatRule, repeatFromCompletion: item.repeatFromCompletion, priority: item.priority,
            isCompleted: item.isCompleted,
            completedAt: item.isCompleted ? item.system.modified?.date : nil, created: item.system.created?.date,
            modified: item.system.modified?.date,
            listName: listTitle, annotations: item.annotations)
        series = item.series
        occurrence = item.occurrence
        (wait, scheduled, until, start, depends) = (item.wait, item.scheduled, item.until, item.start, item.depends)
    }
}

extension NewTodo {
    /// The todo to add for one read from an interchange file; a repeat rule this app cannot follow is dropped, and
    /// `warnings` hears why.
    public init(_ todo: PortableTodo, warnings: inout [String]) {
        var repeating: RepeatSetting?
        if let text = todo.repeatRule {
            do {
                let rule = try RepeatRule(rrule: text)
                repeating = RepeatSetting(rrule: rule.rrule, fromCompletion: todo.repeatFromCompletion)
            } catch {
                if warnings.count < 200 { warnings.append("'\(todo.title.prefix(60))': repeat dropped: \(error)") }
            }
        }
        self.init(
            title: todo.title, notes: todo.notes, due: todo.due, priority: todo.priority, isCompleted: todo.isCompleted,
            tags: TagName.valid(todo.tags), repeating: repeating, annotations: todo.annotations)
        recordName = todo.uid
        listName = todo.listName
        series = todo.series
        occurrence = todo.occurrence
        (wait, scheduled, until, start) = (todo.wait, todo.scheduled, todo.until, todo.start)
        depends = todo.depends.filter { !$0.isEmpty && $0.utf8.count <= 200 && $0 != todo.uid }
    }
}
