import CloudModel
import Foundation
import PostgresNIO

/// Accounts, devices, sessions, push tokens, assets, discovery and the schema of record types, in PostgreSQL.
extension PostgresStoreTransaction {
    // MARK: Accounts

    func user(account: String) async throws -> UserRow? {
        try await first("SELECT user_record_name, account, password_hash FROM users WHERE account = \(account)", Self.userRow)
    }

    func user(recordName: String) async throws -> UserRow? {
        try await first("SELECT user_record_name, account, password_hash FROM users WHERE user_record_name = \(recordName)", Self.userRow)
    }

    private static func userRow(_ row: PostgresRow) throws -> UserRow {
        let (name, account, hash) = try row.decode((String, String, String).self)
        return UserRow(userRecordName: name, account: account, passwordHash: hash)
    }

    func insertUser(_ user: UserRow, now: Int64) async throws {
        try await run("INSERT INTO users VALUES (\(user.userRecordName), \(user.account), \(user.passwordHash), \(now))")
    }

    func accounts() async throws -> [AccountSummary] {
        try await all(
            """
            SELECT u.account, u.user_record_name, u.created_at,
                (SELECT COUNT(*) FROM sessions s WHERE s.user_record_name = u.user_record_name),
                (SELECT MAX(s.last_used_at) FROM sessions s WHERE s.user_record_name = u.user_record_name)
            FROM users u ORDER BY u.account
            """
        ) {
            let (account, name, created, devices, lastUsed) = try $0.decode((String, String, Int64, Int64, Int64?).self)
            return AccountSummary(account: account, userRecordName: name, created: created, signedInDevices: Int(devices), lastUsed: lastUsed)
        }
    }

    func passwordHashSamples() async throws -> [String] {
        // The cost is the field after `$y$`: one scan of the accounts, at start.
        try await all("SELECT MIN(password_hash) FROM users GROUP BY substring(password_hash FROM '[$]y[$]([^$]*)[$]')") {
            try $0.decode(String.self)
        }
    }

    func setPasswordHash(user: String, hash: String) async throws {
        try await run("UPDATE users SET password_hash = \(hash) WHERE user_record_name = \(user)")
    }

    func deleteUser(_ user: String) async throws {
        try await flushZoneChanges()
        try await deleteSessions(user: user)
        try await run("DELETE FROM push_tokens WHERE user_record_name = \(user)")
        try await run("DELETE FROM devices WHERE user_record_name = \(user)")
        // Zones cascade to their shares, share views and root exits; their records are deleted with them.
        try await run(
            "WITH gone AS (DELETE FROM zones WHERE owner = \(user) RETURNING pk) DELETE FROM records WHERE zone_pk IN (SELECT pk FROM gone)")
        for table in ["purged_zones", "zone_changes", "databases", "subscriptions", "asset_uploads"] {
            try await run("DELETE FROM \(unescaped: table) WHERE owner = \(user)")
        }
        for table in ["share_participants", "share_views", "discoverable_users"] {
            try await run("DELETE FROM \(unescaped: table) WHERE user_record_name = \(user)")
        }
        try await run("DELETE FROM users WHERE user_record_name = \(user)")
    }

    func assetIDs(owner: String) async throws -> [String] {
        try await all("SELECT id FROM assets WHERE owner = \(owner)") { try $0.decode(String.self) }
    }

    func deleteAssets(owner: String) async throws {
        try await run("DELETE FROM assets WHERE owner = \(owner)")
    }

    // MARK: Devices and sessions

    func device(user: String, name: String) async throws -> String? {
        try await deviceID(user: user, name: name)
    }

    func deviceID(user: String, name: String) async throws -> String? {
        try await first("SELECT device_id FROM devices WHERE user_record_name = \(user) AND name = \(name)") { try $0.decode(String.self) }
    }

    func insertDevice(id: String, user: String, name: String, now: Int64) async throws {
        try await run("INSERT INTO devices VALUES (\(id), \(user), \(name), \(now))")
    }

    func insertSession(digest: String, user: String, deviceID: String, now: Int64) async throws {
        // One live session per device: signing in again as it ends the one before, with its push tokens.
        try await deleteSessions(deviceID: deviceID)
        try await run(
            """
            INSERT INTO sessions(token_digest, user_record_name, device_id, created_at, last_used_at)
            VALUES (\(digest), \(user), \(deviceID), \(now), \(now))
            """)
    }

    func session(digest: String) async throws -> SessionRow? {
        for try await session in try await connection.execute(SessionStatement(digest: digest), logger: logger) { return session }
        return nil
    }

    func touchSession(digest: String, now: Int64) async throws {
        try await run("UPDATE sessions SET last_used_at = GREATEST(last_used_at, \(now)) WHERE token_digest = \(digest)")
    }

    func deleteSession(digest: String) async throws {
        guard let deviceID = try await first("SELECT device_id FROM sessions WHERE token_digest = \(digest)", { try $0.decode(String.self) })
        else { return }
        try await deleteSessions(deviceID: deviceID)
    }

