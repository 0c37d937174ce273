import CloudModel
import CloudServer
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `todo-bench caldav [TODOS] [--database-url URL]`: a phone's first CalDAV sync of a collection of TODOS todos (the
/// `sync-collection` REPORT of every href and ETag, then one `calendar-multiget` of them all with their calendar data)
/// and its unchanged sync, on the embedded SQLite cloud and, given a URL, on two PostgreSQL instances behind nginx.
/// Targets (issue 28): the first two together in at most 2 s, an unchanged sync in at most 20 ms.
enum CalDAVBench {
    /// One set-up's figures, in seconds.
    struct Figures {
        var initialSync: [Double] = []
        var multiget: [Double] = []
        var unchanged: [Double] = []
        var bytes = 0
    }

    static func run(count: Int, databaseURL: String?) async throws {
        print("== CalDAV benchmark: \(count) todos in one collection (\(ProcessInfo.processInfo.activeProcessorCount) cores) ==")
        var columns: [(String, Figures)] = []
        do {
            let sqlite = try ServerProcess()
            defer { sqlite.stop() }
            columns.append(("SQLite, 1 instance", try measure(entryPort: sqlite.port, count: count)))
        }
        if let databaseURL {
            if BenchNginx.binary == nil {
                print("SKIPPED the PostgreSQL figures: nginx is not installed (apt-get install nginx)")
            } else {
                let url = try DatabaseURL(parsing: databaseURL)
                let made = url.withDatabase("cloudtodo_caldav_bench_\(getpid())")
                try await PostgresStoreBench.administer(url, "DROP DATABASE IF EXISTS \(made.database)")
                try await PostgresStoreBench.administer(url, "CREATE DATABASE \(made.database)")
                do {
                    let first = try ServerProcess(extraArguments: ["--database-url", made.secretText])
                    defer { first.stop() }
                    let second = try ServerProcess(extraArguments: ["--database-url", made.secretText])
                    defer { second.stop() }
                    let figures = try await BenchNginx.inFront(of: [first.port, second.port]) { nginx in try measure(entryPort: nginx.port, count: count) }
                    columns.append(("PostgreSQL, 2 behind nginx", figures))
                }
                try await PostgresStoreBench.administer(url, "DROP DATABASE IF EXISTS \(made.database) WITH (FORCE)")
            }
        }
        for (title, figures) in columns {
            func ms(_ values: [Double]) -> String { values.map { String(format: "%.0f", $0 * 1000) }.joined(separator: ", ") + " ms" }
            let both = zip(figures.initialSync, figures.multiget).map { $0 + $1 }
            let unchanged = figures.unchanged.sorted()
            print("-- \(title)")
            print("initial sync-collection (hrefs and ETags):       \(ms(figures.initialSync))")
            print("calendar-multiget of all, with calendar-data:    \(ms(figures.multiget))  (\(figures.bytes / 1024) KiB)")
            print("both together (target <= 2000 ms):               \(ms(both))")
            print(
                String(
                    format: "unchanged sync-collection (target <= 20 ms):     median %.2f ms, worst %.2f ms of %d", percentile(unchanged, 0.5) * 1000,
                    (unchanged.last ?? 0) * 1000, unchanged.count))
        }
    }

