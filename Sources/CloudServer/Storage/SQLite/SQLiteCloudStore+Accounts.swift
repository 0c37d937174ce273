import CloudModel
import Foundation
import SQLiteDB

extension SQLiteCloudStore {
    /// v7: sessions record their last use and are one per device (the newest of a device's sessions is kept);
    /// devices and push tokens record theirs, and a push token remembers the device that created it.
    static let sessionsMigration: (name: String, sql: String) = (
        "v7",
        """
        ALTER TABLE sessions ADD COLUMN last_used_at INTEGER NOT NULL DEFAULT 0;
        UPDATE sessions SET last_used_at = created_at;
        DELETE FROM sessions WHERE EXISTS (
            SELECT 1 FROM sessions newer WHERE newer.device_id = sessions.device_id
            AND (newer.created_at > sessions.created_at
                OR (newer.created_at = sessions.created_at AND newer.token_digest > sessions.token_digest)));
        CREATE UNIQUE INDEX sessions_device ON sessions(device_id);
        CREATE INDEX sessions_user ON sessions(user_record_name);
        ALTER TABLE push_tokens ADD COLUMN last_used_at INTEGER NOT NULL DEFAULT 0;
        UPDATE push_tokens SET last_used_at = created_at;
        ALTER TABLE push_tokens ADD COLUMN creator_device TEXT;
        CREATE INDEX push_tokens_device ON push_tokens(device_id);
        CREATE INDEX push_tokens_creator ON push_tokens(creator_device);
        """
    )
}

extension SQLiteStoreTransaction {
    // MARK: Accounts

    func user(account: String) throws -> UserRow? {
        try db.first("SELECT user_record_name, account, password_hash FROM users WHERE account = ?1", [.text(account)]) {
            UserRow(userRecordName: $0.text(0), account: $0.text(1), passwordHash: $0.text(2))
        }
    }

    func user(recordName: String) throws -> UserRow? {
        try db.first("SELECT user_record_name, account, password_hash FROM users WHERE user_record_name = ?1", [.text(recordName)]) {
            UserRow(userRecordName: $0.text(0), account: $0.text(1), passwordHash: $0.text(2))
        }
    }

    func insertUser(_ user: UserRow, now: Int64) throws {
        try db.run(
            "INSERT INTO users VALUES (?1, ?2, ?3, ?4)",
            [.text(user.userRecordName), .text(user.account), .text(user.passwordHash), .int(now)])
    }

    func accounts() throws -> [AccountSummary] {
        try db.query(
            """
            SELECT u.account, u.user_record_name, u.created_at,
                (SELECT COUNT(*) FROM sessions s WHERE s.user_record_name = u.user_record_name),
                (SELECT MAX(s.last_used_at) FROM sessions s WHERE s.user_record_name = u.user_record_name)
            FROM users u ORDER BY u.account
            """
        ) {
            AccountSummary(
                account: $0.text(0), userRecordName: $0.text(1), created: $0.int(2), signedInDevices: Int($0.int(3)),
                lastUsed: $0.optionalInt(4))
        }
    }

    func passwordHashSamples() throws -> [String] {
        // The cost is the field after `$y$`: one scan of the accounts, at start.
        try db.query(
            """
            SELECT MIN(password_hash) FROM (SELECT password_hash, substr(password_hash, instr(password_hash, '$y$') + 3) AS rest FROM users)
            GROUP BY substr(rest, 1, instr(rest, '$') - 1)
            """
        ) { $0.text(0) }
    }

    func setPasswordHash(user: String, hash: String) throws {
        try db.run("UPDATE users SET password_hash = ?2 WHERE user_record_name = ?1", [.text(user), .text(hash)])
    }

