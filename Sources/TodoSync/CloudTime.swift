import CloudClient
import CloudModel
import Foundation
import TodoStore

/// Time as edits are stamped with it: the hybrid edit clock and how far the cloud's clock is ahead of this device's
/// (so stamps made here order against the cloud's, whatever this device's clock says). Both are kept in the store
/// between runs. Confined to the engine's actor.
final class CloudTime {
    private let deviceID: String
    private let clock: any SyncClock
    /// Stamps this device's edits.
    private var editClock: HybridClock
    /// How far the cloud's clock is ahead of this device's, once measured.
    private var cloudOffset: CloudClockOffset?
    /// What the store keeps of both, to write them only when they changed.
    private var keptClockValues: [String: String?] = [:]

    init(deviceID: String, clock: any SyncClock) {
        self.deviceID = deviceID
        self.clock = clock
        editClock = HybridClock(deviceID: deviceID)
    }

    static let editClockKey = "editClock"
    static let cloudOffsetKey = "cloudClockOffset"

    /// Reads the edit clock and the cloud clock's offset kept by earlier runs.
    nonisolated(nonsending) func load(_ store: TodoStore) async throws {
        let kept = try await store.keptValue(Self.editClockKey)
        let restored = HybridClock(deviceID: deviceID, wire: kept)
        editClock.observe(restored.time, counter: restored.counter)
        if let offset = CloudClockOffset(wire: try await store.keptValue(Self.cloudOffsetKey)) { cloudOffset = offset }
    }

    /// Keeps the edit clock and the offset for the next run (when they changed).
    nonisolated(nonsending) func save(_ store: TodoStore) async {
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
        stamp(&item, from: old)
        return item
    }

    /// `stamped(_:from:)` in place: an import stamps 10,000 todos without a copy of each.
    func stamp(_ item: inout TodoItem, from old: TodoItem?) {
        let stamp = nextStamp()
        guard let old else {
            item.editStamps = FieldStamps([FieldStamps.everyField: stamp]).wire
            return
        }
        let before = old.fields
        let after = item.fields
        var changed = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }
        changed.subtract(ConflictMerge.metaFields)
        var stamps = FieldStamps(wire: old.editStamps)
        stamps.stamp(changed, with: stamp)
        item.editStamps = stamps.wire
    }

    /// Notes a time the cloud stored something, so the next edit here orders after what it saw.
    func observeCloudTime(_ time: Int64?) {
        if let time, TodoItem.stampRange.contains(time) { editClock.observe(time) }  // a time no cloud writes is no reading
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
    nonisolated(nonsending) func measureIfDue(_ client: CloudClient) async {
        let now = clock.nowMilliseconds()
        if let offset = cloudOffset, now - offset.measuredAt < 3_600_000, now >= offset.measuredAt { return }
        let url = client.healthURL
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
            guard let time = record.modified?.timestamp, TodoItem.stampRange.contains(time) else { continue }
            earliest = min(earliest ?? time, time)
            latest = max(latest ?? time, time)
        }
        guard let earliest, let latest, TodoItem.stampRange.contains(sent), TodoItem.stampRange.contains(received) else { return }
        noteCloudReading(CloudClockOffset(low: latest - received, high: earliest - sent, measuredAt: received))
        observeCloudTime(latest)
    }
}
