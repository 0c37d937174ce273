import Foundation
import TodoPlanning

/// The form's wait, scheduled and until dates, read.
struct FormMoments: Hashable {
    var wait: Date?
    var scheduled: Date?
    var until: Date?
}

extension EditForm {
    /// Reads the wait, scheduled and until fields with the due-date grammar (a day means its start); a field left as it
    /// opened keeps the todo's value.
    func readMoments(now: Date, calendar: Calendar) -> Result<FormMoments, FormProblem> {
        var moments = FormMoments(wait: original?.wait, scheduled: original?.scheduled, until: original?.until)
        guard kind == .todo else { return .success(moments) }
        let grammar = DueDateGrammar(now: now, calendar: calendar)
        for (field, path) in [(FormField.wait, \FormMoments.wait), (.scheduled, \.scheduled), (.until, \.until)]
        where original == nil || !isUnchanged(field) {
            do {
                let date = try grammar.parse(self[field].text)
                moments[keyPath: path] = date.map { $0.allDay ? $0.start(in: calendar) : $0.date }
            } catch {
                return .failure(FormProblem(field: field, line: field.label + error.formLine.drop(while: { $0 != ":" })))
            }
        }
        return .success(moments)
    }
}

extension AppState {
    /// The edit form of `row`, its project and blockers filled in.
    func editForm(for row: TodoRow) -> EditForm {
        let project = row.listID.flatMap { self.row(id: $0)?.title }
        return EditForm(editing: row, calendar: calendar, project: project, blockers: row.depends.map(Self.shortID))
    }

    /// The ID `todo list` shows for a row: the last eight characters of its record name (the last part of its id).
    static func shortID(_ id: String) -> String { String(id.suffix(8)) }

    /// The part of a row id before its record name (the zone of a shared or public row; empty for a private one).
    static func zonePrefix(_ id: String) -> Substring {
        id.lastIndex(of: "\u{1F}").map { id[...$0] } ?? ""
    }

    /// The todos the form's Depends field names (row ids), each found among the open todos of the same zone by its ID
    /// or its title; refused when one names nothing, several, the todo itself, or closes a cycle.
    func readBlockers(_ form: EditForm) -> Result<[String], FormProblem> {
        let original = form.original?.depends ?? []
        guard form.kind == .todo, form.original == nil || !form.isUnchanged(.depends) else { return .success(original) }
        let zone = Self.zonePrefix(form.targetID ?? form.listID ?? "")
        let candidates = Tab.allCases.flatMap { rows(in: $0) }.filter {
            !$0.isList && !$0.isCompleted && $0.id != form.targetID && Self.zonePrefix($0.id) == zone
        }
        var found: [String] = []
        for word in form[.depends].text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !word.isEmpty {
            let lower = word.lowercased()
            if let target = form.targetID, Self.shortID(target) == word || self.row(id: target)?.title.lowercased() == lower {
                return .failure(FormProblem(field: .depends, line: "Depends: a todo cannot wait on itself."))
            }
            var matches = candidates.filter { Self.shortID($0.id) == word }
            if matches.isEmpty { matches = candidates.filter { $0.title.lowercased() == lower } }
            if matches.isEmpty { matches = candidates.filter { $0.title.lowercased().hasPrefix(lower) } }
            guard matches.count == 1 else {
                let line = matches.isEmpty
                    ? "Depends: no open todo of this list's account is '\(word)'."
                    : "Depends: '\(word)' names \(matches.count) todos; give one's ID (todo list shows them)."
                return .failure(FormProblem(field: .depends, line: line))
            }
            if !found.contains(matches[0].id) { found.append(matches[0].id) }
        }
        if let target = form.targetID, let cycle = cycle(from: target, waitingOn: found) {
            let path = cycle.map { "'\(self.row(id: $0)?.title ?? Self.shortID($0))'" }.joined(separator: " → ")
            return .failure(FormProblem(field: .depends, line: "Depends: that would make a cycle: \(path)."))
        }
        return .success(found)
    }

    /// The ids from `target` through one of `blockers` back to `target` when it would wait on them, else nil.
    private func cycle(from target: String, waitingOn blockers: [String]) -> [String]? {
        var visited = Set<String>()
        func walk(_ id: String, _ path: [String]) -> [String]? {
            if id == target { return path + [id] }
            guard visited.insert(id).inserted, let row = row(id: id) else { return nil }
            for next in row.depends { if let found = walk(next, path + [id]) { return found } }
            return nil
        }
        for blocker in blockers { if let found = walk(blocker, [target]) { return found } }
        return nil
    }

    /// The list the form's Project field names: `.some(nil)` for none (empty), an existing list found by title (any
    /// case), or a new list's title; nil when the field was left as it opened.
    func readProject(_ form: EditForm) -> ProjectChoice? {
        guard form.kind == .todo, form.original == nil ? !form[.project].text.isEmpty : !form.isUnchanged(.project) else { return nil }
        let path = form[.project].text.trimmingCharacters(in: .whitespaces)
        guard !path.isEmpty, path.lowercased() != "none" else { return .noList }
        let lists = Tab.allCases.flatMap { rows(in: $0) }.filter { $0.isList && $0.canAddItems }
        if let list = lists.first(where: { $0.title.caseInsensitiveCompare(path) == .orderedSame }) { return .existing(list) }
        return .new(path)
    }

    /// Whether an open todo the app holds waits on `row` (a scan of the loaded rows: for one row's details).
    func isBlocking(_ row: TodoRow) -> Bool {
        Tab.allCases.contains { tab in rows(in: tab).contains { !$0.isCompleted && $0.depends.contains(row.id) } }
    }

    /// The ids of the todos an open todo waits on, for ranking all of them at once.
    func blockingIDs() -> Set<String> {
        var ids = Set<String>()
        for tab in Tab.allCases { for row in rows(in: tab) where !row.isCompleted && !row.depends.isEmpty { ids.formUnion(row.depends) } }
        return ids
    }

    /// Blocked: it waits on an open todo the app holds (one done, trashed or gone no longer blocks).
    func openBlockers(of row: TodoRow) -> [TodoRow] {
        row.depends.compactMap { id in self.row(id: id).flatMap { $0.isCompleted || $0.isList ? nil : $0 } }
    }
}

/// Where the form's Project field puts a todo.
enum ProjectChoice {
    /// Out of any list.
    case noList
    /// Into this list.
    case existing(TodoRow)
    /// Into a new private list of this title.
    case new(String)
}
