import CloudServer
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The real `todo` binary on a full disk (a small tmpfs), a read-only data directory (a read-only bind mount) and a
/// data directory that cannot exist: every message says what happened and what to do, never a raw SQLite code, and
/// a change that was saved is never reported lost. Needs `mount` (root); skipped with a printed line otherwise.
@Suite("Storage errors on the device", .serialized)
struct StorageErrorTests {
    /// `todo ARGUMENTS` as `account` with its data in `dataDirectory`.
    static func todo(_ stage: E2EStage, _ dataDirectory: String, _ arguments: [String]) async throws -> TodoCommandLine.Result {
        try await TodoCommandLine(stage: stage).run(
            arguments + [
                "--account", "alice", "--password", "e2e-password-alice", "--device", "main", "--server",
                stage.server.baseURL.absoluteString, "--data-dir", dataDirectory,
            ])
    }

    static func expectWorded(_ result: TodoCommandLine.Result, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!result.allText.contains("SQLite error") && !result.allText.contains("SQLITE"), "\(what): \(result.allText)", sourceLocation: sourceLocation)
    }

    @Test func fullDiskReadOnlyAndMissingDirectoriesAreToldAsThePersonNeedsThem() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let disk = stage.directory.appendingPathComponent("small-disk")
        try FileManager.default.createDirectory(at: disk, withIntermediateDirectories: true)
        guard SmallDisk.mount(megabytes: 3, on: disk) else {
            print("StorageErrorTests skipped: mounting a tmpfs is not permitted here")
            await stage.server.shutdown()
            return
        }
        defer { SmallDisk.unmount(disk) }
        let data = disk.appendingPathComponent("data")

        // A disk full from the start: the cache cannot be made, and the message says so in words.
        SmallDisk.fill(disk)
        let atStart = try await Self.todo(stage, data.path, ["list"])
        #expect(atStart.status == 1, "\(atStart.allText)")
        #expect(atStart.errors.contains("storage") && atStart.errors.contains("free some space"), "\(atStart.errors)")
        Self.expectWorded(atStart, "full at start")
        try FileManager.default.removeItem(at: disk.appendingPathComponent("filler"))

        // A working cache, then a full disk: every add either fails saying nothing changed (and leaves no todo), or
        // prints its ID and exits 0 (the todo kept, whatever could not be recorded afterwards).
        let first = try await Self.todo(stage, data.path, ["add", "Before the disk filled"])
        #expect(first.status == 0, "\(first.allText)")
        SmallDisk.fill(disk)
        var outcomes: [(String, TodoCommandLine.Result)] = []
        for index in 0..<3 {
            let title = "Added on a full disk \(index)"
            outcomes.append((title, try await Self.todo(stage, data.path, ["add", title])))
        }
        try FileManager.default.removeItem(at: disk.appendingPathComponent("filler"))
        let listed = try await Self.todo(stage, data.path, ["list", "--all"])
        #expect(listed.status == 0, "\(listed.allText)")
        for (title, result) in outcomes {
            Self.expectWorded(result, title)
            let printedID = !result.output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
            if printedID {
                #expect(result.status == 0, "an ID was printed, so the todo was saved: \(result.allText)")
                #expect(listed.output.contains(title), "\(title) was reported saved: \(listed.output)")
            } else {
                #expect(result.status == 1 && result.errors.contains("Nothing was changed"), "\(result.allText)")
                #expect(!listed.output.contains(title), "\(title) was reported not saved: \(listed.output)")
            }
        }

        // A read-only data directory: said in words, with what to do.
        #expect(SmallDisk.mount(["--bind", "-o", "ro", data.path, data.path]) || SmallDisk.mount(["-o", "remount,ro,bind", data.path]))
        let readOnly = try await Self.todo(stage, data.path, ["add", "On a read-only disk"])
        SmallDisk.unmount(data, lazily: false)
        #expect(readOnly.status == 1, "\(readOnly.allText)")
        #expect(readOnly.errors.contains("cannot be written") || readOnly.errors.contains("cannot be opened"), "\(readOnly.errors)")
        Self.expectWorded(readOnly, "read-only")

        // A data directory that cannot exist (under a file).
        let missing = try await Self.todo(stage, "/dev/null/todo-data", ["list"])
        #expect(missing.status == 1 && missing.errors.contains("data directory"), "\(missing.errors)")
        Self.expectWorded(missing, "missing directory")
        await stage.server.shutdown()
    }
}
