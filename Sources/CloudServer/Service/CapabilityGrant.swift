import CloudModel
import Crypto
import Foundation

/// The signature a cloud started with `--api-token` puts in the URLs it hands out (`?grant=EXPIRES.MAC`), so they
/// work as handed out: a web client fetches a `downloadURL` or polls a `webcourierURL` without adding `ckAPIToken`.
///
/// The MAC is HMAC-SHA-256 over the URL's decoded path and its expiry, under a key derived from the API token:
/// changing the token revokes every URL it signed. A grant proves only that this cloud handed the URL out; the
/// credential in the path (push token, upload ticket, asset ID) is still checked as before.
struct CapabilityGrant: Sendable {
    private let key: SymmetricKey

    /// The query parameter that carries a grant.
    static let parameter = "grant"
    /// How long each kind of URL is signed for, in ms; nil: for as long as the API token stays (a `downloadURL` is
    /// stored in its record's field, and must keep working for as long as the record names it).
    static func lifetime(_ url: CapabilityURL) -> Int64? {
        switch url {
        case .courier: 30 * 86_400_000
        case .assetUpload: CloudService.uploadLifetime
        case .assetDownload: nil
        }
    }

    init(apiToken: String) {
        key = SymmetricKey(data: SHA256.hash(data: Data("capability-grant\n\(apiToken)".utf8)))
    }

    /// The grant of `path` (decoded, as `CapabilityURL.path` builds it) until `expires` (ms since 1970; 0: never).
    func grant(path: String, expires: Int64) -> String {
        "\(expires).\(mac(path: path, expires: expires))"
    }

    /// Whether `grant` signs `path` and has not expired at `now`.
    func verifies(_ grant: String, path: String, now: Int64) -> Bool {
        let parts = grant.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, let expires = Int64(parts[0]), expires == 0 || expires > now else { return false }
        return Secrets.constantTimeEquals(Array(parts[1].utf8), Array(mac(path: path, expires: expires).utf8))
    }

    private func mac(path: String, expires: Int64) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Data("\(path)\n\(expires)".utf8), using: key)
        return code.map { String(format: "%02x", $0) }.joined()
    }
}

extension CloudService {
    /// A URL the cloud hands out, signed when the cloud requires an API token.
    func capabilityURL(_ kind: CapabilityURL, origin: String, container: String, credential: String) -> String {
        let url = kind.url(origin: origin, container: container, credential: credential)
        guard let grants = capabilityGrants else { return url }
        let expires = CapabilityGrant.lifetime(kind).map { nowMillis + $0 } ?? 0
        return url + "?\(CapabilityGrant.parameter)=" + grants.grant(path: kind.path(container: container, credential: credential), expires: expires)
    }

    /// How long a poll that cannot succeed is held before its answer, at most: a web client that polls again at once
    /// (CloudKit JS does) then polls every 2 s instead of flooding the cloud.
    static let failedPollHold: Double = 2

    /// Waits out a failed courier poll: `failedPollHold`, or the poll's own timeout when shorter.
    static func holdFailedPoll(_ query: [String: String]) async {
        let asked = query["timeout"].flatMap(Double.init) ?? failedPollHold
        let seconds = asked.isFinite ? min(max(asked, 0), failedPollHold) : 0
        try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
    }
}