    func deleteSessions(user: String) async throws {
        for deviceID in try await all("SELECT device_id FROM sessions WHERE user_record_name = \(user)", { try $0.decode(String.self) }) {
            try await deleteSessions(deviceID: deviceID)
        }
    }

    func deleteIdleSessions(lastUsedBefore: Int64) async throws -> Int {
        let idle = try await all("SELECT device_id FROM sessions WHERE last_used_at < \(lastUsedBefore)") { try $0.decode(String.self) }
        for deviceID in idle { try await deleteSessions(deviceID: deviceID) }
        return idle.count
    }

    func signedInDevices(user: String) async throws -> [DeviceRow] {
        try await all(
            """
            SELECT d.name, d.device_id, d.created_at, s.created_at, s.last_used_at FROM sessions s
            JOIN devices d ON d.device_id = s.device_id WHERE s.user_record_name = \(user) ORDER BY d.name
            """
        ) {
            let (name, id, created, signedIn, lastUsed) = try $0.decode((String, String, Int64, Int64, Int64).self)
            return DeviceRow(name: name, deviceID: id, created: created, signedIn: signedIn, lastUsed: lastUsed)
        }
    }

    /// Ends a device's session and forgets its push tokens (registered to it, or created by it and never registered).
    func deleteSessions(deviceID: String) async throws {
        try await run("DELETE FROM sessions WHERE device_id = \(deviceID)")
        try await run("DELETE FROM push_tokens WHERE device_id = \(deviceID) OR creator_device = \(deviceID)")
    }

    // MARK: Push tokens

    func insertPushToken(_ token: String, container: String, creatorDevice: String, now: Int64) async throws {
        try await run(
            """
            INSERT INTO push_tokens(token, container, user_record_name, device_id, created_at, last_used_at, creator_device)
            VALUES (\(token), \(container), NULL, NULL, \(now), \(now), \(creatorDevice))
            """)
        // A device keeps at most a few tokens it has not registered (yet): the newest.
        try await run(
            """
            DELETE FROM push_tokens WHERE creator_device = \(creatorDevice) AND device_id IS NULL AND token NOT IN (
                SELECT token FROM push_tokens WHERE creator_device = \(creatorDevice) AND device_id IS NULL
                ORDER BY created_at DESC, token LIMIT \(SQLiteStoreTransaction.unregisteredTokensPerDevice))
            """)
    }

    private static func pushTokenRow(_ row: PostgresRow) throws -> PushTokenRow {
        let (token, container, user, device, lastUsed) = try row.decode((String, String, String?, String?, Int64).self)
        return PushTokenRow(token: token, container: container, userRecordName: user, deviceID: device, lastUsed: lastUsed)
    }

    func pushToken(_ token: String) async throws -> PushTokenRow? {
        try await first(
            "SELECT token, container, user_record_name, device_id, last_used_at FROM push_tokens WHERE token = \(token)", Self.pushTokenRow)
    }

    func touchPushToken(_ token: String, now: Int64) async throws {
        try await run("UPDATE push_tokens SET last_used_at = GREATEST(last_used_at, \(now)) WHERE token = \(token)")
    }

    func bindPushToken(_ token: String, user: String, deviceID: String) async throws {
        // One token per device: a device that registers again replaces its old token, which is forgotten.
        try await run("DELETE FROM push_tokens WHERE device_id = \(deviceID) AND token <> \(token)")
        try await run("UPDATE push_tokens SET user_record_name = \(user), device_id = \(deviceID) WHERE token = \(token)")
    }

    func pushTokens(user: String, container: String) async throws -> [PushTokenRow] {
        try await all(
            """
            SELECT token, container, user_record_name, device_id, last_used_at FROM push_tokens
            WHERE user_record_name = \(user) AND container = \(container)
            """, Self.pushTokenRow)
    }

    func evictPushTokens(unregisteredBefore: Int64, unusedBefore: Int64) async throws {
        try await run("DELETE FROM push_tokens WHERE device_id IS NULL AND created_at < \(unregisteredBefore)")
        try await run("DELETE FROM push_tokens WHERE last_used_at < \(unusedBefore)")
        // Tokens of devices without a session (ended by an older cloud, or by the operator's tools).
        try await run(
            "DELETE FROM push_tokens p WHERE p.device_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.device_id = p.device_id)")
    }

    func allPushTokens() async throws -> Set<String> {
        Set(try await all("SELECT token FROM push_tokens") { try $0.decode(String.self) })
    }

    // MARK: Assets and discovery

    func insertAssetUpload(ticket: String, container: String, owner: String, now: Int64) async throws {
        try await run("INSERT INTO asset_uploads VALUES (\(ticket), \(container), \(owner), \(now))")
    }

