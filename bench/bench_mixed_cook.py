#!/usr/bin/env python3
"""A cold cook of a project of mixed GLSL and HLSL shaders against the naive pipeline: one
glslangValidator process per stage of every variant, with the same defines and entry points, run
`--jobs` at a time. Prints each side's wall time, per variant, and the ratio.

    bench/bench_mixed_cook.py [--shaders 6] [--hlsl 3] [--keywords 4] [--jobs 2] [--runs 3]
                              [--kiln build/release/editor/kiln]

The project comes from bench/make_large_project.py (every keyword combination of each shader in
three passes: shaders x 2^keywords x 3 variants); its last --hlsl shaders are written in HLSL.
Every run of the cook starts from an empty cache.
"""
import argparse
import concurrent.futures
import json
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
GLSLANG = "/usr/bin/glslangValidator"


def stage_commands(project, out):
    """One glslangValidator command per stage of every variant the materials use, in every pass."""
    commands = []
    for material in sorted((project / "materials").glob("*.json")):
        doc = json.loads(material.read_text())
        shader = project / doc["shader"]
        for stage_file in sorted(shader.parent.glob(shader.name + ".*")):
            text = stage_file.read_text()
            passes = re.search(r"#pragma kiln passes (.*)", text).group(1).split()
            stage = stage_file.name.split(".")[1]
            hlsl = stage_file.suffix == ".hlsl"
            entry = re.search(r"#pragma kiln entry (\w+)", text)
            for p in passes:
                defines = [f"-D{k}=1" for k in doc["keywords"]] + [f"-DKILN_PASS_{p.upper()}=1"]
                argv = [GLSLANG] + (["-D", "-V", "-S", stage, "-e", entry.group(1) if entry else "main"] if hlsl
                                    else ["-V"])
                commands.append(argv + defines + [str(stage_file), "-o", str(out / f"{len(commands)}.spv")])
    return commands


def timed(fn):
    start = time.monotonic()
    fn()
    return time.monotonic() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shaders", type=int, default=6)
    parser.add_argument("--hlsl", type=int, default=3)
    parser.add_argument("--keywords", type=int, default=4)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--kiln", default=str(HERE.parent / "build/release/editor/kiln"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kiln-mixed-") as work:
        work = pathlib.Path(work)
        project = work / "project"
        subprocess.run([sys.executable, str(HERE / "make_large_project.py"), str(project), "--shaders",
                        str(args.shaders), "--keywords", str(args.keywords), "--textures", "4", "--size", "16",
                        "--hlsl", str(args.hlsl)], check=True, stdout=subprocess.DEVNULL)
        variants = args.shaders * (1 << args.keywords) * 3
        commands = stage_commands(project, work)
        oracle_dir = work / "oracle"
        oracle_dir.mkdir()

        def cook(run):
            cache = work / f"cache-{run}"
            r = subprocess.run([args.kiln, "cook", str(project), "--out", str(work / "out"), "--cache-root", str(cache),
                                "--jobs", str(args.jobs)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            if r.returncode != 0:
                sys.exit("kiln cook failed:\n" + r.stdout.decode(errors="replace"))
            shutil.rmtree(cache)

        def naive():
            def one(argv):
                r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
                if r.returncode != 0:
                    sys.exit(" ".join(argv) + " failed:\n" + r.stdout.decode(errors="replace"))
            with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
                list(pool.map(one, commands))

        cooks, oracles = [], []
        for run in range(args.runs):  # interleaved, so that both sides see the same machine
            cooks.append(timed(lambda: cook(run)))
            oracles.append(timed(naive))
        cook_s, oracle_s = statistics.median(cooks), statistics.median(oracles)
        print(f"project: {args.shaders} shaders ({args.hlsl} HLSL), {variants} variants, {len(commands)} stage "
              f"compiles, {args.jobs} jobs, median of {args.runs}")
        print(f"kiln cook, cold:                       {cook_s:7.2f} s  {1000 * cook_s / variants:6.2f} ms per variant "
              f"(runs {', '.join(f'{c:.2f}' for c in cooks)})")
        print(f"glslangValidator, a process per stage: {oracle_s:7.2f} s  {1000 * oracle_s / variants:6.2f} ms per "
              f"variant (runs {', '.join(f'{o:.2f}' for o in oracles)})")
        print(f"ratio (glslangValidator / kiln):       {oracle_s / cook_s:7.1f}x")


if __name__ == "__main__":
    main()
