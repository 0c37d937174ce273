import Foundation

/// The `todo` executable built beside the test bundle, if it is there.
enum TodoExecutable {
    static let path: String? = {
        guard let here = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        var directory = URL(fileURLWithPath: here).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("todo").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }()
}

/// One run of a real executable (the `todo` binary), its output collected in files so nothing blocks on a pipe.
enum TodoProcess {
    /// What one run printed and how it exited.
    struct Result: Sendable {
        var status: Int32
        var stdout: Data
        var errors: String
        var output: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// `binary ARGUMENTS` with `environment` added to this process's, waited for without blocking a cooperative thread.
    static func run(_ binary: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> Result {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("todo-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = scratch.appendingPathComponent("out")
        let err = scratch.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, given in given }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        return Result(
            status: status, stdout: (try? Data(contentsOf: out)) ?? Data(),
            errors: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
    }
}
