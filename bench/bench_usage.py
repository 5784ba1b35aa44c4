#!/usr/bin/python3
"""What cooking by a usage record saves, on the generated large project.

    /usr/bin/python3 bench/bench_usage.py [--shaders 6] [--keywords 7] [--textures 20] [--runs 3]

Run after `scripts/build.sh release kiln kiln-player kiln-tools`.
1. A run of the game records what it used: the player draws every tenth material (the names ending
   in 0) for one frame with --record-usage.
2. The project cooked whole and cooked by that record (--usage, --usage-lenient), each into its own
   empty cache (cold) and again (warm): wall time, variants and pack bytes; ratios lean / full.
3. The player draws the same materials from each set: the first frame's time and the pipelines
   made during frames (the full set has no record: the first frame makes them; the lean set makes
   them on the worker pool before it). Interleaved runs, medians, on lavapipe.
"""

import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

KILN = 'build/release/editor/kiln'
PLAYER = 'build/release/player/kiln-player'
PATTERN = 'materials/m*0.json'


def lavapipe_env():
    env = dict(os.environ)
    icd = next(iter(glob.glob('/usr/share/vulkan/icd.d/lvp_icd.*.json')), '')
    env.update({'VK_ICD_FILENAMES': icd, 'VK_DRIVER_FILES': icd, 'KILN_RENDER_DEVICE': 'llvmpipe'})
    return env


def run(argv, env=None):
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout, (time.perf_counter() - started) * 1000


def pack_bytes(set_dir):
    return sum(os.path.getsize(p) for p in glob.glob(os.path.join(set_dir, '*.pack')))


def cook(work, project, name, extra):
    cache = os.path.join(work, name + '-cache')
    out = os.path.join(work, name)
    _, cold = run([KILN, 'cook', project, '--out', out, '--cache-root', cache, '--report', out + '.json'] + extra)
    _, warm = run([KILN, 'cook', project, '--out', out, '--cache-root', cache] + extra)
    report = json.load(open(out + '.json'))
    return {'cold': cold, 'warm': warm, 'variants': report['totals']['variants'], 'bytes': pack_bytes(out),
            'shaders_bytes': sum(os.path.getsize(p) for p in glob.glob(os.path.join(out, 'shaders.*.pack')))}


def play(work, set_dir, env):
    out, _ = run([PLAYER, set_dir, '--materials', PATTERN, '--frames', '2', '--json', '--cache-root',
                  os.path.join(work, 'player-cache-' + os.path.basename(set_dir))], env)
    report = json.loads(out[out.index('{'):])
    gpu = report['gpu']
    return {'first_ms': gpu['frames']['first_ms'], 'during': gpu['pipelines']['during_frames'],
            'precreated': gpu['pipelines']['precreated'], 'precreate_ms': gpu['pipelines']['precreate_ms'],
            'threads': gpu['pipelines']['precreate_threads'], 'startup_ms': report['startup_ms']}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--shaders', default='6')
    parser.add_argument('--keywords', default='7')
    parser.add_argument('--textures', default='20')
    parser.add_argument('--runs', type=int, default=3)
    args = parser.parse_args()
    env = lavapipe_env()
    work = tempfile.mkdtemp(prefix='kiln-bench-usage-')
    try:
        project = os.path.join(work, 'project')
        subprocess.run([sys.executable, 'bench/make_large_project.py', project, '--shaders', args.shaders,
                        '--keywords', args.keywords, '--textures', args.textures], check=True, capture_output=True)
        full = cook(work, project, 'full', [])
        record = os.path.join(work, 'run.usage.json')
        run([PLAYER, os.path.join(work, 'full'), '--materials', PATTERN, '--frames', '1', '--record-usage', record,
             '--cache-root', os.path.join(work, 'record-cache')], env)
        recorded = json.load(open(record))
        lean = cook(work, project, 'lean', ['--usage', record, '--usage-lenient'])

        print(f"## Cooking by a usage record ({args.shaders} shaders, {args.keywords} keywords, "
              f"{args.textures} textures; the record: {len(recorded['variants'])} variants, "
              f"{len(recorded['pipelines'])} pipelines)")
        print('| | full cook | cooked by the record | ratio |')
        print('| --- | --- | --- | --- |')
        print(f"| variants | {full['variants']} | {lean['variants']} | {lean['variants'] / full['variants']:.2f} |")
        for key, label in (('cold', 'cold cook (empty cache)'), ('warm', 'warm cook (all hits)')):
            print(f"| {label} | {full[key] / 1000:.2f} s | {lean[key] / 1000:.2f} s | {lean[key] / full[key]:.2f} |")
        print(f"| shaders pack | {full['shaders_bytes'] / 1e6:.1f} MB | {lean['shaders_bytes'] / 1e6:.1f} MB | "
              f"{lean['shaders_bytes'] / full['shaders_bytes']:.2f} |")
        print(f"| all packs | {full['bytes'] / 1e6:.1f} MB | {lean['bytes'] / 1e6:.1f} MB | "
              f"{lean['bytes'] / full['bytes']:.2f} |")

        runs = {'full': [], 'lean': []}
        for _ in range(args.runs):
            for name in ('full', 'lean'):
                runs[name].append(play(work, os.path.join(work, name), env))
        med = {n: {k: statistics.median(r[k] for r in rs) for k in rs[0]} for n, rs in runs.items()}
        print()
        print(f"## The first frame, drawing the recorded materials ({args.runs} runs each, interleaved, medians)")
        print('| set | pipelines made before the first frame | during frames | first frame | player ready |')
        print('| --- | --- | --- | --- | --- |')
        for name, label in (('full', 'full set, no record'), ('lean', 'cooked by the record')):
            m = med[name]
            ahead = (f"{m['precreated']:.0f} in {m['precreate_ms']:.0f} ms on {m['threads']:.0f} threads"
                     if m['precreated'] else '0')
            print(f"| {label} | {ahead} | {m['during']:.0f} | {m['first_ms']:.0f} ms | {m['startup_ms']:.0f} ms |")
        print(f"\nfirst frame, record / none: {med['lean']['first_ms'] / med['full']['first_ms']:.2f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    main()
