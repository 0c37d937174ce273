import ArgumentParser
import Foundation

// The words of a command line `todo` does not understand: an unknown verb, an unknown option among filter words.
// Each is refused with its name and, when one is close, the word meant (exit code 2).

/// The closest of `candidates` to `word` when it is a likely typing slip (at most two edits, fewer than half the word).
func closest(to word: String, in candidates: [String]) -> String? {
    let scored = candidates.map { ($0, editDistance(word.lowercased(), $0)) }.filter { $0.1 <= min(2, max(1, word.count / 2)) }
    return scored.min { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }?.0
}

/// The fewest insertions, deletions, substitutions and swaps of neighbours that turn `a` into `b`.
func editDistance(_ a: String, _ b: String) -> Int {
    let x = Array(a)
    let y = Array(b)
    guard !x.isEmpty else { return y.count }
    guard !y.isEmpty else { return x.count }
    var rows = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
    for i in 0...x.count { rows[i][0] = i }
    for j in 0...y.count { rows[0][j] = j }
    for i in 1...x.count {
        for j in 1...y.count {
            let cost = x[i - 1] == y[j - 1] ? 0 : 1
            var best = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
            if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] { best = min(best, rows[i - 2][j - 2] + 1) }
            rows[i][j] = best
        }
    }
    return rows[x.count][y.count]
}

/// Refuses a word among a verb's free words (filter terms) that is an option: `--` and a name. A single dash stays a
/// filter term (`-garden`: not tagged garden).
func refuseUnknownOptions(in words: [String], of command: any ParsableCommand.Type) throws {
    guard let option = words.first(where: { $0.hasPrefix("--") && $0.count > 2 }) else { return }
    let name = String(option.split(separator: "=", maxSplits: 1).first ?? Substring(option))
    let known = longOptionNames(of: command)
    let hint = closest(to: name, in: known).map { "; did you mean '\($0)'?" } ?? " (see todo \(command._commandName) --help)"
    throw ValidationError("unknown option '\(name)'\(hint)")
}

/// The long option names (`--json`) a verb accepts, from ArgumentParser's own description of it.
func longOptionNames(of command: any ParsableCommand.Type) -> [String] {
    let usage = command.helpMessage(columns: 200)
    var names: Set<String> = ["--help"]
    for token in usage.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\n" || $0 == "[" || $0 == "]" || $0 == "<" }) {
        guard token.hasPrefix("--"), token.count > 2 else { continue }
        names.insert(String(token.prefix { $0 == "-" || $0.isLetter || $0.isNumber }))
    }
    return names.sorted()
}

/// The verbs `todo` knows, with `help`.
func verbNames() -> [String] {
    Todo.configuration.subcommands.map { $0._commandName } + ["help"]
}

/// When the first word of a command line is meant as a verb but is none (`todo lsit`), the words that say so;
/// nil when it is a verb, an option, or nothing.
func unknownVerbMessage(_ arguments: [String]) -> String? {
    guard let first = arguments.first, !first.hasPrefix("-"), !verbNames().contains(first) else { return nil }
    let hint = closest(to: first, in: verbNames()).map { "; did you mean '\($0)'?" } ?? " (todo --help lists the commands)"
    return "unknown command '\(first)'\(hint)"
}
