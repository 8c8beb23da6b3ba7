import ControlAPI

/// A-B repeat: `PATCH /v1/player {"abLoop": {"a", "b"}}` loops that section seamlessly with
/// segment seeks (a flushing one to arm it, then a non-flushing one at each SEGMENT_DONE),
/// `{"abLoop": null}` ends it. While a loop runs, seeks land inside it. It belongs to the
/// loaded source: a new open ends it.
extension Player {
    /// Checks a loop request before anything of the patch is applied.
    func validateABLoop(_ loop: ABLoop?) throws(APIError) {
        guard let loop else { return }
        let session = try requireSource()
        guard !machine.isLive, session.timeshift == nil, session.source.info.live == false else {
            throw APIError(.notSeekable, "A-B loops need a file or VOD stream, not a live source")
        }
        if let duration = session.duration, loop.a >= duration - 0.1 {
            throw APIError(.invalidArgument, "'abLoop.a' must be before the end of the media (\(duration) s)")
        }
    }

    func setABLoop(_ loop: ABLoop?) {
        guard let session else { return }
        if var loop {
            if let duration = session.duration { loop.b = min(loop.b, duration) }
            session.abLoop = loop
            let position = machine.pendingSeekTarget ?? session.position ?? loop.a
            // Arm the segment: from where playback is when that is inside, else from A.
            let start = (loop.a..<loop.b).contains(position) ? position : loop.a
            log.info("A-B loop", ["a": "\(loop.a)", "b": "\(loop.b)"])
            seekPipeline(to: start, exact: true)
        } else if session.abLoop != nil {
            session.abLoop = nil
            log.info("A-B loop ended")
            // A plain flushing seek where playback is drops the segment's stop at B.
            if let position = machine.pendingSeekTarget ?? session.position {
                seekPipeline(to: position, exact: true)
            }
        }
    }

    /// SEGMENT_DONE: the section reached B.
    func loopSegmentDone() {
        guard let session, session.abLoop != nil else { return }
        if !session.loopBack(rate: settings.rate) { log.warning("A-B loop: the seek back to A was refused") }
    }
}
