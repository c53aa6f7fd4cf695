import Cryptography
import Foundation

/// A certificate chain made as Apple's is (root, an intermediate with Apple's WWDR marker, a leaf
/// with the App Store signing marker, P-256 keys), by the `openssl` command, to sign notifications
/// the way the App Store does: a JWS whose `x5c` is the chain.
struct AppStoreChain {
    let rootPEM: String
    let leafKeyPEM: String
    /// Base64 DER, leaf first, root last, as `x5c` carries them.
    let x5c: [String]

    /// `markers: false` leaves Apple's marker extensions out: a chain any CA could issue.
    static func make(markers: Bool = true) throws -> AppStoreChain {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-chain-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        func openssl(_ arguments: [String]) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw CocoaError(.executableLoad) }
        }
        for name in ["root", "intermediate", "leaf"] {
            try openssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", path("\(name).key")])
        }
        try openssl([
            "req", "-x509", "-new", "-key", path("root.key"), "-subj", "/CN=Test Root CA", "-days", "30", "-out", path("root.pem"),
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
        let extensions = """
            [intermediate]
            basicConstraints=critical,CA:TRUE
            keyUsage=critical,keyCertSign,cRLSign
            \(markers ? "1.2.840.113635.100.6.2.1=ASN1:NULL" : "")
            [leaf]
            basicConstraints=critical,CA:FALSE
            keyUsage=critical,digitalSignature
            \(markers ? "1.2.840.113635.100.6.11.1=ASN1:NULL" : "")
            """
        try extensions.write(toFile: path("extensions.cnf"), atomically: true, encoding: .utf8)
        for (name, issuer) in [("intermediate", "root"), ("leaf", "intermediate")] {
            try openssl(["req", "-new", "-key", path("\(name).key"), "-subj", "/CN=Test \(name)", "-out", path("\(name).csr")])
            try openssl([
                "x509", "-req", "-in", path("\(name).csr"), "-CA", path("\(issuer).pem"), "-CAkey", path("\(issuer).key"), "-CAcreateserial",
                "-days", "30", "-extfile", path("extensions.cnf"), "-extensions", name, "-out", path("\(name).pem"),
            ])
        }
        func der(_ name: String) throws -> String {
            try openssl(["x509", "-in", path("\(name).pem"), "-outform", "DER", "-out", path("\(name).der")])
            return try Data(contentsOf: URL(fileURLWithPath: path("\(name).der"))).base64EncodedString()
        }
        try openssl(["pkcs8", "-topk8", "-nocrypt", "-in", path("leaf.key"), "-out", path("leaf.p8")])
        return AppStoreChain(
            rootPEM: try String(contentsOfFile: path("root.pem"), encoding: .utf8),
            leafKeyPEM: try String(contentsOfFile: path("leaf.p8"), encoding: .utf8),
            x5c: [try der("leaf"), try der("intermediate"), try der("root")])
    }

    /// `payload` (a JSON object's text) signed as the App Store signs.
    func sign(_ payload: String) -> String {
        func base64URL(_ bytes: [UInt8]) -> String {
            Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let header = #"{"alg":"ES256","x5c":[\#(x5c.map { "\"\($0)\"" }.joined(separator: ","))]}"#
        let signed = base64URL(Array(header.utf8)) + "." + base64URL(Array(payload.utf8))
        return signed + "." + base64URL(ES256.sign(Array(signed.utf8), privateKeyPEM: leafKeyPEM) ?? [])
    }
}
