import FoundationEssentials
import TextSupport

/// The player settings: what `PATCH /v1/player` (WebSocket `set`) changes, the `settings` event
/// carries and the snapshot shows; they outlive a source and apply to every new pipeline.
///
/// **Declared once.** A setting is a stored property here plus one row of `descriptors`. The
/// PATCH body (`SettingsPatch`), the `settings` event (`SettingsUpdate`), the snapshot's keys,
/// their OpenAPI schemas and the settings table of docs/API.md are all derived from the rows.
/// The player reads the typed property (`settings.subtitleDelay`).
public struct PlayerSettings: Sendable, Equatable {
    public var rate: Double = 1
    public var volume: Double = 1
    public var muted = false
    public var audioDelay: Double = 0
    public var subtitleDelay: Double = 0
    public var `repeat`: RepeatMode = .none
    public var subtitleStyle = SubtitleStyle()

    public init() {}

    /// One row per setting, in the order they are documented.
    public static let descriptors: [SettingDescriptor] = [
        .number("rate", \.rate, range: 0.1...10, unit: "",
                help: "Playback speed; the pitch is kept (scaletempo). A rate applies to the next file too."),
        .number("volume", \.volume, range: 0...10, unit: "",
                help: "Linear volume; 1 is unchanged."),
        .boolean("muted", \.muted, help: "Mutes the audio output."),
        .number("audioDelay", \.audioDelay, range: -60...60, unit: " seconds",
                help: "Seconds the audio is delayed against the video (negative: audio earlier)."),
        .number("subtitleDelay", \.subtitleDelay, range: -60...60, unit: " seconds",
                help: "Seconds subtitle cues are shown later than their timing (negative: earlier), external and embedded; applied to the cue on screen at once. An embedded cue cannot come before the stream delivers it, so a negative value only ends it earlier."),
        .choice("repeat", \.repeat, schema: "RepeatMode", values: ["none", "one", "all"],
                help: "`none` ends at the end; `one` repeats the item; `all` loops the queue (a single item when there is none)."),
        .object("subtitleStyle", \.subtitleStyle, schema: "SubtitleStyle", patch: SubtitleStylePatch.self, patchSchema: "SubtitleStylePatch",
                help: "How subtitles are drawn: `fontSize` (a fraction of the frame height), `color`, `align`; a PATCH changes any subset and keeps the rest, redrawing the cue on screen at once.",
                merge: { style, patch in style.merge(patch) }),
    ]

    /// `abLoop` travels with the settings (PATCH body, `settings` event, snapshot) but belongs to
    /// the loaded source, not to the settings: the player keeps it; `null` in a PATCH ends it.
    public static let abLoop = SettingDescriptor.session(
        "abLoop", schema: "ABLoop",
        help: "Loops the section from `a` to `b` seamlessly (`b - a` at least 0.1 s; `b` clamped to the duration); `null` ends the loop. Belongs to the source: a new open ends it. `409 not_seekable` for live sources, `409 no_source` with nothing open.")

    /// Every wire name of the settings, `abLoop` last.
    public static var wireNames: [String] { descriptors.map(\.name) + [abLoop.name] }

    public static func descriptor(named name: String) -> SettingDescriptor? {
        name == abLoop.name ? abLoop : descriptors.first { $0.name == name }
    }

    /// Applies what a patch gives (abLoop excepted: the player handles it).
    public mutating func merge(_ patch: SettingsPatch) {
        for descriptor in Self.descriptors {
            if let value = patch.values[descriptor.name] { descriptor.merge(value, &self) }
        }
    }

    /// The `settings` event for these settings and the source's A-B loop.
    public func update(abLoop: ABLoop?) -> SettingsUpdate {
        SettingsUpdate(self, abLoop: abLoop)
    }

    /// Writes every setting as a member of the object `encoder` is encoding (the snapshot, the
    /// `settings` event).
    public func encodeMembers(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: SettingKey.self)
        for descriptor in Self.descriptors { try descriptor.encode(self, &c) }
    }

    /// Reads the settings from the members of an object; missing ones keep their defaults
    /// (an older daemon's snapshot).
    public init(members decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: SettingKey.self)
        for descriptor in Self.descriptors { try descriptor.decode(c, &self) }
    }
}

