import Foundation
import Testing
import TodoStore
import TodoSync

@testable import TodoApp

/// The command the embedded cloud's start names to stop it: under a device's `--data-dir` the cloud keeps its data in
/// that directory's `server`, and `todo server stop` without it looked elsewhere ("nothing to stop").
@Suite("The embedded cloud's stop command")
struct StopCommandTests {
    @Test func theDefaultDirectoryNeedsNoOption() {
        let options = DeviceOptions(account: "kim", server: URL(string: "http://127.0.0.1:8787")!, environment: [:])
        #expect(LocalCloudBootstrap.stopCommand(options) == "todo server stop")
    }

    @Test func aDataDirectoryIsNamedWithItsServerFolder() {
        let options = DeviceOptions(
            account: "kim", server: URL(string: "http://127.0.0.1:8787")!, dataDirectory: URL(fileURLWithPath: "/tmp/todo-data"), environment: [:])
        #expect(LocalCloudBootstrap.stopCommand(options) == "todo server stop --data-dir /tmp/todo-data/server")
    }

    /// Each word (as the login command quotes its words too) read back by a real shell is the text it was made from.
    @Test(arguments: ["/tmp/plain/server", "/tmp/a b/server", "/tmp/it's/server", "/tmp/$HOME`x`/server", "/tmp/*?[]/server", "/tmp/é\\n/server", ""])
    func aShellReadsTheWordBackUnchanged(_ text: String) throws {
        let word = DeviceOpening.shellWord(text)
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", "printf '%s' " + word]
        let output = Pipe()
        shell.standardOutput = output
        try shell.run()
        let read = output.fileHandleForReading.readDataToEndOfFile()
        shell.waitUntilExit()
        #expect(String(decoding: read, as: UTF8.self) == text, "\(word)")
    }
}
