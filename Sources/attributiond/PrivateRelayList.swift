import API
import App
import Attribution
import Configuration
import CurlTransport
import Dispatch
import Foundation
import Lifecycle

/// Apple's Private Relay egress list fetched and kept (docs/traffic-quality.md): `ip-lists update`
/// and, with `private_relay_refresh`, once a day in `serve`. A file is replaced only by one that
/// reads as a list (written beside it, then renamed), so a failed fetch keeps the last good list.
enum PrivateRelayList {
    /// Apple's file is ~10 MB; a body beyond this is refused.
    static let maximumBytes = 64 << 20

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Fetches `url` into `path`; returns how many prefixes it holds.
    static func update(url: String, path: String, timeoutSeconds: Double = 120) throws(Failure) -> Int {
        let transport = CurlTransport(connectTimeout: 10, totalTimeout: timeoutSeconds, allowPrivateAddresses: true)
        defer { transport.shutdown() }
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var answer: Result<OutboundResponse, any Error>?
        transport.send(OutboundRequest(method: "GET", url: url, headers: [], body: [], keptResponseBytes: maximumBytes)) { result in
            answer = result
            done.signal()
        }
        done.wait()
        let response: OutboundResponse
        switch answer {
        case .success(let got)?: response = got
        case .failure(let error)?: throw Failure(description: "cannot fetch \(url): \(error)")
        case nil: throw Failure(description: "cannot fetch \(url)")
        }
        guard response.statusCode == 200 else { throw Failure(description: "\(url) answered \(response.statusCode)") }
        let text = response.bodyPrefix
        guard text.utf8.count < maximumBytes else { throw Failure(description: "\(url) is \(maximumBytes >> 20) MB or more: not a relay list") }
        let prefixes = AddressListFile.privateRelay(text).blocks.count
        guard prefixes > 0 else { throw Failure(description: "\(url) held no prefix in Apple's egress-ip-ranges.csv format") }
        let temporary = path + ".partial"
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
            if FileManager.default.fileExists(atPath: path) {
                _ = try FileManager.default.replaceItemAt(URL(fileURLWithPath: path), withItemAt: URL(fileURLWithPath: temporary))
            } else {
                try FileManager.default.moveItem(atPath: temporary, toPath: path)
            }
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw Failure(description: "cannot write \(path): \(error)")
        }
        return prefixes
    }
}

/// `serve` with `private_relay_refresh`: the list fetched again every day, and every list read
/// again and swapped in while requests go on.
final class PrivateRelayRefreshJob: Service, @unchecked Sendable {
    let serviceName = "private relay list"
    private let timer: any DispatchSourceTimer

    init(configuration: ServerConfiguration, lists: AddressLists, every interval: DispatchTimeInterval = .seconds(86_400)) {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "attributiond.private-relay", qos: .utility))
        timer.schedule(deadline: .distantFuture)
        self.interval = interval
        timer.setEventHandler {
            guard let path = configuration.privateRelayList else { return }
            do {
                let prefixes = try PrivateRelayList.update(url: configuration.privateRelayURL, path: path)
                let (ranges, _) = try AddressListFile.load(
                    privateRelay: path, lists: configuration.ipLists.map { (AddressClass(rawValue: $0.addressClass), $0.path) })
                lists.replace(with: ranges, hasRelayList: true)
                LifecycleLog.write(level: "info", message: "private relay list refreshed", fields: ["prefixes": String(prefixes)])
            } catch {
                LifecycleLog.write(level: "warning", message: "private relay list not refreshed", fields: ["error": "\(error)"])
            }
        }
        timer.resume()
    }

    private let interval: DispatchTimeInterval

    func start() { timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .seconds(60)) }

    func stop(by deadline: DispatchTime) { timer.cancel() }
}
