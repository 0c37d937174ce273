import CloudModel
import Foundation
import Logging

extension CloudService {
    /// Subscriptions live per user: the public database's are the caller's own too.
    private func subscriptionKey(_ database: DatabaseKey, _ caller: Caller) throws -> DatabaseKey {
        var key = database
        key.owner = try caller.requireUser()
        return key
    }

    /// `subscriptions/modify`: create, update or delete the caller's subscriptions.
    func modifySubscriptions(_ request: ModifySubscriptionsRequest, _ database: DatabaseKey, _ caller: Caller) async throws -> ServiceResponse {
        let key = try subscriptionKey(database, caller)
        guard !request.operations.isEmpty, request.operations.count <= CloudLimits.maxOperationsPerRequest else {
            throw ServerError(.badRequest, "send 1 to \(CloudLimits.maxOperationsPerRequest) subscription operations")
        }
        let operations = request.operations
        let results = try await store.write { tx -> [SubscriptionResult] in
            try await operations.asyncMap { operation -> SubscriptionResult in
                let subscription = operation.subscription
                do {
                    let id = subscription.subscriptionID
                    guard !id.isEmpty, id.utf8.count <= 255 else { throw ServerError(.badRequest, "subscriptionID must be 1 to 255 bytes") }
                    switch operation.operationType {
                    case .delete:
                        guard try await tx.deleteSubscription(key, id: id) else {
                            throw ServerError(.notFound, "subscription '\(id)' not found")
                        }
                        return .subscription(subscription)
                    case .create, .update:
                        try Self.validate(subscription, scope: database.scope)
                        if operation.operationType == .update, !(try await tx.subscriptions(key).contains { $0.subscriptionID == id }) {
                            throw ServerError(.notFound, "subscription '\(id)' not found")
                        }
                        if subscription.subscriptionType == .zone, let zoneID = subscription.zoneID {
                            _ = try await self.resolveZone(tx, database, zoneID, create: false)
                        }
                        try await tx.putSubscription(key, subscription)
                        return .subscription(subscription)
                    }
                } catch var error as ServerError {
                    error.subscriptionID = subscription.subscriptionID
                    return .failure(error)
                }
            }
        }
        return try .encode(SubscriptionsResponse(subscriptions: results))
    }

    private static func validate(_ subscription: Subscription, scope: DatabaseScope) throws {
        switch subscription.subscriptionType {
        case .database:
            guard scope != .public else {
                throw ServerError(.badRequest, "the public database has no change feed: use a query subscription")
            }
        case .zone:
            guard scope == .private, subscription.zoneID != nil else {
                throw ServerError(.badRequest, "a zone subscription needs a zoneID in the private database")
            }
        case .query:
            guard let query = subscription.query else { throw ServerError(.badRequest, "a query subscription needs a query") }
            _ = try QueryEvaluator(query)
        }
    }

    /// `subscriptions/list`: the caller's subscriptions in this database.
    func listSubscriptions(_ database: DatabaseKey, _ caller: Caller) async throws -> ServiceResponse {
        let key = try subscriptionKey(database, caller)
        let subscriptions = try await store.read { try await $0.subscriptions(key) }
        return try .encode(SubscriptionsResponse(subscriptions: subscriptions.map(SubscriptionResult.subscription)))
    }

    // MARK: Push fan-out

    /// Sends the pushes a committed `records/modify` owes: database and zone subscriptions of the owner,
    /// query subscriptions on the public board; never to the writing device.
    func notifyRecordChanges(_ outcomes: [ItemOutcome], database: DatabaseKey, writer: Caller) async {
        if database.scope == .private {
            // Only the zones matter here: no list of the changed records is made.
            var zones = Set<String>()
            for outcome in outcomes {
                switch outcome {
                case .saved(_, let zoneID, _), .deleted(_, let zoneID): zones.insert(zoneID.zoneName)
                case .failed: break
                }
            }
            if !zones.isEmpty { await notifyDatabaseChange(database, writer: writer, zones: zones) }
            return
        }
        let changes = outcomes.compactMap { outcome -> (name: String, zoneID: ZoneID, event: FiresOn, record: StoredRecord?)? in
            switch outcome {
            case .saved(let record, let zoneID, let event): (record.recordName, zoneID, event, record)
            case .deleted(let name, let zoneID): (name, zoneID, .delete, nil)
            case .failed: nil
            }
        }
        // The shared database's writes reach their owner through the share effects instead.
        guard !changes.isEmpty, database.scope == .public else { return }
        await notifyQuerySubscribers(changes, database: database, writer: writer)
    }

    /// Notifies the owner's other devices that subscribed to this database (or one of `zones`).
    func notifyDatabaseChange(_ database: DatabaseKey, writer: Caller, zones: Set<String>? = nil) async {
        do {
            // Subscriptions are read only when another device of the owner has a push token.
            let (subscriptions, targets) = try await store.read { tx -> ([Subscription], [PushTokenRow]) in
                let targets = try await tx.pushTokens(user: database.owner, container: database.container).filter { $0.deviceID != writer.deviceID }
                return targets.isEmpty ? ([], []) : (try await tx.subscriptions(database), targets)
            }
            guard !targets.isEmpty else { return }
            for subscription in subscriptions {
                switch subscription.subscriptionType {
                case .database: break
                case .zone:
                    guard let name = subscription.zoneID?.zoneName, zones?.contains(name) ?? true else { continue }
                case .query: continue
                }
                let notification = PushNotification(
                    ck: .init(
                        nid: UUID().uuidString, cid: database.container,
                        met: .init(sid: subscription.subscriptionID, dbs: database.scope.notificationCode)))
                for target in targets { await hub.deliver(notification, to: target.token) }
            }
        } catch {
            logger.warning("push fan-out failed", metadata: ["error": "\(error)"])
        }
    }

    private func notifyQuerySubscribers(
        _ changes: [(name: String, zoneID: ZoneID, event: FiresOn, record: StoredRecord?)], database: DatabaseKey, writer: Caller
    ) async {
        do {
            let subscribers = try await store.read { try await $0.subscriptions(container: database.container, scope: .public) }
            for (owner, subscription) in subscribers where subscription.subscriptionType == .query {
                guard let query = subscription.query, let evaluator = try? QueryEvaluator(query) else { continue }
                let fires = Set(subscription.firesOn ?? [.create, .update, .delete])
                let hits = try changes.filter { change in
                    guard fires.contains(change.event) else { return false }
                    guard let record = change.record else { return true }  // a delete matches by type alone
                    guard record.recordType == query.recordType else { return false }
                    return try !evaluator.run([record], zoneID: change.zoneID).isEmpty
                }
                guard !hits.isEmpty else { continue }
                let tokens = try await store.read { try await $0.pushTokens(user: owner, container: database.container) }
                for hit in hits {
                    let code = hit.event == .create ? 1 : (hit.event == .update ? 2 : 3)
                    let notification = PushNotification(
                        ck: .init(
                            nid: UUID().uuidString, cid: database.container,
                            qry: .init(
                                sid: subscription.subscriptionID, dbs: 0, rid: hit.name, zid: hit.zoneID.zoneName,
                                zoid: nil, fo: code)))
                    for token in tokens where token.deviceID != writer.deviceID {
                        await hub.deliver(notification, to: token.token)
                    }
                }
            }
        } catch {
            logger.warning("query push fan-out failed", metadata: ["error": "\(error)"])
        }
    }
}
