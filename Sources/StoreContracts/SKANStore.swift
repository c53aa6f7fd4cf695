public import Attribution

/// SKAN values for one install, computed and stored inside the caller's write transaction (the
/// store implements the evaluation; these are the values its callers hand over and receive).
public enum SKANStore {
    /// What evaluation needs of the project.
    public struct Context: Sendable {
        public var schema: SKANSchema
        /// The outbox jobs of a change of a window's values (`skan.updated`), written in the same transaction.
        public var notify: Notifier<SKANChange>?
        public init(schema: SKANSchema, notify: Notifier<SKANChange>? = nil) {
            self.schema = schema
            self.notify = notify
        }
    }

    /// A window whose stored values changed.
    public struct SKANChange: Sendable, Equatable {
        public var installID: String
        public var window: Int
        public var fine: Int?
        public var coarse: SKANSchema.Coarse?
        public var locked: Bool

        public init(installID: String, window: Int, fine: Int?, coarse: SKANSchema.Coarse?, locked: Bool) {
            self.installID = installID
            self.window = window
            self.fine = fine
            self.coarse = coarse
            self.locked = locked
        }
    }
}
