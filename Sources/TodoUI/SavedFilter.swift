/// A filter kept under a name (a "context", e.g. `work` for `+work -someday`), read from the config file.
public struct SavedFilter: Hashable, Sendable {
    /// What it is called (untrusted: sanitised when drawn).
    public var name: String
    /// The filter, in the `/` syntax.
    public var text: String

    /// A saved filter.
    public init(name: String, text: String) {
        self.name = name
        self.text = text
    }
}