/// One setting: its wire name, type, range, default, the event that carries it and a line of
/// help; and how it is read from a PATCH body, merged, encoded and decoded.
public struct SettingDescriptor: Sendable {
    public enum Kind: Sendable, Equatable {
        /// A number in `range`; `unit` is for messages (" seconds").
        case number(range: ClosedRange<Double>, unit: String)
        case boolean
        /// One of `values`, the OpenAPI schema `schema`.
        case choice(schema: String, values: [String])
        /// An object of OpenAPI schema `schema`; a PATCH gives `patchSchema`, merged into it.
        case object(schema: String, patchSchema: String)
        /// Kept by the player for the loaded source, not in `PlayerSettings`; `null` in a
        /// PATCH clears it.
        case session(schema: String)
    }

    public let name: String
    public let kind: Kind
    /// One line (docs table, OpenAPI description, CLI help).
    public let help: String
    /// The event type that carries its changes.
    public let event = "settings"

    /// Validates a PATCH member and returns it as canonical JSON (nil: absent or null).
    let decodePatch: @Sendable (KeyedDecodingContainer<SettingKey>, SettingKey) throws -> JSONValue?
    let merge: @Sendable (JSONValue, inout PlayerSettings) -> Void
    let encode: @Sendable (PlayerSettings, inout KeyedEncodingContainer<SettingKey>) throws -> Void
    let decode: @Sendable (KeyedDecodingContainer<SettingKey>, inout PlayerSettings) throws -> Void

    /// The default, as JSON text (`1`, `false`, `"none"`, `{...}`); `null` for `abLoop`.
    public var defaultJSON: String {
        guard case .session = kind else {
            let all = JSONCoding.encode(PlayerSettings().update(abLoop: nil))
            let object = (try? JSONDecoder().decode([String: JSONValue].self, from: all)) ?? [:]
            return String(decoding: JSONCoding.encode(object[name] ?? .null), as: UTF8.self)
        }
        return "null"
    }

    /// The range, for number settings.
    public var range: ClosedRange<Double>? {
        if case .number(let range, _) = kind { return range }
        return nil
    }

    /// A setting whose PATCH value has its own type (`Patch`), merged into the value.
    static func make<Value: Codable & Sendable, Patch: Codable & Sendable>(
        _ name: String, _ keyPath: WritableKeyPath<PlayerSettings, Value> & Sendable, kind: Kind, help: String,
        patch: Patch.Type, validate: @escaping @Sendable (Patch) throws -> Void = { _ in },
        merge: @escaping @Sendable (inout Value, Patch) -> Void
    ) -> SettingDescriptor {
        SettingDescriptor(
            name: name, kind: kind, help: help,
            decodePatch: { c, key in
                guard let value = try c.decodeIfPresent(Patch.self, forKey: key) else { return nil }
                try validate(value)
                return try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
            },
            merge: { json, settings in
                guard let data = try? JSONEncoder().encode(json), let value = try? JSONDecoder().decode(Patch.self, from: data) else { return }
                merge(&settings[keyPath: keyPath], value)
            },
            encode: { settings, c in try c.encode(settings[keyPath: keyPath], forKey: SettingKey(name)) },
            decode: { c, settings in
                if let value = try c.decodeIfPresent(Value.self, forKey: SettingKey(name)) { settings[keyPath: keyPath] = value }
            })
    }

    static func number(_ name: String, _ keyPath: WritableKeyPath<PlayerSettings, Double> & Sendable,
                       range: ClosedRange<Double>, unit: String, help: String) -> SettingDescriptor {
        make(name, keyPath, kind: .number(range: range, unit: unit), help: help, patch: Double.self,
             validate: { value in
                 guard range.contains(value) else {
                     throw APIError(.invalidArgument, "'\(name)' must be between \(range.lowerBound.decimalText) and \(range.upperBound.decimalText)\(unit)")
                 }
             },
             merge: { $0 = $1 })
    }

    static func boolean(_ name: String, _ keyPath: WritableKeyPath<PlayerSettings, Bool> & Sendable, help: String) -> SettingDescriptor {
        make(name, keyPath, kind: .boolean, help: help, patch: Bool.self, merge: { $0 = $1 })
    }

    static func choice<Value: Codable & Sendable>(_ name: String, _ keyPath: WritableKeyPath<PlayerSettings, Value> & Sendable,
                                                 schema: String, values: [String], help: String) -> SettingDescriptor {
        make(name, keyPath, kind: .choice(schema: schema, values: values), help: help, patch: Value.self, merge: { $0 = $1 })
    }

