import Foundation
import TodoPlanning

/// A line of the Today view: a day's heading, or a todo under it.
public enum AgendaLine: Hashable, Sendable {
    /// "Overdue", "Today · Tue 2026-03-10", "Tomorrow · …", "Thu 2026-03-12".
    case heading(String)
    /// An open todo due then (of any scope).
    case todo(TodoRow)
}

/// The Today view: open todos of every scope that are overdue, due today or in the next 7 days, by day.
extension AppState {
    /// Days after today the Today view looks ahead.
    public static let upcomingDays = 7

    /// Rebuilds `agenda` from every tab's rows (the filter in effect applies), keeping the selected todo.
    mutating func rebuildAgenda() {
        if agendaKind == .next {
            rebuildNextAgenda()
            return
        }
        let selectedID = selectedRow?.id
        let oldSelection = agendaSelection
        let today = calendar.startOfDay(for: now)
        guard let end = calendar.date(byAdding: .day, value: Self.upcomingDays + 1, to: today) else { return }
        var due: [(bucket: Int, row: TodoRow)] = []
        for tab in Tab.allCases {
            guard let data = tabs[tab] else { continue }
            for index in data.rows.indices {
                guard let moment = data.rows[index].due?.start(in: calendar), moment < end, !data.rows[index].isCompleted,
                    !data.rows[index].isList, filterMatches(index, in: data)
                else { continue }
                let row = data.rows[index]
                due.append((bucket(of: row, today: today), row))
            }
        }
        // Soonest first, then high priority, then title (case-insensitive) and id: every key computed once.
        let keys = due.map { (moment: $0.row.due!, priority: $0.row.priority, title: $0.row.title.lowercased()) }
        var order = Array(due.indices)
        order.sort { a, b in
            if due[a].bucket != due[b].bucket { return due[a].bucket < due[b].bucket }
            if keys[a].moment != keys[b].moment { return keys[a].moment < keys[b].moment }
            if keys[a].priority != keys[b].priority { return keys[a].priority > keys[b].priority }
            if keys[a].title != keys[b].title { return keys[a].title < keys[b].title }
            return TodoRow.idPrecedes(due[a].row, due[b].row)
        }
        var counts: [Int: Int] = [:]
        for entry in due { counts[entry.bucket, default: 0] += 1 }
        var lines: [AgendaLine] = []
        var current = -1
        lines.reserveCapacity(due.count + 9)
        for index in order {
            let entry = due[index]
            if entry.bucket != current {
                current = entry.bucket
                lines.append(.heading(heading(of: entry.bucket, today: today, count: counts[current] ?? 0)))
            }
            lines.append(.todo(entry.row))
        }
        agenda = AgendaLines(lines)
        if let selectedID, let found = lines.firstIndex(where: { if case .todo(let row) = $0 { row.id == selectedID } else { false } }) {
            agendaSelection = found
        } else {
            agendaSelection = nearestAgendaTodo(from: min(oldSelection, max(0, lines.count - 1)), step: 1)
        }
        clampAgendaScroll()
    }

    /// 0 overdue, 1 today, 2 tomorrow … 8 in seven days.
    private func bucket(of row: TodoRow, today: Date) -> Int {
        guard let due = row.due else { return 0 }
        if due.deadline(in: calendar) <= now { return 0 }
        let days = calendar.dateComponents([.day], from: today, to: calendar.startOfDay(for: due.start(in: calendar))).day ?? 0
        return 1 + max(0, days)
    }

    private func heading(of bucket: Int, today: Date, count: Int) -> String {
        let suffix = " (\(Formatting.grouped(count)))"
        guard bucket > 0, let day = calendar.date(byAdding: .day, value: bucket - 1, to: today) else { return "Overdue" + suffix }
        let name = Formatting.weekday(day, calendar: calendar) + " " + Formatting.day(day, calendar: calendar)
        switch bucket {
        case 1: return "Today · " + name + suffix
        case 2: return "Tomorrow · " + name + suffix
        default: return name + suffix
        }
    }

    /// The todo line nearest `index` going `step` (then the other way), or 0 when there is none.
    func nearestAgendaTodo(from index: Int, step: Int) -> Int {
        func isTodo(_ i: Int) -> Bool { agenda.isTodo(i) }
        var i = index
        while agenda.indices.contains(i) {
            if isTodo(i) { return i }
            i += step
        }
        i = index
        while agenda.indices.contains(i) {
            if isTodo(i) { return i }
            i -= step
        }
        return 0
    }

    /// Number of todos in the Today view.
    public var agendaTodoCount: Int { agenda.todoCount(before: agenda.count) }

    /// Opens the Today view (the view the configuration file may start on).
    public mutating func openToday() {
        if !showsToday { toggleToday() }
    }

    /// Shows or hides the Today view.
    mutating func toggleToday() {
        // From the Next view, T goes to Today rather than back to the tabs.
        if showsToday, agendaKind == .next { hideAgenda() }
        agendaKind = .today
        showsToday.toggle()
        agendaSelection = 0
        agendaScroll = 0
        if showsToday {
            rebuildAgenda()
            agendaSelection = nearestAgendaTodo(from: 0, step: 1)
            clampAgendaScroll()
            message = StatusMessage(
                agenda.isEmpty ? "Today: nothing overdue or due in the next 7 days" : "Today: overdue, today and the next 7 days" + keyed(.today) { " (\($0) goes back)" })
        } else {
            agenda = []
        }
    }

    /// Moves the Today view's selection by `step` todo lines (or to the first or last with `.min` / `.max`).
    mutating func moveInAgenda(by step: Int) {
        guard !agenda.isEmpty else { return }
        switch step {
        case .min: agendaSelection = nearestAgendaTodo(from: 0, step: 1)
        case .max: agendaSelection = nearestAgendaTodo(from: agenda.count - 1, step: -1)
        default:
            var index = agendaSelection
            var left = abs(step)
            let direction = step < 0 ? -1 : 1
            while left > 0 {
                var next = index + direction
                while agenda.indices.contains(next), case .heading = agenda[next] { next += direction }
                guard agenda.indices.contains(next) else { break }
                index = next
                left -= 1
            }
            agendaSelection = index
        }
        clampAgendaScroll()
    }

    mutating func clampAgendaScroll() {
        let height = listHeight
        // A day's first todo shows its heading too.
        let top = agendaSelection > 0 && { if case .heading = agenda[agendaSelection - 1] { true } else { false } }() ? agendaSelection - 1 : agendaSelection
        if top < agendaScroll { agendaScroll = top }
        if agendaSelection >= agendaScroll + height { agendaScroll = agendaSelection - height + 1 }
        agendaScroll = max(0, min(agendaScroll, agenda.count - height))
    }
}
