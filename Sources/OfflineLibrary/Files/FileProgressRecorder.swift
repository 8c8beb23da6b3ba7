import FoundationEssentials
import Storage

/// Where an `EncryptedFile` records what is acknowledged: the books, through
/// `BooksFileProgressRecorder`; tests use a memory. The file calls these only after its data
/// is durable ("write data, then the offset"), so a recorder must be durable when it returns
/// (one committed transaction per call).
public protocol FileProgressRecorder: AnyObject {
    /// The first `storedBytes` plaintext bytes are on disk; `newChunks` are the checksums of the
    /// chunks completed since the last call (the last, shorter chunk only with `complete`);
    /// `complete` when the file is whole.
    func recordProgress(storedBytes: Int64, newChunks: [ChunkChecksum], complete: Bool) throws
    /// The file is empty again: offset 0, no checksums, not complete.
    func recordRestart() throws
}

/// Records one library file's progress in the books (`LibraryBooks`).
public final class BooksFileProgressRecorder: FileProgressRecorder {
    public let books: LibraryBooks
    public let itemId: String
    public let name: String

    public init(books: LibraryBooks, itemId: String, name: String) {
        self.books = books
        self.itemId = itemId
        self.name = name
    }

    public func recordProgress(storedBytes: Int64, newChunks: [ChunkChecksum], complete: Bool) throws {
        try books.recordFileProgress(itemId: itemId, name: name, storedBytes: storedBytes,
                                     newChunks: newChunks, complete: complete)
    }

    public func recordRestart() throws {
        try books.resetFile(itemId: itemId, name: name)
    }
}
