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
                        // Answered with the subscription as it was (a delete may name it by its ID alone).
                        let stored = try await tx.subscriptions(key).first { $0.subscriptionID == id }
                        guard let stored, try await tx.deleteSubscription(key, id: id) else {
                            throw ServerError(.notFound, "subscription '\(id)' not found")
                        }
                        return .subscription(stored)
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
            guard scope != .shared else {
                throw ServerError(.badRequest, "the shared database takes no query subscriptions: use a database subscription")
            }
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

    /// `subscriptions/lookup`: the caller's subscriptions by ID, `NOT_FOUND` per ID it has none of.
    func lookupSubscriptions(_ request: LookupSubscriptionsRequest, _ database: DatabaseKey, _ caller: Caller) async throws -> ServiceResponse {
        let key = try subscriptionKey(database, caller)
        guard !request.subscriptions.isEmpty, request.subscriptions.count <= CloudLimits.maxOperationsPerRequest else {
            throw ServerError(.badRequest, "look up 1 to \(CloudLimits.maxOperationsPerRequest) subscriptions")
        }
        let stored = try await store.read { try await $0.subscriptions(key) }
        let byID = Dictionary(stored.map { ($0.subscriptionID, $0) }, uniquingKeysWith: { first, _ in first })
        let results = request.subscriptions.map { reference -> SubscriptionResult in
            if let subscription = byID[reference.subscriptionID] { return .subscription(subscription) }
            var error = ServerError(.notFound, "subscription '\(reference.subscriptionID)' not found")
            error.subscriptionID = reference.subscriptionID
            return .failure(error)
        }
        return try .encode(SubscriptionsResponse(subscriptions: results))
    }
}
