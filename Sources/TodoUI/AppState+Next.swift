import Foundation
import TodoPlanning

/// What the view beside the tabs shows.
public enum AgendaKind: Sendable, Hashable {
    /// Overdue, today and the next 7 days, by day (`T`).
    case today
    /// Every open todo, most urgent first (`N`), as `todo next` ranks them.
    case next
}

/// The Next view: open todos of every scope (the filter in effect applies), ranked by Taskwarrior's urgency.
extension AppState {
    /// What urgency is computed from for a row; blocked, blocking and waiting as `NextSort` works them out.
    static func urgencyFacts(of row: TodoRow, isBlocked: Bool = false, isBlocking: Bool = false, isWaiting: Bool = false) -> UrgencyFacts {
        UrgencyFacts(
            due: row.due, priority: row.priority, tags: row.tags, annotationCount: row.annotations.count, created: row.created,
            inList: row.listID != nil, isActive: row.start != nil, scheduled: row.scheduled, isBlocking: isBlocking, isBlocked: isBlocked, isWaiting: isWaiting)
    }

    /// Rebuilds `agenda` as the Next view's ranking, keeping the selected todo. Each score is computed once and the
    /// rows sorted once: O(n log n) over the loaded rows.
    mutating func rebuildNextAgenda() {
        let selectedID = selectedRow?.id
        // The ranking a tab sorted by `next` uses too: one scoring of each todo, blocked, blocking and waiting included.
        let ranking = NextSort(urgency: Urgency(coefficients: urgencyCoefficients, now: now, calendar: calendar), marks: dependencyMarks())
        // Where each ranked todo lies (its tab's rows, its index), its score and its due key: rows are read in place and
        // never copied, and the lines point into the tabs' rows (`AgendaLines`). 20 bytes a todo while ranking, 12
        // after; a copy of each row into the lines, a key holding its strings and a score by id cost 180.
        var parts: [[TodoRow]] = []
        let total = Tab.allCases.reduce(0) { $0 + (tabs[$1]?.rows.count ?? 0) }
        var places: [UInt32] = []
        var scores: [Double] = []
        var dues: [Double] = []
        places.reserveCapacity(total)
        scores.reserveCapacity(total)
        dues.reserveCapacity(total)
        for tab in Tab.allCases {
            guard let data = tabs[tab] else { continue }
            let part = parts.count
            parts.append(data.rows)
            data.rows.withUnsafeBufferPointer { rows in
                for index in rows.indices where !rows[index].isCompleted && !rows[index].isList && filterMatches(index, in: data) {
                    places.append(AgendaLines.place(part: part, index: index))
                    scores.append(ranking.score(of: rows[index]))
                    dues.append(NextRanking.dueKey(rows[index].due))
                }
            }
        }
        // The record name ranks last, as `todo next` ranks: one order for both (`NextRanking`).
        let ranked = NextRanking.order(
            scores: scores, dues: dues, title: { AgendaLines.row(places[$0], of: parts).title },
            id: { AppState.recordName(of: AgendaLines.row(places[$0], of: parts).id) })
        dues = []
        var ordered: [UInt32] = []
        var lineScores: [Double] = []
        ordered.reserveCapacity(ranked.count)
        lineScores.reserveCapacity(ranked.count + 1)
        if !ranked.isEmpty { lineScores.append(0) }
        var selected: Int?
        for position in ranked {
            if let selectedID, selected == nil, AgendaLines.row(places[position], of: parts).id == selectedID { selected = ordered.count + 1 }
            ordered.append(places[position])
            lineScores.append(scores[position])
        }
        places = []
        scores = []
        let head: [AgendaLine] = ranked.isEmpty ? [] : [.heading("Most urgent first (\(Formatting.grouped(ranked.count)))")]
        agenda = AgendaLines(head: head, parts: parts, places: ordered)
        agendaScores = lineScores
        if let selected {
            agendaSelection = selected
        } else {
            agendaSelection = nearestAgendaTodo(from: 1, step: 1)
        }
        clampAgendaScroll()
    }

    /// The record name a row id ends with.
    static func recordName(of id: String) -> String {
        // The separator is one byte: a scan of the UTF-8 bytes, not of the characters.
        id.utf8.lastIndex(of: 0x1F).map { String(Substring(id.utf8[id.utf8.index(after: $0)...])) } ?? id
    }

    /// Shows the Next view, or goes back to the tabs when it shows (from Today, N goes to Next).
    mutating func toggleNext() {
        if showsToday, agendaKind == .next {
            hideAgenda()
            return
        }
        hideAgenda()
        agendaKind = .next
        showsToday = true
        rebuildAgenda()
        agendaSelection = nearestAgendaTodo(from: 0, step: 1)
        clampAgendaScroll()
        message = StatusMessage(
            agenda.isEmpty ? "Next: nothing open" : "Next: open todos, most urgent first" + keyed(.next) { " (\($0) goes back)" })
    }

    /// Leaves the Today or Next view for the tabs.
    mutating func hideAgenda() {
        showsToday = false
        agendaKind = .today
        agenda = []
        agendaScores = []
        agendaSelection = 0
        agendaScroll = 0
    }
}
