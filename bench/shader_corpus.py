#!/usr/bin/env python3
"""Runs every shader of a public corpus through `kiln shader compile` and `kiln shader reflect` and
compares the SPIR-V with glslangValidator's, at the first Vulkan target environment glslangValidator
accepts the file at. Prints the counts; any signal death of kiln is listed by file and fails the run.

    bench/shader_corpus.py CORPUS_DIR [--kiln build/release/editor/kiln] [--jobs N] [--json]

A corpus is a directory of shader files named by stage (glslang's Test/ directory works as it is:
fetch glslang and point at it; nothing of it is kept here). Files glslangValidator rejects at every
target are counted apart: they test glslang's errors, not Kiln. HLSL files (`hlsl.*`) are counted apart.
"""
import argparse
import concurrent.futures
import json
import os
import pathlib
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


def one(kiln, path, work):
    """The outcome of one file: its category, and a detail for the odd ones."""
    out = pathlib.Path(work) / (path.name + ".oracle.spv")
    target = None
    for t in TARGETS:
        code, _ = run([GLSLANG, "-V", "--target-env", t, str(path), "-o", str(out)])
        if code == 0:
            target = t
            break
    cache = str(pathlib.Path(work) / "cache")
    ours = pathlib.Path(work) / (path.name + ".kiln.spv")
    argv = [kiln, "shader", "compile", str(path), "--root", str(path.parent), "-o", str(ours), "--cache-root", cache]
    if target:
        argv[3:3] = ["--target-env", target]
    code, output = run(argv)
    result = {"file": path.name, "target": target, "compile": code}
    if code == "timeout" or (isinstance(code, int) and (code < 0 or code >= 128)):
        result["category"] = "signal"
        result["detail"] = output[-400:]
        return result
    if target is None:
        result["category"] = "rejected by both" if code != 0 else "accepted by kiln only"
        return result
    if code != 0:
        result["category"] = "compile failed"
        result["detail"] = output[-400:]
        return result
    result["category"] = "identical" if ours.read_bytes() == out.read_bytes() else "different"
    rcode, routput = run([kiln, "shader", "reflect", str(path), "--target-env", target, "--root", str(path.parent),
                          "--cache-root", cache])
    result["reflect"] = rcode
    if rcode == "timeout" or (isinstance(rcode, int) and (rcode < 0 or rcode >= 128)):
        result["category"] = "signal"
        result["detail"] = routput[-400:]
    elif rcode != 0:
        result["reflect_error"] = routput.strip().splitlines()[-1] if routput.strip() else ""
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus")
    parser.add_argument("--kiln", default=str(pathlib.Path(__file__).resolve().parent.parent / "build/release/editor/kiln"))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    corpus = pathlib.Path(args.corpus)
    files = sorted(p for p in corpus.iterdir() if p.is_file() and p.suffix[1:] in STAGES)
    glsl = [p for p in files if not p.name.startswith("hlsl.")]
    hlsl = [p for p in files if p.name.startswith("hlsl.")]
    started = time.monotonic()
    results = []
    with tempfile.TemporaryDirectory(prefix="kiln-corpus-") as work:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            for i, r in enumerate(pool.map(lambda p: one(args.kiln, p, work), glsl), 1):
                results.append(r)
                if sys.stderr.isatty():
                    print(f"\r{i}/{len(glsl)}", end="", file=sys.stderr, flush=True)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    counts = {}
    for r in results:
        counts[r["category"]] = counts.get(r["category"], 0) + 1
    accepted = sum(1 for r in results if r["target"])
    identical = counts.get("identical", 0)
    reflect_refused = [r for r in results if r.get("reflect_error")]
    summary = {"files": len(files), "glsl": len(glsl), "hlsl (not run)": len(hlsl),
               "glslangValidator accepts": accepted, "counts": counts,
               "identical of accepted": f"{identical}/{accepted} ({100.0 * identical / max(accepted, 1):.1f}%)",
               "reflect refused": len(reflect_refused), "seconds": round(time.monotonic() - started, 1)}
    if args.json:
        print(json.dumps({"summary": summary, "results": results}, indent=1))
    else:
        for key, value in summary.items():
            print(f"{key}: {value}")
        for r in results:
            if r["category"] in ("signal", "different", "compile failed", "accepted by kiln only"):
                print(f"  {r['category']}: {r['file']} ({r['target']}) {r.get('detail', '').strip().splitlines()[-1:] }")
        for r in reflect_refused[:20]:
            print(f"  reflect refused: {r['file']}: {r['reflect_error'][:160]}")
    return 1 if counts.get("signal") else 0


if __name__ == "__main__":
    sys.exit(main())