    func takeAssetUpload(ticket: String, container: String, notBefore: Int64) async throws -> String? {
        let owner = try await first(
            "SELECT owner FROM asset_uploads WHERE ticket = \(ticket) AND container = \(container) AND created_at >= \(notBefore) FOR UPDATE"
        ) { try $0.decode(String.self) }
        try await run("DELETE FROM asset_uploads WHERE ticket = \(ticket) OR created_at < \(notBefore)")
        return owner
    }

    func insertAsset(_ asset: AssetRow, now: Int64) async throws {
        try await run(
            "INSERT INTO assets VALUES (\(asset.id), \(asset.container), \(asset.owner), \(asset.size), \(asset.checksum), \(now))")
    }

    func asset(id: String) async throws -> AssetRow? {
        try await first("SELECT id, container, owner, size, checksum FROM assets WHERE id = \(id)") {
            let (id, container, owner, size, checksum) = try $0.decode((String, String, String, Int64, String).self)
            return AssetRow(id: id, container: container, owner: owner, size: size, checksum: checksum)
        }
    }

    func setDiscoverable(container: String, user: String, _ discoverable: Bool) async throws {
        if discoverable {
            try await run("INSERT INTO discoverable_users VALUES (\(container), \(user)) ON CONFLICT DO NOTHING")
        } else {
            try await run("DELETE FROM discoverable_users WHERE container = \(container) AND user_record_name = \(user)")
        }
    }

    func isDiscoverable(container: String, user: String) async throws -> Bool {
        try await touched("SELECT 1 FROM discoverable_users WHERE container = \(container) AND user_record_name = \(user)")
    }

    // MARK: Schema of record types

    func schemaFields(container: String, recordType: String) async throws -> [String: SchemaField]? {
        // The type and its fields in one round trip: no row, no type; one row of NULLs, a type without fields.
        let rows = try await all(
            """
            SELECT f.field_name, f.field_type, f.queryable, f.sortable FROM schema_types t
            LEFT JOIN schema_fields f ON f.container = t.container AND f.record_type = t.record_type
            WHERE t.container = \(container) AND t.record_type = \(recordType)
            """,
            { try $0.decode((String?, String?, Bool?, Bool?).self) })
        guard !rows.isEmpty else { return nil }
        var fields: [String: SchemaField] = [:]
        for case let (name?, type?, queryable, sortable) in rows {
            fields[name] = SchemaField(type: type, queryable: queryable ?? false, sortable: sortable ?? false)
        }
        return fields
    }

    func defineSchemaType(container: String, recordType: String) async throws {
        try await run("INSERT INTO schema_types VALUES (\(container), \(recordType)) ON CONFLICT DO NOTHING")
    }

    func defineSchemaField(container: String, recordType: String, name: String, type: String) async throws {
        try await run(
            """
            INSERT INTO schema_fields(container, record_type, field_name, field_type) VALUES (\(container), \(recordType), \(name), \(type))
            ON CONFLICT DO NOTHING
            """)
    }

    func schema(container: String) async throws -> [String: [String: SchemaField]] {
        var types: [String: [String: SchemaField]] = [:]
        for type in try await all("SELECT record_type FROM schema_types WHERE container = \(container)", { try $0.decode(String.self) }) {
            types[type] = try await schemaFields(container: container, recordType: type) ?? [:]
        }
        return types
    }

    func replaceSchema(container: String, with types: [String: [String: SchemaField]]) async throws {
        try await run("DELETE FROM schema_fields WHERE container = \(container)")
        try await run("DELETE FROM schema_types WHERE container = \(container)")
        for (type, fields) in types {
            try await defineSchemaType(container: container, recordType: type)
            for (name, field) in fields {
                try await run(
                    """
                    INSERT INTO schema_fields VALUES (\(container), \(type), \(name), \(field.type), \(field.queryable), \(field.sortable))
                    """)
            }
        }
    }

    func markSchemaField(container: String, recordType: String, name: String, queryable: Bool?, sortable: Bool?) async throws -> Bool {
        try await touched(
            """
            UPDATE schema_fields SET queryable = COALESCE(\(queryable), queryable), sortable = COALESCE(\(sortable), sortable)
            WHERE container = \(container) AND record_type = \(recordType) AND field_name = \(name) RETURNING 1
            """)
    }
}

/// Every request's session check, prepared once per connection (parsed and planned once, not per request).
struct SessionStatement: PostgresPreparedStatement {
    static let sql = """
        SELECT s.user_record_name, s.device_id, d.name, s.last_used_at FROM sessions s
        JOIN devices d ON d.device_id = s.device_id WHERE s.token_digest = $1
        """
    typealias Row = SessionRow

    /// The statement's name on each connection (postgres-nio's default spells the type out by reflection each time).
    static let name = "session_check"

    var digest: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(digest)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> SessionRow {
        let (user, device, name, lastUsed) = try row.decode((String, String, String, Int64).self)
        return SessionRow(userRecordName: user, deviceID: device, deviceName: name, lastUsed: lastUsed)
    }
}