    static func object<Value: Codable & Sendable, Patch: Codable & Sendable>(
        _ name: String, _ keyPath: WritableKeyPath<PlayerSettings, Value> & Sendable, schema: String, patch: Patch.Type,
        patchSchema: String, help: String, merge: @escaping @Sendable (inout Value, Patch) -> Void
    ) -> SettingDescriptor {
        make(name, keyPath, kind: .object(schema: schema, patchSchema: patchSchema), help: help, patch: patch, merge: merge)
    }

    static func session(_ name: String, schema: String, help: String) -> SettingDescriptor {
        SettingDescriptor(name: name, kind: .session(schema: schema), help: help,
                          decodePatch: { _, _ in nil }, merge: { _, _ in }, encode: { _, _ in }, decode: { _, _ in })
    }
}

/// A member name of a settings object.
public struct SettingKey: CodingKey, Sendable {
    public var stringValue: String
    public var intValue: Int? { nil }
    public init(_ name: String) { stringValue = name }
    public init(stringValue: String) { self.stringValue = stringValue }
    public init?(intValue: Int) { nil }
}

/// PATCH /v1/player: any subset of the settings. A member sent as `null` is left as it is,
/// except `abLoop`, which `null` ends.
public struct SettingsPatch: Codable, Sendable, Equatable {
    /// The settings given, by wire name, validated and in canonical JSON.
    public private(set) var values: [String: JSONValue] = [:]
    /// `{"a", "b"}` loops that section; `null` ends the loop (then `clearsABLoop` is true).
    public var abLoop: ABLoop?
    public var clearsABLoop = false

    public init() {}

    /// A patch from wire names and values, checked as a PATCH body is.
    public init(_ values: [String: JSONValue]) throws(APIError) {
        self = try JSONCoding.decodeBody(SettingsPatch.self, from: JSONCoding.encode(values))
    }

    /// This patch with one more setting, given by wire name and typed value (a
    /// `SubtitleStylePatch` for `subtitleStyle`); checked as in a PATCH body.
    public func with<Value: Encodable>(_ name: String, _ value: Value) throws(APIError) -> SettingsPatch {
        var all = values
        all[name] = (try? JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))) ?? .null
        var patch = try SettingsPatch(all)
        patch.abLoop = abLoop
        patch.clearsABLoop = clearsABLoop
        return patch
    }

    public var isEmpty: Bool { values.isEmpty && abLoop == nil && !clearsABLoop }

    public init(from decoder: any Decoder) throws {
        try UnknownKeys.reject(in: decoder, allowed: Set(PlayerSettings.wireNames))
        let c = try decoder.container(keyedBy: SettingKey.self)
        for descriptor in PlayerSettings.descriptors {
            if let value = try descriptor.decodePatch(c, SettingKey(descriptor.name)) { values[descriptor.name] = value }
        }
        let loop = SettingKey(PlayerSettings.abLoop.name)
        abLoop = try c.decodeIfPresent(ABLoop.self, forKey: loop)
        clearsABLoop = c.contains(loop) && abLoop == nil
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: SettingKey.self)
        for (name, value) in values { try c.encode(value, forKey: SettingKey(name)) }
        if let abLoop { try c.encode(abLoop, forKey: SettingKey(PlayerSettings.abLoop.name)) }
        if clearsABLoop { try c.encodeNil(forKey: SettingKey(PlayerSettings.abLoop.name)) }
    }
}

/// The `settings` event: every setting, and the source's A-B loop (null when none).
@dynamicMemberLookup
public struct SettingsUpdate: Codable, Sendable, Equatable {
    public var settings: PlayerSettings
    public var abLoop: ABLoop?

    public init(_ settings: PlayerSettings = PlayerSettings(), abLoop: ABLoop? = nil) {
        self.settings = settings
        self.abLoop = abLoop
    }

    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<PlayerSettings, Value>) -> Value {
        get { settings[keyPath: keyPath] }
        set { settings[keyPath: keyPath] = newValue }
    }

    public func encode(to encoder: any Encoder) throws {
        try settings.encodeMembers(to: encoder)
        var c = encoder.container(keyedBy: SettingKey.self)
        try c.encode(abLoop, forKey: SettingKey(PlayerSettings.abLoop.name))
    }

    public init(from decoder: any Decoder) throws {
        settings = try PlayerSettings(members: decoder)
        abLoop = try decoder.container(keyedBy: SettingKey.self).decodeIfPresent(ABLoop.self, forKey: SettingKey(PlayerSettings.abLoop.name))
    }
}
