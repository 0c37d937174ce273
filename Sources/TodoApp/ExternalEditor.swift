import Foundation

/// Edits text in the person's editor (`$VISUAL`, else `$EDITOR`, else `vi`), as `git commit` and `task edit` do: the
/// text goes to a private temporary file, the editor runs on it in the terminal, and what it saved comes back.
public enum ExternalEditor {
    /// The largest text read back, in bytes (notes are a few paragraphs; a mistake should not become a megabyte field).
    public static let maximumSize = 64 * 1024

    /// Why an edit did not come back.
    public struct Failure: Error, CustomStringConvertible, Equatable {
        /// What went wrong, in words.
        public var description: String

        /// A failure described in words.
        public init(description: String) { self.description = description }
    }

    /// The editor command of an environment: `$VISUAL`, else `$EDITOR`, else `vi`.
    public static func command(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        for name in ["VISUAL", "EDITOR"] {
            if let value = environment[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty { return value }
        }
        return "vi"
    }

    /// `text` as the editor left it (one final newline dropped, as editors add one); throws when the editor failed,
    /// or left text that is too large or not UTF-8. Runs the command through `/bin/sh`, so `EDITOR="code --wait"`
    /// works; the file is 0600 in a 0700 directory, removed afterwards.
    public static func edit(_ text: String, command: String = command()) throws(Failure) -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cloudtodo-notes-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("notes.txt")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            // Lines end in a newline, as editors write them; empty notes are an empty file.
            try Data((text.isEmpty ? "" : text + "\n").utf8).write(to: file)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        } catch {
            throw Failure(description: "cannot write the notes to edit: \(error.localizedDescription)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // The command is the person's own setting; the file name is passed as an argument, never pasted into it.
        process.arguments = ["-c", command + " \"$1\"", "sh", file.path]
        do {
            try process.run()
        } catch {
            throw Failure(description: "cannot start the editor '\(command)': \(error.localizedDescription)")
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "the editor '\(command)' exited with status \(process.terminationStatus); the notes were not changed")
        }
        guard let data = try? Data(contentsOf: file) else { throw Failure(description: "the edited notes cannot be read back") }
        guard data.count <= maximumSize else { throw Failure(description: "the notes are larger than 64 KB; they were not changed") }
        guard var edited = String(validating: data, as: UTF8.self) else {
            throw Failure(description: "the notes are not UTF-8 text; they were not changed")
        }
        if edited.hasSuffix("\n") { edited.removeLast() }
        return edited
    }
}
