extension OpenAPIDocument {
    /// The operations on `/v1/player` and its commands' paths that are not commands; the
    /// commands' operations are derived from `CommandDescriptor.all` (OpenAPIDocument+Vocabulary.swift).
    static let getPlayerOperation = #"""
       "get":{
        "operationId":"getPlayer",
        "summary":"The player snapshot",
        "tags":["player"],
        "description":"The whole public player state. Every key is always present; absent values are null.",
        "responses":{"200":{"$ref":"#/components/responses/Snapshot"},"401":{"$ref":"#/components/responses/Unauthorized"},"default":{"$ref":"#/components/responses/Error"}}
       }
    """#
}