    func deleteUser(_ user: String) throws {
        let owner = SQLValue.text(user)
        try deleteSessions(user: user)
        try db.run("DELETE FROM push_tokens WHERE user_record_name = ?1", [owner])
        try db.run("DELETE FROM devices WHERE user_record_name = ?1", [owner])
        // Zones cascade to their records, shares, share views and root exits; the location index is ours to clear.
        if try locationStatements != nil {
            try db.run("DELETE FROM record_locations WHERE zone_pk IN (SELECT pk FROM zones WHERE owner = ?1)", [owner])
            locationZoneCache.removeAll()
        }
        try db.run("DELETE FROM zones WHERE owner = ?1", [owner])
        for table in ["purged_zones", "zone_changes", "database_horizons", "subscriptions", "asset_uploads"] {
            try db.run("DELETE FROM \(table) WHERE owner = ?1", [owner])
        }
        for table in ["share_participants", "share_views", "discoverable_users"] {
            try db.run("DELETE FROM \(table) WHERE user_record_name = ?1", [owner])
        }
        try db.run("DELETE FROM users WHERE user_record_name = ?1", [owner])
    }

    func assetIDs(owner: String) throws -> [String] {
        try db.query("SELECT id FROM assets WHERE owner = ?1", [.text(owner)]) { $0.text(0) }
    }

    func deleteAssets(owner: String) throws {
        try db.run("DELETE FROM assets WHERE owner = ?1", [.text(owner)])
    }

    // MARK: Devices and sessions

    func device(user: String, name: String) throws -> String? {
        try deviceID(user: user, name: name)
    }

    func deviceID(user: String, name: String) throws -> String? {
        try db.first("SELECT device_id FROM devices WHERE user_record_name = ?1 AND name = ?2", [.text(user), .text(name)]) { $0.text(0) }
    }

    func insertDevice(id: String, user: String, name: String, now: Int64) throws {
        try db.run("INSERT INTO devices VALUES (?1, ?2, ?3, ?4)", [.text(id), .text(user), .text(name), .int(now)])
    }

    func insertSession(digest: String, user: String, deviceID: String, now: Int64) throws {
        // One live session per device: signing in again as it ends the one before, with its push tokens.
        try deleteSessions(deviceID: deviceID)
        try db.run(
            "INSERT INTO sessions(token_digest, user_record_name, device_id, created_at, last_used_at) VALUES (?1, ?2, ?3, ?4, ?4)",
            [.text(digest), .text(user), .text(deviceID), .int(now)])
    }

    func session(digest: String) throws -> SessionRow? {
        try db.first(
            """
            SELECT s.user_record_name, s.device_id, d.name, s.last_used_at FROM sessions s
            JOIN devices d ON d.device_id = s.device_id WHERE s.token_digest = ?1
            """, [.text(digest)]
        ) { SessionRow(userRecordName: $0.text(0), deviceID: $0.text(1), deviceName: $0.text(2), lastUsed: $0.int(3)) }
    }

    func touchSession(digest: String, now: Int64) throws {
        try db.run("UPDATE sessions SET last_used_at = MAX(last_used_at, ?2) WHERE token_digest = ?1", [.text(digest), .int(now)])
    }

    func deleteSession(digest: String) throws {
        guard let deviceID = try db.first("SELECT device_id FROM sessions WHERE token_digest = ?1", [.text(digest)], { $0.text(0) }) else {
            return
        }
        try deleteSessions(deviceID: deviceID)
    }

    func deleteSessions(user: String) throws {
        for deviceID in try db.query("SELECT device_id FROM sessions WHERE user_record_name = ?1", [.text(user)], { $0.text(0) }) {
            try deleteSessions(deviceID: deviceID)
        }
    }

    func deleteIdleSessions(lastUsedBefore: Int64) throws -> Int {
        let idle = try db.query("SELECT device_id FROM sessions WHERE last_used_at < ?1", [.int(lastUsedBefore)]) { $0.text(0) }
        for deviceID in idle { try deleteSessions(deviceID: deviceID) }
        return idle.count
    }

