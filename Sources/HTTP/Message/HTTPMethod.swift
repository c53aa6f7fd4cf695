/// A request method (RFC 9110 §9). Methods are case-sensitive tokens, so this is a thin wrapper
/// around the exact bytes the client sent; the common ones are interned as constants.
public struct HTTPMethod: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let get = HTTPMethod("GET")
    public static let head = HTTPMethod("HEAD")
    public static let post = HTTPMethod("POST")
    public static let put = HTTPMethod("PUT")
    public static let patch = HTTPMethod("PATCH")
    public static let delete = HTTPMethod("DELETE")
    public static let options = HTTPMethod("OPTIONS")
    public static let connect = HTTPMethod("CONNECT")

    public var description: String { rawValue }

    /// Avoids allocating a new String for the methods nearly every request uses.
    static func intern(_ bytes: UnsafeBufferPointer<UInt8>) -> HTTPMethod {
        switch bytes.count {
        case 3:
            if bytes[0] == 0x47, bytes[1] == 0x45, bytes[2] == 0x54 { return .get }
            if bytes[0] == 0x50, bytes[1] == 0x55, bytes[2] == 0x54 { return .put }
        case 4:
            if bytes[0] == 0x50, bytes[1] == 0x4F, bytes[2] == 0x53, bytes[3] == 0x54 { return .post }
            if bytes[0] == 0x48, bytes[1] == 0x45, bytes[2] == 0x41, bytes[3] == 0x44 { return .head }
        default:
            break
        }
        return HTTPMethod(String(decoding: bytes, as: UTF8.self))
    }
}

public enum HTTPVersion: Sendable, Equatable {
    case http1_0
    case http1_1
}
