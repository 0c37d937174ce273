import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Words for what AsyncHTTPClient, NIO and NIOSSL throw, so `todo sync` says what went wrong: a refused connection,
// a deadline, a certificate that expired or was issued for another host.

extension TransportError {
    /// A failure of an exchange with `host`, in words; a certificate that did not verify is looked at again to name why.
    init(describing error: any Error, host: String, port: Int?) async {
        if CertificateDiagnosis.isVerificationFailure(error) {
            let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            let why = await CertificateDiagnosis.reason(host: bare, port: port ?? 443)
            self.init("\(host): \(why)")
            return
        }
        self.init("\(host) unreachable: \(Self.words(for: error))")
    }

    private static func words(for error: any Error) -> String {
        switch error {
        case let error as HTTPClientError:
            switch error {
            case .connectTimeout, .tlsHandshakeTimeout: return "connection timed out"
            case .deadlineExceeded, .readTimeout: return "timed out waiting for the answer"
            case .writeTimeout: return "timed out sending"
            case .remoteConnectionClosed: return "the cloud closed the connection"
            case .bodyLengthMismatch: return "the answer's length does not match its Content-Length"
            default: return String(describing: error)
            }
        case let error as NIOConnectionError:
            if let first = error.connectionErrors.first { return words(for: first.error) }
            if error.dnsAError != nil || error.dnsAAAAError != nil { return "cannot resolve \(error.host)" }
            return "cannot connect to \(error.host)"
        case let error as IOError:
            return String(cString: strerror(error.errnoCode))
        case let error as HTTPParserError:
            switch error {
            case .headerOverflow: return "the answer's head is too large"
            case .invalidContentLength, .unexpectedContentLength: return "the answer has a bad Content-Length"
            case .invalidChunkSize: return "the answer has a bad chunk size"
            case .invalidEOFState: return "the answer was cut short"
            default: return "not a valid HTTP answer (\(error))"
            }
        case let error as NIOSSLError:
            return "TLS failed (\(error))"
        case is NIOTooManyBytesError:
            return "the answer is too large"
        default:
            return String(describing: error)
        }
    }
}
