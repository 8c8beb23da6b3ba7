import FoundationEssentials

/// Where an item's files live: `<data-dir>/library/<item id>/<name>.enc`.
enum LibraryLayout {
    /// The one file of a `file` item.
    static let mediaName = "media"

    static func folder(root: URL, item id: String) -> URL {
        root.appendingPathComponent(id, isDirectory: true)
    }

    static func file(root: URL, item id: String, name: String) -> URL {
        folder(root: root, item: id).appendingPathComponent(name + ".enc")
    }
}
