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

extension SyncEngine {
    static let editClockKey = "editClock"
    static let cloudOffsetKey = "cloudClockOffset"

    /// Reads the edit clock and the cloud clock's offset kept by earlier runs.
    func loadEditClock() async throws {
        let kept = try await store.keptValue(Self.editClockKey)
        let restored = HybridClock(deviceID: configuration.deviceID, wire: kept)
        editClock.observe(restored.time, counter: restored.counter)
        if let offset = CloudClockOffset(wire: try await store.keptValue(Self.cloudOffsetKey)) { cloudOffset = offset }
    }

    /// Keeps the edit clock and the offset for the next run (when they changed).
    func saveEditClock() async {
        let values = [Self.editClockKey: editClock.wire, Self.cloudOffsetKey: cloudOffset?.wire]
        guard values != keptClockValues else { return }
        if (try? await store.keep(values)) != nil { keptClockValues = values }
    }

    /// This device's time in the cloud's clock (ms).
    func cloudNow() -> Int64 { clock.nowMilliseconds() + (cloudOffset?.estimate ?? 0) }

    /// The stamp of an edit made now.
    func nextStamp() -> EditStamp { editClock.tick(physical: cloudNow()) }

    /// `item` (the edited record) with a new stamp on each field that differs from `old` (every field for a new record).
    func stamped(_ item: TodoItem, from old: TodoItem?) -> TodoItem {
        var item = item
        let stamp = nextStamp()
        guard let old else {
            item.editStamps = FieldStamps([FieldStamps.everyField: stamp]).wire
            return item
        }
        let before = old.fields
        let after = item.fields
        var changed = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }
        changed.subtract(ConflictMerge.metaFields)
        var stamps = FieldStamps(wire: old.editStamps)
        stamps.stamp(changed, with: stamp)
        item.editStamps = stamps.wire
        return item
    }

    /// Notes a time the cloud stored something, so the next edit here orders after what it saw.
    func observeCloudTime(_ time: Int64?) {
        if let time { editClock.observe(time) }
    }

    /// Narrows the offset to the cloud's clock with a reading taken between device times `sent` and `received`.
    func noteCloudReading(_ reading: CloudClockOffset) {
        if var offset = cloudOffset {
            offset.refine(with: reading)
            cloudOffset = offset
        } else {
            cloudOffset = reading
        }
    }

    /// Reads the cloud's time (`/health`'s `time`, to the millisecond; another cloud's `Date` header, to the second) when
    /// the offset is unknown or an hour old; sends (whose records come back stamped to the millisecond) narrow it further.
    func measureCloudClockIfDue() async {
        let now = clock.nowMilliseconds()
        if let offset = cloudOffset, now - offset.measuredAt < 3_600_000, now >= offset.measuredAt { return }
        var base = client.baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        guard let url = URL(string: base + "/health") else { return }
        let sent = clock.nowMilliseconds()
        guard let response = try? await client.transport.send(HTTPRequest(method: "GET", url: url, timeout: 5)) else { return }
        let received = clock.nowMilliseconds()
        // Our cloud says its time to the millisecond; another's `Date` header says it to the second (and a server may
        // cache that header for a while, so it counts only where nothing better is known).
        if let health = try? JSONDecoder().decode(HealthStatus.self, from: Data(response.body)), let time = health.time {
            noteCloudReading(.reading(cloud: time, sent: sent, received: received))
            return
        }
        let header = response.headers.first { $0.key.lowercased() == "date" }?.value
        guard let reading = CloudClockOffset.readingFromDateHeader(header, sent: sent, received: received) else { return }
        noteCloudReading(reading)
    }

    /// The offset readings of a saved batch: each record's modification time was set between sending and the answer.
    func noteSaveTimes(_ results: [RecordResult], sent: Int64, received: Int64) {
        var earliest: Int64?
        var latest: Int64?
        for case .record(let record) in results {
            guard let time = record.modified?.timestamp else { continue }
            earliest = min(earliest ?? time, time)
            latest = max(latest ?? time, time)
        }
        guard let earliest, let latest else { return }
        noteCloudReading(CloudClockOffset(low: latest - received, high: earliest - sent, measuredAt: received))
        observeCloudTime(latest)
    }

    // MARK: Notices and restoring

    /// The values that lost conflicts and were neither restored nor dismissed, newest first; only those this device
    /// has not announced yet when `unannounced`.
    public func conflicts(unannounced: Bool = false) async throws -> [ConflictNotice] {
        var notices: [ConflictNotice] = []
        for item in try await store.recordsWithLostEdits() {
            for edit in LostEdit.decode(item.lostEdits) where edit.isOpen {
                notices.append(ConflictNotice(key: item.key, title: item.title, edit: edit, isMine: edit.lostBy == configuration.deviceID))
            }
        }
        if unannounced {
            let announced = try await store.announcedLosses(among: notices.map(\.edit.id))
            notices.removeAll { announced.contains($0.edit.id) }
        }
        return notices.sorted { ($0.edit.wonAt, $0.edit.id) > ($1.edit.wonAt, $1.edit.id) }
    }

    /// Notes that the user saw these notices (the command line printed them, the app showed them).
    public func markAnnounced(_ notices: [ConflictNotice]) async throws {
        try await store.markLossesAnnounced(notices.map(\.edit.id), at: clock.nowMilliseconds())
    }

    /// Puts a lost value back as a new edit (which is later than the one it lost to) and marks the loss resolved.
    @discardableResult
    public func restore(_ notice: ConflictNotice) async throws -> TodoItem {
        guard var item = try await store.todo(notice.key) else { throw SyncEngineError.notFound(notice.key.recordName) }
        item = try await withSharePermission(item)
        if let reason = RecordPermissions.refusal(toUpdate: item, permissionContext) { throw SyncEngineError.refused(reason) }
        guard TodoItem.Field.all.contains(notice.edit.field) else {
            throw SyncEngineError.refused("'\(notice.edit.field)' is not a field this version can restore")
        }
        let old = item
        var fields = item.fields
        fields[notice.edit.field] = notice.edit.lost
        item.apply(fields: fields)
        if notice.edit.field == TodoItem.Field.list { item.setList(item.list?.recordName) }
        item = resolving(notice.edit.id, in: stamped(item, from: old))
        let saved = try await store.saveLocalEdit(item, at: clock.nowMilliseconds())
        await afterLocalEdits([notice.key])
        return saved
    }

    /// Dismisses a notice without restoring the value (it is listed no more, on any device).
    public func dismiss(_ notice: ConflictNotice) async throws {
        guard let item = try await store.todo(notice.key) else { throw SyncEngineError.notFound(notice.key.recordName) }
        try await store.saveLocalEdit(resolving(notice.edit.id, in: item), at: clock.nowMilliseconds())
        await afterLocalEdits([notice.key])
    }

    private func resolving(_ id: String, in item: TodoItem) -> TodoItem {
        var item = item
        var edits = LostEdit.decode(item.lostEdits)
        for index in edits.indices where edits[index].id == id { edits[index].resolved = true }
        item.lostEdits = LostEdit.encode(edits)
        return item
    }
}
