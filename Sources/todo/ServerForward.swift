import ArgumentParser
import CommandLineSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

// With the `BuildCloudWithApp` trait (the default), SwiftPM links the cloud's libraries into this executable too; the
// static release link then needs FoundationXML's C part, which only an import here asks for.
#if BuildCloudWithApp && canImport(FoundationXML)
import FoundationXML
#endif

/// `todo server …`: the cloud lives in its own executable, `todo-server`, installed beside `todo`. This verb replaces
/// the process with it (same pid, same arguments after `server`), so scripts, `--detach` and signals see one process.
struct ServerForward: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "server",
        abstract: "Run the CloudKit-compatible cloud (started on demand by the app).",
        discussion: "Runs todo-server, installed beside todo; `todo server --help` lists its options.")

    @Argument(parsing: .captureForPassthrough, help: "The cloud's options and verbs (see `todo server --help`).")
    var arguments: [String] = []

    func run() throws {
        try Self.exec(arguments)
    }

    /// The cloud's executable: `todo-server` in the directory of this one.
    static func executable() throws -> String {
        let own = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        return URL(fileURLWithPath: own).deletingLastPathComponent().appendingPathComponent("todo-server").path
    }

    /// Replaces this process with `todo-server ARGUMENTS`; returns only by throwing.
    static func exec(_ arguments: [String]) throws -> Never {
        let path = try executable()
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw DeviceCommandError("the cloud's executable is missing: \(path) (install todo-server beside todo)")
        }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        execv(path, argv)
        let reason = String(cString: strerror(errno))
        throw DeviceCommandError("could not run \(path): \(reason)")
    }
}
