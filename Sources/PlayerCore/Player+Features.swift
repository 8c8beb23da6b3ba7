import ControlAPI

/// The feature surface (see `PlayerFeature`): features are added once at start, hear
/// `PlayerNotice`s, adjust open requests, and may publish their own public events.
extension Player {
    /// Adds a feature. Call at start, before any open; features cannot be removed (the
    /// player drops them at shutdown).
    public func add(_ feature: any PlayerFeature) {
        features.append(feature)
        feature.attached(to: self)
    }

    /// Where the loaded content stands; nil when nothing is loaded.
    public var progress: PlaybackProgress? {
        guard let session else { return nil }
        return PlaybackProgress(source: session.source.info, state: machine.state, position: shownPosition(session),
                                timelineOffset: timelineOffset, duration: session.duration, watched: watchClock.total(),
                                rate: settings.rate, queriesAnswered: session.answeredQueries)
    }

    /// Publishes an event a feature owns (`analytics`) to the player's subscribers, like the
    /// player's own: synchronously, in order. The player's own kinds (state, position...)
    /// come only from the player.
    public func publishFeatureEvent(_ event: PlayerEvent) {
        publish(event)
    }

    /// The open request after every feature's `prepareOpen`, in the order they were added.
    func prepareOpen(_ original: OpenRequest, replacing current: PlaybackProgress?) throws(APIError) -> OpenRequest {
        var request = original
        for feature in features { try feature.prepareOpen(&request, replacing: current) }
        guard !request.namesOnlyContent else {
            // No feature knew the content: without the offline library there is nothing to play.
            throw APIError(.notInLibrary, "'\(request.contentId ?? "")' is not in the offline library; give a 'uri' to play it from the network")
        }
        return request
    }

    /// Tells every feature, in the order they were added. The notice is built only when
    /// there is a feature to tell: its progress asks the sinks for the position.
    func notifyFeatures(_ notice: @autoclosure () -> PlayerNotice?) {
        guard !features.isEmpty, let notice = notice() else { return }
        for feature in features { feature.playerNoticed(notice) }
    }
}

extension Player {
    /// Ends playback the way a pipeline error does: the error is published, the pipeline
    /// released, the state becomes `error` with `error` in the snapshot, and the next open
    /// plays as usual. For a feature that must stop what plays (the session server refused
    /// the viewing). Nothing happens when nothing is loaded.
    public func stopPlayback(failing error: APIError) {
        guard session != nil else { return }
        feed(.failed(error), fromPipeline: false)
    }
}
