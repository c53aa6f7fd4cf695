import Attribution
import Foundation
import StoreContracts
import Synchronization

/// The ECB's daily reference rates fetched where the server may reach them (docs/cost.md,
/// "Currencies"): `eurofxref-daily.xml` once a day after 16:00 UTC (the ECB publishes around
/// 16:00 CET), each day's rates replacing what was stored for it. Off when no URL is set.
public final class ECBRateFetcher: Sendable {
    public static let dailyURL = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml"
    private let url: String?
    private let store: any StoreBackend
    private let clock: any Clock
    private let outbound: LateTransport
    /// The UTC day fetched last by this node.
    private let fetchedDay = Mutex<String?>(nil)

    init(url: String?, store: any StoreBackend, clock: any Clock, outbound: LateTransport) {
        self.outbound = outbound
        self.url = url
        self.store = store
        self.clock = clock
    }

    /// Fetches once a UTC day, from 16:00 on.
    func fetchIfDue() {
        let now = clock.now()
        let day = LocalCalendar.utc.dateText(now)
        guard url != nil, now.milliseconds % 86_400_000 >= 16 * 3_600_000, fetchedDay.withLock({ $0 }) != day else { return }
        fetch { [self] result in if case .success = result { fetchedDay.withLock { $0 = day } } }
    }

    /// Fetches now: how many days and rates were stored, or why not.
    public func fetch(completion: @escaping @Sendable (Result<(days: Int, rates: Int), CostPullFailure>) -> Void) {
        guard let url else { return completion(.failure(CostPullFailure(description: "fetching rates is off (fx_url is empty)"))) }
        guard let transport = outbound.current else {
            return completion(.failure(CostPullFailure(description: "outbound requests are not running on this node")))
        }
        transport.send(OutboundRequest(method: "GET", url: url, headers: [], body: [], keptResponseBytes: 1_048_576)) { [store] answer in
            guard case .success(let response) = answer, response.statusCode == 200 else {
                return completion(.failure(CostPullFailure(description: "the ECB's rates could not be fetched from \(url)")))
            }
            let days = ECBDailyXML.days(response.bodyPrefix)
            guard !days.isEmpty else { return completion(.failure(CostPullFailure(description: "\(url) held no reference rates"))) }
            DispatchQueue.global().async {
                do {
                    completion(.success((days.count, try store.exchangeRates.save(days))))
                } catch {
                    completion(.failure(CostPullFailure(description: "the rates could not be stored: \(error)")))
                }
            }
        }
    }
}
