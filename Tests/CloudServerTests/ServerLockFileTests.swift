import CloudServer
import Foundation
import TestSupport
import Testing

/// `server.lock`: what `todo server status` and `stop` find, held only while a server lives.
@Suite("Server lock file")
struct ServerLockFileTests {
    let directory = ScratchDirectory.path("lock")

    @Test func aHeldLockNamesItsServerAndASecondServerIsRefused() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(ServerLockFile.running(in: directory) == nil)
        let lock = try ServerLockFile.acquire(in: directory)
        // Taken but not yet published: nothing to say about it.
        #expect(ServerLockFile.running(in: directory) == nil)
        let record = ServerLockFile.Record(pid: 4242, url: "https://[::1]:8443", started: 1_700_000_000)
        try lock.publish(record)
        #expect(ServerLockFile.running(in: directory) == record)

        do {
            _ = try ServerLockFile.acquire(in: directory)
            Issue.record("a second server took the lock")
        } catch let error as ServerStartError {
            #expect(error.reason.contains("pid 4242"))
            #expect(error.reason.contains("todo server stop"))
        }
        lock.release()
        #expect(ServerLockFile.running(in: directory) == nil)
        #expect(!FileManager.default.fileExists(atPath: ServerLockFile.location(in: directory).path))
    }

    @Test func aFileLeftByAKilledServerCountsForNothing() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let stale = ServerLockFile.Record(pid: 99999, url: "http://127.0.0.1:8787", started: 0)
        try JSONEncoder().encode(stale).write(to: ServerLockFile.location(in: directory))
        #expect(ServerLockFile.running(in: directory) == nil)
        let lock = try ServerLockFile.acquire(in: directory)
        try lock.publish(.init(pid: 7, url: "http://127.0.0.1:1", started: 1))
        #expect(ServerLockFile.running(in: directory)?.pid == 7)
        lock.release()
    }
}
