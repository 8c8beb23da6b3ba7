/// One item's download on the worker thread (a progressive file, or an HLS item's files
/// one after another). Worker thread only; nothing is reported after `cancel()`.
protocol ItemDownload: AnyObject {
    func start()
    /// Pause, delete or shutdown: what arrived is committed first.
    func cancel()
}
