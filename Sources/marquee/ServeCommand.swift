import ContentSessions
import ControlAPI
import ControlServer
import Dispatch
import FoundationEssentials
import Glibc
import TextSupport
import GLibRuntime
import GStreamerKit
import Logging
import OfflineLibrary
import PlayerCore
import SessionControl
import Storage

let versionString = MarqueeVersion.current

/// `marquee serve`: the daemon.
enum ServeCommand {
    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try ParsedArguments(arguments,
            valueOptions: ["listen", "token", "viewer-token", "cors-origin", "allow-scheme", "data-dir", "video-sink", "audio-sink",
                           "media-root", "log-level", "timeshift-window", "analytics-url", "analytics-interval", "analytics-header",
                           "request-timeout", "max-event-clients", "reconnect-timeout", "library-quota", "download-rate", "key-file", "license-url",
                           "url-resolver", "key-service", "session-url", "session-interval", "session-grace"],
            flagOptions: ["demo", "preload-plugins"])
        let environment = ProcessInfo.processInfo.environment
        if let level = args.value("log-level") {
            guard let parsed = LogLevel(name: level) else { throw UsageError("--log-level must be debug, info, warning or error") }
            Logger.threshold.store(parsed.rawValue, ordering: .relaxed)
        }
        let log = Logger(category: "main")
        let listenText = args.value("listen") ?? environment["MARQUEE_LISTEN"] ?? "127.0.0.1:8080"
        guard let listen = ListenAddress(listenText) else {
            throw UsageError("--listen must be HOST:PORT (for example 127.0.0.1:8080, [::1]:0)")
        }
        let access = AccessPolicy(token: args.value("token") ?? environment["MARQUEE_TOKEN"],
                                  viewerToken: args.value("viewer-token") ?? environment["MARQUEE_VIEWER_TOKEN"],
                                  corsOrigins: Set(args.values("cors-origin")))
        if let problem = access.configurationProblem { throw UsageError(problem) }
        let limits = try serverLimits(args)
        let resolver = try sourceResolver(args)
        let dataDirectory = try prepareDataDirectory(args.value("data-dir"), environment: environment)
        var defaultWindow: Double?
        if let text = args.value("timeshift-window") {
            guard let seconds = Double(text), seconds == 0 || TimeshiftRequest.windowRange.contains(seconds) else {
                throw UsageError("--timeshift-window must be 0 (off) or 1 to 86400 seconds")
            }
            defaultWindow = seconds == 0 ? nil : seconds
        }
        let reconnectTimeout = try args.value("reconnect-timeout").map { text in
            guard let seconds = Double(text), Player.Configuration.reconnectTimeoutRange.contains(seconds) else {
                throw UsageError("--reconnect-timeout must be 0 (never reconnect) to 86400 seconds")
            }
            return seconds
        } ?? 120
        let analyticsURL = args.value("analytics-url")
        if let analyticsURL {
            guard let url = URL(string: analyticsURL), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                throw UsageError("--analytics-url must be an http(s) URL")
            }
        }
        let urlResolver = args.value("url-resolver")
        if let urlResolver {
            guard let url = URL(string: urlResolver), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                throw UsageError("--url-resolver must be an http(s) URL")
            }
        }
        let keyService = try Self.keyService(args)
        let analyticsInterval = try args.value("analytics-interval").map { text in
            guard let seconds = Double(text), (1...86_400).contains(seconds) else {
                throw UsageError("--analytics-interval must be 1 to 86400 seconds")
            }
            return seconds
        } ?? 180
        let analyticsHeaders = try Self.analyticsHeaders(args.values("analytics-header"))
        let sessionControl = try sessionControlConfiguration(args, dataDirectory: dataDirectory)
        // Resume points and the analytics outbox. A corrupt or locked database stops the start
        // with its reason: events acknowledged as recorded must never be lost silently.
        let storage: DaemonStorage
        do {
            storage = try DaemonStorage(directory: dataDirectory)
        } catch {
            // Not a usage error: the operator must look at the file (exit 1, no usage hint).
            throw StartupError(message: "cannot open the database in \(dataDirectory): \(error)")
        }
        let libraryConfiguration = try Self.libraryConfiguration(args, dataDirectory: dataDirectory)
        let timeshiftFolder = URL(fileURLWithPath: dataDirectory).appendingPathComponent("timeshift", isDirectory: true)
        // Rings are per session; what a previous run left (a crash) is of no use.
        try? FileManager.default.removeItem(at: timeshiftFolder)

        GStreamer.initialize()
        // Read now: once a package upgrade replaces the binary, the folder can no longer be
        // found from it, and every later open would fail.
        do { try TemplateLibrary.load() } catch { throw StartupError(message: "\(error)") }
        let sinks = try SinkSelection.choose(video: args.value("video-sink"), audio: args.value("audio-sink"))
        log.info("starting", ["version": versionString, "gstreamer": GStreamer.version, "video-sink": sinks.video,
                              "audio-sink": sinks.audio, "data-dir": dataDirectory])

        MainLoop.acquireOnCurrentThread()
        let started: Bool = GLibActor.assumeIsolated {
            let player = Player(configuration: .init(sinks: sinks, resolver: resolver,
                                                     timeshiftFolder: timeshiftFolder, defaultTimeshiftWindow: defaultWindow,
                                                     reconnectTimeout: reconnectTimeout, urlResolver: urlResolver, defaultKeyService: keyService))
            let analytics = analyticsURL.map {
                AnalyticsReporter(configuration: .init(url: $0, interval: analyticsInterval, headers: analyticsHeaders),
                                  outbox: storage.analytics)
            }
            // Analytics and resume points hear the player from outside the core.
            let contentSessions = ContentSessionFeature(resume: storage.resume, analytics: analytics)
            // The library first: its copy replaces the URI before resume points look it up.
            let library: Library
            do {
                library = try Library(configuration: libraryConfiguration)
            } catch {
                log.error("cannot open the offline library: \(error)")
                return false
            }
            library.onEvent = { [weak player] event in player?.publishFeatureEvent(event) }
            player.add(LibraryPlayback(library: library))
            player.add(contentSessions)
            if let sessionControl { player.add(SessionControlFeature(configuration: sessionControl)) }
            let web = InstalledFolders.find("web", environment: "MARQUEE_WEB", probe: "index.html")
            if web == nil { Logger(category: "main").warning("dashboard files (web/) not found; set MARQUEE_WEB") }
            let server = ControlServer(player: player, configuration: .init(listen: listen, access: access, staticFiles: StaticFiles(web: web),
                                                                                limits: limits),
                                       contentSessions: contentSessions, library: library)
            let url: String
            do {
                url = try server.start()
            } catch {
                log.error("\(error)")
                return false
            }
            // Before the listening line: a supervisor may send SIGTERM as soon as it sees it.
            UnixSignals.onTerminate { signal in
                log.info("stopping", ["signal": "\(signal)"])
                // Stopping runs on the GLib thread; if a pipeline ever deadlocks on its way to
                // NULL, a supervisor must still see the process end. Not a clean exit: status 1.
                DispatchQueue.global().asyncAfter(deadline: .now() + 5) {
                    Logger(category: "main").error("pipelines did not stop within 5 s; exiting anyway")
                    _exit(1)
                }
                server.stop()
                library.shutdown()
                player.shutdown()
                MainLoop.quit()
            }
            // Scripts wait for this line: write it at once, whatever stdout is connected to.
            StandardStream.writeOutput("listening on \(url)\n")
            // Off by default: loading the decoders up front makes the first open ~100 ms faster
            // but costs ~40 MB of resident memory for as long as the daemon is idle.
            if args.flags.contains("preload-plugins") { PluginWarmup.run() }
            if args.flags.contains("demo") {
                do { try player.send(.open(OpenRequest(uri: SourceResolver.demoURI))) }
                catch { log.error("demo failed to start", ["error": "\(error)"]) }
            }
            return true
        }
        guard started else { return 1 }
        MainLoop.run()
        log.info("stopped")
        return 0
    }

    /// `--library-quota BYTES`, `--download-rate BYTES_PER_S`, `--key-file PATH`, `--license-url URL`.
    /// `--analytics-header "Name: value"` (repeatable): headers for the collector, checked
    /// like an open's request headers (no line breaks, no hop-by-hop names).
    private static func analyticsHeaders(_ given: [String]) throws -> [String: String] {
        var headers: [String: String] = [:]
        for text in given {
            guard let colon = text.firstIndex(of: ":"), !text[..<colon].trimmingWhitespace().isEmpty else {
                throw UsageError("--analytics-header must be \"Name: value\"")
            }
            headers[text[..<colon].trimmingWhitespace()] = text[text.index(after: colon)...].trimmingWhitespace()
        }
        do throws(APIError) { try RequestHeaders.validate(headers, field: "--analytics-header") } catch {
            throw UsageError(error.message)
        }
        return headers
    }

    private static func libraryConfiguration(_ args: ParsedArguments, dataDirectory: String) throws -> Library.Configuration {
        func bytes(_ option: String) throws -> Int64? {
            try args.value(option).map { text in
                guard let value = Int64(text), value > 0 else { throw UsageError("--\(option) must be a number of bytes > 0") }
                return value
            }
        }
        let licenseURL = args.value("license-url")
        if let licenseURL {
            guard let url = URL(string: licenseURL), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                throw UsageError("--license-url must be an http(s) URL")
            }
        }
        return Library.Configuration(dataDirectory: dataDirectory, quotaBytes: try bytes("library-quota"),
                                     downloadRate: try bytes("download-rate"), keyFile: args.value("key-file"), licenseURL: licenseURL,
                                     keyService: try keyService(args))
    }

    /// `--key-service URL`: where the keys of http(s) opens (and library items) without a
    /// `keyService` of their own are POSTed for (API-2 §2).
    static func keyService(_ args: ParsedArguments) throws -> KeyServiceRequest? {
        try args.value("key-service").map { text in
            guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                throw UsageError("--key-service must be an http(s) URL")
            }
            return KeyServiceRequest(uri: text)
        }
    }

    /// `--session-url URL`, `--session-interval S`, `--session-grace S`; nil without a URL.
    /// The device id is read (or made) here, at start, not on the GLib thread.
    private static func sessionControlConfiguration(_ args: ParsedArguments, dataDirectory: String) throws -> SessionControlFeature.Configuration? {
        func seconds(_ option: String, _ range: ClosedRange<Double>, default value: Double) throws -> Double {
            guard let text = args.value(option) else { return value }
            guard let seconds = Double(text), range.contains(seconds) else {
                throw UsageError("--\(option) must be \(Int(range.lowerBound)) to \(Int(range.upperBound)) seconds")
            }
            return seconds
        }
        let interval = try seconds("session-interval", SessionControlFeature.Configuration.intervalRange, default: 30)
        let grace = try seconds("session-grace", SessionControlFeature.Configuration.graceRange, default: 120)
        guard let sessionURL = args.value("session-url") else { return nil }
        guard let url = URL(string: sessionURL), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
            throw UsageError("--session-url must be an http(s) URL")
        }
        return .init(url: sessionURL, interval: interval, grace: grace, deviceId: DeviceIdentity.loadOrCreate(in: dataDirectory))
    }

    /// `--request-timeout` and `--max-event-clients`.
    private static func serverLimits(_ args: ParsedArguments) throws -> ControlServer.Limits {
        var limits = ControlServer.Limits()
        if let text = args.value("request-timeout") {
            guard let seconds = Double(text), ControlServer.Limits.requestSecondsRange.contains(seconds) else {
                throw UsageError("--request-timeout must be 1 to 3600 seconds")
            }
            limits.requestSeconds = seconds
        }
        if let text = args.value("max-event-clients") {
            guard let count = Int(text), ControlServer.Limits.eventClientsRange.contains(count) else {
                throw UsageError("--max-event-clients must be 1 to 10000")
            }
            limits.eventClients = count
        }
        return limits
    }

    /// `--media-root` folders (each must exist) and the `--allow-scheme` list.
    private static func sourceResolver(_ args: ParsedArguments) throws -> SourceResolver {
        for root in args.values("media-root") {
            var isDirectory = false  // FoundationEssentials' fileExists takes a plain Bool, not ObjCBool
            guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory else {
                throw UsageError("--media-root \(root) is not a folder")
            }
        }
        let schemes = Set(args.values("allow-scheme").map { $0.lowercased() })
        if let unknown = schemes.subtracting(SourceResolver.supportedSchemes).first {
            throw UsageError("--allow-scheme \(unknown) is not one of \(SourceResolver.supportedSchemes.sorted().joined(separator: ", "))")
        }
        return SourceResolver(mediaRoots: args.values("media-root"), allowedSchemes: schemes.isEmpty ? nil : schemes)
    }

    /// `--data-dir`, else `$XDG_DATA_HOME/marquee`, else `~/.local/share/marquee`; created if missing.
    private static func prepareDataDirectory(_ given: String?, environment: [String: String]) throws -> String {
        let path: String
        if let given {
            path = given
        } else if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty {
            path = xdg + "/marquee"
        } else {
            path = FileManager.default.homeDirectoryForCurrentUser.path + "/.local/share/marquee"
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw UsageError("cannot create the data directory \(path): \(error.fileErrorText)")
        }
        return path
    }
}

/// A start that cannot go on for a reason outside the command line (a damaged database).
struct StartupError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
