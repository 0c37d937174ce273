import CloudClient
import CloudModel
import Foundation
import TodoPlanning
import TodoStore

/// A value that lost a conflict, as the user sees it: which todo, which field, what lost to what, and whose edit it was.
public struct ConflictNotice: Sendable, Hashable {
    /// The record that keeps the lost value.
    public var key: RecordKey
    /// The todo's title now.
    public var title: String
    /// The loss as the record keeps it.
    public var edit: LostEdit
    /// Whether the value that lost was this device's edit.
    public var isMine: Bool

    /// The field in words.
    public var fieldName: String {
        switch edit.field {
        case TodoItem.Field.isCompleted: "done"
        case TodoItem.Field.dueDate: "due date"
        case TodoItem.Field.isTrashed: "trash"
        default: edit.field
        }
    }

    /// One line for the user, e.g. `'Milk': your priority 1 lost to 3, set later on another device`.
    public var sentence: String {
        if edit.field == TodoItem.Field.isTrashed {
            if edit.lost == .int64(1) {
                return "'\(title)': \(isMine ? "your trash lost to a later edit on another device" : "a trash lost to a later edit"); the todo is back"
            }
            return "'\(title)': \(isMine ? "your edit lost to a later trash on another device" : "an edit lost to a later trash")"
        }
        let lost = Self.words(edit.lost, edit.field)
        let won = Self.words(edit.won, edit.field)
        return isMine
            ? "'\(title)': your \(fieldName) \(lost) lost to \(won), set later on another device"
            : "'\(title)': \(fieldName) \(lost) lost to \(won), set later"
    }

    /// A due date in words: an all-day one (00:00 UTC, see `DueDate`) as its calendar date, the same in every zone;
    /// any other moment as the day and time in this device's zone, `2026-12-10 09:30`.
    static func dueWords(_ date: Date) -> String {
        let floating = date.timeIntervalSince1970.truncatingRemainder(dividingBy: 86_400) == 0
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        return DueDate(date, allDay: floating).text(in: calendar)
    }

    /// A field value in words.
    public static func words(_ value: FieldValue?, _ field: String) -> String {
        switch value {
        case nil: return "(none)"
        case .string(let text)?: return "'\(text)'"
        case .int64(let number)? where field == TodoItem.Field.isCompleted: return number == 0 ? "not done" : "done"
        case .int64(let number)?: return String(number)
        case .timestamp?: return value?.dateValue.map(dueWords) ?? "?"
        case .reference(let reference)?: return reference.recordName
        case let other?: return "\(other)"
        }
    }
}

/// The values that lost conflicts, as the user sees them: listed, marked announced, restored or dismissed.
/// Confined to the engine's actor.
final class LostEditDesk {
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

    /// The values that lost conflicts and were neither restored nor dismissed, newest first; only those this device
    /// has not announced yet when `unannounced`.
    nonisolated(nonsending) func conflicts(unannounced: Bool = false) async throws -> [ConflictNotice] {
        var notices: [ConflictNotice] = []
        for item in try await store.recordsWithLostEdits() {
            for edit in LostEdit.decode(item.lostEdits) where edit.isOpen {
                notices.append(ConflictNotice(key: item.key, title: item.title, edit: edit, isMine: edit.lostBy == status.configuration.deviceID))
            }
        }
        if unannounced {
            let announced = try await store.announcedLosses(among: notices.map(\.edit.id))
            notices.removeAll { announced.contains($0.edit.id) }
        }
        return notices.sorted { ($0.edit.wonAt, $0.edit.id) > ($1.edit.wonAt, $1.edit.id) }
    }

    /// Notes that the user saw these notices (the command line printed them, the app showed them).
    nonisolated(nonsending) func markAnnounced(_ notices: [ConflictNotice]) async throws {
        try await store.markLossesAnnounced(notices.map(\.edit.id), at: clock.nowMilliseconds())
    }

    /// Puts a lost value back as a new edit (which is later than the one it lost to) and marks the loss resolved.
    @discardableResult
    nonisolated(nonsending) func restore(_ notice: ConflictNotice) async throws -> TodoItem {
        guard var item = try await store.todo(notice.key) else { throw SyncEngineError.notFound(notice.key.recordName) }
        item = try await editor.withSharePermission(item)
        if let reason = RecordPermissions.refusal(toUpdate: item, status.permissionContext) { throw SyncEngineError.refused(reason) }
        guard TodoItem.Field.all.contains(notice.edit.field) else {
            throw SyncEngineError.refused("'\(notice.edit.field)' is not a field this version can restore")
        }
        let old = item
        var fields = item.fields
        fields[notice.edit.field] = notice.edit.lost
        item.apply(fields: fields)
        if notice.edit.field == TodoItem.Field.list { item.setList(item.list?.recordName) }
        item = resolving(notice.edit.id, in: time.stamped(item, from: old))
        let saved = try await store.saveLocalEdit(item, at: clock.nowMilliseconds())
        await editor.wrote(saved: [saved])
        return saved
    }

    /// Dismisses a notice without restoring the value (it is listed no more, on any device).
    nonisolated(nonsending) func dismiss(_ notice: ConflictNotice) async throws {
        guard let item = try await store.todo(notice.key) else { throw SyncEngineError.notFound(notice.key.recordName) }
        let saved = try await store.saveLocalEdit(resolving(notice.edit.id, in: item), at: clock.nowMilliseconds())
        await editor.wrote(saved: [saved])
    }

    private func resolving(_ id: String, in item: TodoItem) -> TodoItem {
        var item = item
        var edits = LostEdit.decode(item.lostEdits)
        for index in edits.indices where edits[index].id == id { edits[index].resolved = true }
        item.lostEdits = LostEdit.encode(edits)
        return item
    }
}
