extension Counting {
    /// An install's SKAN value in a window changed (nil: none), counted at the install's hour.
    public static func skanChanged(window: Int, from old: String?, to new: String?, projectID: String, installedAt: Int64, isTest: Bool) -> Deltas {
        guard !isTest, old != new else { return Deltas() }
        return skanTallies(new.map { [SKANFact(window: window, value: $0)] } ?? [], projectID: projectID, installedAt: installedAt)
            + skanTallies(old.map { [SKANFact(window: window, value: $0)] } ?? [], projectID: projectID, installedAt: installedAt).negated
    }

    static func skanTallies(_ values: [SKANFact], of install: InstallFact) -> Deltas {
        skanTallies(values, projectID: install.projectID, installedAt: install.createdAt)
    }

    static func skanTallies(_ values: [SKANFact], projectID: String, installedAt: Int64) -> Deltas {
        var deltas = Deltas()
        for value in values {
            deltas.tallies.append(TallyDelta(projectID: projectID, at: installedAt, dimension: "skan\(value.window)", value: value.value, count: 1))
        }
        return deltas
    }
}
