import CloudModel
import Foundation

/// What a signed-in device keeps between runs: the session token and who it stands for.
public struct Credentials: Sendable, Hashable, Codable {
    public var server: String
    public var account: String
    public var deviceName: String
    public var userRecordName: String
    public var deviceID: String
    public var ckWebAuthToken: String

    /// A device's sign-in to an account on a server.
    public init(server: String, account: String, deviceName: String, userRecordName: String, deviceID: String, ckWebAuthToken: String) {
        self.server = server
        self.account = account
        self.deviceName = deviceName
        self.userRecordName = userRecordName
        self.deviceID = deviceID
        self.ckWebAuthToken = ckWebAuthToken
    }

    /// The credentials a session file holds (the JSON `SecretFile.writeJSON` wrote); nil when it is not such a file.
    ///
    /// Read with our own parser: Foundation's JSONDecoder looks up `String: Hashable` over every conformance record
    /// of the binary on its first use (0.6 M instructions of a 10 M `todo list`), and every command reads this file.
    public init?(sessionFile data: Data) {
        guard case .object(let object)? = try? JSONParser.parse(data) else { return nil }
        func text(_ key: String) -> String? {
            guard case .string(let value)? = object[key] else { return nil }
            return value
        }
        guard let server = text("server"), let account = text("account"), let deviceName = text("deviceName"),
            let userRecordName = text("userRecordName"), let deviceID = text("deviceID"), let token = text("ckWebAuthToken")
        else { return nil }
        self.init(
            server: server, account: account, deviceName: deviceName, userRecordName: userRecordName, deviceID: deviceID,
            ckWebAuthToken: token)
    }

    /// The credentials kept in the session file at `url`; nil when it is missing or not such a file.
    public static func read(from url: URL) -> Credentials? {
        SecretFile.read(url).flatMap(Credentials.init(sessionFile:))
    }
}

/// Secret files only their user can read (mode 0600, in a 0700 directory).
public enum SecretFile {
    /// Writes `data` atomically to `url` with mode 0600, creating its directory with mode 0700.
    public static func write(_ data: Data, to url: URL) throws {
        let manager = FileManager.default
        let directory = url.deletingLastPathComponent()
        try manager.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString)")
        guard manager.createFile(atPath: temporary.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary.path])
        }
        do {
            let handle = try FileHandle(forWritingTo: temporary)
            try handle.write(contentsOf: data)
            try handle.synchronize()
            try handle.close()
            try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: temporary.path)
            if rename(temporary.path, url.path) != 0 {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
            }
        } catch {
            try? manager.removeItem(at: temporary)
            throw error
        }
    }

    /// Reads a secret file, nil when it does not exist.
    public static func read(_ url: URL) -> Data? {
        // `path(percentEncoded:)`, not `path`: the property's first use looks up a conformance over the whole binary.
        FileManager.default.contents(atPath: url.path(percentEncoded: false))
    }

    /// Writes a value as JSON, mode 0600.
    public static func writeJSON<T: Encodable>(_ value: T, to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try write(encoder.encode(value), to: url)
    }

    /// Removes a secret file if present.
    public static func remove(_ url: URL) {
        try? FileManager.default.removeItem(at: url)
    }
}
