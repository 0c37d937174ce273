import CloudModel
import Foundation
import NIOCore
import NIOPosix
import NIOSSL

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a server's certificate did not verify, found by looking at the chain it presents on a second connection.
enum CertificateDiagnosis {
    /// Whether `error` is a certificate (or host-name) verification failure.
    static func isVerificationFailure(_ error: any Error) -> Bool {
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname { return true }
        guard let ssl = error as? NIOSSLError, case .handshakeFailed(let inner) = ssl else { return false }
        return String(describing: inner).contains("CERTIFICATE_VERIFY_FAILED")
    }

    /// The reason in words: expired, not yet valid, issued for another host, self-signed or an unknown authority.
    static func reason(host: String, port: Int) async -> String {
        guard let chain = try? await presentedChain(host: host, port: port), let leaf = chain.first else {
            return "its certificate did not verify"
        }
        return words(leaf: leaf, host: host, now: time(nil))
    }

    /// The words for a leaf certificate presented for `host`, judged at `now`.
    static func words(leaf: NIOSSLCertificate, host: String, now: time_t) -> String {
        if now > leaf.notValidAfter {
            return "its certificate expired on \(day(leaf.notValidAfter)); the connection was refused"
        }
        if now < leaf.notValidBefore {
            return "its certificate is not valid yet (from \(day(leaf.notValidBefore))); the connection was refused"
        }
        let names = namesOf(leaf)
        if !names.contains(where: { matches($0, host: host) }) {
            let listed = names.isEmpty ? "no host name" : names.prefix(5).joined(separator: ", ")
            return "its certificate was issued for another host name (\(listed)), not \(host); the connection was refused"
        }
        if leaf.subjectName == leaf.issuerName {
            return "its certificate is self-signed and not trusted; give the cloud's CA certificate with --ca-file"
        }
        let issuer = leaf.issuerName.first(where: { $0.type == .commonName })?.value ?? "unnamed"
        return "its certificate is signed by an unknown authority (\(printable(issuer))); give that CA's certificate with --ca-file"
    }

    /// The certificate chain the server presents, read on a connection that verifies nothing and sends no request.
    private static func presentedChain(host: String, port: Int) async throws -> [NIOSSLCertificate] {
        let group = SharedHTTPClient.group
        let promise = group.next().makePromise(of: [NIOSSLCertificate].self)
        let context = try NIOSSLContext(configuration: .makeClientConfiguration())
        let isAddress = host.contains(":") || host.split(separator: ".").allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(.seconds(5))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture(withResultOf: {
                    let handler = try NIOSSLClientHandler(
                        context: context, serverHostname: isAddress ? nil : host,
                        customVerificationCallback: { chain, verdict in
                            promise.succeed(chain)
                            verdict.succeed(.failed)
                        })
                    try channel.pipeline.syncOperations.addHandler(handler)
                })
            }
        let timeout = group.next().scheduleTask(in: .seconds(5)) { promise.fail(TransportError("no certificate")) }
        var connected: (any Channel)?
        do {
            let channel = try await bootstrap.connect(host: host, port: port).get()
            channel.closeFuture.whenComplete { _ in promise.fail(TransportError("no certificate")) }
            connected = channel
        } catch {
            promise.fail(error)
        }
        defer {
            timeout.cancel()
            connected?.close(promise: nil)
        }
        return try await promise.futureResult.get()
    }

    /// The DNS names and addresses a certificate is for (the common name when it has no alternative names).
    private static func namesOf(_ certificate: NIOSSLCertificate) -> [String] {
        var names: [String] = []
        for name in certificate._subjectAlternativeNames() {
            let bytes = name.contents.withUnsafeBufferPointer { Array($0) }
            switch name.nameType {
            case .dnsName: names.append(printable(String(decoding: bytes, as: UTF8.self)))
            case .ipAddress: if let text = addressText(bytes) { names.append(text) }
            default: break
            }
        }
        if names.isEmpty, let common = certificate.subjectName.first(where: { $0.type == .commonName }) {
            names.append(printable(common.value))
        }
        return names
    }

    /// Whether a certificate name covers `host` (`*.` covers one leftmost label).
    static func matches(_ name: String, host: String) -> Bool {
        let name = name.lowercased()
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if name == host { return true }
        if let address = addressBytes(host), let named = addressBytes(name) { return address == named }
        guard name.hasPrefix("*."), let dot = host.firstIndex(of: ".") else { return false }
        return host[dot...] == name.dropFirst()
    }

    private static func addressBytes(_ text: String) -> [UInt8]? {
        IPAddressLiteral.bytes(text)
    }

    private static func addressText(_ bytes: [UInt8]) -> String? {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        var buffer = [CChar](repeating: 0, count: 64)
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let done = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        guard done != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A name from a certificate (untrusted) with control characters replaced, at most 80 characters.
    private static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix(80).map { $0.properties.generalCategory == .control ? "?" : $0 }))
    }

    private static func day(_ time: time_t) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(time)))
    }
}
