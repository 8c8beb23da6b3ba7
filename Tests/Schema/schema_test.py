#!/usr/bin/env python3
"""The OpenAPI document against the daemon it describes: schemathesis, all checks.

    python3 Tests/Schema/schema_test.py --marquee .build/debug/marquee

Runs itself in .build/schema-venv (made on first use from requirements.txt, with the same
helper as the browser test), starts `marquee serve` on port 0 with fake sinks, a temporary
--data-dir and a --media-root that holds nothing, and runs schemathesis with every check
against its GET /openapi.json (settings: schemathesis.toml; request hooks: hooks.py). Then
the daemon must still answer GET /healthz, and it is stopped with SIGTERM. The report,
schemathesis' output and the daemon's log go to .build/schema-artifacts/. Ends with
`schemathesis: N operations, M failures` and exits non-zero on any failure.
MARQUEE_SKIP_SCHEMA=1 skips it, saying so.
"""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "Browser"))
import support  # noqa: E402  (the browser test's venv and daemon helpers; standard library only)

VENV = os.path.join(support.ROOT, ".build", "schema-venv")
REQUIREMENTS = os.path.join(HERE, "requirements.txt")
CONFIG = os.path.join(HERE, "schemathesis.toml")
HOOKS = os.path.join(HERE, "hooks.py")
# The whole schemathesis run may take this long before it is stopped and counted as failed
# (it takes under a minute on two cores; see schemathesis.toml for the numbers).
RUN_LIMIT = 540


def main():
    if os.environ.get("MARQUEE_SKIP_SCHEMA") == "1":
        print("schemathesis: SKIPPED: the schema test did not run because MARQUEE_SKIP_SCHEMA=1 is set")
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--marquee", default=os.path.join(support.ROOT, ".build", "debug", "marquee"),
                        help="the marquee binary (default: .build/debug/marquee)")
    parser.add_argument("--artifacts", default=os.path.join(support.ROOT, ".build", "schema-artifacts"))
    parser.add_argument("--max-examples", type=int,
                        help="test cases per operation and phase (default: schemathesis.toml's)")
    args = parser.parse_args()
    args.marquee = os.path.abspath(args.marquee)
    args.artifacts = os.path.abspath(args.artifacts)
    if not os.access(args.marquee, os.X_OK):
        print(f"schemathesis: marquee not found at {args.marquee} (swift build)")
        print("schemathesis: 0 operations, 1 failures")
        return 1
    support.ensure_venv(VENV, REQUIREMENTS, module="schemathesis", label="schemathesis")
    return run(args)


def run(args):
    started = time.monotonic()
    shutil.rmtree(args.artifacts, ignore_errors=True)
    os.makedirs(args.artifacts)
    work = tempfile.mkdtemp(prefix="marquee-schema-")
    problems = []  # what failed besides schemathesis' own findings
    report = {}
    daemon = None
    try:
        # Every local path the fuzzer names is outside this empty root: `403 forbidden`
        # before anything is read, so no generated path can make the daemon read a file
        # of this machine (or a FIFO, or /proc).
        media = os.path.join(work, "media")
        os.makedirs(media)
        daemon = support.Daemon(args.marquee, work, "daemon", extra_args=["--media-root", media])
        print(f"schemathesis: daemon pid {daemon.pid} at {daemon.url}", flush=True)
        code, report = schemathesis(daemon, args, work)
        if code != 0 and not report.get("failures") and not report.get("errors"):
            problems.append(f"schemathesis exited with {code}")
        problems += check_alive(daemon)
    except Exception as error:  # the daemon did not start, or schemathesis could not finish
        problems.append(f"{type(error).__name__}: {error}")
    finally:
        if daemon is not None:
            status = daemon.stop()
            if status != 0 and not problems:
                problems.append(f"the daemon exited with {status} on SIGTERM (0 expected)")
            shutil.copy(daemon.log_path, os.path.join(args.artifacts, "daemon.log"))
        shutil.rmtree(work, ignore_errors=True)
    for problem in problems:
        print(f"schemathesis: FAIL {problem}")
    operations = report.get("operations", {}).get("tested", 0)
    failures = sum(f.get("count", 1) for f in report.get("failures", [])) + len(report.get("errors", []))
    failures += len(problems)
    cases = report.get("test_cases", {}).get("generated", 0)
    print(f"schemathesis: {cases} test cases; artifacts in {display(args.artifacts)}; "
          f"{time.monotonic() - started:.0f} s")
    print(f"schemathesis: {operations} operations, {failures} failures")
    return 0 if failures == 0 and operations > 0 else 1


def schemathesis(daemon, args, work):
    """Runs schemathesis against the daemon; its output is shown and kept. Returns (exit
    code, the JSON report or {})."""
    report_path = os.path.join(args.artifacts, "report.json")
    command = [sys.executable, "-m", "schemathesis.cli", "--config-file", CONFIG, "--no-color",
               "run", f"{daemon.url}/openapi.json", "--checks", "all",
               "--report", "json", "--report-json-path", report_path]
    if args.max_examples:
        command += ["--max-examples", str(args.max_examples)]
    env = dict(os.environ, SCHEMATHESIS_HOOKS=HOOKS)
    print("schemathesis: python " + " ".join(display(c) for c in command[1:]), flush=True)
    # Its working directory is the temporary one: nothing it writes lands in the tree.
    with open(os.path.join(args.artifacts, "schemathesis.log"), "w") as log:
        process = subprocess.Popen(command, cwd=work, env=env, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        # A hung run is stopped (this process only, by its pid) rather than waited for.
        watchdog = threading.Timer(RUN_LIMIT, lambda: os.kill(process.pid, signal.SIGKILL))
        watchdog.start()
        try:
            for line in process.stdout:
                sys.stdout.write(line)
                sys.stdout.flush()
                log.write(line)
            code = process.wait()
        finally:
            watchdog.cancel()
        if code == -signal.SIGKILL:
            raise RuntimeError(f"schemathesis ran longer than {RUN_LIMIT} s and was stopped")
    try:
        with open(report_path) as f:
            return code, json.load(f)
    except (OSError, ValueError):
        return code, {}


def check_alive(daemon):
    """After the run the daemon must still run and answer GET /healthz."""
    if not daemon.running():
        return [f"the daemon died during the run (exit status {daemon.proc.returncode}); "
                f"log tail:\n{daemon.log_tail()}"]
    try:
        status, body = daemon.request("GET", "/healthz", timeout=10)
    except OSError as error:
        return [f"GET /healthz after the run failed: {error}"]
    if status != 200 or not isinstance(body, dict) or body.get("status") != "ok":
        return [f"GET /healthz after the run answered {status}: {body}"]
    return []


def display(path):
    return os.path.relpath(path, support.ROOT) if path.startswith(support.ROOT + os.sep) else path


if __name__ == "__main__":
    sys.exit(main())
