import CloudModel
import Foundation
import Logging

/// The receiving end of the bus: each instance turns the notices of every instance's writes into pushes for the
/// devices whose mailboxes it keeps.
extension CloudService: NoticeReceiver {
    func receive(_ notices: [ChangeNotice]) async {
        for notice in notices {
            switch notice {
            case .database(let database, let zones, let writer, let records):
                readAhead?.forget(database, zones: zones)
                await pushDatabaseChange(database, zones: zones, writerDevice: writer, records: records)
            case .publicRecords(let container, let changes, let writer):
                await pushQuerySubscribers(container: container, changes, writerDevice: writer)
            case .devicePush(let container, let user, let deviceID):
                await pushToDevice(container: container, user: user, deviceID: deviceID)
            case .zoneSharesChanged(let zonePK):
                await (store as? any ShareCacheHolding)?.forgetShares(zonePK: zonePK)
            case .throttle(let event, let origin):
                // This instance counted its own already.
                if origin != bus.instanceID { throttle.apply(event) }
            case .sessionsEnded(let ended):
                sessionCache?.forget(ended)
            }
        }
    }

    func noticesMayBeLost() async {
        sessionCache?.forgetAll()  // a session ended elsewhere meanwhile would otherwise serve out its lifetime
        readAhead?.forgetAll()  // so would a page read ahead of a write elsewhere
        let count = await hub.resyncAll()
        logger.notice("push notices may have been lost: devices told to fetch their changes", metadata: ["mailboxes": "\(count)"])
    }

    /// Whether mailboxes are made for tokens that never polled here: yes on one instance (a device that polls later
    /// finds what it missed); on several, a token's mailbox lives only where it polls.
    private var createsMailboxes: Bool { !bus.isShared }

    /// Notifies the owner's devices that subscribed to this database (or, with `zones`, to one of those zones), all
    /// but the writing device: a zone subscription with `fet` naming its zone, a database subscription with `met`
    /// and `fet` naming a zone that changed; the owner's query subscriptions judge `records`.
    private func pushDatabaseChange(
        _ database: DatabaseKey, zones: Set<String>?, writerDevice: String?, records: [PublicRecordChange]?
    ) async {
        if bus.isShared, !(await hub.hostsTokens(of: database.owner)) { return }
        do {
            // Subscriptions are read only when another device of the owner has a push token.
            let (subscriptions, targets) = try await store.read { tx -> ([Subscription], [PushTokenRow]) in
                let targets = try await tx.pushTokens(user: database.owner, container: database.container).filter {
                    $0.deviceID != writerDevice
                }
                return targets.isEmpty ? ([], []) : (try await tx.subscriptions(database), targets)
            }
            guard !targets.isEmpty else { return }
            let dbs = database.scope.notificationCode
            var queries: [Subscription] = []
            for subscription in subscriptions {
                let zone: ZoneID
                switch subscription.subscriptionType {
                case .database:
                    // An empty set: only records to judge, the zones were told already.
                    if zones?.isEmpty == true { continue }
                    zone = Self.zoneID(zones?.sorted().first ?? ZoneID.defaultZoneName, in: database)
                case .zone:
                    guard let name = subscription.zoneID?.zoneName, zones?.contains(name) ?? true else { continue }
                    zone = Self.zoneID(name, in: database)
                case .query:
                    queries.append(subscription)
                    continue
                }
                let fet = PushNotification.ZoneInfo(sid: subscription.subscriptionID, dbs: dbs, zid: zone.zoneName, zoid: zone.ownerRecordName ?? database.owner)
                let met = subscription.subscriptionType == .database ? PushNotification.DatabaseInfo(sid: subscription.subscriptionID, dbs: dbs) : nil
                let notification = PushNotification(ck: .init(nid: UUID().uuidString, cid: database.container, met: met, fet: fet))
                for target in targets { await hub.deliver(notification, to: target.token, createMailbox: createsMailboxes) }
            }
            if let records, !records.isEmpty, !queries.isEmpty {
                try await pushQueryHits(database, queries.map { (database.owner, $0) }, records, tokens: [database.owner: targets], writerDevice: writerDevice)
            }
        } catch {
            logger.warning("push fan-out failed", metadata: ["error": "\(error)"])
        }
    }

    /// A zone of `database` by the name its feed gives it: a shared database's names carry their owner.
    private static func zoneID(_ name: String, in database: DatabaseKey) -> ZoneID {
        switch database.scope {
        case .shared: SharedZoneName.decode(name)
        case .private: ZoneID(zoneName: name, ownerRecordName: database.owner)
        case .public: ZoneID(zoneName: name, ownerRecordName: "_defaultOwner")
        }
    }

