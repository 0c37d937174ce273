import CloudModel
import CloudServer
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The cloud's files are private to its user: 0700 directories, 0600 files, wider modes tightened at start.
@Suite("File modes")
struct DataDirectoryPermissionTests {
    @Test func aNewCloudMakesItsDirectoryAndFilesPrivate() async throws {
        let parent = ScratchDirectory.path("modes")
        defer { try? FileManager.default.removeItem(at: parent) }
        let directory = parent.appendingPathComponent("server")
        let cloud = try await TestCloud(directory: directory)
        let device = try await cloud.signIn("modes")
        try await cloud.createTodosZone(device)
        _ = try await cloud.modify(device, [.init(.create, todo("m1", "Private"))])

        #expect(mode(directory) == 0o700)
        for name in ["cloud.sqlite", "cloud.sqlite-wal", "cloud.sqlite-shm"] {
            #expect(mode(directory.appendingPathComponent(name)) == 0o600, "\(name)")
        }
        await cloud.close()
    }

    @Test func wideModesLeftByAnOlderCloudAreTightenedAtStart() async throws {
        let directory = ScratchDirectory.path("modes")
        defer { try? FileManager.default.removeItem(at: directory) }
        let assets = directory.appendingPathComponent("assets")
        try FileManager.default.createDirectory(at: assets, withIntermediateDirectories: true)
        try Data("bytes".utf8).write(to: assets.appendingPathComponent("asset-1"))
        try Data().write(to: directory.appendingPathComponent("cloud.sqlite"))
        try Data("old log\n".utf8).write(to: directory.appendingPathComponent("server.log"))
        chmod(directory.path, 0o755)
        chmod(assets.path, 0o777)
        chmod(assets.appendingPathComponent("asset-1").path, 0o666)
        chmod(directory.appendingPathComponent("cloud.sqlite").path, 0o644)
        chmod(directory.appendingPathComponent("server.log").path, 0o644)

        let cloud = try await TestCloud(directory: directory)
        #expect(mode(directory) == 0o700)
        #expect(mode(assets) == 0o700)
        #expect(mode(assets.appendingPathComponent("asset-1")) == 0o600)
        #expect(mode(directory.appendingPathComponent("cloud.sqlite")) == 0o600)
        #expect(mode(directory.appendingPathComponent("server.log")) == 0o600)
        await cloud.close()
    }

    @Test func theLockFileIsPrivate() throws {
        let directory = ScratchDirectory.path("modes")
        defer { try? FileManager.default.removeItem(at: directory) }
        let lock = try ServerLockFile.acquire(in: directory)
        #expect(mode(directory) == 0o700)
        #expect(mode(ServerLockFile.location(in: directory)) == 0o600)
        lock.release()
    }

    private func mode(_ url: URL) -> mode_t? {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }
}
