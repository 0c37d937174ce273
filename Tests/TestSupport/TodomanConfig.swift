import Foundation

/// A todoman configuration for a test: its calendars under `calendars` (a glob such as `dir/*`) and its cache in a
/// file of its own. todoman's default cache is one file per user, which tests running side by side would share: one
/// process rebuilding it renumbers the todos another has just listed, and `todo done N` then completes the wrong one.
public enum TodomanConfig {
    /// Writes the configuration to `file` (its cache beside it) and returns `file`.
    @discardableResult
    public static func write(to file: URL, calendars: String, defaultList: String) throws -> URL {
        let cache = file.deletingLastPathComponent().appendingPathComponent(file.deletingPathExtension().lastPathComponent + "-cache.sqlite3")
        let text = """
            path = "\(calendars)"
            cache_path = "\(cache.path)"
            date_format = "%Y-%m-%d"
            time_format = "%H:%M"
            default_list = "\(defaultList)"

            """
        try Data(text.utf8).write(to: file)
        return file
    }
}
