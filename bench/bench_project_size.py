#!/usr/bin/env python3
"""How cooks grow with the project: for generated projects of more and more variants, the wall time
and peak RSS of a cold cook (empty cache), a warm cook (nothing changed), and a cook after one
shader stage was edited (that shader's variants recompile, a sixth of them), each as a whole
`kiln cook` process.

    bench/bench_project_size.py [--keywords 5 6 7 8] [--shaders 6] [--textures 20] [--jobs 2]
                                [--runs 3] [--kiln build/release/editor/kiln] [--json]

The projects come from bench/make_large_project.py (shaders x 2^keywords x 3 passes variants);
--keywords 11 is 36,864 variants. Warm and edit figures are the median of --runs; a cold cook runs
once per size. The warm cooks start --settle seconds after the cold one, as a later cook does: the
first of them reads the kept shaders pack to prove it and records its file identity ("warm, pack
read"); the --runs after it find the identity unchanged and read no pack ("warm cook"). Peak RSS is the largest of the cook and the workers it starts (what wait4 reports
for the cook: its own peak or its reaped children's, whichever is larger).
"""
import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent


def cook(kiln, project, out, cache, jobs):
    """Wall seconds and peak RSS (MiB) of one `kiln cook`."""
    start = time.monotonic()
    proc = subprocess.Popen([kiln, "cook", str(project), "--out", str(out), "--cache-root", str(cache), "--jobs",
                             str(jobs)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    output = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit("kiln cook failed:\n" + output.decode(errors="replace"))
    return wall, usage.ru_maxrss / 1024


def edit_stage(project, n):
    """A change to one stage of one shader that changes what it compiles to."""
    stage = project / "shaders" / "s0.frag"
    text = stage.read_text()
    stage.write_text(text.replace("out_color = vec4(", f"out_color = vec4(0.{n:04d} + ", 1))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keywords", type=int, nargs="+", default=[5, 6, 7, 8])
    parser.add_argument("--shaders", type=int, default=6)
    parser.add_argument("--textures", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--settle", type=float, default=3.5,
                        help="seconds between the cold cook and the warm ones (a pack proves by identity 3 s after)")
    parser.add_argument("--kiln", default=str(HERE.parent / "build/release/editor/kiln"))
    parser.add_argument("--json", action="store_true", help="one JSON object per size instead of the table")
    args = parser.parse_args()
    rows = []
    if not args.json:
        print("| variants | cold cook | warm, pack read | warm cook | per variant (warm) | one stage edited "
              "| peak RSS cold / warm / edit | per variant (cold RSS over 64 MiB) | shaders pack |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for keywords in args.keywords:
        with tempfile.TemporaryDirectory(prefix="kiln-size-") as work:
            work = pathlib.Path(work)
            project, out, cache = work / "project", work / "out", work / "cache"
            subprocess.run([sys.executable, str(HERE / "make_large_project.py"), str(project), "--shaders",
                            str(args.shaders), "--keywords", str(keywords), "--textures", str(args.textures), "--size",
                            "64"], check=True, stdout=subprocess.DEVNULL)
            variants = args.shaders * (1 << keywords) * 3
            cold, cold_rss = cook(args.kiln, project, out, cache, args.jobs)
            time.sleep(args.settle)
            first_warm, _ = cook(args.kiln, project, out, cache, args.jobs)
            warm = [cook(args.kiln, project, out, cache, args.jobs) for _ in range(args.runs)]
            edits = []
            for run in range(args.runs):
                edit_stage(project, run + 1)
                edits.append(cook(args.kiln, project, out, cache, args.jobs))
            pack = sum(f.stat().st_size for f in out.glob("shaders.*.pack"))
            row = {
                "variants": variants,
                "cold_s": cold,
                "warm_read_s": first_warm,
                "warm_s": statistics.median(w for w, _ in warm),
                "edit_s": statistics.median(e for e, _ in edits),
                "cold_rss_mib": cold_rss,
                "warm_rss_mib": max(r for _, r in warm),
                "edit_rss_mib": max(r for _, r in edits),
                "shaders_pack_mib": pack / 2**20,
            }
            rows.append(row)
            if args.json:
                print(json.dumps(row))
            else:
                per_variant_kib = max(0.0, row["cold_rss_mib"] - 64) * 1024 / variants
                print(f"| {variants:,} | {row['cold_s']:.2f} s | {row['warm_read_s']:.3f} s | {row['warm_s']:.3f} s | "
                      f"{1e6 * row['warm_s'] / variants:.1f} µs | {row['edit_s']:.2f} s | "
                      f"{row['cold_rss_mib']:.0f} / {row['warm_rss_mib']:.0f} / {row['edit_rss_mib']:.0f} MiB | "
                      f"{per_variant_kib:.1f} KiB | {row['shaders_pack_mib']:.1f} MiB |", flush=True)
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
