import FoundationEssentials
import MarqueeClient
import TextSupport

/// Terse, human-readable renderings of snapshots and events for the terminal.
enum HumanFormat {
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
        if let error = s["error"] as? [String: Any] {
            lines.append("error    \(error["code"] ?? "?"): \(error["message"] ?? "")")
        }
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
