import Foundation

/// Where this test process keeps its files: one directory under the system's temporary directory, removed when the
/// process exits; what a killed run left behind is removed by the next run.
public enum ScratchDirectory {
    /// This process's root, `cloudtodo-tests-PID`, made on first use.
    public static let root: URL = {
        let temporary = FileManager.default.temporaryDirectory
        removeLeftovers(in: temporary)
        let root = temporary.appendingPathComponent("cloudtodo-tests-\(getpid())")
        try? FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: ScratchDirectory.root) }
        return root
    }()

    /// A new empty directory for one test, named after `name`.
    public static func make(_ name: String) -> URL {
        let url = root.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A path for one test under the root, not yet made (for code that must create it itself).
    public static func path(_ name: String) -> URL { root.appendingPathComponent("\(name)-\(UUID().uuidString)") }

    /// Removes the roots of test processes that no longer run.
    private static func removeLeftovers(in temporary: URL) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: temporary.path) else { return }
        for name in names where name.hasPrefix("cloudtodo-tests-") {
            guard let pid = Int32(name.dropFirst("cloudtodo-tests-".count)), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name)) }
        }
    }
}
