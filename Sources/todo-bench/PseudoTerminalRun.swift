import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A terminal program running under a pseudo-terminal of its own (120×40, xterm), as in a person's terminal: what
/// it writes is read as it comes, keys are written to it.
final class PseudoTerminal {
    let process = Process()
    private let master: Int32
    /// When the program was started.
    let start: ContinuousClock.Instant
    private var buffer = [UInt8](repeating: 0, count: 65_536)

    /// Starts `executable` with `arguments` on a fresh pseudo-terminal.
    init(_ executable: String, _ arguments: [String], width: Int = 120, height: Int = 40) throws {
        // posix_openpt and friends are hidden from Swift's Glibc module: their Linux system calls instead.
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlocked: Int32 = 0
        var number: UInt32 = 0
        guard master >= 0, ioctl(master, 0x4004_5431 /* TIOCSPTLCK */, &unlocked) == 0,
            ioctl(master, 0x8004_5430 /* TIOCGPTN */, &number) == 0
        else { throw BenchError("no pseudo-terminal") }
        let name = "/dev/pts/\(number)"
        var size = winsize(ws_row: UInt16(height), ws_col: UInt16(width), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        guard let terminal = FileHandle(forUpdatingAtPath: name) else {
            close(master)
            throw BenchError("cannot open \(name)")
        }
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["TERM"] = "xterm-256color"
        environment["LANG"] = "C.UTF-8"
        environment["LC_ALL"] = "C.UTF-8"
        process.environment = environment
        process.standardInput = terminal
        process.standardOutput = terminal
        process.standardError = FileHandle.nullDevice
        start = ContinuousClock.now
        try process.run()
        try terminal.close()
    }

    deinit { close(master) }

    /// What the program wrote, waiting up to `milliseconds` for the first of it; empty when nothing came, nil once
    /// the terminal is closed.
    func read(waiting milliseconds: Int32) -> ArraySlice<UInt8>? {
        var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, milliseconds) > 0 else { return [] }
        let count = Glibc.read(master, &buffer, buffer.count)
        return count > 0 ? buffer[0..<count] : nil
    }

    /// Writes `bytes` as typed keys.
    func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBufferPointer { write(master, $0.baseAddress, $0.count) }
    }

    /// Sends `q` and waits for the program to end (killing it after 5 s), reading on so it never blocks writing.
    func quit() {
        send(Array("q".utf8))
        let quitBy = ContinuousClock.now + .seconds(5)
        while process.isRunning, ContinuousClock.now < quitBy {
            if read(waiting: 20) == nil { break }
        }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

/// Runs a terminal program under a pseudo-terminal of its own, as a person's terminal would, and times what it draws.
enum PseudoTerminalRun {
    /// Starts `executable` on a 120×40 xterm pseudo-terminal and answers the seconds from its start until its
    /// output first holds `header` (the first frame) and `row` after it (the first rows drawn); then sends `q` and
    /// waits for it to end (killing it after 5 s).
    static func firstFrame(_ executable: String, _ arguments: [String], header: String, row: String) throws -> (header: Double, row: Double) {
        let terminal = try PseudoTerminal(executable, arguments)
        var seen: [UInt8] = []
        var headerAt: Double?
        var rowAt: Double?
        let headerBytes = Array(header.utf8)
        let rowBytes = Array(row.utf8)
        let deadline = ContinuousClock.now + .seconds(20)
        while rowAt == nil, ContinuousClock.now < deadline {
            guard let bytes = terminal.read(waiting: 100) else { break }
            seen += bytes
            if headerAt == nil, let found = seen.firstRange(of: headerBytes) {
                headerAt = seconds(since: terminal.start)
                seen.removeSubrange(..<found.upperBound)
            }
            if headerAt != nil, seen.firstRange(of: rowBytes) != nil { rowAt = seconds(since: terminal.start) }
        }
        terminal.quit()
        guard let headerAt, let rowAt else { throw BenchError("\(executable) drew no first frame within 20 s") }
        return (headerAt, rowAt)
    }
}
