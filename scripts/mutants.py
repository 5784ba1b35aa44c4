#!/usr/bin/env python3
"""Mutation testing of Kiln's guards: each mutant of tests/mutants.toml applied alone.

For every entry (a file, a code fragment that occurs exactly once in it, its replacement, and the
tests expected to kill it) this applies the replacement, rebuilds incrementally, runs the module's
own tests named by the entry and then its end-to-end tests, and restores the file whatever
happens. It prints one line per mutant and the kill rates: overall, and by the module's own tests.

    scripts/mutants.sh                      every entry (release build)
    scripts/mutants.sh --changed [BASE]     entries of files changed since BASE (default HEAD~1)
    scripts/mutants.sh --only ID [ID...]    the named entries
    scripts/mutants.sh --check              only check that every fragment is still in its file
    scripts/mutants.sh --preset asan        another CMake preset (release by default)
    scripts/mutants.sh --json               one JSON object per mutant instead of the table
    scripts/mutants.sh --list FILE          another list in the same format (an audit's own mutants)
"""

import argparse
import fcntl
import json
import os
import re
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIST = ROOT / "tests" / "mutants.toml"
BACKUP_SUFFIX = ".mutant-original"
TEST_TIMEOUT = 180  # seconds per test run by default (an entry's `timeout` says otherwise); a hang is a kill
KINDS = {"key", "checksum", "bound", "identity", "limit", "atomicity", "order", "check"}


def load_entries(path):
    with open(path, "rb") as f:
        data = tomllib.load(f)
    entries = data.get("mutant", [])
    seen = set()
    problems = []
    for e in entries:
        where = f"{path}: mutant {e.get('id', '?')}"
        for field in ("id", "file", "find", "replace", "kind"):
            if field not in e:
                problems.append(f"{where}: no '{field}'")
        if not e.get("tests") and not e.get("suites"):
            problems.append(f"{where}: neither 'tests' nor 'suites'")
        if e.get("id") in seen:
            problems.append(f"{where}: id used twice")
        seen.add(e.get("id"))
        if e.get("kind") not in KINDS:
            problems.append(f"{where}: kind '{e.get('kind')}' is not one of {sorted(KINDS)}")
        if e.get("find") == e.get("replace"):
            problems.append(f"{where}: the replacement equals the fragment")
        for name in e.get("tests", []) + e.get("e2e", []) + e.get("suites", []):
            if "," in name:
                problems.append(f"{where}: test name with a comma (doctest splits filters there): {name}")
    return entries, problems


def fragment_problem(entry):
    path = ROOT / entry["file"]
    if not path.exists():
        return f"{entry['file']}: no such file"
    count = path.read_text().count(entry["find"])
    if count != 1:
        return f"{entry['file']}: the fragment occurs {count} times (must be once)"
    return None


def restore_interrupted(entries):
    # A run killed between applying and restoring leaves the original beside the mutated file.
    for path in sorted({ROOT / e["file"] for e in entries if "file" in e}):
        backup = path.with_name(path.name + BACKUP_SUFFIX)
        if backup.exists():
            path.write_bytes(backup.read_bytes())
            backup.unlink()
            print(f"restored {path.relative_to(ROOT)} from an interrupted run", file=sys.stderr)


