import ControlAPI
import FoundationEssentials
import GLibRuntime
import Storage
import TextSupport

/// Scheduling downloads (at most `maxConcurrentDownloads` at once, oldest first), what the
/// worker reports, and the `download` events.
extension Library {
    func schedule() {
        var running = records.values.filter { $0.state == .downloading }.count
        for item in ordered where item.state == .queued && running < configuration.maxConcurrentDownloads {
            guard let key = try? keyWrap.openKey(item.wrappedKey, associatedData: KeyWrap.context(.mediaKey, item: item.id)) else {
                fail(item.id, DownloadFailure(code: "storage", message: "the item's key does not open with this device key"))
                continue
            }
            var headers = ItemHeaders(headers: [:])
            if let sealed = item.sealedHeaders,
               let json = try? keyWrap.open(sealed, associatedData: KeyWrap.context(.headers, item: item.id)),
               let decoded = try? JSONCoding.decodeBody(ItemHeaders.self, from: json) {
                headers = decoded
            }
            var started = item
            started.state = .downloading
            records[item.id] = started
            running += 1
            worker.start(started, key: key, headers: headers, usedElsewhere: usedBytes - item.storedBytes, quota: configuration.quotaBytes)
            publishDownload(started, force: true)
        }
    }

    func handle(_ report: WorkerReport) {
        switch report {
        case .progress(let id, let stored, let total):
            guard var item = records[id], item.state == .downloading else { return }
            setStored(&item, stored)
            item.totalBytes = total ?? item.totalBytes
            item.failure = nil
            records[id] = item
            publishDownload(item, force: false)
        case .planned(let id, let files):
            guard var item = records[id] else { return }
            item.files = files
            records[id] = item
            publishDownload(item, force: true)
        case .fileStored(let id, let name, let stored, let complete):
            guard var item = records[id], item.state == .downloading, let index = item.files.firstIndex(where: { $0.name == name }) else { return }
            item.files[index].storedBytes = stored
            item.files[index].complete = complete
            item.failure = nil
            records[id] = item
            publishDownload(item, force: false)
        case .retrying(let id, let failure, let delay):
            guard var item = records[id], item.state == .downloading else { return }
            // Still downloading: the error says what it rides out, until bytes arrive again.
            item.failure = .init(code: failure.code, message: "\(failure.message); trying again in \(String(printf: "%.1f", delay)) s")
            records[id] = item
            publishDownload(item, force: true)
            log.info("download retrying", ["id": id, "error": failure.code, "delay": String(printf: "%.1f", delay)])
        case .completed(let id, let stored):
            guard var item = records[id] else { return }
            if item.kind == .file { setStored(&item, stored) } else { item.files = item.files.map { var f = $0; f.complete = true; return f } }
            item.totalBytes = stored
            item.state = .complete
            item.failure = nil
            item.completedAt = Date()
            records[id] = item
            log.info("download complete", ["id": id, "bytes": "\(stored)"])
            publishDownload(item, force: true)
            schedule()
        case .failed(let id, let failure):
            fail(id, failure)
        }
    }

    func fail(_ id: String, _ failure: DownloadFailure) {
        guard var item = records[id] else { return }
        item.state = .failed
        item.failure = .init(code: failure.code, message: failure.message)
        records[id] = item
        worker.setState(id, .failed, failure: item.failure)
        log.warning("download failed", ["id": id, "error": failure.code, "message": failure.message])
        publishDownload(item, force: true)
        schedule()
    }

    func setStored(_ item: inout LibraryItemRecord, _ stored: Int64) {
        if let index = item.files.firstIndex(where: { $0.name == LibraryLayout.mediaName }) { item.files[index].storedBytes = stored }
    }

    /// At most twice a second per item, and at once at every state change (`force`). A change
    /// inside the half-second window is not dropped: the item's latest goes out at its end.
    func publishDownload(_ item: LibraryItemRecord, force: Bool) {
        let now = ContinuousClock.now
        if !force, let last = lastDownloadEvent[item.id], now - last < Self.downloadEventInterval {
            guard !trailingDownloadEvents.contains(item.id) else { return }
            trailingDownloadEvents.insert(item.id)
            let wait = Self.downloadEventInterval - (now - last)
            let milliseconds = UInt32(max(1, wait.components.attoseconds / 1_000_000_000_000_000 + wait.components.seconds * 1000))
            runAfter(milliseconds: milliseconds) { [weak self] in
                guard let self else { return }
                self.trailingDownloadEvents.remove(item.id)
                if let latest = self.records[item.id] { self.publishDownload(latest, force: true) }
            }
            return
        }
        lastDownloadEvent[item.id] = now
        onEvent?(.download(DownloadUpdate(wire(item))))
    }

    static let downloadEventInterval: Duration = .milliseconds(500)
}
