import CloudModel
import Foundation

/// Accounts, devices, sessions, push tokens, assets, discovery and the schema, in memory.
extension MemoryStoreTransaction {
    // MARK: Accounts

    func user(account: String) throws -> UserRow? {
        state.accounts[account].flatMap { state.users[$0]?.row }
    }

    func user(recordName: String) throws -> UserRow? {
        state.users[recordName]?.row
    }

    func insertUser(_ user: UserRow, now: Int64) throws {
        try requireWritable()
        guard state.users[user.userRecordName] == nil, state.accounts[user.account] == nil else {
            throw ServerError(.internalError, "the account '\(user.account)' exists already")
        }
        state.users[user.userRecordName] = MemoryUser(row: user, created: now)
        state.accounts[user.account] = user.userRecordName
    }

    func accounts() throws -> [AccountSummary] {
        state.users.values.sorted { $0.row.account < $1.row.account }.map { user in
            let sessions = state.sessions.values.filter { $0.user == user.row.userRecordName }
            return AccountSummary(
                account: user.row.account, userRecordName: user.row.userRecordName, created: user.created,
                signedInDevices: sessions.count, lastUsed: sessions.map(\.lastUsed).max())
        }
    }

    func passwordHashSamples() throws -> [String] {
        Array(Dictionary(state.users.values.map { (PasswordHasher.costKey($0.row.passwordHash), $0.row.passwordHash) }) { first, _ in first }.values)
    }

    func setPasswordHash(user: String, hash: String) throws {
        try requireWritable()
        state.users[user]?.row.passwordHash = hash
    }

    func deleteUser(_ user: String) throws {
        try requireWritable()
        try deleteSessions(user: user)
        state.pushTokens = state.pushTokens.filter { $0.value.user != user }
        state.devices = state.devices.filter { $0.value.user != user }
        for zone in state.zones.values where zone.database.owner == user { removeZone(zone.pk) }
        state.purgedZones = state.purgedZones.filter { $0.database.owner != user }
        state.zoneChanges = state.zoneChanges.filter { $0.key.owner != user }
        state.databaseHorizons = state.databaseHorizons.filter { $0.key.owner != user }
        state.subscriptions = state.subscriptions.filter { $0.key.owner != user }
        state.assetUploads = state.assetUploads.filter { $0.value.owner != user }
        for (pk, byShare) in state.participants {
            state.participants[pk] = byShare.mapValues { $0.filter { $0.userRecordName != user } }
        }
        for pk in state.shareViews.keys { state.shareViews[pk]?[user] = nil }
        for container in state.discoverable.keys { state.discoverable[container]?.remove(user) }
        if let account = state.users.removeValue(forKey: user)?.row.account { state.accounts[account] = nil }
    }

    func assetIDs(owner: String) throws -> [String] {
        state.assets.values.filter { $0.owner == owner }.map(\.id)
    }

    func deleteAssets(owner: String) throws {
        try requireWritable()
        state.assets = state.assets.filter { $0.value.owner != owner }
    }

    // MARK: Devices and sessions

    func device(user: String, name: String) throws -> String? {
        try deviceID(user: user, name: name)
    }

    func deviceID(user: String, name: String) throws -> String? {
        state.devices.first { $0.value.user == user && $0.value.name == name }?.key
    }

    func insertDevice(id: String, user: String, name: String, now: Int64) throws {
        try requireWritable()
        guard state.devices[id] == nil, try deviceID(user: user, name: name) == nil else {
            throw ServerError(.internalError, "the device '\(name)' exists already")
        }
        state.devices[id] = MemoryDevice(user: user, name: name, created: now)
    }

    func insertSession(digest: String, user: String, deviceID: String, now: Int64) throws {
        try requireWritable()
        // One live session per device: signing in again as it ends the one before, with its push tokens.
        try deleteSessions(deviceID: deviceID)
        state.sessions[digest] = MemorySession(user: user, deviceID: deviceID, created: now, lastUsed: now)
    }

    func session(digest: String) throws -> SessionRow? {
        guard let session = state.sessions[digest], let device = state.devices[session.deviceID] else { return nil }
        return SessionRow(userRecordName: session.user, deviceID: session.deviceID, deviceName: device.name, lastUsed: session.lastUsed)
    }

    func touchSession(digest: String, now: Int64) throws {
        try requireWritable()
        if let used = state.sessions[digest]?.lastUsed { state.sessions[digest]?.lastUsed = max(used, now) }
    }

    func deleteSession(digest: String) throws {
        try requireWritable()
        guard let deviceID = state.sessions[digest]?.deviceID else { return }
        try deleteSessions(deviceID: deviceID)
    }

    func deleteSessions(user: String) throws {
        for deviceID in state.sessions.values.filter({ $0.user == user }).map(\.deviceID) { try deleteSessions(deviceID: deviceID) }
    }

    func deleteIdleSessions(lastUsedBefore: Int64) throws -> Int {
        let idle = state.sessions.values.filter { $0.lastUsed < lastUsedBefore }.map(\.deviceID)
        for deviceID in idle { try deleteSessions(deviceID: deviceID) }
        return idle.count
    }

    func signedInDevices(user: String) throws -> [DeviceRow] {
        state.sessions.values.filter { $0.user == user }.compactMap { session -> DeviceRow? in
            guard let device = state.devices[session.deviceID] else { return nil }
            return DeviceRow(
                name: device.name, deviceID: session.deviceID, created: device.created, signedIn: session.created, lastUsed: session.lastUsed)
        }.sorted { $0.name < $1.name }
    }

