import FoundationEssentials
import MarqueeClient
import TextSupport

/// Terse, human-readable renderings of snapshots and events for the terminal.
enum HumanFormat {
    /// What a reply is, for the human rendering.
    enum Kind: Sendable { case snapshot, queue, analytics, library, libraryItem }

    static func render(_ object: [String: Any], as kind: Kind) -> String {
        switch kind {
        case .snapshot: return snapshot(object)
        case .queue: return queue(object)
        case .analytics: return analytics(object)
        case .library: return library(object)
        case .libraryItem: return libraryItem(object)
        }
    }

    /// `GET /v1/library`: one line per item, then the space used.
    static func library(_ l: [String: Any]) -> String {
        let items = l["items"] as? [[String: Any]] ?? []
        var lines = items.map(libraryItem)
        if items.isEmpty { lines.append("the library is empty") }
        let used = (l["usedBytes"] as? Int).map(megabytes) ?? "?"
        lines.append("used \(used)" + ((l["quotaBytes"] as? Int).map { " of " + megabytes($0) } ?? ""))
        return lines.joined(separator: "\n")
    }

    /// One item: id, state and progress, content id, licence.
    static func libraryItem(_ i: [String: Any]) -> String {
        var line = "\(i["id"] as? String ?? "?")  \(i["state"] as? String ?? "?")"
        if let progress = JSONTree.double(i["progress"]), i["state"] as? String != "complete" {
            line += String(printf: " %.0f%%", progress * 100)
        }
        line += "  \(i["contentId"] as? String ?? "?")"
        if let bytes = i["bytes"] as? Int { line += "  " + megabytes(bytes) }
        if let license = i["license"] as? [String: Any], license["expired"] as? Bool == true {
            line += "  licence spent (\(license["reason"] as? String ?? "?"))"
        }
        if let error = i["error"] as? [String: Any] { line += "  \(error["code"] ?? "?"): \(error["message"] ?? "")" }
        return line
    }

    private static func megabytes(_ bytes: Int) -> String { String(printf: "%.1f MB", Double(bytes) / 1_000_000) }

    static func snapshot(_ s: [String: Any]) -> String {
        var lines: [String] = []
        let state = s["state"] as? String ?? "?"
        var first = state
        if let position = JSONTree.double(s["position"]) {
            first += "  " + clock(position)
            if let duration = JSONTree.double(s["duration"]) { first += " / " + clock(duration) }
        }
        lines.append(first)
        if let source = s["source"] as? [String: Any], let uri = source["uri"] as? String {
            let live = (source["live"] as? Bool ?? false) && source["kind"] as? String != "live" ? ", live" : ""
            lines.append("source   \(uri) (\(source["kind"] as? String ?? "?")\(live))")
        }
        if let live = s["live"] as? [String: Any], let behind = JSONTree.double(live["behind"]) {
            lines.append(String(printf: "live     %.1f s behind the edge, %.0f s window", behind, JSONTree.double(live["window"]) ?? 0))
        }
        // printf has no %@: the muted note goes between the two formatted halves.
        lines.append(String(printf: "rate %.2gx  volume %.0f%%", JSONTree.double(s["rate"]) ?? 1, (JSONTree.double(s["volume"]) ?? 1) * 100)
                     + ((s["muted"] as? Bool ?? false) ? " (muted)" : "")
                     + String(printf: "  audio delay %.3gs", JSONTree.double(s["audioDelay"]) ?? 0)
                     + String(printf: "  subtitle delay %.3gs", JSONTree.double(s["subtitleDelay"]) ?? 0))
        if let tracks = s["tracks"] as? [String: Any] {
            for kind in ["audio", "subtitle"] {
                guard let list = tracks[kind] as? [[String: Any]], !list.isEmpty else { continue }
                let items = list.map { t -> String in
                    let mark = (t["selected"] as? Bool ?? false) ? "*" : ""
                    let lang = (t["language"] as? String).map { " [\($0)]" } ?? ""
                    return "\(mark)\(t["id"] as? String ?? "?")\(lang)"
                }
                // padding(toLength: 8, ...) without Foundation: the kinds are at most 8 long.
                let label = kind + String(repeating: " ", count: max(0, 8 - kind.count))
                lines.append("\(label) \(items.joined(separator: "  "))")
            }
        }
        lines += extras(s)
        if let error = s["error"] as? [String: Any] {
            lines.append("error    \(error["code"] ?? "?"): \(error["message"] ?? "")")
        }
        return lines.joined(separator: "\n")
    }

