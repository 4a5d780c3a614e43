#!/usr/bin/env python3
"""Table 2 of the copula paper recomputed from a traces.csv in the paper repository's format
(seed,iteration,value,blackbox,task,optimizer) and the blackbox's offline table (for each
task's min and max), independently of `hpo`: the mean over tasks of the DTM improvement over
RS, the average rank, optionally without some tasks, per task, and with a bootstrap interval
over seeds. Standard library only. docs/replication.md's "without <task>" columns, per-task
numbers and 95% intervals come from it.

Usage: python3 scripts/table2-from-traces.py TRACES TABLE OBJECTIVE   (TABLE: .zip, .csv.gz or .csv)
           [--exclude task1,task2] [--per-task] [--bootstrap N]
"""
import argparse, collections, csv, gzip, io, random, statistics, zipfile

ap = argparse.ArgumentParser()
ap.add_argument('traces'); ap.add_argument('table'); ap.add_argument('objective')
ap.add_argument('--exclude', default=''); ap.add_argument('--per-task', action='store_true')
ap.add_argument('--bootstrap', type=int, default=0)
args = ap.parse_args()
exclude = set(filter(None, args.exclude.split(',')))

def open_table(path):
    """The table's rows as text, from a .zip (its first file), a .gz or a plain .csv."""
    if path.endswith('.zip'):
        z = zipfile.ZipFile(path)
        return io.TextIOWrapper(z.open([n for n in z.namelist() if not n.endswith('/')][0]), encoding='utf-8')
    if path.endswith('.gz'):
        return gzip.open(path, 'rt', encoding='utf-8')
    return open(path, encoding='utf-8')

lo, hi = {}, {}
for row in csv.DictReader(open_table(args.table)):
    try: v = float(row[args.objective])
    except ValueError: continue
    t = row['task']; lo[t] = min(lo.get(t, v), v); hi[t] = max(hi.get(t, v), v)

runs = collections.defaultdict(dict)
for r in csv.DictReader(open(args.traces)):
    runs[(r['optimizer'], r['task'], int(r['seed']))][int(r['iteration'])] = float(r['value'])
curves = {}  # (method, task) -> {seed: best-so-far DTM per iteration}
for (m, t, s), vals in runs.items():
    if t in exclude: continue
    cur, out = float('inf'), []
    for i in sorted(vals): cur = min(cur, vals[i]); out.append((cur - lo[t]) / (hi[t] - lo[t]))
    curves.setdefault((m, t), {})[s] = out
methods = sorted({m for m, _ in curves} - {'RS'}); tasks = sorted({t for _, t in curves})

def improvements(seeds_of):
    """{(method, task): improvement over RS} with the seeds seeds_of(method, task) averaged."""
    def mean_curve(m, t):
        c = curves[(m, t)]; ss = seeds_of(m, t); T = min(len(c[s]) for s in ss)
        return [sum(c[s][i] for s in ss) / len(ss) for i in range(T)]
    imp = {}
    for t in tasks:
        rs = mean_curve('RS', t)
        for m in methods:
            d = mean_curve(m, t); terms = [(r - o) / r for r, o in zip(rs, d) if r > 0]
            imp[(m, t)] = sum(terms) / len(terms) if terms else 0.0
    return imp

imp = improvements(lambda m, t: sorted(curves[(m, t)]))
mean = {m: statistics.mean(imp[(m, t)] for t in tasks) for m in methods}
rank = {m: statistics.mean(1 + sum(imp[(o, t)] > imp[(m, t)] for o in methods) + (sum(imp[(o, t)] == imp[(m, t)] for o in methods) - 1) / 2
                           for t in tasks) for m in methods}
interval = {}
if args.bootstrap:
    # One resample of the seeds per round, shared by every method and task.
    rng, boots, seeds = random.Random(0), collections.defaultdict(list), sorted({s for *_, s in runs})
    for _ in range(args.bootstrap):
        sample = [rng.choice(seeds) for _ in seeds]
        b = improvements(lambda m, t: sample)
        for m in methods: boots[m].append(statistics.mean(b[(m, t)] for t in tasks))
    for m in methods:
        v = sorted(boots[m]); interval[m] = f" [{v[int(0.025 * len(v))]:.3f}, {v[int(0.975 * len(v)) - 1]:.3f}]"
def count(n, noun): return f"{n} {noun}" + ('' if n == 1 else 's')
print(f"{count(len(tasks), 'task')}, {count(len({s for *_, s in runs}), 'seed')}" + (f", {args.bootstrap} bootstrap resamples" if args.bootstrap else ''))
for m in sorted(methods, key=lambda m: -mean[m]):
    print(f"| {m} | {mean[m]:.3f} ({rank[m]:.2f}){interval.get(m, '')} |")
if args.per_task:
    for t in tasks: print(t, ' '.join(f"{m}={imp[(m, t)]:.2f}" for m in methods))
