import Attribution
import Cryptography
import StoreContracts

/// GDPR erasure: everything stored about one install or one user of a project, and nothing else.
struct Erasure<Source: SessionSource>: ErasureStore {
    let source: Source

    /// Deletes the install with its events, payments and SKAN state (by foreign-key cascade) and its
    /// webhook and postback jobs, and removes its device identifiers from the clicks that carried
    /// them. False when unknown.
    public func eraseInstall(projectID: String, installID: String, at time: Timestamp) throws -> Bool {
        try source.writeSession { connection in
            let userID =
                try connection.queryOne(
                    "SELECT user_id FROM installs WHERE id = ? AND project_id = ?", installID, projectID, map: { $0.optionalString(0) }) ?? nil
            guard try ErasureRepository.erase(installIDs: [installID], projectID: projectID, connection) > 0 else { return false }
            try ErasureRepository.record(kind: "install", installID: installID, userID: userID, projectID: projectID, at: time, connection)
            return true
        }
    }

    /// Deletes the user, every install linked to them (as above), and their events and payments on
    /// other installs. False when the project knows nothing of that user.
    public func eraseUser(projectID: String, userID: String, at time: Timestamp) throws -> Bool {
        try source.writeSession { connection in
            let installIDs = try connection.query(
                "SELECT id FROM installs WHERE project_id = ? AND user_id = ?",
                projectID, userID
            ) { $0.string(0) }
            var erased = try ErasureRepository.erase(installIDs: installIDs, projectID: projectID, connection)
            let eventInstalls = try connection.query(ErasureRepository.SQL.userEventInstalls, projectID, userID) { $0.string(0) }
            let paymentInstalls = try connection.query(ErasureRepository.SQL.userPaymentInstalls, projectID, userID) { $0.string(0) }
            // The user's events and payments on other installs: those installs counted again without them.
            try CountedWrites.changingInstalls(eventInstalls + paymentInstalls, connection) {
                for installID in eventInstalls {
                    erased += try connection.run(ErasureRepository.SQL.deleteUserEventsOfInstall, installID, userID)
                    try connection.run(RollupFacts.refreshRevenueFlag, installID)
                    for statement in EventMarks.recomputeInstall { try connection.run(statement, installID) }
                }
                erased += try connection.run("DELETE FROM payments WHERE project_id = ? AND user_id = ?", projectID, userID)
            }
            try connection.run(ErasureRepository.SQL.forgetUserEventInstalls, projectID, userID)
            erased += try connection.run("DELETE FROM users WHERE project_id = ? AND user_id = ?", projectID, userID)
            guard erased > 0 else { return false }
            for installID in installIDs {
                try ErasureRepository.record(kind: "install", installID: installID, userID: userID, projectID: projectID, at: time, connection)
            }
            try ErasureRepository.record(kind: "user", installID: nil, userID: userID, projectID: projectID, at: time, connection)
            return true
        }
    }
}

extension Erasure where Source == Database {
    init(database: Database) { self.init(source: database) }
}

/// Erasure's SQL, for both backends.
enum ErasureRepository {
    static func record(kind: String, installID: String?, userID: String?, projectID: String, at time: Timestamp, _ connection: some StoreSession)
        throws
    {
        try connection.run(
            "INSERT INTO erasures (id, project_id, erased_at, kind, install_id, user_id) VALUES (?, ?, ?, ?, ?, ?)",
            TimeOrderedID.secure(at: time), projectID, time.milliseconds, kind, installID, userID)
    }

    static func erase(installIDs: [String], projectID: String, _ connection: some StoreSession) throws -> Int {
        var erased = 0
        for installID in installIDs {
            guard
                let (idfv, advertisingID) = try connection.queryOne(
                    "SELECT idfv, advertising_id FROM installs WHERE id = ? AND project_id = ?", installID, projectID,
                    map: { ($0.optionalString(0), $0.optionalString(1)) })
            else { continue }
            // The click stays counted (and stays used), but no longer identifies the device.
            try connection.run(SQL.releaseClaimedClicks, projectID, installID)
            if let idfv { try connection.run("UPDATE clicks SET idfv = NULL WHERE project_id = ? AND idfv = ?", projectID, idfv) }
            if let advertisingID {
                try connection.run("UPDATE clicks SET advertising_id = NULL WHERE project_id = ? AND advertising_id = ?", projectID, advertisingID)
            }
            try connection.run(SQL.unlinkUsers, projectID, installID)
            try connection.run(SQL.forgetInstallsUserEvents, installID)
            try OutboxRepository.deleteJobs(ofInstall: installID, connection)
            // Taken out of the rollups with its events, payments and SKAN values (deleted with it).
            erased += try CountedWrites.changingInstalls([installID], connection) {
                try connection.run("DELETE FROM installs WHERE id = ? AND project_id = ?", installID, projectID)
            }
        }
        return erased
    }

    /// The statements that would otherwise read whole tables of the project; `ErasurePlanTests` checks
    /// that each finds its rows through an index.
    enum SQL {
        static let userEventInstalls = "SELECT install_id FROM user_event_installs WHERE project_id = ? AND user_id = ?"
        static let userPaymentInstalls = "SELECT DISTINCT install_id FROM payments WHERE project_id = ? AND user_id = ?"
        static let deleteUserEventsOfInstall = "DELETE FROM events WHERE install_id = ? AND user_id = ?"
        static let forgetUserEventInstalls = "DELETE FROM user_event_installs WHERE project_id = ? AND user_id = ?"
        static let releaseClaimedClicks = """
            UPDATE clicks SET idfv = NULL, advertising_id = NULL, install_id = NULL WHERE project_id = ? AND install_id = ?
            """
        static let unlinkUsers = "UPDATE users SET install_id = NULL WHERE project_id = ? AND install_id = ?"
        static let forgetInstallsUserEvents = "DELETE FROM user_event_installs WHERE install_id = ?"
    }
}
