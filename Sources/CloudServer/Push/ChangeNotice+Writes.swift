import CloudModel
import Foundation

extension CloudService {
    /// Runs a write whose body also says what it changed: the notices go out inside its transaction (on PostgreSQL)
    /// and reach this instance's receiver once it committed (one process); a rolled-back write sends nothing.
    func write<T: Sendable>(notifying body: @Sendable (any StoreTransaction) async throws -> (T, [ChangeNotice])) async throws -> T {
        let bus = self.bus
        let (value, notices) = try await store.write { tx -> (T, [ChangeNotice]) in
            let (value, notices) = try await body(tx)
            try await bus.publish(notices, through: tx as? any NoticeCarryingTransaction)
            return (value, notices)
        }
        await bus.committed(notices)
        return value
    }

    /// The notices a `records/modify` owes: the private database's feed (the zones written), or the public board's
    /// query subscriptions. A write to the shared database reaches the owner's zone and database subscriptions through
    /// its share notices; its records go to the owner's query subscriptions here (no zones: those were told).
    static func recordNotices(_ outcomes: [ItemOutcome], database: DatabaseKey, writer: Caller) -> [ChangeNotice] {
        switch database.scope {
        case .private:
            // The records written travel along for the owner's query subscriptions.
            let changes = recordChanges(outcomes)
            return changes.isEmpty
                ? [] : [.database(database, zones: Set(changes.map(\.zoneName)), writerDevice: writer.deviceID, records: changes)]
        case .public:
            let changes = recordChanges(outcomes)
            return changes.isEmpty ? [] : [.publicRecords(container: database.container, changes: changes, writerDevice: writer.deviceID)]
        case .shared:
            // Each owner's zone is written under their name: their private database judges the records.
            var byOwner: [String: [PublicRecordChange]] = [:]
            for outcome in outcomes {
                guard let change = recordChange(outcome), let owner = outcome.zoneID?.ownerRecordName else { continue }
                byOwner[owner, default: []].append(change)
            }
            return byOwner.sorted { $0.key < $1.key }.map { owner, changes in
                .database(
                    DatabaseKey(container: database.container, scope: .private, owner: owner), zones: [], writerDevice: writer.deviceID,
                    records: changes)
            }
        }
    }

    private static func recordChanges(_ outcomes: [ItemOutcome]) -> [PublicRecordChange] {
        outcomes.compactMap(recordChange)
    }

    private static func recordChange(_ outcome: ItemOutcome) -> PublicRecordChange? {
        switch outcome {
        case .saved(let record, let zoneID, let event): PublicRecordChange(recordName: record.recordName, zoneName: zoneID.zoneName, event: event)
        case .deleted(let name, let zoneID): PublicRecordChange(recordName: name, zoneName: zoneID.zoneName, event: .delete)
        case .failed: nil
        }
    }

    /// The notices a sharing-related write owes: the feeds it moved (owner's private, participants' shared), and the
    /// owner zones whose shares other instances may have cached.
    static func shareNotices(_ effects: ShareEffects, writer: Caller) -> [ChangeNotice] {
        var notices = effects.pushes.map { database, zones in
            ChangeNotice.database(database, zones: zones, writerDevice: writer.deviceID)
        }
        notices += effects.ownerZones.sorted().map { ChangeNotice.zoneSharesChanged(zonePK: $0) }
        return notices
    }
}

extension ItemOutcome {
    /// The zone an applied operation wrote, nil for a failed one.
    fileprivate var zoneID: ZoneID? {
        switch self {
        case .saved(_, let zoneID, _), .deleted(_, let zoneID): zoneID
        case .failed: nil
        }
    }
}
