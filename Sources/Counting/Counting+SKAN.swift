extension Counting {
    /// An install's SKAN value in a window changed (nil: none), counted at the install's hour.
    public static func skanChanged(window: Int, from old: String?, to new: String?, of install: InstallFact) -> Deltas {
        guard !install.isTest, old != new else { return Deltas() }
        return skanTallies(new.map { [SKANFact(window: window, value: $0)] } ?? [], of: install)
            + skanTallies(old.map { [SKANFact(window: window, value: $0)] } ?? [], of: install).negated
    }

    static func skanTallies(_ values: [SKANFact], of install: InstallFact) -> Deltas {
        var deltas = Deltas()
        for value in values {
            deltas.tallies.append(
                TallyDelta(projectID: install.projectID, at: install.createdAt, dimension: "skan\(value.window)", value: value.value, count: 1))
        }
        return deltas
    }
}