    /// Ends a device's session and forgets its push tokens (registered to it, or created by it and never registered).
    func deleteSessions(deviceID: String) throws {
        try requireWritable()
        state.sessions = state.sessions.filter { $0.value.deviceID != deviceID }
        state.pushTokens = state.pushTokens.filter { $0.value.deviceID != deviceID && $0.value.creatorDevice != deviceID }
    }

    // MARK: Push tokens

    func insertPushToken(_ token: String, container: String, creatorDevice: String, now: Int64) throws {
        try requireWritable()
        guard state.pushTokens[token] == nil else { throw ServerError(.internalError, "the push token exists already") }
        state.pushTokens[token] = MemoryPushToken(
            container: container, user: nil, deviceID: nil, created: now, lastUsed: now, creatorDevice: creatorDevice)
        // A device keeps at most a few tokens it has not registered (yet): the newest.
        let unregistered = state.pushTokens.filter { $0.value.creatorDevice == creatorDevice && $0.value.deviceID == nil }
            .sorted { $0.value.created != $1.value.created ? $0.value.created > $1.value.created : $0.key < $1.key }
        for (old, _) in unregistered.dropFirst(SQLiteStoreTransaction.unregisteredTokensPerDevice) { state.pushTokens[old] = nil }
    }

    func pushToken(_ token: String) throws -> PushTokenRow? {
        state.pushTokens[token].map { Self.row(token, $0) }
    }

    private static func row(_ token: String, _ stored: MemoryPushToken) -> PushTokenRow {
        PushTokenRow(token: token, container: stored.container, userRecordName: stored.user, deviceID: stored.deviceID, lastUsed: stored.lastUsed)
    }

    func touchPushToken(_ token: String, now: Int64) throws {
        try requireWritable()
        if let used = state.pushTokens[token]?.lastUsed { state.pushTokens[token]?.lastUsed = max(used, now) }
    }

    func bindPushToken(_ token: String, user: String, deviceID: String) throws {
        try requireWritable()
        // One token per device: a device that registers again replaces its old token, which is forgotten.
        state.pushTokens = state.pushTokens.filter { $0.key == token || $0.value.deviceID != deviceID }
        state.pushTokens[token]?.user = user
        state.pushTokens[token]?.deviceID = deviceID
    }

    func pushTokens(user: String, container: String) throws -> [PushTokenRow] {
        state.pushTokens.filter { $0.value.user == user && $0.value.container == container }.map { Self.row($0.key, $0.value) }
    }

    func evictPushTokens(unregisteredBefore: Int64, unusedBefore: Int64) throws {
        try requireWritable()
        let signedIn = Set(state.sessions.values.map(\.deviceID))
        state.pushTokens = state.pushTokens.filter { _, stored in
            if stored.deviceID == nil && stored.created < unregisteredBefore { return false }
            if stored.lastUsed < unusedBefore { return false }
            // Tokens of devices without a session (ended by the operator's tools, say).
            if let device = stored.deviceID, !signedIn.contains(device) { return false }
            return true
        }
    }

    func allPushTokens() throws -> Set<String> {
        Set(state.pushTokens.keys)
    }

    // MARK: Schema

    func schemaFields(container: String, recordType: String) throws -> [String: SchemaField]? {
        state.schema[container]?[recordType]
    }

    func defineSchemaType(container: String, recordType: String) throws {
        try requireWritable()
        if state.schema[container]?[recordType] == nil { state.schema[container, default: [:]][recordType] = [:] }
    }

    func defineSchemaField(container: String, recordType: String, name: String, type: String) throws {
        try requireWritable()
        // A field already there keeps its type (as SQLite's INSERT OR IGNORE).
        if state.schema[container]?[recordType]?[name] == nil {
            state.schema[container, default: [:]][recordType, default: [:]][name] = SchemaField(type: type)
        }
    }

    func schema(container: String) throws -> [String: [String: SchemaField]] {
        state.schema[container] ?? [:]
    }

    func replaceSchema(container: String, with types: [String: [String: SchemaField]]) throws {
        try requireWritable()
        state.schema[container] = types
    }

    func markSchemaField(container: String, recordType: String, name: String, queryable: Bool?, sortable: Bool?) throws -> Bool {
        try requireWritable()
        guard var field = state.schema[container]?[recordType]?[name] else { return false }
        if let queryable { field.queryable = queryable }
        if let sortable { field.sortable = sortable }
        state.schema[container]?[recordType]?[name] = field
        return true
    }

    // MARK: Assets and discovery

    func insertAssetUpload(ticket: String, container: String, owner: String, now: Int64) throws {
        try requireWritable()
        guard state.assetUploads[ticket] == nil else { throw ServerError(.internalError, "the upload ticket exists already") }
        state.assetUploads[ticket] = MemoryAssetUpload(container: container, owner: owner, created: now)
    }

    func takeAssetUpload(ticket: String, container: String, notBefore: Int64) throws -> String? {
        try requireWritable()
        let upload = state.assetUploads[ticket]
        state.assetUploads = state.assetUploads.filter { $0.key != ticket && $0.value.created >= notBefore }
        guard let upload, upload.container == container, upload.created >= notBefore else { return nil }
        return upload.owner
    }

    func insertAsset(_ asset: AssetRow, now: Int64) throws {
        try requireWritable()
        guard state.assets[asset.id] == nil else { throw ServerError(.internalError, "the asset exists already") }
        state.assets[asset.id] = asset
    }

    func asset(id: String) throws -> AssetRow? {
        state.assets[id]
    }

    func setDiscoverable(container: String, user: String, _ discoverable: Bool) throws {
        try requireWritable()
        if discoverable {
            state.discoverable[container, default: []].insert(user)
        } else {
            state.discoverable[container]?.remove(user)
        }
    }

    func isDiscoverable(container: String, user: String) throws -> Bool {
        state.discoverable[container]?.contains(user) ?? false
    }
}
