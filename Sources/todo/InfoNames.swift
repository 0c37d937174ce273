import CloudClient
import CloudModel
import Foundation
import TodoStore
import TodoSync

/// What `todo info` names in the words a person reads: an account by its name (as the cloud gives it at sign-in and
/// on share records), a list by its path, a todo by its ID and title, a device by the name it signed in with.
/// Whatever this device does not know keeps its record name or ID, said as such.
struct InfoNames {
    /// Account names by user record name.
    var accounts: [String: String] = [:]
    /// This account's user record name.
    var me: String?
    /// List titles (paths) by record name, trashed lists included: history may name one.
    var lists: [String: String] = [:]
    /// Todos (ID and title) by record name.
    var todos: [String: (shortID: String, title: String)] = [:]
    /// Device names by device ID (this account's devices, when the cloud was asked).
    var devices: [String: String] = [:]
    /// This device's ID.
    var thisDevice: String?

    /// The names `credentials` and the cached share records give.
    init(credentials: Credentials?, shares: [ShareState]) {
        for share in shares {
            if let owner = share.ownerUserRecordName, let account = share.ownerAccount { accounts[owner] = account }
            for member in share.members where member.account != member.userRecordName { accounts[member.userRecordName] = member.account }
        }
        if let credentials {
            me = credentials.userRecordName
            accounts[credentials.userRecordName] = credentials.account
            thisDevice = credentials.deviceID
        }
    }

    /// A user record name as an account: `alice (you)`, `bob`, or `an account this device does not know (_4f2…)`.
    func person(_ userRecordName: String) -> String {
        guard let account = accounts[userRecordName] else { return "an account this device does not know (\(userRecordName))" }
        return userRecordName == me ? "\(account) (you)" : account
    }

    /// A history entry's device: `this device`, `device phone`, or `device 9C1F…` when its name is not known.
    func device(_ id: String?) -> String {
        guard let id, id != thisDevice else { return "this device" }
        return "device " + (devices[id] ?? id)
    }

    /// A history line (`list: 8F2A…`) with the record names it holds put as a person reads them: the list's path, the
    /// blockers' IDs and titles.
    func change(_ line: String) -> String {
        guard let colon = line.range(of: ": ") else { return line }
        let field = line[..<colon.lowerBound]
        let value = String(line[colon.upperBound...])
        switch field {
        case TodoItem.Field.list where value != "none" && !value.isEmpty:
            return "list: " + (lists[value].map { "'\($0)'" } ?? "a list this device does not hold (\(value))")
        case TodoItem.Field.depends where value != "none" && !value.isEmpty:
            let names = value.components(separatedBy: ", ").map { name in
                todos[name].map { "\($0.shortID) '\($0.title)'" } ?? "\(name) (not on this device)"
            }
            return "depends: " + names.joined(separator: ", ")
        default:
            return line
        }
    }
}
