import CloudModel
import CloudServer
import Foundation
import TestSupport
import Testing

/// The real `todo` binary: `todo add` commits, the cloud takes the todo, and the disk fills before the device hears
/// the answer (a relay holds the answer back while the test fills the disk). The words say the change is kept and not
/// to make it again, never that it was lost; the exit status says it was saved; and the retry, once there is room,
/// confirms the one copy instead of sending a second. Needs `mount` (root).
@Suite("Sent, then a full disk, on the command line", .serialized)
struct SentThenDiskFullCommandTests {
    @Test func theSentChangeIsToldKeptAndTheRetryMakesNoSecondCopy() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let disk = stage.directory.appendingPathComponent("small-disk")
        try FileManager.default.createDirectory(at: disk, withIntermediateDirectories: true)
        guard SmallDisk.mount(megabytes: 4, on: disk) else {
            print("SentThenDiskFullCommandTests skipped: mounting a tmpfs is not permitted here")
            await stage.server.shutdown()
            return
        }
        defer { SmallDisk.unmount(disk) }
        let upstream = try #require(stage.server.baseURL.port)
        let relay = try AnswerHoldingRelay(upstreamPort: upstream, path: "/records/modify")
        defer { relay.stop() }
        let data = disk.appendingPathComponent("data").path
        func todo(_ arguments: [String]) async throws -> TodoCommandLine.Result {
            try await TodoCommandLine(stage: stage).run(
                arguments + [
                    "--account", "alice", "--password", "e2e-password-alice", "--device", "main", "--server",
                    "http://127.0.0.1:\(relay.port)", "--data-dir", data,
                ])
        }
        #expect(try await todo(["add", "Before the disk filled"]).status == 0)

        // The cloud keeps the todo; its answer waits on the relay until the disk is full.
        let filler = disk.appendingPathComponent("filler")
        relay.arm { SmallDisk.fill(disk) }
        let added = try await todo(["add", "Sent before the disk filled"])
        #expect(FileManager.default.fileExists(atPath: filler.path), "the relay held the answer and the disk filled")
        StorageErrorTests.expectWorded(added, "add whose answer met a full disk")
        #expect(added.status == 0, "the change was saved, so the verb did not fail: \(added.allText)")
        #expect(added.errors.contains("Do not make the change again") && added.errors.contains("full"), "\(added.allText)")
        #expect(!added.allText.contains("not saved") && !added.allText.contains("Nothing was changed"), "never told lost: \(added.allText)")

        let elsewhere = try await TodoCommandLine(stage: stage).run("alice", ["list", "--all"], device: "elsewhere")
        #expect(elsewhere.output.components(separatedBy: "Sent before the disk filled").count == 2, "the cloud has it: \(elsewhere.output)")

        // Room again: the retry confirms the copy the cloud has.
        try FileManager.default.removeItem(at: filler)
        let retried = try await todo(["sync"])
        #expect(retried.status == 0, "\(retried.allText)")
        let here = try await todo(["list", "--all"])
        #expect(here.output.components(separatedBy: "Sent before the disk filled").count == 2, "one copy here: \(here.output)")
        let status = try await todo(["status"])
        #expect(status.output.contains("pending           0"), "\(status.output)")
        let again = try await TodoCommandLine(stage: stage).run("alice", ["list", "--all"], device: "elsewhere")
        #expect(again.output.components(separatedBy: "Sent before the disk filled").count == 2, "still one copy in the cloud: \(again.output)")
        await stage.server.shutdown()
    }
}
