import Foundation

/// The environment variables a command reads: the process's own, each read when asked, or a given set (tests, and
/// an environment changed in place).
///
/// Not `ProcessInfo.processInfo.environment`: that builds a `[String: String]` of every variable, and the standard
/// library's code for that type (the copy the linker keeps was compiled without our metadata flag, Package.swift)
/// makes the runtime look up `String: Hashable` over all 10,000 conformance records of the binary: 0.6 M
/// instructions and the pages of those records in a `todo list +home` of 8 M (docs/BENCHMARKS.md).
public struct ProcessEnvironment: Sendable, ExpressibleByDictionaryLiteral {
    /// The variables given; nil: the process's own.
    private var given: [String: String]?

    /// The process's own variables.
    public static var process: ProcessEnvironment { ProcessEnvironment(given: nil) }

    private init(given: [String: String]?) { self.given = given }

    /// Exactly `variables`, whatever the process has.
    public init(_ variables: [String: String]) { given = variables }

    /// Exactly the variables listed (the last of a name repeated).
    public init(dictionaryLiteral elements: (String, String)...) {
        given = Dictionary(elements, uniquingKeysWith: { $1 })
    }

    /// The value of variable `name`; nil when it is not set. Setting one makes this a given set: the process's
    /// variables as they are, with that change.
    public subscript(name: String) -> String? {
        get {
            if let given { return given[name] }
            return getenv(name).map { String(cString: $0) }
        }
        set {
            var variables = given ?? ProcessInfo.processInfo.environment
            variables[name] = newValue
            given = variables
        }
    }
}
