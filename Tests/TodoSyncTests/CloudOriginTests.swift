import Foundation
import Testing

@testable import TodoSync

/// A cloud's origin read from the URL itself (plain hosts) is the one URLComponents reads, for every shape of address.
@Suite("Cloud origins")
struct CloudOriginTests {
    static let addresses = [
        "http://localhost:8787", "https://Example.ORG", "HTTP://HOST.EXAMPLE/", "http://127.0.0.1:28130/", "http://[::1]:80",
        "http://[FE80::1]", "http://[::ffff:1.2.3.4]:9", "http://[fe80::1%25eth0]:8", "http://user:pw@host.example:8080/path?q#f",
        "http://host.example.", "http://h_o-s.t", "http://host:0", "http://host:65535", "http://host:65536", "http://host:99999",
        "http://host:/", "https://xn--bcher-kva.example", "https://XN--BCHER-KVA.example:444", "https://bücher.example",
        "http://ex%41mple.org", "http://a%20b", "ftp://host", "http://", "http:///x", "http:host", "mailto:a@b.c", "http://@host",
        "http://192.168.1.1:443", "https://0:0:0:0:0:0:0:1", "http://[0:0:0:0:0:0:0:1]:7", "http://host.example:08080",
    ]

    @Test func aPlainHostIsReadAsURLComponentsReadsIt() throws {
        var plain = 0
        for address in Self.addresses {
            guard let url = URL(string: address) else { continue }
            if let host = url.host(percentEncoded: true), CloudOrigin.isPlain(host) { plain += 1 }
            #expect(CloudOrigin(url) == CloudOrigin(components: url), "\(address)")
        }
        #expect(plain >= 20, "most addresses take the plain path")
        #expect(CloudOrigin(string: "http://LOCALHOST:8787/")?.description == "http://localhost:8787")
        #expect(CloudOrigin(string: "https://[::1]")?.description == "https://localhost:443")
    }

    @Test func whatIsNotPlainIsLeftToURLComponents() {
        for host in ["bücher.example", "xn--bcher-kva.example", "XN--BCHER.example", "ex%41mple.org"] {
            #expect(!CloudOrigin.isPlain(host), "\(host)")
        }
        #expect(CloudOrigin.isPlain("host.example") && CloudOrigin.isPlain("[::1]") && CloudOrigin.isPlain("127.0.0.1"))
    }
}
