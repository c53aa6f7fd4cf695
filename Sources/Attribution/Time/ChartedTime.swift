/// When a stored event is charted: the time the app says it happened, held inside the install's
/// lifetime. A client's offline queue sends events hours or days late, and charting them on the
/// day they arrived put a Monday purchase on Thursday; a clock that runs wrong must not put an
/// event before its install was known nor after the server received it.
public enum ChartedTime {
    public static func of(occurredAt: Timestamp, installedAt: Timestamp, receivedAt: Timestamp) -> Timestamp {
        let earliest = min(installedAt, receivedAt)
        return min(max(occurredAt, earliest), receivedAt)
    }
}
