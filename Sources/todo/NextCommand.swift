import ArgumentParser
import CloudModel
import CommandLineSupport
import Foundation
import Synchronization
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

    func validate() throws { try request.validate() }

    func run() async throws { try await request.run() }

    /// What this command line asks, as plain values.
    var request: NextRequest { NextRequest(device: device.flags, json: json, limit: limit, offline: offline, filter: filter) }
}

/// What `todo next` is asked, as plain values: `Next` reads them with ArgumentParser, `QuickCommandLine` without.
struct NextRequest: Sendable, Equatable {
    var device = DeviceFlags()
    var json = false
    var limit = 25
    var offline = false
    var filter: [String] = []

    /// Refuses what the command line cannot mean, its device options aside (`Next.validate`).
    func validate() throws {
        try refuseUnknownOptions(in: filter, of: Next.self)
        guard limit >= 0 else { throw ValidationError("--limit must be 0 (all) or more") }
        _ = try parseFilter(filter)
    }

    /// Ranks the open todos and prints the first `limit`.
    func run() async throws {
        let filter = try parseFilter(filter)
        try await device.withFreshSession(orSignedOut: true, offline: offline) { session in
            let urgency = try urgency(session.options)
            // Waiting todos are out of the ranking unless the filter asks for them (Taskwarrior's next does the same).
            let now = Date()
            let asksForWaiting = filter.hasTerm("is:waiting")
            let context = try activeContext(session.options)
            // Only the open rows the filter and the context may keep are read (in SQL); each is still checked here.
            let hints = context.map { filter.hints.merged(with: $0.filter.hints) } ?? filter.hints
            // Each row is scored inside the cache's read, from the columns a filter and urgency read (not the whole
            // record), and kept only while it may still be among the first `limit`: its score and order keys. The todos
            // shown are then read again whole by key (a few), so a ranking of 100,000 never holds 100,000 todos.
            var candidates: [NextCandidate] = []
            let floor = ScoreFloor(limit: limit)
            // With no filter to apply, each row is scored from its columns before it is made into a todo, and only
            // one that may be among the first `limit` is made: the floor counts each row once, there or below.
            let scoresFirst = filter.isEmpty && (context?.filter.isEmpty ?? true)
            for scope in [DatabaseScope.private, .shared] {
                let query = TodoQuery(
                    scope: scope, openOnly: true, visibleAt: asksForWaiting ? nil : now, hints: hints, fields: .listing)
                let prefilter = scoresFirst ? Next.scoring(urgency, floor: floor, now: now, showsWaiting: asksForWaiting) : nil
                let found = try await session.mapListedTodos(query, prefilter: prefilter) { todo -> NextCandidate? in
                    guard !todo.item.isCompleted, !todo.item.isTrashed, asksForWaiting || !todo.isHidden(at: now),
                        filter.matches(todo), context?.filter.matches(todo) != false
                    else { return nil }
                    let score = urgency.score(todo.urgencyFacts)
                    guard scoresFirst || floor.admits(score) else { return nil }
                    let rank = NextRanking.Key(score: score, due: todo.item.due, title: todo.item.title, id: todo.item.key.recordName)
                    return NextCandidate(key: todo.item.key, rank: rank)
                }
                if candidates.isEmpty { candidates = found } else { candidates += found }
            }
            let ranked = NextOrder.ranked(candidates, limit: limit)
            let todos = Dictionary(
                try await session.listedTodos(keys: ranked.map(\.key)).map { ($0.item.key, $0) }, uniquingKeysWith: { first, _ in first })
            let shown = ranked.compactMap { candidate in todos[candidate.key].map { (todo: $0, score: candidate.score) } }
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

extension Next {
    /// The prefilter of a ranking without a filter: whether a row, scored from its columns, may be among the first
    /// `limit` (`floor`), hidden rows aside unless `showsWaiting`. Its urgency facts are `ListedTodo.urgencyFacts`,
    /// with the marks `DeviceSession.listed` gives.
    static func scoring(_ urgency: Urgency, floor: ScoreFloor, now: Date, showsWaiting: Bool)
        -> @Sendable (ListingFacts, () -> String, DeviceSession.ListedDependencies) -> Bool
    {
        { facts, name, dependencies in
            guard showsWaiting || !facts.isHidden(at: now) else { return false }
            let isBlocking = !dependencies.blocking.isEmpty && dependencies.blocking.contains(name())
            let isBlocked = facts.depends.contains { dependencies.open[$0] != nil }
            return floor.admits(urgency.score(facts.urgencyFacts(isBlocking: isBlocking, isBlocked: isBlocked, at: now)))
        }
    }
}

/// What `todo next` keeps of each open todo while it ranks them: its key and what `NextRanking` compares.
struct NextCandidate: Sendable {
    var key: RecordKey
    var rank: NextRanking.Key
    /// Its urgency score.
    var score: Double { rank.score }
}

/// The order of `todo next`: `NextRanking`, the app's Next view's order too. Each score is computed once; with a
/// limit, only the candidates scoring at least the limit-th highest score are sorted (the scores alone pick them), so
/// ranking 10,000 todos for 25 lines compares the titles of a few.
enum NextOrder {
    static func ranked(_ candidates: [NextCandidate], limit: Int = 0) -> ArraySlice<NextCandidate> {
        var candidates = candidates
        if limit > 0, candidates.count > limit {
            let lowest = candidates.map(\.score).sorted(by: >)[limit - 1]
            candidates.removeAll { $0.score < lowest }
        }
        let ranked = NextRanking.order(candidates.map(\.rank)).map { candidates[$0] }
        return limit > 0 ? ranked.prefix(limit) : ranked[...]
    }
}

/// The lowest score a todo may have and still be among the first `limit` of those scored so far: a todo below it
/// cannot be among the first `limit` of all (the floor only rises), so `todo next` keeps no candidate for it.
/// `NextOrder.ranked` still cuts and orders what is kept, so the ranking is the same as with every todo kept.
final class ScoreFloor: Sendable {
    private let limit: Int
    /// The `limit` highest scores so far, as a min-heap (the lowest first).
    private let highest = Mutex<[Double]>([])

    /// A floor for the first `limit` (0: all, no floor).
    init(limit: Int) { self.limit = limit }

    /// Whether a todo scoring `score` may be among the first `limit`; counts it among the scores seen.
    func admits(_ score: Double) -> Bool {
        // Scores are finite (the coefficients are); anything else is kept, and left to `NextOrder`.
        guard limit > 0, score.isFinite else { return true }
        return highest.withLock { heap in
            if heap.count < limit {
                heap.append(score)
                var child = heap.count - 1
                while child > 0, heap[(child - 1) / 2] > heap[child] {
                    heap.swapAt(child, (child - 1) / 2)
                    child = (child - 1) / 2
                }
                return true
            }
            guard score >= heap[0] else { return false }
            if score > heap[0] {
                heap[0] = score
                var parent = 0
                while true {
                    let left = 2 * parent + 1
                    let right = left + 1
                    var lowest = parent
                    if left < heap.count, heap[left] < heap[lowest] { lowest = left }
                    if right < heap.count, heap[right] < heap[lowest] { lowest = right }
                    if lowest == parent { break }
                    heap.swapAt(parent, lowest)
                    parent = lowest
                }
            }
            return true
        }
    }
}

extension String {
    /// This text with spaces before it up to `width` characters.
    func leftPadded(to width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
