import Foundation
import Logging

/// The store an operator tool (`todo server account|schema`) works on: the cloud's SQLite files in its data
/// directory, or its PostgreSQL database, opened for the one job and closed after it.
enum OperatorStore {
    /// Opens the store `storage` names, runs `body` on it, and shuts it down (also when `body` throws).
    static func with<T: Sendable>(
        _ storage: CloudStorage, dataDirectory: URL, _ body: (any CloudStore) async throws -> T
    ) async throws -> T {
        var logger = Logger(label: "cloudtodo.operator")
        logger.logLevel = .critical  // failures reach the operator as thrown errors, in words
        let store = try await CloudServer.openStore(storage, dataDirectory: dataDirectory, logger: logger)
        do {
            let result = try await body(store)
            await store.shutDown()
            return result
        } catch {
            await store.shutDown()
            throw error
        }
    }
}
