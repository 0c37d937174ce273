import CloudModel
import Foundation
import SQLiteDB
import Testing

@testable import CloudServer

/// A new cloud file is made with 16 KB pages (fewer WAL frames, one system call each, per commit); a file an older
/// cloud made keeps its 4 KB pages and opens as before.
@Suite("The cloud's page size")
struct PageSizeTests {
    private func pageSize(_ directory: URL) throws -> Int64 {
        let db = try SQLiteDatabase(path: directory.appendingPathComponent("cloud.sqlite").path, readOnly: true)
        return try db.first("PRAGMA page_size") { $0.int(0) } ?? 0
    }

    @Test func aNewCloudHasSixteenKilobytePagesAndAnOldOneKeepsItsOwn() async throws {
        let fresh = FileManager.default.temporaryDirectory.appendingPathComponent("cloudtodo-pages-\(UUID().uuidString)")
        let old = FileManager.default.temporaryDirectory.appendingPathComponent("cloudtodo-pages-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: fresh)
            try? FileManager.default.removeItem(at: old)
        }
        let store = try SQLiteCloudStore(directory: fresh)
        await store.shutDown()
        #expect(try pageSize(fresh) == 16_384)

        // A file as a cloud of before made it: 4 KB pages, WAL, the first migration applied.
        try FileManager.default.createDirectory(at: old, withIntermediateDirectories: true)
        do {
            let db = try SQLiteDatabase(path: old.appendingPathComponent("cloud.sqlite").path)
            try db.execute("PRAGMA page_size=4096; PRAGMA journal_mode=WAL;")
            try db.migrate(Array(SQLiteCloudStore.migrations.prefix(1)))
        }
        let upgraded = try SQLiteCloudStore(directory: old)
        let zones = try await upgraded.read { tx in try await tx.zones(DatabaseKey(container: "c", scope: .private, owner: "_a")) }
        #expect(zones.isEmpty)
        await upgraded.shutDown()
        #expect(try pageSize(old) == 4_096)
    }
}
