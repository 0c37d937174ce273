import CCrypt
import Crypto
import Foundation

/// Password hashing (yescrypt through libxcrypt), token generation and constant-time comparison.
enum Secrets {
    /// The longest password the cloud takes, in UTF-8 bytes (documented in docs/ACCOUNTS.md).
    static let maxPasswordBytes = 1024
    /// The shortest password an account may be given, in UTF-8 bytes.
    static let minPasswordBytes = 8
    /// libxcrypt refuses phrases of this many bytes or more; longer passwords are pre-hashed.
    static let cryptPhraseLimit = Int(CRYPT_MAX_PASSPHRASE_SIZE)
    /// Starts a stored hash whose password went through `preHash` before yescrypt; hashes without it are plain
    /// crypt(3) strings and keep verifying as they always did.
    static let preHashMarker = "$hmac-sha256$"

    /// A new random token of `bytes` bytes, URL-safe base64 without padding.
    static func randomToken(bytes: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        let data = Data((0..<bytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        return data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Random lowercase hex, for user record names and device IDs.
    static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return hex((0..<bytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// A salted yescrypt hash of a password, in crypt(3)'s `$y$…` form (after `preHashMarker` for long passwords).
    /// Slow on purpose: call it through `PasswordHasher`, never on the cooperative pool.
    static func hashPassword(_ password: String, cost: UInt) throws -> String {
        guard !password.utf8.contains(0), password.utf8.count <= maxPasswordBytes else { throw SecretsError.unusablePassword }
        var salt = [CChar](repeating: 0, count: Int(CRYPT_GENSALT_OUTPUT_SIZE))
        guard crypt_gensalt_rn("$y$", cost, nil, 0, &salt, Int32(salt.count)) != nil else {
            throw SecretsError.hashingFailed
        }
        let setting = String(decoding: salt.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if password.utf8.count >= cryptPhraseLimit {
            return preHashMarker + (try crypt(preHash(password), setting: setting))
        }
        return try crypt(password, setting: setting)
    }

    /// Whether `password` matches a stored hash; constant-time in the hash comparison. Slow: see `hashPassword`.
    static func verifyPassword(_ password: String, hash: String) -> Bool {
        guard !password.utf8.contains(0), password.utf8.count <= maxPasswordBytes else { return false }
        let preHashed = hash.hasPrefix(preHashMarker)
        let stored = preHashed ? String(hash.dropFirst(preHashMarker.count)) : hash
        guard let computed = try? crypt(preHashed ? preHash(password) : password, setting: stored) else { return false }
        return constantTimeEquals(Array(computed.utf8), Array(stored.utf8))
    }

    /// A long password squeezed under libxcrypt's limit: HMAC-SHA-256 under a fixed label, base64 (44 bytes).
    /// The label only separates this use of SHA-256 from others; the salt and cost come from yescrypt after it.
    static func preHash(_ password: String) -> String {
        let key = SymmetricKey(data: Data("cloudtodo long password v1".utf8))
        let code = HMAC<SHA256>.authenticationCode(for: Data(password.utf8), using: key)
        return Data(code).base64EncodedString()
    }

    /// The stored form of a session token: its SHA-256, hex.
    static func tokenDigest(_ token: String) -> String {
        hex(Array(SHA256.hash(data: Data(token.utf8))))
    }

    /// The stored digest of an app password: prefixed, so it never equals a session token's digest (bare hex), and an
    /// app password sent as a CloudKit session token finds no session.
    static func appPasswordDigest(_ password: String) -> String {
        "app:" + tokenDigest(password)
    }

    /// Lowercase hex of bytes.
    static func hex(_ bytes: [UInt8]) -> String {
        // Every authenticated request computes a digest: nibbles by table, not a String(format:) per byte.
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }

    /// Compares two byte strings in time that depends only on their lengths.
    static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    private static func crypt(_ password: String, setting: String) throws -> String {
        var data = crypt_data()
        guard let result = crypt_r(password, setting, &data), result.pointee != 0x2A /* "*": failure */ else {
            throw SecretsError.hashingFailed
        }
        return String(cString: result)
    }
}

/// Why a secret could not be made.
enum SecretsError: Error {
    case hashingFailed
    /// A password with a NUL byte or over `Secrets.maxPasswordBytes`: callers refuse those before hashing.
    case unusablePassword
}
