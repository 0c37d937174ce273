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
        // Where each ranked todo lies (its tab's rows, its index): rows are read in place and copied once, into the
        // agenda; copying each out and into a list and a ranked list first retained every string three times more.
        var parts: [[TodoRow]] = []
        var places: [(part: Int, index: Int)] = []
        var keys: [NextRanking.Key] = []
        for tab in Tab.allCases {
            guard let data = tabs[tab] else { continue }
            let part = parts.count
            parts.append(data.rows)
            data.rows.withUnsafeBufferPointer { rows in
                for index in rows.indices where !rows[index].isCompleted && !rows[index].isList && filterMatches(index, in: data) {
                    // The record name ranks last, as `todo next` ranks: one order for both (`NextRanking`).
                    places.append((part, index))
                    keys.append(ranking.key(of: rows[index]))
                }
            }
        }
        let ranked = NextRanking.order(keys)
        var lines: [AgendaLine] = []
        lines.reserveCapacity(ranked.count + 1)
        if !ranked.isEmpty { lines.append(.heading("Most urgent first (\(Formatting.grouped(ranked.count)))")) }
        var scores: [String: Double] = [:]
        scores.reserveCapacity(ranked.count)
        for position in ranked {
            let place = places[position]
            lines.append(.todo(parts[place.part][place.index]))
            scores[parts[place.part][place.index].id] = keys[position].score
        }
        agenda = lines
        agendaScores = scores
        if let selectedID, let found = lines.firstIndex(where: { if case .todo(let row) = $0 { row.id == selectedID } else { false } }) {
            agendaSelection = found
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
        agendaScores = [:]
        agendaSelection = 0
        agendaScroll = 0
    }
}