    /// The lines for what is set beyond the defaults: repeat, A-B loop, variant, PiP,
    /// watermark, queue.
    private static func extras(_ s: [String: Any]) -> [String] {
        var lines: [String] = []
        if let mode = s["repeat"] as? String, mode != "none" { lines.append("repeat   \(mode)") }
        if let loop = s["abLoop"] as? [String: Any], let a = JSONTree.double(loop["a"]), let b = JSONTree.double(loop["b"]) {
            lines.append("ab loop  \(clock(a)) - \(clock(b))")
        }
        if let variant = s["variant"] as? [String: Any], let current = variant["current"] as? String {
            let mode = variant["mode"] as? String == "manual" ? "pinned \(variant["selected"] as? String ?? "?")" : "auto"
            lines.append("variant  \(current) (\(mode))")
        }
        if let pip = s["pip"] as? [String: Any] {
            let rect = pip["rect"] as? [String: Any] ?? [:]
            let place = ["x", "y", "width", "height"].map { JSONTree.double(rect[$0]).map { String(printf: "%.3g", $0) } ?? "?" }.joined(separator: ",")
            var line = "pip      \(pip["uri"] as? String ?? "?") (\(pip["state"] as? String ?? "?")) at \(place)"
            if pip["muted"] as? Bool == false { line += ", sound on" }
            if pip["swapped"] as? Bool == true { line += ", swapped" }
            lines.append(line)
        }
        if let mark = s["watermark"] as? [String: Any] {
            let what = (mark["text"] as? String).map { "\"\($0)\"" } ?? (mark["image"] as? String ?? "?")
            lines.append("watermark \(what) at \(mark["position"] as? String ?? "?")")
        }
        if let queue = s["queue"] as? [String: Any], let items = queue["items"] as? [Any], !items.isEmpty {
            let index = (queue["index"] as? Int).map { "\($0 + 1)" } ?? "-"
            lines.append("queue    item \(index) of \(items.count)" + ((queue["loop"] as? Bool ?? false) ? ", looping" : ""))
        }
        return lines
    }

    /// `GET /v1/queue`: one line per item, the one playing marked.
    static func queue(_ q: [String: Any]) -> String {
        let items = q["items"] as? [[String: Any]] ?? []
        guard !items.isEmpty else { return "no queue" }
        let index = q["index"] as? Int
        var lines = items.enumerated().map { i, item in
            let mark = i == index ? "*" : " "
            let id = (item["contentId"] as? String).map { "  (\($0))" } ?? ""
            return "\(mark)\(i + 1)  \(item["uri"] as? String ?? "?")\(id)"
        }
        if q["loop"] as? Bool == true { lines.append("(loops)") }
        return lines.joined(separator: "\n")
    }

    /// `GET /v1/analytics`: the outbox's counters.
    static func analytics(_ a: [String: Any]) -> String {
        guard a["enabled"] as? Bool == true else { return "analytics off (no --analytics-url)" }
        var lines = ["analytics to \(a["url"] as? String ?? "?") every \(JSONTree.double(a["interval"]).map { $0.decimalText } ?? "?") s",
                     "pending \(a["pending"] ?? 0)  sent \(a["sent"] ?? 0)  failed \(a["failed"] ?? 0)  dropped \(a["dropped"] ?? 0)"]
        if let error = a["lastError"] as? String { lines.append("last error: \(error)") }
        return lines.joined(separator: "\n")
    }

    static func event(_ e: [String: Any]) -> String {
        let seq = e["seq"] as? Int ?? 0
        let type = e["type"] as? String ?? "?"
        let data = e["data"] as? [String: Any] ?? [:]
        let detail: String
        switch type {
        case "state": detail = "\(data["previous"] ?? "?") -> \(data["state"] ?? "?")"
        case "position": detail = clock(JSONTree.double(data["position"]) ?? 0)
        case "snapshot": detail = (data["state"] as? String) ?? ""
        case "error": detail = "\(data["code"] ?? "?"): \(data["message"] ?? "")"
        case "buffering": detail = "\(data["percent"] ?? "?")%"
        case "seek": detail = "to " + clock(JSONTree.double(data["position"]) ?? 0)
        case "source": detail = (data["uri"] as? String) ?? "none"
        case "live": detail = String(printf: "%.1f s behind", JSONTree.double(data["behind"]) ?? 0)
        case "reconnecting": detail = "attempt \(data["attempt"] ?? "?") in \(data["delay"] ?? "?") s: \(data["reason"] ?? "")"
        case "recovered": detail = String(printf: "after %.1f s", JSONTree.double(data["downtime"]) ?? 0) + ", \(data["attempts"] ?? "?") attempts"
        default:
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let json = JSONTree.value(data).flatMap { try? encoder.encode($0) }.map { String(decoding: $0, as: UTF8.self) }
            detail = json ?? ""
        }
        return "\(seq)\t\(type)\t\(detail)"
    }

    static func clock(_ seconds: Double) -> String {
        let total = max(0, seconds)
        let minutes = Int(total) / 60
        return String(printf: "%02d:%04.1f", Int32(clamping: minutes), total - Double(minutes * 60))
    }
}
