import FoundationEssentials

/// One item of the offline library as the books keep it (`LibraryBooks`). Secrets are sealed
/// by the library before they get here (`wrappedKey`, `sealedHeaders`); the books never see a
/// key or a header in the clear.
public struct LibraryItemRecord: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable { case file, hls }

    public enum State: String, Sendable, CaseIterable { case queued, downloading, paused, complete, failed }

    /// Why the item failed (or why its download is being retried): the API's stable code.
    public struct Failure: Sendable, Equatable {
        public var code: String
        public var message: String
        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    /// The licence's limits; nil is "no limit".
    public struct LicenseTerms: Sendable, Equatable {
        public var expires: Date?
        public var maxPlays: Int?
        /// Seconds.
        public var maxPlayTime: Double?
        public init(expires: Date? = nil, maxPlays: Int? = nil, maxPlayTime: Double? = nil) {
            self.expires = expires
            self.maxPlays = maxPlays
            self.maxPlayTime = maxPlayTime
        }
    }

    public var id: String
    public var contentId: String
    /// "" for an anonymous viewer.
    public var userId: String
    public var title: String?
    public var uri: String
    public var kind: Kind
    public var state: State
    public var failure: Failure?
    /// JSON text: the variant, audio and subtitle choices.
    public var options: String?
    /// `KeyWrap`-sealed JSON of the request headers and key headers; nil when there are none.
    public var sealedHeaders: Data?
    /// The item's media key, `KeyWrap`-sealed with the device key.
    public var wrappedKey: Data
    public var totalBytes: Int64?
    public var createdAt: Date
    public var completedAt: Date?
    public var license: LicenseTerms
    public var plays: Int
    /// Seconds played.
    public var playTime: Double
    /// In download order (`position`, then name).
    public var files: [LibraryFileRecord]

    public init(id: String, contentId: String, userId: String = "", title: String? = nil, uri: String,
                kind: Kind, state: State = .queued, failure: Failure? = nil, options: String? = nil,
                sealedHeaders: Data? = nil, wrappedKey: Data, totalBytes: Int64? = nil, createdAt: Date,
                completedAt: Date? = nil, license: LicenseTerms = LicenseTerms(), plays: Int = 0,
                playTime: Double = 0, files: [LibraryFileRecord] = []) {
        self.id = id
        self.contentId = contentId
        self.userId = userId
        self.title = title
        self.uri = uri
        self.kind = kind
        self.state = state
        self.failure = failure
        self.options = options
        self.sealedHeaders = sealedHeaders
        self.wrappedKey = wrappedKey
        self.totalBytes = totalBytes
        self.createdAt = createdAt
        self.completedAt = completedAt
        self.license = license
        self.plays = plays
        self.playTime = playTime
        self.files = files
    }

    /// Plaintext bytes acknowledged as stored, over all files.
    public var storedBytes: Int64 { files.reduce(0) { $0 + $1.storedBytes } }
}

/// One file of a library item: the whole media of a `file` item, or a playlist, segment or
/// key of an `hls` item.
public struct LibraryFileRecord: Sendable, Equatable {
    public enum Role: String, Sendable, CaseIterable { case media, playlist, segment, key }

    /// Unique within the item; the file on disk is `<item folder>/<name>.enc`.
    public var name: String
    public var role: Role
    /// Download order within the item.
    public var position: Int
    public var remoteURI: String?
    /// The file's 16-byte CTR IV (random; not secret).
    public var iv: Data
    /// Plaintext bytes acknowledged as stored (written and fsynced before being recorded).
    public var storedBytes: Int64
    public var totalBytes: Int64?
    public var complete: Bool

    public init(name: String, role: Role = .media, position: Int = 0, remoteURI: String? = nil, iv: Data,
                storedBytes: Int64 = 0, totalBytes: Int64? = nil, complete: Bool = false) {
        self.name = name
        self.role = role
        self.position = position
        self.remoteURI = remoteURI
        self.iv = iv
        self.storedBytes = storedBytes
        self.totalBytes = totalBytes
        self.complete = complete
    }
}

/// The SHA-256 of one 1 MiB plaintext chunk of a library file (the last may be shorter).
public struct ChunkChecksum: Sendable, Equatable {
    public var index: Int
    public var sha256: Data
    public init(index: Int, sha256: Data) {
        self.index = index
        self.sha256 = sha256
    }
}
