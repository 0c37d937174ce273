import ArgumentParser
import Testing
import TestSupport
@testable import todo

/// The conformance suite of `QuickCommandLine`: every command line it reads, ArgumentParser reads into the same
/// request (the same device options, flags, values and words in the same order), and the everyday shapes are read
/// by it at all. Lines it leaves alone go to ArgumentParser, so those need no agreement.
@Suite("Quick command-line reading")
struct QuickCommandLineTests {
    /// What ArgumentParser makes of `words` as `todo` parses them, as a reading; nil when it refuses them or they
    /// name another verb.
    static func fullReading(_ words: [String]) -> QuickCommandLine.Reading? {
        guard let command = try? Todo.parseAsRoot(words) else { return nil }
        switch command {
        case let list as List: return .list(list.request)
        case let next as Next: return .next(next.request)
        case let export as Export: return .export(export.request)
        case let sync as Sync: return .sync(sync.request)
        case let importing as Import: return .importing(importing.request)
        default: return nil
        }
    }

    /// Checks one line: read quickly, it must be what ArgumentParser reads.
    @discardableResult
    static func check(_ words: [String]) -> Bool {
        guard let quick = QuickCommandLine.read(words) else { return false }
        #expect(quick == fullReading(words), "\(words)")
        return true
    }

    @Test(arguments: [
        ["list", "+home", "--offline"], ["list"], ["list", "due.before:eow", "--offline"], ["list", "--json", "--all"],
        ["list", "--sort", "title", "+garden", "pri:2+"], ["list", "--sort=next", "--shared"], ["list", "--public", "--offline"],
        ["list", "+home", "--offline", "--data-dir", "/tmp/x", "--account", "alice"], ["list", "--device=phone", "is:done"],
        ["list", "--server", "https://todo.example.org", "--ca-file", "/etc/ca.pem", "milk"], ["list", "--password", "pw", "list:Home"],
        ["next"], ["next", "--offline"], ["next", "--limit", "3", "+work"], ["next", "--limit=0", "--json"],
        ["export"], ["export", "--offline", "--format", "taskwarrior"], ["export", "--format=ics", "-o", "/tmp/out.ics"],
        ["export", "--format", "json", "--output", "/tmp/a.json", "+home"], ["export", "--vdir", "/tmp/vdir", "--format", "ics"],
        ["sync"], ["sync", "--data-dir", "/tmp/d", "--account", "alice"], ["sync", "--server=http://127.0.0.1:8787", "--device", "phone"],
        ["import", "todos.json"], ["import", "/tmp/t.json", "--quiet", "--no-send"], ["import", "-q", "tasks.json", "--format", "taskwarrior"],
        ["import", "--format=ics", "/tmp/vdir", "--data-dir", "/tmp/d"],
    ])
    func everydayShapesAreReadAsArgumentParserReadsThem(_ words: [String]) {
        #expect(Self.check(words), "not read quickly: \(words)")
    }

    @Test(arguments: [
        ["list", "--help"], ["list", "-h"], ["list", "-home"], ["list", "--", "+home"], ["list", "help"], ["list", ""],
        ["list", "--json", "--json"], ["list", "--sort"], ["list", "--sort", "--json"], ["list", "--sort", "sideways"],
        ["list", "--jsn"], ["list", "--offline=yes"], ["list", "--account="], ["list", "--server", "ftp://x"],
        ["list", "--account", "a", "--account", "b"], ["next", "--limit", "-1"], ["next", "--limit", "many"], ["next", "--limit=-1"],
        ["export", "--format", "xml"], ["export", "--vdir", "/tmp/v", "--format", "taskwarrior"], ["export", "--vdir", "/v", "-o", "/o"],
        ["export", "-o"], ["export", "-o=/tmp/x"], ["export", "-x"], ["list", "is:nonsense"], ["list", "due.before:boom"],
        ["--offline", "list"], ["lsit", "+home"], ["add", "milk"], [],
        ["sync", "now"], ["sync", "--offline"], ["sync", "--help"], ["import"], ["import", "a.json", "b.json"], ["import", "-"],
        ["import", "--format", "csv", "a.csv"], ["import", "a.json", "--quiet", "-q"], ["import", "--", "-odd.json"], ["import", "help"],
    ])
    func otherShapesAndMistakesAreLeftToArgumentParser(_ words: [String]) {
        #expect(QuickCommandLine.read(words) == nil, "\(words)")
    }

    /// Seeded random lines of the verbs' own words, values, filter terms and mistakes: whatever is read quickly must
    /// be read so by ArgumentParser too, and a good share of them are.
    @Test func randomLinesAgreeWithArgumentParser() {
        let vocabulary: [[String]] = [
            ["--offline"], ["--json"], ["--all"], ["--public"], ["--shared"], ["--sort", "due"], ["--sort=priority"], ["--sort", "bogus"],
            ["--limit", "7"], ["--limit=+2"], ["--limit", "x"], ["--format", "ics"], ["--format=taskwarrior"], ["--format", "csv"],
            ["-o", "/tmp/o"], ["--output=/tmp/p"], ["--vdir", "/tmp/v"], ["--account", "bob"], ["--account=al=ice"], ["--device", "laptop"],
            ["--server", "http://127.0.0.1:9"], ["--server=https://h.example"], ["--server", "nope"], ["--ca-file", "ca.pem"],
            ["--data-dir", "rel/dir"], ["--password", "p w"], ["+home"], ["-home"], ["garden"], ["two words"], ["due:today"],
            ["due.before:eow"], ["pri:1-"], ["is:waiting"], ["list:Home.Garden"], ["wait.after:tomorrow"], ["--"], ["-"], ["help"],
            ["--nope"], ["=x"], ["é"], ["--json=1"], ["--account"], ["--sort=next"], ["--quiet"], ["-q"], ["--no-send"],
            ["todos.json"], ["--format=json"],
        ]
        var random = SplitMix(seed: 30)
        var read = 0
        for _ in 0..<1_500 {
            var words = [["list", "next", "export", "sync", "import"].randomElement(using: &random)!]
            for _ in 0..<Int.random(in: 0...5, using: &random) { words += vocabulary.randomElement(using: &random)! }
            if Self.check(words) { read += 1 }
        }
        print("QuickCommandLineTests: \(read) of 1,500 random lines read quickly, each as ArgumentParser reads it")
        #expect(read > 300, "only \(read) of 1,500 lines were read quickly")
    }
}