    /// Notifies the owners of query subscriptions on the public board whose query matches a changed record (as it
    /// is now: the notice names it, this instance reads it), all but the writing device.
    private func pushQuerySubscribers(container: String, _ changes: [PublicRecordChange], writerDevice: String?) async {
        if bus.isShared, !(await hub.hostsAnyToken) { return }
        do {
            var subscribers = try await store.read { try await $0.subscriptions(container: container, scope: .public) }
            subscribers.removeAll { $0.subscription.subscriptionType != .query || $0.subscription.query == nil }
            if bus.isShared {
                var hosted: [(owner: String, subscription: Subscription)] = []
                for subscriber in subscribers where await hub.hostsTokens(of: subscriber.owner) { hosted.append(subscriber) }
                subscribers = hosted
            }
            guard !subscribers.isEmpty else { return }
            let owners = Set(subscribers.map(\.owner))
            let tokens = try await store.read { tx -> [String: [PushTokenRow]] in
                var tokens: [String: [PushTokenRow]] = [:]
                for owner in owners { tokens[owner] = try await tx.pushTokens(user: owner, container: container) }
                return tokens
            }
            let publicDatabase = DatabaseKey(container: container, scope: .public, owner: DatabaseKey.publicOwner)
            try await pushQueryHits(publicDatabase, subscribers, changes, tokens: tokens, writerDevice: writerDevice)
        } catch {
            logger.warning("query push fan-out failed", metadata: ["error": "\(error)"])
        }
    }

    /// Sends `qry` pushes for the changes of `database` each query subscription matches (a record as it is now; a
    /// deleted one matches by being gone) and fires on, to its owner's tokens but the writer's.
    private func pushQueryHits(
        _ database: DatabaseKey, _ subscribers: [(owner: String, subscription: Subscription)], _ changes: [PublicRecordChange],
        tokens: [String: [PushTokenRow]], writerDevice: String?
    ) async throws {
        let (records, zoneIDs) = try await store.read { tx -> ([String: [String: StoredRecord]], [String: ZoneID]) in
            var records: [String: [String: StoredRecord]] = [:]
            var zoneIDs: [String: ZoneID] = [:]
            for (zoneName, group) in Dictionary(grouping: changes, by: \.zoneName) {
                guard let zone = try await tx.zone(database, name: zoneName) else { continue }
                zoneIDs[zoneName] = zone.zoneID
                records[zoneName] = try await tx.records(zonePK: zone.pk, names: group.map(\.recordName))
            }
            return (records, zoneIDs)
        }
        for (owner, subscription) in subscribers {
            guard let query = subscription.query, let evaluator = try? QueryEvaluator(query) else { continue }
            let fires = Set(subscription.firesOn ?? [.create, .update, .delete])
            let hits = changes.filter { change in
                guard fires.contains(change.event), let zoneID = zoneIDs[change.zoneName] else { return false }
                if let only = subscription.zoneID, only.zoneName != change.zoneName { return false }
                guard let record = records[change.zoneName]?[change.recordName] else { return true }
                // A tombstone that kept its type matches only a query of that type.
                if record.deleted { return record.recordType.isEmpty || record.recordType == query.recordType }
                guard record.recordType == query.recordType else { return false }
                return (try? evaluator.run([record], zoneID: zoneID).isEmpty == false) ?? false
            }
            for hit in hits {
                let code = hit.event == .create ? 1 : (hit.event == .update ? 2 : 3)
                let zone = Self.zoneID(hit.zoneName, in: database)
                let notification = PushNotification(
                    ck: .init(
                        nid: UUID().uuidString, cid: database.container,
                        qry: .init(
                            sid: subscription.subscriptionID, dbs: database.scope.notificationCode, rid: hit.recordName, zid: zone.zoneName,
                            zoid: zone.ownerRecordName ?? database.owner, fo: code)))
                for token in tokens[owner] ?? [] where token.deviceID != writerDevice {
                    await hub.deliver(notification, to: token.token, createMailbox: createsMailboxes)
                }
            }
        }
    }

    /// `device/push`: a push of the private subscription to every token of one device.
    private func pushToDevice(container: String, user: String, deviceID: String) async {
        if bus.isShared, !(await hub.hostsTokens(of: user)) { return }
        do {
            let tokens = try await store.read { try await $0.pushTokens(user: user, container: container) }.filter { $0.deviceID == deviceID }
            let notification = PushNotification(
                ck: .init(
                    nid: UUID().uuidString, cid: container,
                    met: .init(sid: TodoSchema.privateSubscriptionID, dbs: DatabaseScope.private.notificationCode),
                    fet: .init(
                        sid: TodoSchema.privateSubscriptionID, dbs: DatabaseScope.private.notificationCode, zid: TodoSchema.zoneName, zoid: user)))
            for token in tokens { await hub.deliver(notification, to: token.token, createMailbox: createsMailboxes) }
        } catch {
            logger.warning("test push failed", metadata: ["error": "\(error)"])
        }
    }

    /// Drops the mailboxes of push tokens that no longer exist (on an instance that does not run compaction).
    func trimMailboxes() async {
        guard let tokens = try? await store.read({ try await $0.allPushTokens() }) else { return }
        let dropped = await hub.retainMailboxes(of: tokens)
        if dropped > 0 { logger.info("dropped mailboxes of gone push tokens", metadata: ["mailboxes": "\(dropped)"]) }
    }
}
