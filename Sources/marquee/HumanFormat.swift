import Foundation

/// Terse, human-readable renderings of snapshots and events for the terminal.
enum HumanFormat {
    static func snapshot(_ s: [String: Any]) -> String {
        var lines: [String] = []
        let state = s["state"] as? String ?? "?"
        var first = state
        if let position = s["position"] as? Double {
            first += "  " + clock(position)
            if let duration = s["duration"] as? Double { first += " / " + clock(duration) }
        }
        lines.append(first)
        if let source = s["source"] as? [String: Any], let uri = source["uri"] as? String {
            let live = (source["live"] as? Bool ?? false) && source["kind"] as? String != "live" ? ", live" : ""
            lines.append("source   \(uri) (\(source["kind"] as? String ?? "?")\(live))")
        }
        if let live = s["live"] as? [String: Any], let behind = live["behind"] as? Double {
            lines.append(String(format: "live     %.1f s behind the edge, %.0f s window", behind, live["window"] as? Double ?? 0))
        }
        lines.append(String(format: "rate %.2gx  volume %.0f%%%@  audio delay %.3gs", s["rate"] as? Double ?? 1,
                            (s["volume"] as? Double ?? 1) * 100, (s["muted"] as? Bool ?? false) ? " (muted)" : "",
                            s["audioDelay"] as? Double ?? 0))
        if let tracks = s["tracks"] as? [String: Any] {
            for kind in ["audio", "subtitle"] {
                guard let list = tracks[kind] as? [[String: Any]], !list.isEmpty else { continue }
                let items = list.map { t -> String in
                    let mark = (t["selected"] as? Bool ?? false) ? "*" : ""
                    let lang = (t["language"] as? String).map { " [\($0)]" } ?? ""
                    return "\(mark)\(t["id"] as? String ?? "?")\(lang)"
                }
                lines.append("\(kind.padding(toLength: 8, withPad: " ", startingAt: 0)) \(items.joined(separator: "  "))")
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
        case "position": detail = clock(data["position"] as? Double ?? 0)
        case "snapshot": detail = (data["state"] as? String) ?? ""
        case "error": detail = "\(data["code"] ?? "?"): \(data["message"] ?? "")"
        case "buffering": detail = "\(data["percent"] ?? "?")%"
        case "seek": detail = "to " + clock(data["position"] as? Double ?? 0)
        case "source": detail = (data["uri"] as? String) ?? "none"
        case "live": detail = String(format: "%.1f s behind", data["behind"] as? Double ?? 0)
        case "reconnecting": detail = "attempt \(data["attempt"] ?? "?") in \(data["delay"] ?? "?") s: \(data["reason"] ?? "")"
        case "recovered": detail = String(format: "after %.1f s", data["downtime"] as? Double ?? 0) + ", \(data["attempts"] ?? "?") attempts"
        default:
            let json = (try? JSONSerialization.data(withJSONObject: data, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) }
            detail = json ?? ""
        }
        return "\(seq)\t\(type)\t\(detail)"
    }

    static func clock(_ seconds: Double) -> String {
        let total = max(0, seconds)
        let minutes = Int(total) / 60
        return String(format: "%02d:%04.1f", minutes, total - Double(minutes * 60))
    }
}
