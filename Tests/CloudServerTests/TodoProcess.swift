import Foundation
import ProcessTestSupport

/// The `todo` executable built beside the test bundle, if it is there.
enum TodoExecutable {
    static let path: String? = sibling("todo")

    /// The product `name` of this build, found beside the test bundle.
    static func sibling(_ name: String) -> String? {
        guard let here = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        var directory = URL(fileURLWithPath: here).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }
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
        let result = try await ChildProcess.run(binary, arguments, environment: environment)
        return Result(status: result.status, stdout: result.stdout, errors: result.errors)
    }
}
