/// The shape every line of the configuration file must have before the TOML parser reads it.
///
/// The file holds single-line strings in tables, so each line is blank, a comment, a `[table]` header, or
/// `key = value` with a single value. Checking that first keeps untrusted text away from the input the parser under
/// TOMLKit (toml++) asserts on instead of failing (`[[[`, `x = [ } ]` abort the process in a debug build and are
/// undefined behaviour in a release build); everything else — strings, escapes, numbers, duplicate keys — is the
/// parser's to judge.
enum ConfigTextShape {
    /// The first line (1-based) that has no allowed shape, and why; nil when every line has one.
    static func problem(in text: String) -> (line: Int, problem: String)? {
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if let problem = problem(inLine: line.unicodeScalars) { return (index + 1, problem) }
        }
        return nil
    }

    private static let keyStart = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-\"'".unicodeScalars)
    private static let bareKey = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-".unicodeScalars)
    /// How a single value (string, number, boolean, date) can begin.
    private static let valueStart = Set("\"'+-0123456789tfin".unicodeScalars)

    private static func isBlank(_ scalar: Unicode.Scalar) -> Bool { scalar == " " || scalar == "\t" }

    /// Why one line has no allowed shape, nil when it has one.
    static func problem(inLine line: Substring.UnicodeScalarView) -> String? {
        var rest = line.drop(while: isBlank)
        guard let first = rest.first, first != "#", first != "\r" else { return nil }
        if first == "[" {
            rest = rest.dropFirst().drop(while: isBlank)
            if rest.first == "[" { rest = rest.dropFirst().drop(while: isBlank) }
            guard let name = rest.first, keyStart.contains(name) else { return "not valid TOML: a table header without a name" }
            return nil
        }
        guard keyStart.contains(first) else { return "not valid TOML: expected a key, a [table] or a # comment" }
        // The key: bare or quoted segments joined by dots.
        while let scalar = rest.first {
            if bareKey.contains(scalar) || isBlank(scalar) || scalar == "." {
                rest = rest.dropFirst()
            } else if scalar == "\"" || scalar == "'" {
                rest = rest.dropFirst()
                var escaped = false
                while let inner = rest.first {
                    rest = rest.dropFirst()
                    if inner == scalar && !escaped { break }
                    escaped = scalar == "\"" && inner == "\\" && !escaped
                }
            } else {
                break
            }
        }
        guard rest.first == "=" else { return "not valid TOML: expected '=' after the key" }
        rest = rest.dropFirst().drop(while: isBlank)
        guard let value = rest.first else { return "not valid TOML: a key without a value" }
        if value == "[" || value == "{" { return "an array or inline table, where this file holds single values" }
        if rest.starts(with: "\"\"\"".unicodeScalars) || rest.starts(with: "'''".unicodeScalars) {
            return "a multi-line string, where this file holds single lines"
        }
        guard valueStart.contains(value) else { return "not valid TOML: expected a value after '='" }
        return nil
    }
}
