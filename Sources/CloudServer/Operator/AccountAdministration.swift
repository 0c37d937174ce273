import CloudModel
import Foundation

/// The operator's account tools, straight on a cloud's storage (`todo server account add|list|remove|passwd`): the
/// SQLite files of its data directory, or its PostgreSQL database. They work while the cloud runs (SQLite in WAL mode
/// lets them write beside it; PostgreSQL beside every instance). A cloud on SQLite reads accounts and sessions on every
/// request, so it sees the changes at once; an instance on PostgreSQL trusts a session it read for
/// `ServerConfiguration.sessionCacheLifetime` (1 s), so a password change ends the devices' sessions within that.
public enum AccountAdministration {
    /// What went wrong, in words for the operator.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Creates an account; answers its user record name.
    public static func add(
        dataDirectory: URL, storage: CloudStorage = .sqlite, account: String, password: String, cost: UInt = 4
    ) async throws -> String {
        try validate(account: account, password: password)
        let hash = try Secrets.hashPassword(password, cost: cost)
        let userRecordName = "_" + Secrets.randomHex(bytes: 16)
        let now = Int64((Date().timeIntervalSince1970 * 1000).rounded())
        try await OperatorStore.with(storage, dataDirectory: dataDirectory) { store in
            try await store.write { tx in
                if try await tx.user(account: account) != nil { throw Failure(description: "the account '\(account)' already exists") }
                try await tx.insertUser(UserRow(userRecordName: userRecordName, account: account, passwordHash: hash), now: now)
            }
        }
        return userRecordName
    }

    /// Every account, by name, with its signed-in device count and last use.
    public static func list(dataDirectory: URL, storage: CloudStorage = .sqlite) async throws -> [AccountSummary] {
        try await OperatorStore.with(storage, dataDirectory: dataDirectory) { store in try await store.read { try await $0.accounts() } }
    }

    /// Sets an account's password and ends all its sessions (every device signs in again).
    public static func setPassword(
        dataDirectory: URL, storage: CloudStorage = .sqlite, account: String, password: String, cost: UInt = 4
    ) async throws {
        try validate(account: account, password: password)
        let hash = try Secrets.hashPassword(password, cost: cost)
        try await OperatorStore.with(storage, dataDirectory: dataDirectory) { store in
            try await store.write { tx in
                guard let user = try await tx.user(account: account) else { throw Failure(description: "no account is named '\(account)'") }
                try await tx.setPasswordHash(user: user.userRecordName, hash: hash)
                try await tx.deleteSessions(user: user.userRecordName)
            }
        }
    }

    /// Deletes an account and everything it owns: sessions, devices, zones with their records and shares,
    /// subscriptions and assets (their files too).
    public static func remove(dataDirectory: URL, storage: CloudStorage = .sqlite, account: String) async throws {
        try await OperatorStore.with(storage, dataDirectory: dataDirectory) { store in
            let assets = try await store.write { tx -> [String] in
                guard let user = try await tx.user(account: account) else { throw Failure(description: "no account is named '\(account)'") }
                let assets = try await tx.assetIDs(owner: user.userRecordName)
                try await tx.deleteAssets(owner: user.userRecordName)
                try await tx.deleteUser(user.userRecordName)
                return assets
            }
            // The bytes once nothing names them (a crash in between leaves unreachable bytes, never a dangling row).
            try? await store.removeAssetContent(ids: assets.filter { Validation.isName($0, maxLength: 64, extra: "") })
        }
    }

    private static func validate(account: String, password: String) throws {
        do {
            try CloudService.validateAccount(account, password: password)
        } catch let error as ServerError {
            throw Failure(description: error.reason)
        }
    }
}