    func signedInDevices(user: String) throws -> [DeviceRow] {
        try db.query(
            """
            SELECT d.name, d.device_id, d.created_at, s.created_at, s.last_used_at FROM sessions s
            JOIN devices d ON d.device_id = s.device_id WHERE s.user_record_name = ?1 ORDER BY d.name
            """, [.text(user)]
        ) { DeviceRow(name: $0.text(0), deviceID: $0.text(1), created: $0.int(2), signedIn: $0.int(3), lastUsed: $0.int(4)) }
    }

    /// Ends a device's session and forgets its push tokens (registered to it, or created by it and never registered).
    func deleteSessions(deviceID: String) throws {
        try db.run("DELETE FROM sessions WHERE device_id = ?1", [.text(deviceID)])
        try db.run("DELETE FROM push_tokens WHERE device_id = ?1 OR creator_device = ?1", [.text(deviceID)])
    }

    // MARK: Push tokens

    func insertPushToken(_ token: String, container: String, creatorDevice: String, now: Int64) throws {
        try db.run(
            """
            INSERT INTO push_tokens(token, container, user_record_name, device_id, created_at, last_used_at, creator_device)
            VALUES (?1, ?2, NULL, NULL, ?3, ?3, ?4)
            """, [.text(token), .text(container), .int(now), .text(creatorDevice)])
        // A device keeps at most a few tokens it has not registered (yet): the newest.
        try db.run(
            """
            DELETE FROM push_tokens WHERE creator_device = ?1 AND device_id IS NULL AND token NOT IN (
                SELECT token FROM push_tokens WHERE creator_device = ?1 AND device_id IS NULL
                ORDER BY created_at DESC, token LIMIT ?2)
            """, [.text(creatorDevice), .int(Int64(Self.unregisteredTokensPerDevice))])
    }

    /// Tokens a device may hold created but not registered.
    static let unregisteredTokensPerDevice = 4

    func pushToken(_ token: String) throws -> PushTokenRow? {
        try db.first(
            "SELECT token, container, user_record_name, device_id, last_used_at FROM push_tokens WHERE token = ?1", [.text(token)]
        ) {
            PushTokenRow(
                token: $0.text(0), container: $0.text(1), userRecordName: $0.optionalText(2), deviceID: $0.optionalText(3),
                lastUsed: $0.int(4))
        }
    }

    func touchPushToken(_ token: String, now: Int64) throws {
        try db.run("UPDATE push_tokens SET last_used_at = MAX(last_used_at, ?2) WHERE token = ?1", [.text(token), .int(now)])
    }

    func bindPushToken(_ token: String, user: String, deviceID: String) throws {
        // One token per device: a device that registers again replaces its old token, which is forgotten.
        try db.run("DELETE FROM push_tokens WHERE device_id = ?1 AND token <> ?2", [.text(deviceID), .text(token)])
        try db.run(
            "UPDATE push_tokens SET user_record_name = ?2, device_id = ?3 WHERE token = ?1",
            [.text(token), .text(user), .text(deviceID)])
    }

    func pushTokens(user: String, container: String) throws -> [PushTokenRow] {
        try db.query(
            """
            SELECT token, container, user_record_name, device_id, last_used_at FROM push_tokens
            WHERE user_record_name = ?1 AND container = ?2
            """, [.text(user), .text(container)]
        ) {
            PushTokenRow(
                token: $0.text(0), container: $0.text(1), userRecordName: $0.optionalText(2), deviceID: $0.optionalText(3),
                lastUsed: $0.int(4))
        }
    }

    func evictPushTokens(unregisteredBefore: Int64, unusedBefore: Int64) throws {
        try db.run("DELETE FROM push_tokens WHERE device_id IS NULL AND created_at < ?1", [.int(unregisteredBefore)])
        try db.run("DELETE FROM push_tokens WHERE last_used_at < ?1", [.int(unusedBefore)])
        // Tokens of devices without a session (ended by an older cloud, or by the operator's tools).
        try db.run(
            "DELETE FROM push_tokens WHERE device_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.device_id = push_tokens.device_id)")
    }

    func allPushTokens() throws -> Set<String> {
        Set(try db.query("SELECT token FROM push_tokens") { $0.text(0) })
    }
}
