import CloudClient
import CloudModel
import CloudServer
import Foundation
import TestSupport
import Testing

/// The real `todo` binary: a todo committed to the cache while the cloud turned its send away, then a full disk: the
/// words name the disk and never call the kept change unsaved; once there is room the next sync sends it, once.
/// Needs `mount` (root).
@Suite("A committed change, then a full disk, on the command line", .serialized)
struct CommittedThenDiskFullCommandTests {
    @Test func theChangeIsToldKeptAndTheRetryMakesNoSecondCopy() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let disk = stage.directory.appendingPathComponent("small-disk")
        try FileManager.default.createDirectory(at: disk, withIntermediateDirectories: true)
        guard SmallDisk.mount(megabytes: 4, on: disk) else {
            print("CommittedThenDiskFullCommandTests skipped: mounting a tmpfs is not permitted here")
            await stage.server.shutdown()
            return
        }
        defer { SmallDisk.unmount(disk) }
        let data = disk.appendingPathComponent("data").path
        #expect(try await StorageErrorTests.todo(stage, data, ["add", "Before the disk filled"]).status == 0)

        // Committed, the send turned away (throttled past the device's tries): saved here, not sent yet.
        let admin = CloudClient(baseURL: stage.server.baseURL)
        try await admin.injectFault(FaultRequest(endpoint: "records/modify", serverErrorCode: .throttled, count: 50, retryAfter: 0.01))
        let added = try await StorageErrorTests.todo(stage, data, ["add", "Kept on a full disk"])
        try await admin.injectFault(FaultRequest(endpoint: "records/modify", serverErrorCode: .throttled, count: 0))
        #expect(added.status == 0 && added.errors.contains("Saved on this device"), "\(added.allText)")

        // The disk fills before the next run: the cache cannot even be opened to send it. Said in words; the kept
        // change is not called unsaved (in-process, `CommittedThenDiskFullTests` fills the disk between send and answer).
        SmallDisk.fill(disk)
        let synced = try await StorageErrorTests.todo(stage, data, ["sync"])
        StorageErrorTests.expectWorded(synced, "sync on a full disk")
        #expect(synced.status == 1 && synced.errors.contains("full"), "the full disk is named: \(synced.allText)")
        #expect(!synced.allText.contains("not saved"), "\(synced.allText)")

        // Room again: the retry confirms the one copy.
        try FileManager.default.removeItem(at: disk.appendingPathComponent("filler"))
        let retried = try await StorageErrorTests.todo(stage, data, ["sync"])
        #expect(retried.status == 0 && !retried.errors.contains("Last error"), "\(retried.allText)")
        let here = try await StorageErrorTests.todo(stage, data, ["list", "--all"])
        #expect(here.output.components(separatedBy: "Kept on a full disk").count == 2, "one copy here: \(here.output)")
        let status = try await StorageErrorTests.todo(stage, data, ["status"])
        #expect(status.output.contains("pending           0"), "\(status.output)")
        let again = try await TodoCommandLine(stage: stage).run("alice", ["list", "--all"], device: "elsewhere")
        #expect(again.output.components(separatedBy: "Kept on a full disk").count == 2, "one copy in the cloud: \(again.output)")
        await stage.server.shutdown()
    }
}
