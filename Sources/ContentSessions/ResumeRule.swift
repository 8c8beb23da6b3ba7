/// Where content resumes from a saved point. Pure, so it is tested without a player.
enum ResumeRule {
    /// A resume point this close to the end starts the content from the beginning instead.
    static let endMargin = 10.0

    /// The start for a saved position; nil (the beginning) for a point in the first second,
    /// or within `endMargin` of a known end: resuming there would only show the credits.
    static func start(at position: Double, duration: Double?) -> Double? {
        guard position > 1, duration.map({ position < $0 - endMargin }) ?? true else { return nil }
        return position
    }
}
