import CloudModel
import Foundation
import SQLiteDB

/// An uploaded asset; its bytes are kept by the store (`CloudStore.putAssetContent`).
struct AssetRow: Sendable {
    var id: String
    var container: String
    var owner: String
    var size: Int64
    /// SHA-256, base64.
    var checksum: String
}

extension SQLiteCloudStore {
    /// v6: upload tickets, uploaded assets, and who allowed discovery.
    static let assetsMigration: (name: String, sql: String) = (
        "v6",
        """
        CREATE TABLE asset_uploads(
            ticket TEXT PRIMARY KEY, container TEXT NOT NULL, owner TEXT NOT NULL, created_at INTEGER NOT NULL) WITHOUT ROWID;
        CREATE TABLE assets(
            id TEXT PRIMARY KEY, container TEXT NOT NULL, owner TEXT NOT NULL, size INTEGER NOT NULL, checksum TEXT NOT NULL,
            created_at INTEGER NOT NULL) WITHOUT ROWID;
        CREATE TABLE discoverable_users(
            container TEXT NOT NULL, user_record_name TEXT NOT NULL, PRIMARY KEY(container, user_record_name)) WITHOUT ROWID;
        """
    )
}

/// The bytes of assets: a file each, `assets/<id>` under the data directory, read and written on threads of their own.
extension SQLiteCloudStore {
    func putAssetContent(id: String, bytes: Data) async throws {
        let file = try assetFile(id)
        try await Self.offPool {
            // Whole or not at all: a temporary file renamed into place.
            do {
                try DataDirectoryPermissions.makeDirectory(file.deletingLastPathComponent())
                try bytes.write(to: file, options: .atomic)
                try DataDirectoryPermissions.restrict(file.path, isDirectory: false)
            } catch {
                throw ServerError(.internalError, "could not store the asset: \(error.localizedDescription)")
            }
        }
    }

    func assetContent(id: String) async throws -> Data? {
        let path = try assetFile(id).path
        return try await Self.offPool { FileManager.default.contents(atPath: path) }
    }

    func removeAssetContent(ids: [String]) async throws {
        let files = try ids.map(assetFile)
        try await Self.offPool {
            for file in files where FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
        }
    }

    /// The file of an asset id; an id that could leave the folder is refused.
    private func assetFile(_ id: String) throws -> URL {
        guard Validation.isName(id, maxLength: 64, extra: "") else { throw ServerError(.badRequest, "not an asset id") }
        return directory.appendingPathComponent("assets").appendingPathComponent(id)
    }

    /// Runs blocking file work on a thread of its own, not on the cooperative pool (two threads here).
    private static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
        }
    }
}

extension SQLiteStoreTransaction {
    func insertAssetUpload(ticket: String, container: String, owner: String, now: Int64) throws {
        try db.run("INSERT INTO asset_uploads VALUES (?1, ?2, ?3, ?4)", [.text(ticket), .text(container), .text(owner), .int(now)])
    }

    func takeAssetUpload(ticket: String, container: String, notBefore: Int64) throws -> String? {
        let owner = try db.first(
            "SELECT owner FROM asset_uploads WHERE ticket = ?1 AND container = ?2 AND created_at >= ?3",
            [.text(ticket), .text(container), .int(notBefore)]) { $0.text(0) }
        try db.run("DELETE FROM asset_uploads WHERE ticket = ?1 OR created_at < ?2", [.text(ticket), .int(notBefore)])
        return owner
    }

    func insertAsset(_ asset: AssetRow, now: Int64) throws {
        try db.run(
            "INSERT INTO assets VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            [.text(asset.id), .text(asset.container), .text(asset.owner), .int(asset.size), .text(asset.checksum), .int(now)])
    }

    func asset(id: String) throws -> AssetRow? {
        try db.first("SELECT id, container, owner, size, checksum FROM assets WHERE id = ?1", [.text(id)]) {
            AssetRow(id: $0.text(0), container: $0.text(1), owner: $0.text(2), size: $0.int(3), checksum: $0.text(4))
        }
    }

    func setDiscoverable(container: String, user: String, _ discoverable: Bool) throws {
        if discoverable {
            try db.run("INSERT OR IGNORE INTO discoverable_users VALUES (?1, ?2)", [.text(container), .text(user)])
        } else {
            try db.run("DELETE FROM discoverable_users WHERE container = ?1 AND user_record_name = ?2", [.text(container), .text(user)])
        }
    }

    func isDiscoverable(container: String, user: String) throws -> Bool {
        try db.first(
            "SELECT 1 FROM discoverable_users WHERE container = ?1 AND user_record_name = ?2", [.text(container), .text(user)]) { _ in true } ?? false
    }
}
