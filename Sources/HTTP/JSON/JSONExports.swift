// JSON values and the writer belong to every layer; HTTP re-exports them for its callers.
@_exported public import JSON
