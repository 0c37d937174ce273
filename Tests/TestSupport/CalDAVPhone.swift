// Tests only: `todo-bench` links this target in release, where URLSession (FoundationNetworking) would make its static
// link need libcurl's development files.
#if canImport(Testing)
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A phone on CalDAV, as the tests play one against a cloud at `baseURL`: HTTP Basic with an account and its app
/// password, and the default collection's `sync-collection`. It answers what came back; the tests judge it.
public struct CalDAVPhone: Sendable {
    public let baseURL: URL
    public let account: String
    public let password: String

    /// A phone signing in to the cloud at `baseURL` as `account` with an app password.
    public init(baseURL: URL, account: String, password: String) {
        self.baseURL = baseURL
        self.account = account
        self.password = password
    }

    /// One request: status, body text and ETag.
    public func request(_ method: String, _ path: String, _ body: String? = nil, headers: [String: String] = [:]) async throws
        -> (status: Int, text: String, etag: String?)
    {
        var request = URLRequest(url: URL(string: baseURL.absoluteString + path)!)
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        request.setValue(method == "PUT" ? "text/calendar" : "application/xml", forHTTPHeaderField: "Content-Type")
        request.setValue("Basic " + Data("\(account):\(password)".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        return (http?.statusCode ?? 0, String(decoding: data, as: UTF8.self), http?.value(forHTTPHeaderField: "ETag"))
    }

    /// The default collection's `sync-collection` from `token` ("" for the first): the answer's status, the hrefs it
    /// names, its text and the new token.
    public func sync(token: String) async throws -> (status: Int, hrefs: [String], text: String, token: String) {
        let body = """
            <d:sync-collection xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:sync-token>\(token)</d:sync-token>\
            <d:sync-level>1</d:sync-level><d:prop><d:getetag/><c:calendar-data/></d:prop></d:sync-collection>
            """
        let answer = try await request("REPORT", "/dav/calendars/\(account)/todos/", body)
        func between(_ open: String, _ close: String) -> [String] {
            answer.text.components(separatedBy: open).dropFirst().compactMap { $0.components(separatedBy: close).first }
        }
        return (answer.status, between("<d:href>", "</d:href>"), answer.text, between("<d:sync-token>", "</d:sync-token>").first ?? "")
    }
}
#endif
