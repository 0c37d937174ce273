import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs a terminal program under a pseudo-terminal of its own, as a person's terminal would, and times what it draws.
enum PseudoTerminalRun {
    /// Starts `executable` on a 120×40 xterm pseudo-terminal and answers the seconds from its start until its
    /// output first holds `header` (the first frame) and `row` after it (the first rows drawn); then sends `q` and
    /// waits for it to end (killing it after 5 s).
    static func firstFrame(_ executable: String, _ arguments: [String], header: String, row: String) throws -> (header: Double, row: Double) {
        // posix_openpt and friends are hidden from Swift's Glibc module: their Linux system calls instead.
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlocked: Int32 = 0
        var number: UInt32 = 0
        guard master >= 0, ioctl(master, 0x4004_5431 /* TIOCSPTLCK */, &unlocked) == 0,
            ioctl(master, 0x8004_5430 /* TIOCGPTN */, &number) == 0
        else { throw BenchError("no pseudo-terminal") }
        defer { close(master) }
        let name = "/dev/pts/\(number)"
        var size = winsize(ws_row: 40, ws_col: 120, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        guard let terminal = FileHandle(forUpdatingAtPath: name) else { throw BenchError("cannot open \(name)") }
        let process = Process()
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
        let start = ContinuousClock.now
        try process.run()
        try terminal.close()

        var seen: [UInt8] = []
        var headerAt: Double?
        var rowAt: Double?
        let headerBytes = Array(header.utf8)
        let rowBytes = Array(row.utf8)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let deadline = ContinuousClock.now + .seconds(20)
        while rowAt == nil, ContinuousClock.now < deadline {
            var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let count = read(master, &buffer, buffer.count)
            guard count > 0 else { break }
            seen += buffer[0..<count]
            if headerAt == nil, let found = seen.firstRange(of: headerBytes) {
                headerAt = seconds(since: start)
                seen.removeSubrange(..<found.upperBound)
            }
            if headerAt != nil, seen.firstRange(of: rowBytes) != nil { rowAt = seconds(since: start) }
        }
        _ = "q".withCString { write(master, $0, 1) }
        let quitBy = ContinuousClock.now + .seconds(5)
        while process.isRunning, ContinuousClock.now < quitBy {
            // Keep reading, so the program never blocks writing its last frames.
            var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 20) > 0 { _ = read(master, &buffer, buffer.count) }
        }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        guard let headerAt, let rowAt else { throw BenchError("\(executable) drew no first frame within 20 s") }
        return (headerAt, rowAt)
    }
}
