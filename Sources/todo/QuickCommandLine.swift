import ArgumentParser
import TodoPlanning

/// The everyday verbs' command lines (`todo list`, `next`, `export`, `sync`, `import`) read without ArgumentParser.
///
/// ArgumentParser's first parse of a process reflects the verb's properties and looks up their conformances over
/// the whole binary: measured over 1,000 todos it is 44 % of `todo list +home --offline`'s instructions
/// (docs/BENCHMARKS.md). These verbs run from scripts, prompts and status bars many times a minute, so their common
/// shapes are read here: the verb first, then its known long options (`--name value` or `--name=value`, each at most
/// once), its flags (at most once) and its words (filter terms; `import`'s one file; none for `sync`), in any order.
/// Anything else (help, a short option but `export -o` and `import -q`, a `-tag` filter word, `--`, a value or file
/// that starts with a dash, a mistake) is left to ArgumentParser,
/// which stays the one authority on what a command line means: `QuickCommandLineTests` checks that every line read
/// here is read by ArgumentParser into the same request.
enum QuickCommandLine {
    /// A command line read: the verb and what it asks.
    enum Reading: Equatable, Sendable {
        case list(ListRequest)
        case next(NextRequest)
        case export(ExportRequest)
        case sync(SyncRequest)
        case importing(ImportRequest)

        /// Runs the verb.
        func run() async throws {
            switch self {
            case .list(let request): try await request.run()
            case .next(let request): try await request.run()
            case .export(let request): try await request.run()
            case .sync(let request): try await request.run()
            case .importing(let request): try await request.run()
            }
        }

        /// Refuses what ArgumentParser's validation would refuse.
        func validate() throws {
            switch self {
            case .list(let request): try request.device.validate(); try request.validate()
            case .next(let request): try request.device.validate(); try request.validate()
            case .export(let request): try request.device.validate(); try request.validate()
            case .sync(let request): try request.device.validate()
            case .importing(let request): try request.device.validate()
            }
        }
    }

    /// The request `words` (the arguments after the program's name) make, validated as ArgumentParser validates it;
    /// nil when they are of a shape left to ArgumentParser or it would refuse them.
    static func read(_ words: [String]) -> Reading? {
        guard let verb = words.first, let shape = shapes[verb], let given = options(words.dropFirst(), shape) else { return nil }
        // Anything thrown (a value its type cannot read, a line validation refuses) leaves the line to ArgumentParser.
        return try? validatedReading(verb, given)
    }

    /// The validated request of `verb` with what its line gives.
    private static func validatedReading(_ verb: String, _ given: Given) throws -> Reading {
        let device = DeviceFlags(
            account: given.text("--account"), device: given.text("--device"), server: given.text("--server"),
            caFile: given.text("--ca-file"), dataDir: given.text("--data-dir"), password: given.text("--password"))
        let reading: Reading
        switch verb {
        case "list":
            reading = .list(
                ListRequest(
                    device: device, json: given.flags.contains("--json"), all: given.flags.contains("--all"),
                    publicBoard: given.flags.contains("--public"), shared: given.flags.contains("--shared"),
                    offline: given.flags.contains("--offline"), sort: given.text("--sort"), filter: given.words))
        case "next":
            reading = .next(
                NextRequest(
                    device: device, json: given.flags.contains("--json"), limit: try given.value("--limit", Int.init) ?? NextRequest().limit,
                    offline: given.flags.contains("--offline"), filter: given.words))
        case "sync":
            guard given.words.isEmpty else { throw LeftToArgumentParser() }
            reading = .sync(SyncRequest(device: device))
        case "import":
            guard given.words.count == 1, let file = given.words.first else { throw LeftToArgumentParser() }
            reading = .importing(
                ImportRequest(
                    device: device, file: file, format: try given.value("--format", InterchangeFormat.init(name:)),
                    quiet: given.flags.contains("--quiet"), noSend: given.flags.contains("--no-send")))
        default:
            reading = .export(
                ExportRequest(
                    device: device, format: try given.value("--format", InterchangeFormat.init(name:)) ?? ExportRequest().format,
                    output: given.text("--output"), vdir: given.text("--vdir"), offline: given.flags.contains("--offline"),
                    filter: given.words))
        }
        try reading.validate()
        return reading
    }

