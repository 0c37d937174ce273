import Foundation
import TodoPlanning

/// What urgency's blocked and blocking terms read of the rows the app holds, worked out once over every tab: the
/// Next view and a tab sorted by `next` score each todo from the same marks.
struct DependencyMarks: Sendable, Equatable {
    /// Ids an open todo waits on (each such todo, open itself, is blocking).
    var waitedOnByOpen: Set<String> = []
    /// Ids of the open todos some todo waits on (a todo waiting on one of them is blocked; one done, trashed or gone
    /// no longer blocks).
    var openWaitedOn: Set<String> = []

    /// Whether `row` waits on an open todo.
    func isBlocked(_ row: TodoRow) -> Bool { !row.depends.isEmpty && row.depends.contains { openWaitedOn.contains($0) } }

    /// Whether an open todo waits on `row`.
    func isBlocking(_ row: TodoRow) -> Bool { !waitedOnByOpen.isEmpty && waitedOnByOpen.contains(row.id) }

    /// The marks of `rows` (every tab's): two passes that only look at rows with dependencies, and at the ids they
    /// name, so 100,000 rows without any cost a glance at each. Each row is read in place: a row copied out retains
    /// every string it holds.
    init(_ rows: [[TodoRow]]) {
        var named = Set<String>()
        for part in rows {
            part.withUnsafeBufferPointer { part in
                for index in part.indices where !part[index].depends.isEmpty {
                    named.formUnion(part[index].depends)
                    if !part[index].isCompleted { waitedOnByOpen.formUnion(part[index].depends) }
                }
            }
        }
        guard !named.isEmpty else { return }
        let namedKeys = Set(named.map(RowKey.init))
        for part in rows {
            part.withUnsafeBufferPointer { part in
                for index in part.indices where !part[index].isCompleted && !part[index].isList && namedKeys.contains(part[index].key) {
                    openWaitedOn.insert(part[index].id)
                }
            }
        }
    }

    /// No dependencies known.
    init() {}
}

/// What a tab sorted by `next` ranks with: the urgency and the dependency marks of the moment it was sorted (so rows
/// do not jump while you look), giving each todo the key `NextRanking` orders the Next view and `todo next` by.
struct NextSort: Sendable {
    var urgency: Urgency
    var marks: DependencyMarks

    /// The ranking key of `row`: every term `todo next` counts, blocked, blocking and waiting included.
    func key(of row: TodoRow) -> NextRanking.Key {
        NextRanking.Key(score: score(of: row), due: row.due, title: row.title, id: AppState.recordName(of: row.id))
    }

    /// The urgency of `row`: every term `todo next` counts, blocked, blocking and waiting included.
    func score(of row: TodoRow) -> Double {
        let facts = AppState.urgencyFacts(
            of: row, isBlocked: marks.isBlocked(row), isBlocking: marks.isBlocking(row), isWaiting: row.wait.map { $0 > urgency.now } ?? false)
        return urgency.score(facts)
    }

    /// Taskwarrior's coefficients now, with no dependencies known: for rows sorted before the app's clock, `[urgency]`
    /// and the other tabs are known (the app sorts them again with its own).
    static var fallback: NextSort { NextSort(urgency: Urgency(now: Date(), calendar: Formatting.isoCalendar), marks: DependencyMarks()) }
}

extension AppState {
    /// The dependency marks of every tab's rows.
    func dependencyMarks() -> DependencyMarks {
        DependencyMarks(Tab.allCases.compactMap { tabs[$0]?.rows })
    }

    /// Under the `next` sort, sorts again each tab whose marks are not those of the rows now held (a dependency
    /// came, went or was met), keeping the urgency it was sorted with: a todo blocked or blocking ranks in its tab
    /// as the Next view ranks it. Without dependencies, or when none changed, a glance at each row.
    mutating func refreshNextMarks() {
        guard sortOrder == .next else { return }
        let marks = dependencyMarks()
        for tab in Tab.allCases {
            guard let data = tabs[tab], data.ranking?.marks != marks else { continue }
            let urgency = data.ranking?.urgency ?? Urgency(coefficients: urgencyCoefficients, now: now, calendar: calendar)
            let rows = data.rows
            tabs[tab] = nil  // one copy of the rows while they are sorted again, not two
            tabs[tab] = TabRows(rows, order: .next, ranking: NextSort(urgency: urgency, marks: marks))
        }
    }
}
