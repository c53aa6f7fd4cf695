import Attribution
import HTTP

/// What the installed apps do after the campaign, for a database that looks like a running app's
/// (the dashboard's screenshot, demos): each install opens the app at once, may sign up, comes
/// back on later days less and less often, and may buy something. Drawn from a generator of its
/// own, so the population and the accuracy report are the same with or without it.
enum AppEvents {
    struct Event {
        let offsetMilliseconds: Int64
        let name: String
        let revenue: Double?
    }

    static let signupShare = 0.55
    /// The share of installs that open the app again on day N, N = 1, 2, 3, 5, 7, 10, 14.
    static let returning: [(day: Int64, share: Double)] = [(1, 0.42), (2, 0.33), (3, 0.28), (5, 0.22), (7, 0.18), (10, 0.14), (14, 0.11)]
    static let purchaseShare = 0.09
    static let prices = [0.99, 4.99, 9.99, 19.99, 49.99]

    /// The events of one install made at `installedAt` (milliseconds from the simulation's start).
    static func events(installedAt: Int64, random: inout SeededGenerator) -> [Event] {
        let minute: Int64 = 60_000
        let day: Int64 = 86_400_000
        var events = [Event(offsetMilliseconds: installedAt + Int64.random(in: 1...10, using: &random) * minute, name: "open", revenue: nil)]
        if random.chance(signupShare) {
            events.append(Event(offsetMilliseconds: installedAt + Int64.random(in: 2...40, using: &random) * minute, name: "signup", revenue: nil))
        }
        for (number, share) in returning where random.chance(share) {
            events.append(
                Event(
                    offsetMilliseconds: installedAt + number * day + Int64.random(in: 0..<(18 * 60), using: &random) * minute, name: "open",
                    revenue: nil))
        }
        if random.chance(purchaseShare) {
            let when = installedAt + Int64.random(in: 0...10, using: &random) * day + Int64.random(in: 30..<(16 * 60), using: &random) * minute
            events.append(Event(offsetMilliseconds: when, name: "purchase", revenue: prices.randomElement(using: &random)))
        }
        return events
    }

    /// Sends planned events as the simulation's clock reaches them, through the LinkForty event
    /// API with their own time (which charts them on their day): sent as they fall due, none
    /// arrives more than the API's 30 days late, however long the campaign runs.
    final class Sender {
        let client: InProcessClient
        let apiKey: String
        let start: Int64
        var random: SeededGenerator
        /// Latest first: the next one due is popped from the end.
        private var pending: [(installID: String, event: Event)] = []
        private(set) var sent = 0

        init(seed: UInt64, client: InProcessClient, apiKey: String, start: Int64) {
            random = SeededGenerator(seed: seed ^ 0xA99E_7E27)
            self.client = client
            self.apiKey = apiKey
            self.start = start
        }

        func plan(installID: String, installedAt: Int64) {
            pending += AppEvents.events(installedAt: installedAt, random: &random).map { (installID, $0) }
            pending.sort { $0.event.offsetMilliseconds > $1.event.offsetMilliseconds }
        }

        /// The next planned event's time, if any.
        var nextDue: Int64? { pending.last?.event.offsetMilliseconds }

        /// Sends the events due by `now` (milliseconds from the start; the project's clock is there).
        func sendDue(by now: Int64) throws {
            while let first = pending.last, first.event.offsetMilliseconds <= now {
                pending.removeLast()
                let time = Timestamp(milliseconds: start + first.event.offsetMilliseconds).iso8601
                let data = first.event.revenue.map { #","eventData":{"revenue":\#($0),"currency":"USD"}"# } ?? ""
                _ = try Simulation.object(
                    client.send(
                        .post, "/api/sdk/v1/event", from: "127.0.0.1", headers: ["Authorization": "Bearer \(apiKey)"],
                        json: #"{"installId":"\#(first.installID)","eventName":"\#(first.event.name)","timestamp":"\#(time)"\#(data)}"#),
                    expecting: 200)
                sent += 1
            }
        }
    }
}