    /// A line of a shape `validatedReading` does not take.
    struct LeftToArgumentParser: Error {}

    /// The long options that take a value and the flags of a verb, beside the device options every verb takes.
    ///
    /// Arrays of a few names, not sets: the standard library's own `Set<String>` and `[String: String]` code makes
    /// the runtime look up `String: Hashable` over all 10,000 conformance records of the binary (0.6 M instructions,
    /// 6 % of a `todo list +home` over 1,000 todos), and the other everyday code paths need no such look-up.
    struct Shape {
        var options: [String]
        var flags: [String]
        /// Short names read as a long name (`-o` for `--output`, `-q` for `--quiet`), only as a word of their own.
        var short: [String: String] = [:]
    }

    /// The verbs read here.
    static let shapes: [String: Shape] = [
        "list": Shape(options: ["--sort"], flags: ["--json", "--all", "--public", "--shared", "--offline"]),
        "next": Shape(options: ["--limit"], flags: ["--json", "--offline"]),
        "export": Shape(options: ["--format", "--output", "--vdir"], flags: ["--offline"], short: ["-o": "--output"]),
        "sync": Shape(options: [], flags: []),
        "import": Shape(options: ["--format"], flags: ["--quiet", "--no-send"], short: ["-q": "--quiet"]),
    ]

    /// The options every device verb takes (`DeviceOptionGroup`).
    static let deviceOptions = ["--account", "--device", "--server", "--ca-file", "--data-dir", "--password"]

    /// What a command line gives: option values by long name, the flags, the other words in order.
    struct Given {
        /// Option values in the order given (each name at most once).
        var values: [(name: String, text: String)] = []
        var flags: [String] = []
        var words: [String] = []

        /// The text given for option `name`; nil when the line does not give it.
        func text(_ name: String) -> String? { values.first { $0.name == name }?.text }

        /// The value of option `name` as `read` makes it; nil when the line does not give it, `LeftToArgumentParser`
        /// when it cannot be read so.
        func value<T>(_ name: String, _ read: (String) -> T?) throws -> T? {
            guard let text = text(name) else { return nil }
            guard let value = read(text) else { throw LeftToArgumentParser() }
            return value
        }
    }

    /// `words` read against `shape`; nil at the first word of a shape left to ArgumentParser.
    static func options(_ words: ArraySlice<String>, _ shape: Shape) -> Given? {
        var given = Given()
        var index = words.startIndex
        while index < words.endIndex {
            let word = words[index]
            index += 1
            guard word.hasPrefix("-") else {
                // A word ArgumentParser could read otherwise (nothing, `help`) is left to it.
                guard !word.isEmpty, word != "help" else { return nil }
                given.words.append(word)
                continue
            }
            var name = word
            var value: String?
            if let long = shape.short[word] {
                name = long
            } else if word.hasPrefix("--"), let equals = word.firstIndex(of: "=") {
                name = String(word[..<equals])
                value = String(word[word.index(after: equals)...])
            }
            if shape.flags.contains(name) {
                guard value == nil, !given.flags.contains(name) else { return nil }
                given.flags.append(name)
            } else if shape.options.contains(name) || deviceOptions.contains(name) {
                if value == nil {
                    guard index < words.endIndex else { return nil }
                    value = words[index]
                    index += 1
                }
                guard let value, !value.hasPrefix("-"), given.text(name) == nil else { return nil }
                given.values.append((name, value))
            } else {
                return nil
            }
        }
        return given
    }
}
