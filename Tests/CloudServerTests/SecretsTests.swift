@testable import CloudServer
import Testing

/// Session tokens are stored as their SHA-256 in hex: the spelling must never change, or stored sessions stop matching.
@Suite("Token digests")
struct SecretsTests {
    @Test func digestsAreLowercaseHexOfSHA256() {
        // FIPS 180-2 test vectors.
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(Secrets.tokenDigest("abc") == SHA256.hex(Array("abc".utf8)))
    }
}
