import CloudServer
import Testing

@Suite("PostgreSQL database URL")
struct PostgresDatabaseURLTests {
    @Test func readsEveryPart() throws {
        let url = try DatabaseURL(parsing: "postgres://todo:s3cr%40t@db.example.net:6543/cloud%20todo?sslmode=verify-full")
        #expect(url.user == "todo")
        #expect(url.password == "s3cr@t")
        #expect(url.host == "db.example.net")
        #expect(url.port == 6543)
        #expect(url.database == "cloud todo")
        #expect(url.tlsMode == .verifyFull)
    }

    @Test func defaultsAsLibpqDoes() throws {
        let url = try DatabaseURL(parsing: "postgresql://alice@localhost")
        #expect(url.port == 5432)
        #expect(url.database == "alice")
        #expect(url.password == nil)
        #expect(url.tlsMode == .prefer)
    }

    @Test func ipv6HostsAndUnixSockets() throws {
        let v6 = try DatabaseURL(parsing: "postgres://u:p@[::1]:5433/d")
        #expect(v6.host == "::1")
        #expect(v6.port == 5433)
        #expect(v6.description == "postgres://u:***@[::1]:5433/d")
        let socket = try DatabaseURL(parsing: "postgres://u@/d?host=%2Fvar%2Frun%2Fpostgresql&port=5444")
        #expect(socket.isUnixSocket)
        #expect(socket.unixSocketPath == "/var/run/postgresql/.s.PGSQL.5444")
        #expect(try DatabaseURL(parsing: socket.secretText) == socket)
    }

    @Test func aPasswordWithAnAtSignStillParses() throws {
        let url = try DatabaseURL(parsing: "postgres://u:p@ss@host/d")
        #expect(url.password == "p@ss")
        #expect(url.host == "host")
    }

    @Test func printsWithoutThePassword() throws {
        let url = try DatabaseURL(parsing: "postgres://todo:hunter2-secret@127.0.0.1:5432/todo")
        #expect(url.description == "postgres://todo:***@127.0.0.1:5432/todo")
        #expect(!"\(url)".contains("hunter2"))
        #expect(!String(reflecting: url).contains("hunter2"))
        #expect(try DatabaseURL(parsing: url.secretText) == url)
    }

    /// Every refusal names what is wrong and never the password, whatever part of the URL it sits in.
    @Test(arguments: [
        "mysql://todo:hunter2-secret@host/db",
        "postgres://todo:hunter2-secret@host:99999/db",
        "postgres://todo:hunter2-secret@host:port/db",
        "postgres://todo:hunter2-secret@/db",
        "postgres://:hunter2-secret@host/db",
        "postgres://todo:hunter2-secret%zz@host/db",
        "postgres://todo:hunter2-secret@host/db?sslmode=always",
        "postgres://todo:hunter2-secret@host/db?passwd=hunter2-secret",
        "postgres://todo:hunter2-secret@[::1/db",
        "postgres://todo:hunter2-secret@host/db#hunter2-secret",
        "todo:hunter2-secret@host/db",
        "postgres://todo@host/db?password=hunter2-secret&sslmode=nope",
        "postgres://todo:hunter2-secret@/db?host=/tmp&sslmode=require",
    ])
    func refusesWithoutLeakingThePassword(_ text: String) {
        #expect {
            try DatabaseURL(parsing: text)
        } throws: { error in
            let words = "\(error)"
            return !words.contains("hunter2") && !words.isEmpty
        }
    }

    @Test func aPasswordParameterIsHeldAsThePassword() throws {
        let url = try DatabaseURL(parsing: "postgres://todo@host/db?password=pa%26ss&sslmode=disable")
        #expect(url.password == "pa&ss")
        #expect(url.tlsMode == .disable)
        #expect(!url.description.contains("pa&ss"))
    }
}
