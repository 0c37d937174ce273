import ArgumentParser
import CloudClient
import CommandLineSupport
import Foundation
import ProcessTuning
import Terminal
import TodoStore

// How the process ends: one inert, plain message on failure and a documented exit code.

extension Todo {
    /// Runs the verb the arguments name; on failure prints one inert, plain message and exits with a documented code.
    static func main() async {
        MemoryTuning.apply()
        // The cloud is its own executable: everything after `server`, `--help` included, is its to read.
        if CommandLine.arguments.dropFirst().first == "server" {
            do {
                try ServerForward.exec(Array(CommandLine.arguments.dropFirst(2)))
            } catch {
                exitForRunError(error)
            }
        }
        // A shell asking for completions (IDs, lists, tags read from the cache): ArgumentParser answers it itself.
        if CommandLine.arguments.dropFirst().first == "---completion" {
            await main(Array(CommandLine.arguments.dropFirst()))
            return
        }
        // `list`, `next`, `export`, `sync` and `import` in their everyday shapes, read without ArgumentParser's
        // start-up cost (`QuickCommandLine`).
        if let quick = QuickCommandLine.read(Array(CommandLine.arguments.dropFirst())) { runToEnd(quick) }
        if let unknown = unknownVerbMessage(Array(CommandLine.arguments.dropFirst())) {
            printError("Error: " + unknown)
            Foundation.exit(TodoExitCode.usage)
        }
        let command: any ParsableCommand
        do {
            command = try parseAsRoot()
            // The terminal app lives long and holds its rows: its own allocator settings (see `applyForApp`).
            if command is Open { MemoryTuning.applyForApp() }
        } catch {
            exitForArgumentError(error)
        }
        do {
            try await run(parsed: command)
        } catch {
            exitForRunError(error)
        }
    }

    /// Runs an everyday verb to its end on the concurrency pool while this thread (the main one) waits, then ends
    /// the process; on failure as `exitForRunError`.
    ///
    /// Awaited here instead, the verb's first suspension would hand the main thread to `dispatchMain`, which ends it
    /// with `pthread_exit`: its forced unwind looks up each frame of the thread in the binary's unwind tables, and
    /// their pages were 0.4-0.5 MiB of a `todo list`'s peak. None of these verbs' code runs on the main actor.
    static func runToEnd(_ quick: QuickCommandLine.Reading) -> Never {
        let finished = DispatchSemaphore(value: 0)
        Task.detached {
            do {
                try await quick.run()
            } catch {
                exitForRunError(error)
            }
            finished.signal()
        }
        finished.wait()
        Foundation.exit(0)
    }

    /// A failure while running a verb.
    static func exitForRunError(_ error: any Error) -> Never {
        exitForArgumentParserOutcome(error)
        if let storage = storageFailure(error) {
            printError("Error: " + sentence(unsavedChangeMessage(storage)))
            Foundation.exit(TodoExitCode.failure)
        }
        printError("Error: " + sentence(plainMessage(for: error)))
        if let ambiguous = error as? AmbiguousTodoName {
            for line in ambiguous.candidateLines { FileHandle.standardError.write(Data((sanitize(line) + "\n").utf8)) }
        }
        Foundation.exit(isOffline(error) ? TodoExitCode.offline : TodoExitCode.failure)
    }
}
