@testable import CloudServer
import Testing

/// Session tokens are stored as their SHA-256 in hex: the spelling must never change, or stored sessions stop matching.
/// Passwords past libxcrypt's 512-byte limit are pre-hashed, and hashes made before that keep verifying.
@Suite("Token digests and password hashes")
struct SecretsTests {
    @Test func digestsAreLowercaseHexOfSHA256() {
        // FIPS 180-2 test vectors.
        #expect(Secrets.tokenDigest("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Secrets.tokenDigest("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            Secrets.tokenDigest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test(arguments: [8, 511, 512, 1024])
    func passwordsUpToTheMaximumHashAndVerify(length: Int) throws {
        let password = String(repeating: "é", count: length / 2) + String(repeating: "x", count: length % 2)
        #expect(password.utf8.count == length)
        let hash = try Secrets.hashPassword(password, cost: 1)
        // Only what libxcrypt cannot take is pre-hashed.
        #expect(hash.hasPrefix(Secrets.preHashMarker) == (length >= 512))
        #expect(Secrets.verifyPassword(password, hash: hash))
        #expect(!Secrets.verifyPassword(password + "!", hash: hash))
        #expect(!Secrets.verifyPassword(String(password.dropLast()), hash: hash))
    }

    @Test func hashesWithoutTheMarkerStillVerify() throws {
        // A hash as the cloud stored it before pre-hashing existed: plain crypt(3) of a 300-byte password.
        let password = String(repeating: "p", count: 300)
        let hash = try Secrets.hashPassword(password, cost: 1)
        #expect(!hash.hasPrefix(Secrets.preHashMarker))
        #expect(Secrets.verifyPassword(password, hash: hash))
        // The pre-hash of a password does not verify as the password itself, nor the other way round.
        #expect(!Secrets.verifyPassword(Secrets.preHash(password), hash: hash))
        #expect(!Secrets.verifyPassword(password, hash: Secrets.preHashMarker + hash))
    }

    @Test func unusablePasswordsAreRefused() {
        #expect(throws: SecretsError.unusablePassword) { try Secrets.hashPassword(String(repeating: "x", count: 1025), cost: 1) }
        #expect(throws: SecretsError.unusablePassword) { try Secrets.hashPassword("pass\u{0}word", cost: 1) }
        #expect(!Secrets.verifyPassword("anything", hash: "not a hash"))
    }
}
