import CloudModel
import Foundation
import TodoPlanning
import TodoStore

/// Repeating todos that stay single: completing (or skipping) an occurrence makes the next one under a name derived
/// from the series and the next one's number, so devices that complete the same occurrence offline all make the same
/// record, and the cloud keeps one. Confined to the engine's actor.
final class RepeatingTodos {
    private let store: TodoStore
    private let clock: any SyncClock
    private let status: EngineStatus
    private let time: CloudTime
    private let editor: LocalEditor

    init(store: TodoStore, clock: any SyncClock, status: EngineStatus, time: CloudTime, editor: LocalEditor) {
        self.store = store
        self.clock = clock
        self.status = status
        self.time = time
        self.editor = editor
    }

    /// Marks a todo done or not done. Completing an occurrence of a repeating todo makes the next occurrence in the
    /// same transaction; taking the completion back removes that next occurrence again while it is open (into the
    /// trash once the cloud has it, so an edit made to it can be brought back).
    @discardableResult
    nonisolated(nonsending) func setCompleted(_ key: RecordKey, _ done: Bool = true) async throws -> TodoItem {
        let item = try await existingForEdit(key)
        // Done ends work on it: it is no longer active (as Taskwarrior's done stops a started task).
        guard item.isRepeating, item.isCompleted != done else {
            return try await editor.edit(item, TodoEdit(isCompleted: done, start: done ? .some(nil) : nil))
        }
        var completed = item
        completed.isCompleted = done
        if done { completed.start = nil }
        completed.isTrashed = false
        return try await saveOccurrenceStep(old: item, new: completed, makingNext: done)
    }

    /// Skips an occurrence of a repeating todo: it goes to the trash and the next occurrence is made. Refused for a
    /// todo that does not repeat.
    @discardableResult
    nonisolated(nonsending) func skip(_ key: RecordKey) async throws -> TodoItem? {
        let item = try await existingForEdit(key)
        guard item.isRepeating else { throw SyncEngineError.refused("'\(item.title)' does not repeat: only an occurrence of a repeating todo can be skipped") }
        guard !item.isCompleted else { throw SyncEngineError.refused("'\(item.title)' is done already: its next occurrence exists") }
        var skipped = item
        skipped.isTrashed = true
        _ = try await saveOccurrenceStep(old: item, new: skipped, makingNext: true)
        guard let nextKey = Self.nextOccurrenceKey(of: item) else { return nil }
        return try await store.todo(nextKey)
    }

    /// Takes a skip back: the occurrence leaves the trash, and the next occurrence the skip made goes while it is open.
    @discardableResult
    nonisolated(nonsending) func unskip(_ key: RecordKey) async throws -> TodoItem {
        let item = try await existingForEdit(key)
        guard item.isTrashed else { return item }
        var back = item
        back.isTrashed = false
        return try await saveOccurrenceStep(old: item, new: back, makingNext: false)
    }

    /// The record name of a series' occurrence (see `TodoItem.occurrenceName`).
    static func occurrenceName(series: String, number: Int) -> String { TodoItem.occurrenceName(series: series, number: number) }

    /// Where the occurrence after `item` lives (see `TodoItem.nextOccurrenceKey`).
    static func nextOccurrenceKey(of item: TodoItem) -> RecordKey? { item.nextOccurrenceKey }

    /// The occurrence after `item`, completed at `now` (see `TodoItem.nextOccurrence`).
    static func nextOccurrence(of item: TodoItem, completedAt now: Date, calendar: Calendar) -> TodoItem? {
        item.nextOccurrence(completedAt: now, calendar: calendar)
    }

    /// Saves one occurrence's completion, un-completion or skip with its effect on the next occurrence, in one transaction.
    private nonisolated(nonsending) func saveOccurrenceStep(old: TodoItem, new: TodoItem, makingNext: Bool) async throws -> TodoItem {
        let nowMillis = clock.nowMilliseconds()
        let now = Date(timeIntervalSince1970: Double(nowMillis) / 1000)
        let nextKey = Self.nextOccurrenceKey(of: old)
        var existingNext: TodoItem?
        if let nextKey { existingNext = try await store.todo(nextKey) }
        var saving = [time.stamped(new, from: old)]
        var keys = [old.key]
        var deleting: [RecordKey] = []
        if makingNext {
            // Already made (here, or by another device and fetched): that one stands.
            if existingNext == nil, let next = Self.nextOccurrence(of: old, completedAt: now, calendar: Self.planningCalendar) {
                saving.append(time.stamped(next, from: nil))
                keys.append(next.key)
            }
        } else if var next = existingNext, let nextKey, !next.isCompleted, !next.isTrashed {
            // Taken back: the next occurrence goes too while it is open (to the trash once the cloud has it, so an
            // edit made to it meanwhile can be brought back), unless it was done meanwhile.
            keys.append(nextKey)
            if next.system.isUploaded {
                let before = next
                next.isTrashed = true
                saving.append(time.stamped(next, from: before))
            } else {
                deleting.append(nextKey)
            }
        }
        try await store.applyLocalChanges(saving: saving, deleting: deleting, at: nowMillis)
        await editor.wrote(keys)
        return try await store.todo(old.key) ?? saving[0]
    }

    /// The calendar due dates and repeats count in: Gregorian, in this device's time zone.
    static var planningCalendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        return calendar
    }

    /// The record for an edit, refused when the permission table forbids editing it.
    private nonisolated(nonsending) func existingForEdit(_ key: RecordKey) async throws -> TodoItem {
        guard let item = try await editor.todo(key) else { throw SyncEngineError.notFound(key.recordName) }
        if let reason = RecordPermissions.refusal(toUpdate: item, status.permissionContext) { throw SyncEngineError.refused(reason) }
        return item
    }
}
