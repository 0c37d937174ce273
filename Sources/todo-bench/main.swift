import CloudServer
import Foundation
import Logging

// `todo-bench <suite>`: benchmarks that print figures. Run with `swift run -c release todo-bench server`.
let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "_server":
        // Child mode: run the cloud on the given port and directory until terminated.
        try await CloudServer.run(
            ServerConfiguration(
                port: Int(arguments[1]) ?? 8787, dataDirectory: URL(fileURLWithPath: arguments[2]), openRegistration: true,
                rateLimitPerSecond: nil,
                logLevel: ProcessInfo.processInfo.environment["BENCH_SERVER_LOG"] == nil ? .error : .info))
    case "_ui-frame":
        try await UIBench.frame(server: arguments[1], directory: arguments[2], account: arguments[3], count: Int(arguments[4]) ?? 0)
    case "ui":
        try await UIBench.run()
    case "share":
        try await ShareBench.run()
    case "server":
        try ServerBench.run(records: arguments.dropFirst().first.flatMap(Int.init) ?? 100_000)
    default:
        print("usage: todo-bench server [RECORDS] | ui | share")
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("benchmark failed: \(error)\n".utf8))
    exit(1)
}
