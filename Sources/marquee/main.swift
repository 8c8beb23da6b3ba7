import Glibc

// Entry point. Stays synchronous: `serve` hands the main thread to the GLib main loop, and an
// `await` here would hand it to Dispatch instead.
let arguments = Array(CommandLine.arguments.dropFirst())
exit(CommandLineTool.run(arguments))