    /// Writes `count` todos through `records/modify`, makes an app password, then times three first syncs (each on a
    /// connection of its own) and 20 unchanged ones.
    static func measure(entryPort: Int, count: Int) throws -> Figures {
        let base = "http://127.0.0.1:\(entryPort)"
        let account = "caldav-\(UUID().uuidString.prefix(8).lowercased())"
        let device = try BenchAccounts.signIn(base, account: account, device: "laptop")
        _ = try HTTP.shared.post(
            base + ContainerAddress.default.path(of: .zonesModify, in: .private),
            ModifyZonesRequest(operations: [.init(.create, ZoneID(zoneName: TodoSchema.zoneName))]), token: device.token, as: ZonesResponse.self)
        let writer = try RawHTTPConnection(port: entryPort)
        for body in benchModifyBodies(count: count, planned: true) {
            let answer = try writer.request("POST", ContainerAddress.default.path(of: .recordsModify, in: .private), body: body, token: device.token)
            guard answer.status == 200 else { throw BenchError("write answered \(answer.status)") }
        }
        let password = try HTTP.shared.post(
            base + ContainerAddress.default.devicePath("app-passwords/create"), CreateAppPasswordRequest(label: "phone"), token: device.token,
            as: CreateAppPasswordResponse.self
        ).password
        let basic = "Basic " + Data("\(account):\(password)".utf8).base64EncodedString()
        let collection = "/dav/calendars/\(account)/todos/"
        var figures = Figures()
        var token = ""
        for _ in 0..<3 {
            let dav = try RawHTTPConnection(port: entryPort)
            var start = ContinuousClock.now
            let sync = try report(dav, collection, syncBody(""), basic)
            figures.initialSync.append(seconds(since: start))
            let text = String(decoding: sync, as: UTF8.self)
            let hrefs = matches(text, "<d:href>", "</d:href>")
            guard hrefs.count == count else { throw BenchError("the first sync named \(hrefs.count) of \(count) todos") }
            token = matches(text, "<d:sync-token>", "</d:sync-token>").first ?? ""
            var multiget = "<c:calendar-multiget xmlns:d=\"DAV:\" xmlns:c=\"urn:ietf:params:xml:ns:caldav\"><d:prop><d:getetag/><c:calendar-data/></d:prop>"
            multiget.reserveCapacity(hrefs.count * 64)
            for href in hrefs { multiget += "<d:href>\(href)</d:href>" }
            multiget += "</c:calendar-multiget>"
            start = ContinuousClock.now
            let objects = try report(dav, collection, Array(multiget.utf8), basic)
            figures.multiget.append(seconds(since: start))
            figures.bytes = objects.count
            let found = matches(String(decoding: objects, as: UTF8.self), "BEGIN:VTODO", "END:VTODO").count
            guard found == count else { throw BenchError("the multiget gave \(found) of \(count) todos") }
        }
        let dav = try RawHTTPConnection(port: entryPort)
        for _ in 0..<20 {
            let start = ContinuousClock.now
            let answer = String(decoding: try report(dav, collection, syncBody(token), basic), as: UTF8.self)
            figures.unchanged.append(seconds(since: start))
            guard !answer.contains("<d:response>") else { throw BenchError("an unchanged sync named changes") }
        }
        return figures
    }

    static func syncBody(_ token: String) -> [UInt8] {
        Array(
            ("<d:sync-collection xmlns:d=\"DAV:\"><d:sync-token>\(token)</d:sync-token><d:sync-level>1</d:sync-level>"
                + "<d:prop><d:getetag/></d:prop></d:sync-collection>").utf8)
    }

    /// A REPORT (depth 1) of `body` signed in with `authorization`; the answer's body, which must be a 207.
    static func report(_ dav: RawHTTPConnection, _ path: String, _ body: [UInt8], _ authorization: String) throws -> [UInt8] {
        let answer = try dav.request(
            "REPORT", path, body: body, contentType: "application/xml; charset=utf-8",
            headers: [("Depth", "1"), ("Authorization", authorization)])
        guard answer.status == 207 else {
            throw BenchError("REPORT answered \(answer.status): \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
        }
        return answer.body
    }

    /// The texts between each `open` and the next `close`, found by bytes (Foundation's search of a substring
    /// copies it each time: over a 6 MB answer that took the client minutes).
    static func matches(_ text: String, _ open: String, _ close: String) -> [String] {
        let bytes = Array(text.utf8)
        let (opening, closing) = (Array(open.utf8), Array(close.utf8))
        var found: [String] = []
        var at = 0
        while let start = firstIndex(of: opening, in: bytes, from: at), let end = firstIndex(of: closing, in: bytes, from: start + opening.count) {
            found.append(String(decoding: bytes[(start + opening.count)..<end], as: UTF8.self))
            at = end + closing.count
        }
        return found
    }
}
