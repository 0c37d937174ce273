import CloudModel
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A JSON answer as a web client reads it: status, body as sent, and the body parsed.
struct WebAnswer {
    var status: Int
    var text: String
    var json: [String: Any]

    /// The value at a path of keys and indexes (`"subscriptions", 0, "subscriptionID"`).
    subscript(_ path: Any...) -> Any? {
        var value: Any? = json
        for step in path {
            if let key = step as? String { value = (value as? [String: Any])?[key] } else if let index = step as? Int {
                guard let array = value as? [Any], array.indices.contains(index) else { return nil }
                value = array[index]
            }
        }
        return value
    }
}

extension TestCloud {
    /// Sends `body` (JSON text, as the reference gives it) to `path`, with `query` appended (`ckAPIToken=…`), and reads
    /// the answer as JSON.
    func web(_ path: String, _ body: String? = nil, method: String = "POST", token: String? = nil, query: String? = nil) async throws -> WebAnswer {
        let full = query.map { path + (path.contains("?") ? "&" : "?") + $0 } ?? path
        let (status, data) = try await raw(method, full, body: body.map { Data($0.utf8) }, token: token)
        let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return WebAnswer(status: status, text: String(decoding: data, as: UTF8.self), json: json)
    }

    /// GETs a URL the cloud handed out, exactly as handed out (plus `extra` query items); status and body.
    func fetch(_ url: String, method: String = "GET", body: Data? = nil, extra: String? = nil) async throws -> (status: Int, body: Data) {
        let full = extra.map { url + (url.contains("?") ? "&" : "?") + $0 } ?? url
        return try await TestHTTPClient.send(method, full, body: body)
    }

    /// `tokens/create` as CloudKit JS sends it (no `tokens/register` after); the courier URL.
    func createWebToken(_ device: Device, query: String? = nil) async throws -> String {
        let answer = try await web(address.devicePath("tokens/create"), #"{"apnsEnvironment":"development"}"#, token: device.token, query: query)
        #expect(answer.status == 200, "\(answer.text)")
        return try #require(answer["webcourierURL"] as? String)
    }

    /// One long-poll of a courier URL as handed out; the notification's JSON, nil on 204.
    func pollWeb(_ courier: String, timeout: Double, ack: String? = nil) async throws -> WebAnswer? {
        var extra = "timeout=\(timeout)"
        if let ack { extra += "&ack=\(ack)" }
        let (status, data) = try await fetch(courier, extra: extra)
        if status == 204 { return nil }
        let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return WebAnswer(status: status, text: String(decoding: data, as: UTF8.self), json: json)
    }

    /// The next `count` notifications of a courier, each acknowledged by the next poll.
    func drain(_ courier: String, count: Int, ack: String? = nil) async throws -> (pushes: [WebAnswer], ack: String?) {
        var pushes: [WebAnswer] = []
        var ack = ack
        while pushes.count < count {
            guard let push = try await pollWeb(courier, timeout: 10, ack: ack) else { break }
            ack = push["ck", "nid"] as? String
            pushes.append(push)
        }
        return (pushes, ack)
    }
}