def build(preset):
    """Builds the preset; returns (built, the end of the build's output)."""
    result = subprocess.run([str(ROOT / "scripts" / "build.sh"), preset], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    return result.returncode == 0, result.stdout[-4000:]


def failed_cases(output):
    """The test cases that failed: doctest heads every report (a failure, but also a MESSAGE) with a
    TEST CASE line, so only the reports that hold an error, an exception or a crash count."""
    failed = set()
    for report in re.split(r"^={20,}$", output, flags=re.M):
        name = re.search(r"^TEST CASE:\s+(.*)$", report, re.M)
        if name and re.search(r"ERROR|THREW exception|CRASHED|SIG[A-Z]+", report):
            failed.add(name.group(1).strip())
    return sorted(failed)


def run_tests(preset, names, suites, timeout):
    """Runs the named test cases and suites; returns (killed, the names of the cases that failed)."""
    if not names and not suites:
        return False, []
    binary = ROOT / "build" / preset / "tests" / "kiln_tests"
    command = [str(binary), "--no-colors"]
    if names:
        command.append("-tc=" + ",".join(names))
    if suites:
        command.append("-ts=" + ",".join(suites))
    # A session of its own: a timed-out run is stopped with everything it started (a child that
    # kept the output pipe open would otherwise hold the run until it ended by itself).
    process = subprocess.Popen(command, cwd=binary.parent, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, errors="replace", start_new_session=True)
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return True, ["(timed out)"]
    failed = failed_cases(output)
    ran = re.search(r"test cases:\s+(\d+)", output)
    if ran and int(ran.group(1)) == 0:
        return False, ["(no test case matched: check the names)"]
    if process.returncode != 0 and not failed:
        failed = [f"(exit {process.returncode})"]
    return process.returncode != 0, failed


def changed_files(base):
    out = subprocess.run(["git", "diff", "--name-only", base], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                         check=True).stdout
    return set(out.split())


def interrupt(*_):
    # SIGTERM as Ctrl-C: the `with Applied` block restores the file on the way out.
    raise KeyboardInterrupt()


class Applied:
    """The mutant in its file for the duration of a `with`; the original back whatever happens."""

    def __init__(self, entry):
        self.path = ROOT / entry["file"]
        self.entry = entry

    def __enter__(self):
        self.original = self.path.read_bytes()
        self.backup = self.path.with_name(self.path.name + BACKUP_SUFFIX)
        self.backup.write_bytes(self.original)
        text = self.original.decode()
        self.path.write_text(text.replace(self.entry["find"], self.entry["replace"], 1))
        return self

    def __exit__(self, *exc):
        self.path.write_bytes(self.original)
        self.backup.unlink(missing_ok=True)
        return False


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", default="release")
    parser.add_argument("--changed", nargs="?", const="HEAD~1", metavar="BASE")
    parser.add_argument("--only", nargs="+", metavar="ID")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--list", type=Path, default=LIST, metavar="FILE")
    args = parser.parse_args()

    entries, problems = load_entries(args.list.resolve())
    # One run at a time in a tree: another run's applied mutant looks like an interrupted run's.
    (ROOT / "build").mkdir(exist_ok=True)
    lock = open(ROOT / "build" / "mutants.lock", "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        print("another mutation run is in progress in this tree", file=sys.stderr)
        return 2
    restore_interrupted(entries)
    for e in entries:
        if problem := fragment_problem(e):
            problems.append(f"mutant {e['id']}: {problem}")
    if problems:
        for p in problems:
            print(p, file=sys.stderr)
        return 2
    if args.check:
        print(f"{len(entries)} mutants, every fragment found once in its file")
        return 0
    if args.changed:
        files = changed_files(args.changed)
        entries = [e for e in entries if e["file"] in files]
    if args.only:
        unknown = set(args.only) - {e["id"] for e in entries}
        if unknown:
            print(f"no such mutant: {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        entries = [e for e in entries if e["id"] in args.only]
    if not entries:
        print("no mutant to run")
        return 0

    signal.signal(signal.SIGTERM, interrupt)
    ok, log = build(args.preset)
    if not ok:
        print("the unmutated tree does not build:\n" + log, file=sys.stderr)
        return 2

    results = []
    started = time.monotonic()
    try:
        for i, e in enumerate(entries, 1):
            t0 = time.monotonic()
            with Applied(e):
                built, log = build(args.preset)
                if not built:
                    outcome = {"id": e["id"], "status": "invalid", "detail": "does not compile"}
                else:
                    timeout = e.get("timeout", TEST_TIMEOUT)
                    killed, failed = run_tests(args.preset, e.get("tests", []), e.get("suites", []), timeout)
                    by_module = killed
                    if not killed:
                        killed, failed = run_tests(args.preset, e.get("e2e", []), [], timeout)
                    outcome = {
                        "id": e["id"],
                        "status": "killed" if killed else "survived",
                        "by_module": by_module,
                        "detail": "; ".join(failed) if killed else "no listed test failed",
                    }
            outcome.update({"file": e["file"], "kind": e["kind"], "seconds": round(time.monotonic() - t0, 1)})
            results.append(outcome)
            if args.json:
                print(json.dumps(outcome), flush=True)
            else:
                mark = {"killed": "killed" + ("" if outcome.get("by_module") else " (e2e)"),
                        "survived": "SURVIVED", "invalid": "invalid"}[outcome["status"]]
                print(f"[{i}/{len(entries)}] {e['id']:<44} {mark:<14} {outcome['seconds']:>4.0f} s  "
                      f"{outcome['detail'][:80]}", flush=True)
    except KeyboardInterrupt:
        print("interrupted: the mutated file was restored", file=sys.stderr)
        build(args.preset)
        return 130
    build(args.preset)  # the build directory matches the tree again

    valid = [r for r in results if r["status"] != "invalid"]
    killed = [r for r in valid if r["status"] == "killed"]
    by_module = [r for r in killed if r.get("by_module")]
    if valid:
        summary = (f"{len(killed)}/{len(valid)} killed ({100 * len(killed) / len(valid):.0f}%), "
                   f"{len(by_module)}/{len(valid)} by the module's own tests "
                   f"({100 * len(by_module) / len(valid):.0f}%); {len(results) - len(valid)} invalid; "
                   f"{time.monotonic() - started:.0f} s")
        print(json.dumps({"summary": summary}) if args.json else summary)
    survivors = [r for r in valid if r["status"] == "survived"]
    return 1 if survivors or len(valid) < len(results) else 0


if __name__ == "__main__":
    sys.exit(main())
