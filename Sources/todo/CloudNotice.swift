import CloudClient
import CommandLineSupport
import Foundation
import TodoApp
import TodoStore
import TodoSync

// One cloud unless you say otherwise: the cloud the command line used last (without --server) is remembered in the
// configuration directory, and a command that would use another one says so, and how to go back, before it does
// anything (docs/USAGE.md, "Which cloud").

/// The cloud a command line of this machine used last, without `--server`.
struct LastCloud: Equatable {
    /// The cloud's URL.
    var server: URL
    /// The account used there.
    var account: String
    /// Whether it was the embedded local cloud (reached with nothing saved), not a saved login.
    var embedded: Bool

    /// Where it is kept: `last-cloud` in the configuration directory.
    static func file(_ options: DeviceOptions) -> URL { options.resolvedConfigDirectory.appendingFilePath("last-cloud") }

    /// The bytes kept for this configuration directory; nil when none can be read, or more than any this program writes.
    static func keptBytes(_ options: DeviceOptions) -> Data? {
        guard let data = FileManager.default.contents(atPath: file(options).filePath), data.count <= 4096 else { return nil }
        return data
    }

    /// The one `data` (the kept file's bytes) names; nil when it is not a file this program wrote.
    init?(kept data: Data) {
        var fields: [String: String] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            fields[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        guard let text = fields["server"], let server = URL(string: text), CloudOrigin(server) != nil,
            let account = fields["account"], !account.isEmpty, !account.contains(where: \.isNewline)
        else { return nil }
        self.init(server: server, account: account, embedded: fields["kind"] == "embedded")
    }

    /// What `remember` writes.
    var text: String { "server=\(server.absoluteString)\naccount=\(account)\nkind=\(embedded ? "embedded" : "login")\n" }

    /// Keeps this as the cloud used last (best effort: a read-only directory only loses the notice).
    func remember(_ options: DeviceOptions) {
        try? FileManager.default.createDirectory(at: options.resolvedConfigDirectory, withIntermediateDirectories: true)
        try? Data(text.utf8).write(to: LastCloud.file(options), options: .atomic)
    }

    /// Whether it is the same cloud as `other` (the account may differ: that is said with --account).
    func sameCloud(as other: LastCloud) -> Bool { CloudOrigin(server) == CloudOrigin(other.server) && embedded == other.embedded }

    /// The cloud a launch uses; nil when `--server` named it (the command line said which).
    init?(_ launch: DeviceLaunch) {
        switch launch.source {
        case .flags: return nil
        case .embedded: self.init(server: launch.options.server, account: launch.options.account, embedded: true)
        case .savedLogin: self.init(server: launch.options.server, account: launch.options.account, embedded: false)
        }
    }

    init(server: URL, account: String, embedded: Bool) {
        self.server = server
        self.account = account
        self.embedded = embedded
    }

    /// Words for the cloud in a notice.
    var words: String {
        embedded
            ? "the embedded cloud on this machine (\(server.absoluteString)) as '\(account)'"
            : "\(server.absoluteString) as '\(account)' (the saved login)"
    }

    /// The command that makes this the cloud again.
    var goBack: String {
        embedded ? "todo logout" : DeviceOpening.loginCommand(server: server, account: account)
    }
}

/// Says, on standard error, which cloud a command uses when it differs from the one used last, and how to go back;
/// then remembers it. Nothing is said the first time, nor when `--server` names the cloud.
func announceCloud(_ launch: DeviceLaunch) {
    guard let now = LastCloud(launch) else { return }
    let options = launch.options
    let kept = LastCloud.keptBytes(options)
    // The same cloud as last time, said byte for byte: nothing to say or write, and no address parsed (reading the
    // kept one's host went through Foundation's IDNA, which loaded 1 MB of ICU's data into a `todo list`).
    if let kept, kept.elementsEqual(now.text.utf8) { return }
    let last = kept.flatMap(LastCloud.init(kept:))
    if let last, !now.sameCloud(as: last) {
        printError("Using \(now.words), not \(last.words) as last time; to go back: \(last.goBack)")
    }
    // Written only when it changes: every command wrote and synced the file again (an fsync and a rename, 3 % of
    // the time of `todo list +home` over 1,000 todos).
    if last != now { now.remember(options) }
}

/// Tells the zero set-up's own doings (the embedded cloud started, an account created) on standard error.
let announceOnStandardError: LocalCloudBootstrap.Announce = { words in printError(words) }
