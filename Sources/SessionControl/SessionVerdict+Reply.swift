import FoundationEssentials

extension SessionVerdict {
    /// The verdict in a 2xx reply's body: `{"allow": false, "code"?, "message"?}` refuses;
    /// anything else allows (`"allow": true`, no `allow`, an empty or non-JSON body), so that a
    /// server that only acknowledges never blocks anyone by accident.
    public init(replyBody body: Data) {
        struct Reply: Decodable {
            var allow: Bool?
            var code: String?
            var message: String?
        }
        guard let reply = try? JSONDecoder().decode(Reply.self, from: body), reply.allow == false else {
            self = .allow
            return
        }
        self = .deny(code: reply.code, message: reply.message)
    }
}
