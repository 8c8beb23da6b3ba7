import ControlAPI
import FoundationEssentials
import GLibRuntime
import Storage
import TextSupport

/// What the playback feature asks of the library: the loopback URL of a copy, plays and play
/// time counted, the clock rule, the licence verdict; and the wire form of an item.
extension Library {
    /// The URI a complete item plays from, published on first use: a file copy's
    /// `marquee-copy://` URI (read in-process, in pull mode: `CopySource`), an HLS copy's
    /// loopback URL.
    func playbackURL(_ item: LibraryItemRecord) throws(APIError) -> String {
        if let url = served[item.id] { return url }
        guard let key = try? keyWrap.openKey(item.wrappedKey, associatedData: KeyWrap.context(.mediaKey, item: item.id)) else {
            throw APIError(.internalError, "the copy of \(item.id) cannot be opened with this device key")
        }
        if item.kind == .file, let file = item.files.first(where: { $0.name == LibraryLayout.mediaName }) {
            let url = LibraryLayout.file(root: worker.root, item: item.id, name: file.name)
            let uri = CopySource.publish(LazyEncryptedMedia(url: url, key: key, iv: Array(file.iv), size: file.storedBytes))
            served[item.id] = uri
            return uri
        }
        var files: [String: ServedFile] = [:]
        for file in item.files {
            let url = LibraryLayout.file(root: worker.root, item: item.id, name: file.name)
            let media = LazyEncryptedMedia(url: url, key: key, iv: Array(file.iv), size: file.storedBytes)
            files[file.name] = ServedFile(media: media, contentType: Self.contentType(of: file.name))
        }
        let entry = item.kind == .hls ? "index.m3u8" : LibraryLayout.mediaName
        do {
            let server = try self.server ?? LibraryServer()
            self.server = server
            let (token, _) = try server.publish(files)
            let url = server.url(token: token, name: entry)
            served[item.id] = url
            return url
        } catch {
            throw APIError(.internalError, "cannot serve the copy: \(error)")
        }
    }

    /// What the loopback server says a file is: hlsdemux2 goes by the playlists' type, the
    /// segments are typefound.
    static func contentType(of name: String) -> String {
        if name.hasSuffix(".m3u8") { return "application/vnd.apple.mpegurl" }
        if name.hasSuffix(".ts") { return "video/mp2t" }
        if name.hasSuffix(".vtt") || name.hasSuffix(".webvtt") { return "text/vtt" }
        if name.hasSuffix(".aac") { return "audio/aac" }
        if name.hasSuffix(".mp4") || name.hasSuffix(".m4s") { return "video/mp4" }
        return "application/octet-stream"
    }

    static func token(in url: String) -> String? {
        let parts = url.split(separator: "/")
        guard let index = parts.firstIndex(of: "lib"), index + 1 < parts.count else { return nil }
        return String(parts[index + 1])
    }

    func countPlay(_ id: String) {
        guard var item = records[id] else { return }
        item.plays += 1
        records[id] = item
        worker.addPlay(id)
        onEvent?(.library(LibraryChange(id: id, change: .license)))
    }

    func addPlayTime(_ id: String, seconds: Double) {
        guard seconds > 0, var item = records[id] else { return }
        item.playTime += seconds
        records[id] = item
        worker.addPlayTime(id, seconds: seconds)
    }

    /// Moves the latest time seen forward (never back), in memory and in the books.
    func noteTime(_ now: Date = Date()) {
        if let latestSeen, latestSeen >= now { return }
        latestSeen = now
        worker.advanceLatestSeen(now)
    }

    func verdict(_ item: LibraryItemRecord, now: Date = Date()) -> LicenseVerdict {
        LicenseRules.evaluate(item.license,
                              usage: LicenseUsage(plays: item.plays, playTime: item.playTime), now: now, latestSeen: latestSeen)
    }



    func wire(_ item: LibraryItemRecord) -> LibraryItem {
        let verdict = verdict(item)
        let license = LicenseState(expires: item.license.expires.map(RFC3339.string), maxPlays: item.license.maxPlays, plays: item.plays,
                                   maxPlayTime: item.license.maxPlayTime, playTime: item.playTime,
                                   expired: verdict.expired, reason: verdict.reason?.rawValue)
        var wire = LibraryItem(id: item.id, contentId: item.contentId, userId: item.userId.isEmpty ? nil : item.userId, title: item.title,
                               uri: item.uri, kind: item.kind == .hls ? .hls : .file, state: LibraryItem.State(rawValue: item.state.rawValue) ?? .failed,
                               bytes: item.storedBytes, totalBytes: item.totalBytes,
                               error: item.failure.map { APIErrorBody(code: $0.code, message: $0.message) }, license: license,
                               createdAt: RFC3339.string(item.createdAt), completedAt: item.completedAt.map(RFC3339.string))
        if item.kind == .hls, item.state != .complete {
            // Its size is known only once every segment is stored: progress counts its files.
            wire.progress = item.files.isEmpty ? nil : Double(item.files.filter(\.complete).count) / Double(item.files.count)
        }
        return wire
    }
}
