import ArgumentParser
import Foundation
import Simulation

/// `attributiond simulate`: what the matching settings do to a simulated population, before launch.
struct Simulate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a simulated population through the real engine and store; print precision, recall, F1 and calibration.",
        discussion: """
            Everything runs in this process, on a temporary database, in a test-mode project whose clock \
            moves from one simulated action to the next. The population knobs are documented in docs/accuracy.md.
            """)

    @Option(help: "Seed of the population (the same seed gives the same run).") var seed: UInt64 = 1
    @Option(help: "The project's min_confidence.") var minConfidence = Simulation.Settings().minConfidence
    @Option(help: "The project's attribution window in hours.") var attributionWindowHours = 168
    @Flag(help: "Print the report as JSON.") var json = false
    @Option(help: "Keep the simulated database at this path (a new file), to serve or inspect.") var database: String?
    @Flag(help: "After the campaign, the installed apps' opens, signups and purchases over two weeks.") var appEvents = false

    @Option(help: "People in the population.") var users = PopulationModel().users
    @Option(help: "Share of people who click the link.") var clickShare = PopulationModel().clickShare
    @Option(help: "Share of clickers who install.") var installAfterClickShare = PopulationModel().installAfterClickShare
    @Option(help: "Share of non-clickers who install anyway (organic).") var organicInstallShare = PopulationModel().organicInstallShare
    @Option(help: "Days over which clicks are spread.") var days = PopulationModel().days
    @Option(help: "Median minutes from click to install (log-normal).") var delayMedianMinutes = PopulationModel().delayMedianMinutes
    @Option(help: "σ of the natural log of that delay.") var delaySpread = PopulationModel().delaySpread
    @Option(help: "Share of clicks made on cellular rather than Wi-Fi.") var cellularShare = PopulationModel().cellularShare
    @Option(help: "Share of installs on the other network than their click.") var ipChangeShare = PopulationModel().ipChangeShare
    @Option(help: "Share of people in households of 2-5 behind one address.") var householdShare = PopulationModel().householdShare
    @Option(help: "Share of people behind carrier NAT on cellular.") var carrierNatShare = PopulationModel().carrierNATShare
    @Option(help: "People per carrier NAT address.") var carrierNatUsersPerAddress = PopulationModel().carrierNATUsersPerAddress
    @Option(help: "Share of iPhones on the single most popular model and iOS version.") var popularDeviceShare = PopulationModel().popularDeviceShare
    @Option(help: "Share of clickers who click again before installing.") var repeatClickShare = PopulationModel().repeatClickShare
    @Option(help: "Bot clicks per human click.") var botClicksPerClick = PopulationModel().botClicksPerClick
    @Option(help: "Share of people on iOS.") var iosShare = PopulationModel().iosShare
    @Option(help: "Share of installs from the Linkrunner SDK (the rest LinkForty).") var linkrunnerShare = PopulationModel().linkrunnerShare
    @Option(help: "Share of clicks whose page reports browser signals.") var beaconShare = PopulationModel().beaconShare
    @Option(help: "Share of Linkrunner Android installs whose Play referrer has the click id.") var playReferrerShare = PopulationModel()
        .playReferrerShare
    @Option(help: "Share of people with the app who later open the link inside it.") var inAppOpenShare = PopulationModel().inAppOpenShare
    @Option(help: "Share of iPhone owners whose Safari taps go through iCloud Private Relay.") var privateRelayShare = PopulationModel()
        .privateRelayShare
    @Option(help: "Relay egress addresses each region's taps share.") var relayAddressesPerRegion = PopulationModel().relayAddressesPerRegion
    @Option(help: "Share of Linkrunner Android installs that get a click injected after Play began them.") var injectedClickShare =
        PopulationModel().injectedClickShare
    @Option(help: "Share of people a flooding source fires a burst of clicks for from their address.") var floodingShare = PopulationModel()
        .floodingShare
    @Option(help: "Clicks in each flood burst (ten minutes).") var floodBurstClicks = PopulationModel().floodBurstClicks

    var model: PopulationModel {
        var model = PopulationModel()
        model.users = users
        model.clickShare = clickShare
        model.installAfterClickShare = installAfterClickShare
        model.organicInstallShare = organicInstallShare
        model.days = days
        model.delayMedianMinutes = delayMedianMinutes
        model.delaySpread = delaySpread
        model.cellularShare = cellularShare
        model.ipChangeShare = ipChangeShare
        model.householdShare = householdShare
        model.carrierNATShare = carrierNatShare
        model.carrierNATUsersPerAddress = carrierNatUsersPerAddress
        model.popularDeviceShare = popularDeviceShare
        model.repeatClickShare = repeatClickShare
        model.botClicksPerClick = botClicksPerClick
        model.iosShare = iosShare
        model.linkrunnerShare = linkrunnerShare
        model.beaconShare = beaconShare
        model.playReferrerShare = playReferrerShare
        model.inAppOpenShare = inAppOpenShare
        model.privateRelayShare = privateRelayShare
        model.relayAddressesPerRegion = relayAddressesPerRegion
        model.injectedClickShare = injectedClickShare
        model.floodingShare = floodingShare
        model.floodBurstClicks = floodBurstClicks
        return model
    }

    func validate() throws {
        if let problem = model.problems().first { throw ValidationError(problem) }
        if !(0...1).contains(minConfidence) { throw ValidationError("--min-confidence must be between 0 and 1") }
        if !(1...2160).contains(attributionWindowHours) { throw ValidationError("--attribution-window-hours must be between 1 and 2160") }
    }

    func run() throws {
        var settings = Simulation.Settings()
        settings.model = model
        settings.seed = seed
        settings.minConfidence = minConfidence
        settings.attributionWindowHours = attributionWindowHours
        settings.databasePath = database
        settings.appEvents = appEvents
        let bar = ProgressBar(enabled: isatty(STDERR_FILENO) == 1)
        let report: AccuracyReport
        do {
            report = try Simulation.run(settings) { done, total in bar.show(done, of: total) }
        } catch {
            bar.finish()
            FileHandleOutput.standardError("simulate: \(error)")
            throw ExitCode.failure
        }
        bar.finish()
        print(json ? report.json : report.text)
    }
}

/// `[#####-----] 52%` on one line of stderr, redrawn in place; nothing at all when not a TTY.
struct ProgressBar {
    let enabled: Bool
    let width = 40

    func show(_ done: Int, of total: Int) {
        guard enabled, total > 0 else { return }
        let filled = width * done / total
        let line = "\r[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] \(100 * done / total)% "
        FileHandle.standardError.write(Data(line.utf8))
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data(("\r" + String(repeating: " ", count: width + 8) + "\r").utf8))
    }
}
