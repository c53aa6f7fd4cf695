import App
import Attribution
import CurlTransport
import Dispatch
import Foundation
import HTTP
import Store
import StoreContracts

// Webhook deliveries per second, one node, to a fast receiver on loopback (our own HTTP server
// answering 200 at once on its event loop).
//
//   outbox-bench [--jobs 20000] [--rounds 3] [--per-host 8] [--concurrency 32] [--transport curl|urlsession|none]
//       Queues N webhook jobs in a temporary database, starts the delivery worker, and times
//       until every job is recorded as delivered; prints deliveries/s per round and the median.
//   outbox-bench receive --port P
//       Only the receiver, until killed (scripts/bench's webhook A/B points a server at it).

func option(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

let jobs = Int(option("--jobs") ?? "") ?? 20_000
let rounds = Int(option("--rounds") ?? "") ?? 3
let perHost = Int(option("--per-host") ?? "") ?? 8
let concurrency = Int(option("--concurrency") ?? "") ?? 32
/// `--transport curl` (the server's), `urlsession` (the rejected one), or `none`: answers 200
/// without a request, to see what the worker and store cost alone.
let transportName = option("--transport") ?? "curl"

struct InstantTransport: OutboundTransport {
    func send(_ request: OutboundRequest, completion: @escaping @Sendable (Result<OutboundResponse, any Error>) -> Void) {
        DispatchQueue.global().async { completion(.success(OutboundResponse(statusCode: 204, headers: [:], bodyPrefix: ""))) }
    }
}

var router = RouterBuilder()
router.on(.post, "/hook", .inline { _ in HTTPResponse(status: .noContent) })
let receiverPort = CommandLine.arguments.dropFirst().first == "receive" ? UInt16(option("--port") ?? "") ?? 18199 : 0
let receiver = HTTPServer(host: "127.0.0.1", port: receiverPort, responder: router.build())
try receiver.start()
if CommandLine.arguments.dropFirst().first == "receive" {
    print("receiving on 127.0.0.1:\(receiver.port)")
    while true { sleep(3600) }
}

var rates: [Double] = []
for round in 1...rounds {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-bench-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = SQLiteStore(database: try Database(path: folder.appendingPathComponent("bench.sqlite").path))
    let app = AppServices(store: store, outboundPolicy: OutboundAddressPolicy(allowPrivateAddresses: true))
    let project = try app.projects.create(name: "Bench", settings: ProjectSettings()).project
    let endpoint = try app.webhooks.create(projectID: project.id, url: "http://127.0.0.1:\(receiver.port)/hook", events: nil)
    let now = SystemClock().now()
    let payload = #"{"type":"install.created","timestamp":"2026-11-24T12:00:00Z","data":{"install_id":"x"}}"#
    for start in stride(from: 0, to: jobs, by: 1000) {
        try store.outbox.enqueue(
            (start..<min(jobs, start + 1000)).map { index in
                OutboxMessage(
                    id: "job-\(index)", projectID: project.id, kind: "webhook", targetID: endpoint.id, targetURL: endpoint.url,
                    eventID: "msg_\(index)", eventType: "install.created", payload: payload, createdAt: now)
            })
    }
    var settings = OutboxWorker.Settings()
    settings.perHost = perHost
    settings.concurrency = concurrency
    settings.pollSeconds = 0.01
    let transport: any OutboundTransport =
        switch transportName {
        case "none": InstantTransport()
        case "urlsession": URLSessionTransport()
        default: CurlTransport(policy: app.outboundPolicy)
        }
    let worker = app.makeOutboxWorker(transport: transport, settings: settings)
    let started = DispatchTime.now().uptimeNanoseconds
    worker.start()
    while (try store.outbox.backlog().first { $0.status == .pending }?.count ?? 0) > 0 { usleep(20_000) }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
    worker.stop(drainSeconds: 5)
    (transport as? CurlTransport)?.shutdown()
    (transport as? URLSessionTransport)?.shutdown()
    let failed = try store.outbox.backlog().first { $0.status == .failed }?.count ?? 0
    let rate = Double(jobs) / seconds
    rates.append(rate)
    print(String(format: "round %d: %d deliveries in %.2f s = %.0f/s (failed: %d)", round, jobs, seconds, rate, failed))
}
let median = rates.sorted()[rates.count / 2]
print(String(format: "median: %.0f deliveries/s (transport %@, per-host %d, concurrency %d)", median, transportName, perHost, concurrency))
receiver.shutdownAndWait()
