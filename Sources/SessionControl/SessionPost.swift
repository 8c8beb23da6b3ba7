import ControlAPI

/// The body of a heartbeat: `{"event", "sessionId", "deviceId", "contentId", "userId"}`, the
/// content fields null when the open gave none (API-2 §2).
struct SessionPost: Encodable, Sendable {
    var event: String
    var sessionId: String
    var deviceId: String
    var contentId: String?
    var userId: String?

    init(_ event: SessionMachine.Event, _ viewing: SessionMachine.Viewing, deviceId: String) {
        self.event = event.rawValue
        sessionId = viewing.sessionId
        self.deviceId = deviceId
        contentId = viewing.contentId
        userId = viewing.userId
    }

    enum CodingKeys: String, CodingKey { case event, sessionId, deviceId, contentId, userId }

    // Written out so that missing content fields are `null`, not left out.
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(event, forKey: .event)
        try c.encode(sessionId, forKey: .sessionId)
        try c.encode(deviceId, forKey: .deviceId)
        try c.encode(contentId, forKey: .contentId)
        try c.encode(userId, forKey: .userId)
    }
}
