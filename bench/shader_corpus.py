#!/usr/bin/env python3
"""Runs every shader of a public corpus through `kiln shader compile` and `kiln shader reflect` and
compares the SPIR-V with glslangValidator's, at the first Vulkan target environment glslangValidator
accepts the file at. Prints the counts; any signal death of kiln is listed by file and fails the run.

    bench/shader_corpus.py CORPUS_DIR [--kiln build/release/editor/kiln] [--jobs N] [--json]
                           [--hlsl-entries gtests/Hlsl.FromFile.cpp] [--only glsl|hlsl]

A corpus is a directory of shader files named by stage (glslang's Test/ directory works as it is:
fetch glslang and point at it; nothing of it is kept here). Files glslangValidator rejects at every
target are counted apart: they test glslang's errors, not Kiln.

HLSL files (`hlsl.*`) are compiled as Kiln names them, `<name>.<stage>.hlsl` (a copy of the corpus is
made for that), against `glslangValidator -D -V -S <stage> -e <entry>`. Their entry points come from
--hlsl-entries, a file listing `{"hlsl.x.frag", "entry"}` pairs (glslang's gtests/Hlsl.FromFile.cpp);
a file it does not list starts at main.
"""
import argparse
import concurrent.futures
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

STAGES = ["vert", "tesc", "tese", "geom", "task", "mesh", "frag", "comp",
          "rgen", "rint", "rahit", "rchit", "rmiss", "rcall"]
TARGETS = ["vulkan1.0", "vulkan1.1", "vulkan1.2", "vulkan1.3"]
GLSLANG = "/usr/bin/glslangValidator"


def run(argv, timeout=120):
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return "timeout", ""


def one(kiln, path, work, entry=None):
    """The outcome of one file: its category, and a detail for the odd ones. `entry` is given for an
    HLSL file, whose copy named for Kiln (`x.frag.hlsl`) sits beside it."""
    out = pathlib.Path(work) / (path.name + ".oracle.spv")
    oracle = [GLSLANG, "-V"] if entry is None else [GLSLANG, "-D", "-V", "-S", path.suffix[1:], "-e", entry]
    target, oracle_output = None, ""
    for t in TARGETS:
        code, oracle_output = run(oracle + ["--target-env", t, str(path), "-o", str(out)])
        if code == 0:
            target = t
            break
    cache = str(pathlib.Path(work) / "cache")
    ours = pathlib.Path(work) / (path.name + ".kiln.spv")
    source = path if entry is None else path.with_name(path.name + ".hlsl")
    argv = [kiln, "shader", "compile", str(source), "--root", str(path.parent), "-o", str(ours), "--cache-root", cache]
    if entry is not None:
        argv += ["--entry", entry]
    if target:
        argv[3:3] = ["--target-env", target]
    code, output = run(argv)
    result = {"file": path.name, "language": "glsl" if entry is None else "hlsl", "target": target, "compile": code}
    if code == "timeout" or (isinstance(code, int) and (code < 0 or code >= 128)):
        result["category"] = "signal"
        result["detail"] = output[-400:]
        return result
    if target is None:
        result["category"] = "rejected by both" if code != 0 else "accepted by kiln only"
        return result
    if code != 0 and "Entry point not found" in oracle_output and "error: no function" in output:
        # glslangValidator warns and writes a stage that does nothing; Kiln refuses it.
        result["category"] = "no entry point: refused"
        return result
    if code != 0:
        result["category"] = "compile failed"
        result["detail"] = output[-400:]
        return result
    result["category"] = "identical" if ours.read_bytes() == out.read_bytes() else "different"
    rcode, routput = run([kiln, "shader", "reflect", str(source), "--target-env", target, "--root", str(path.parent),
                          "--cache-root", cache] + (["--entry", entry] if entry is not None else []))
    result["reflect"] = rcode
    if rcode == "timeout" or (isinstance(rcode, int) and (rcode < 0 or rcode >= 128)):
        result["category"] = "signal"
        result["detail"] = routput[-400:]
    elif rcode != 0:
        result["reflect_error"] = routput.strip().splitlines()[-1] if routput.strip() else ""
    return result


def hlsl_entries(listing):
    """{"hlsl.amend.frag", "f1"} pairs: the first entry point named for each file."""
    entries = {}
    if listing:
        for name, entry in re.findall(r'\{\s*"(hlsl\.[^"]+)"\s*,\s*"([^"]*)"', pathlib.Path(listing).read_text()):
            entries.setdefault(name, entry or "main")
    return entries


def summarise(results):
    counts = {}
    for r in results:
        counts[r["category"]] = counts.get(r["category"], 0) + 1
    accepted = sum(1 for r in results if r["target"] and r["category"] != "no entry point: refused")
    identical = counts.get("identical", 0)
    return {"files": len(results), "glslangValidator compiles": accepted, "counts": counts,
            "identical of accepted": f"{identical}/{accepted} ({100.0 * identical / max(accepted, 1):.1f}%)",
            "reflect refused": sum(1 for r in results if r.get("reflect_error"))}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus")
    parser.add_argument("--kiln", default=str(pathlib.Path(__file__).resolve().parent.parent / "build/release/editor/kiln"))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--hlsl-entries", help="a file of {\"hlsl.x.frag\", \"entry\"} pairs")
    parser.add_argument("--only", choices=["glsl", "hlsl"])
    args = parser.parse_args()
    entries = hlsl_entries(args.hlsl_entries)
    started = time.monotonic()
    results = []
    with tempfile.TemporaryDirectory(prefix="kiln-corpus-") as work:
        # A copy, so that each HLSL file can sit beside its includes under the name Kiln reads.
        corpus = pathlib.Path(work) / "corpus"
        shutil.copytree(args.corpus, corpus, symlinks=True)
        files = sorted(p for p in corpus.iterdir() if p.is_file() and p.suffix[1:] in STAGES)
        jobs = []
        for p in files:
            if p.name.startswith("hlsl."):
                if args.only != "glsl":
                    shutil.copyfile(p, p.with_name(p.name + ".hlsl"))
                    jobs.append((p, entries.get(p.name, "main")))
            elif args.only != "hlsl":
                jobs.append((p, None))
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            for i, r in enumerate(pool.map(lambda job: one(args.kiln, job[0], work, job[1]), jobs), 1):
                results.append(r)
                if sys.stderr.isatty():
                    print(f"\r{i}/{len(jobs)}", end="", file=sys.stderr, flush=True)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    summary = {language: summarise([r for r in results if r["language"] == language])
               for language in ("glsl", "hlsl") if any(r["language"] == language for r in results)}
    summary["seconds"] = round(time.monotonic() - started, 1)
    if args.json:
        print(json.dumps({"summary": summary, "results": results}, indent=1))
    else:
        for key, value in summary.items():
            print(f"{key}: {value}")
        for r in results:
            if r["category"] in ("signal", "different", "compile failed", "accepted by kiln only"):
                print(f"  {r['category']}: {r['file']} ({r['target']}) {r.get('detail', '').strip().splitlines()[-1:] }")
        for r in [r for r in results if r.get("reflect_error")][:40]:
            print(f"  reflect refused: {r['file']}: {r['reflect_error'][:160]}")
    return 1 if any(r["category"] == "signal" for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
