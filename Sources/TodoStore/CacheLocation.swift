import Foundation

/// Where caches live: `$XDG_DATA_HOME/cloudtodo/` (else `~/.local/share/cloudtodo/`), or a given data directory.
public enum CacheLocation {
    /// The base data directory for the app.
    public static func dataDirectory(override: URL? = nil, environment: ProcessEnvironment = .process)
        -> URL
    {
        if let override { return override }
        return xdgDirectory("XDG_DATA_HOME", else: ".local/share/cloudtodo", environment: environment)
    }

    /// `cloudtodo` in the XDG base directory `variable` names when it is set, else `homeRelative` in the home directory.
    public static func xdgDirectory(_ variable: String, else homeRelative: String, environment: ProcessEnvironment) -> URL {
        if let xdg = environment[variable], !xdg.isEmpty { return URL(fileURLWithPath: xdg).appendingFilePath("cloudtodo") }
        let home = environment["HOME"].map { URL(fileURLWithPath: $0) } ?? FileManager.default.homeDirectoryForCurrentUser
        return home.appendingFilePath(homeRelative)
    }

    /// The cache file of one account on one device.
    public static func cacheFile(account: String, device: String, dataDirectory: URL) -> URL {
        dataDirectory.appendingFilePath("devices/\(safeName(account))/\(safeName(device)).sqlite")
    }

    /// A name made safe for a file name (no separators, no leading dot).
    public static func safeName(_ name: String) -> String {
        // Every name a device opens with passes through here several times: one of allowed ASCII alone (nearly
        // all) is itself, checked by byte, without building the set of characters and hashing each of its own.
        if !name.isEmpty, !name.hasPrefix("."), name.utf8.allSatisfy(isSafeNameByte) { return name }
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.@+")
        var safe = String(name.map { allowed.contains($0) ? $0 : "_" })
        while safe.hasPrefix(".") { safe = "_" + safe.dropFirst() }
        return safe.isEmpty ? "_" : safe
    }

    /// Whether `byte` is one of the ASCII characters `safeName` keeps.
    private static func isSafeNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "@"), UInt8(ascii: "+"): true
        default: false
        }
    }
}
