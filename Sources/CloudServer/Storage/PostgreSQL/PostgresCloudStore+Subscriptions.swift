import CloudModel
import Foundation
import NIOCore
import PostgresNIO

/// Subscriptions of each database, in PostgreSQL (their bodies as JSON bytes).
extension PostgresStoreTransaction {
    func subscriptions(_ database: DatabaseKey) async throws -> [Subscription] {
        let bodies = try await all(
            """
            SELECT body FROM subscriptions
            WHERE container = \(database.container) AND scope = \(database.scope.rawValue) AND owner = \(database.owner) ORDER BY subscription_id
            """
        ) { try $0.decode(Data.self) }
        return try bodies.map { try decoder.decode(Subscription.self, from: $0) }
    }

    func putSubscription(_ database: DatabaseKey, _ subscription: Subscription) async throws {
        let body = ByteBuffer(bytes: try encoder.encode(subscription))
        try await run(
            """
            INSERT INTO subscriptions VALUES (\(database.container), \(database.scope.rawValue), \(database.owner), \(subscription.subscriptionID), \(body))
            ON CONFLICT (container, scope, owner, subscription_id) DO UPDATE SET body = excluded.body
            """)
    }

    func deleteSubscription(_ database: DatabaseKey, id: String) async throws -> Bool {
        try await touched(
            """
            DELETE FROM subscriptions
            WHERE container = \(database.container) AND scope = \(database.scope.rawValue) AND owner = \(database.owner) AND subscription_id = \(id)
            RETURNING 1
            """)
    }

    func subscriptions(container: String, scope: DatabaseScope) async throws -> [(owner: String, subscription: Subscription)] {
        let rows = try await all("SELECT owner, body FROM subscriptions WHERE container = \(container) AND scope = \(scope.rawValue)") {
            try $0.decode((String, Data).self)
        }
        return try rows.map { (owner: $0.0, subscription: try decoder.decode(Subscription.self, from: $0.1)) }
    }
}
