#!/usr/bin/env python3
"""The README's results table, rendered from the JSON files under docs/results/.

    python3 scripts/results_table.py            # print the table
    python3 scripts/results_table.py --write    # rewrite README.md between the markers
    python3 scripts/results_table.py --check    # exit 1 with a diff when README.md disagrees

Each folder docs/results/<benchmark>/ holds the current run of one benchmark (see
scripts/results.sh, which regenerates them). Every folder this script knows gives one
or more rows: the key figure of each case, and the run it comes from (machine,
commit, date). The commit and date come from the JSON when it records them, else from
the folder's README.md (`* commit: `X``, `* date: D`, or a line naming the file).
Python 3 standard library only; no row is written by hand.
"""

import argparse
import datetime
import difflib
import glob
import json
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(REPO, "docs", "results")
BEGIN = "<!-- results-table:begin -->"
END = "<!-- results-table:end -->"


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def fmt(x, digits=2):
    return "–" if x is None else f"{x:.{digits}f}"


def ms(seconds):
    if seconds is None:
        return "–"
    v = seconds * 1e3
    return f"{v:.1f} ms" if v >= 10 else f"{v:.2f} ms"


def graph_name(g):
    """`uniform:2^S:16·2^S` as GAP's `urand:S`; other specs as written."""
    m = re.fullmatch(r"uniform:(\d+):(\d+)", g)
    if m:
        n, e = int(m.group(1)), int(m.group(2))
        if n > 0 and n & (n - 1) == 0 and e == 16 * n:
            return f"urand:{n.bit_length() - 1}"
    return g


def short_gpu(name):
    if not name:
        return None
    m = re.search(r"\b([HABL]\d{2,3}S?)\b", name)
    return m.group(1) if m else name


def short_cpu(cpu, cpus):
    cpu = (cpu or "CPU").replace("(R)", "").replace("Processor", "").strip()
    cpu = re.sub(r"\s+", " ", cpu)
    return f"{cpu}, {cpus} CPUs" if cpus else cpu


class Folder:
    """One benchmark folder: its JSON files and what its README records."""

    def __init__(self, name):
        self.name = name
        self.dir = os.path.join(RESULTS, name)
        readme = os.path.join(self.dir, "README.md")
        self.readme = open(readme, encoding="utf-8").read() if os.path.exists(readme) else ""

    def files(self, pattern="*.json"):
        return sorted(glob.glob(os.path.join(self.dir, pattern)))

    def _readme_field(self, field, filename):
        """`field` (commit | date) for `filename`: a README line naming the file, else
        the folder's `* field: ...` line."""
        pat = {"commit": r"commit:?\s*`([^`]+)`", "date": r"(\d{4}-\d{2}-\d{2})"}[field]
        base = os.path.basename(filename)
        for line in self.readme.splitlines():
            if f"`{base}`" in line and not line.lstrip().startswith("* " + field):
                m = re.search(pat, line)
                if m:
                    return m.group(1)
        for line in self.readme.splitlines():
            if line.startswith(f"* {field}:"):
                m = re.search(pat, line)
                if m:
                    return m.group(1)
        return None

    def readme_line(self, field):
        """The rest of the README's `* field: ...` line."""
        for line in self.readme.splitlines():
            if line.startswith(f"* {field}:"):
                return line.split(":", 1)[1].strip()
        return None

    def run(self, path, doc, machine):
        """The run column: machine · commit · date."""
        host = doc.get("host") if isinstance(doc.get("host"), dict) else {}
        rev = host.get("git_rev") or self._readme_field("commit", path)
        t = host.get("unix_time")
        if t:
            date = datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%d")
        else:
            date = self._readme_field("date", path)
        parts = [machine]
        parts.append(f"`{rev}`" if rev else "commit ?")
        if date:
            parts.append(date)
        return " · ".join(parts)


def gpu_machine(doc):
    dev = doc.get("device")
    if isinstance(dev, dict) and dev.get("name"):
        return short_gpu(dev["name"])
    host = doc.get("host") or {}
    return short_gpu(host.get("gpu")) or short_cpu(host.get("cpu"), host.get("cpus") or host.get("threads"))


# --- one function per benchmark folder: rows of (case, result, run) ---------------

KERNELS = ["bfs", "sssp", "pr", "cc", "bc", "tc"]


def graph_order(g):
    kind = g.split(":")[0]
    return ({"kron": 0, "urand": 1, "grid": 2, "mesh": 3}.get(kind, 4), g)


def rows_gap(f):
    """Per kernel and graph, the row of the newest file holding it."""
    newest = {}
    for path in f.files("gap-*.json"):
        doc = load(path)
        host = doc.get("host") or {}
        t = host.get("unix_time") or 0
        for r in doc.get("rows", []):
            key = (r["kernel"], graph_name(r["graph"]))
            if key not in newest or newest[key][0] < t:
                newest[key] = (t, path, doc, r)
    out = []
    for (kernel, graph), (_, path, doc, r) in sorted(
        newest.items(), key=lambda kv: (KERNELS.index(kv[0][0]) if kv[0][0] in KERNELS else 9, graph_order(kv[0][1]))
    ):
        host = doc.get("host") or {}
        points = r.get("points") or []
        top = max(points, key=lambda p: p["threads"]) if points else None
        cells = []
        if top is not None:
            if top.get("ratio") is not None:
                cells.append(f"CPU {top['threads']} t {fmt(top['ratio'])}")
            else:
                cells.append(f"CPU {top['threads']} t {ms(top.get('ours_best'))}")
        gpu = r.get("gpu")
        if gpu:
            g = f"GPU {fmt(gpu['ratio'])} ({ms(gpu['seconds'])})" if gpu.get("ratio") is not None else f"GPU {ms(gpu['seconds'])}"
            cells.append(g)
        failed = (not r.get("ours_verified")) or r.get("gapbs_verified") is False or r.get("error")
        result = " · ".join(cells) + (" · **check failed**" if failed else "")
        machine = short_gpu(host.get("gpu")) if gpu else short_cpu(host.get("cpu"), host.get("cpus"))
        out.append((f"{kernel} {graph}", result or "–", f.run(path, doc, machine or "?")))
    return out


def rows_cpu(f):
    out = []
    order = {"BFS": 0, "SSSP": 1, "PR": 2}
    jobs = []
    for path in f.files("cpu-*.json"):
        doc = load(path)
        job = doc.get("job") or {}
        jobs.append((order.get(str(job.get("kernel")).upper(), 9), graph_order(job.get("graph", "")), path, doc, job))
    for _, _, path, doc, job in sorted(jobs, key=lambda j: j[:2]):
        pts = sorted(job.get("points", []), key=lambda p: p["threads"])
        threads = " / ".join(str(p["threads"]) for p in pts)
        ratios = " / ".join(fmt(p.get("ratio")) for p in pts)
        bad = job.get("ours_checked") is False or job.get("gapbs_verified") is False
        host = doc.get("host") or {}
        out.append(
            (
                f"{job.get('kernel', '?').lower()} {graph_name(job.get('graph', '?'))}",
                f"{ratios} at {threads} threads" + (" · **check failed**" if bad else ""),
                f.run(path, doc, short_cpu(host.get("cpu"), host.get("cpus"))),
            )
        )
    return out


def rows_graph500(f):
    runs = []
    for path in f.files("graph500-*.json"):
        doc = load(path)
        rep = doc.get("report") or {}
        cfg = rep.get("config") or {}
        runs.append((cfg.get("scale", 0), rep.get("backend", ""), path, doc, rep))
    hand = {s: rep["teps"]["harmonic_mean"] for s, b, _, _, rep in runs if b == "gpu"}
    out = []
    for scale, backend, path, doc, rep in sorted(runs, key=lambda r: (r[0], r[1])):
        teps = (rep.get("teps") or {}).get("harmonic_mean")
        who = {"gpu": "hand-written", "gpu-dsl": "DSL program", "cpu": "CPU"}.get(backend, backend)
        kernel = doc.get("kernel")
        case = f"scale {scale}, {who}" + (f" {kernel}" if kernel else "")
        roots = rep.get("roots")
        nroots = len(roots) if isinstance(roots, list) else roots
        result = f"{fmt(teps / 1e9 if teps else None, 1)} GTEPS"
        if backend == "gpu-dsl" and hand.get(scale) and teps:
            result += f" ({fmt(teps / hand[scale])}× the hand-written kernel)"
        result += f" · {nroots} roots, " + ("all trees valid" if rep.get("valid") else "**invalid trees**")
        machine = gpu_machine(doc) if backend != "cpu" else short_cpu((doc.get("host") or {}).get("cpu"), (doc.get("host") or {}).get("threads"))
        out.append((case, result, f.run(path, doc, machine)))
    return out


def rows_gpu_bfs(f):
    out = []
    for path in f.files("gpu-bfs*.json"):
        doc = load(path)
        run = f.run(path, doc, gpu_machine(doc))

        def span(pairs):
            vals = [v for _, v in pairs]
            scales = [s for s, _ in pairs]
            if not vals:
                return None
            return f"{fmt(min(vals))}–{fmt(max(vals))}× (scales {min(scales)}–{max(scales)})"

        d = span(doc.get("direction_ratios") or [])
        if d:
            out.append(("direction / balanced, Kronecker ef 48", d, run))
        b = span(doc.get("ratios") or [])
        if b:
            out.append(("balanced / naive, Kronecker ef 48", b, run))
        scaling = doc.get("scaling") or []
        if scaling:
            top = max(s["scale"] for s in scaling)
            best = {}
            for s in scaling:
                if s["scale"] == top:
                    best[s["kernel"]] = max(best.get(s["kernel"], 0), s["gteps_hmean"])
            cells = " · ".join(f"{k} {fmt(v, 1)}" for k, v in sorted(best.items(), key=lambda kv: -kv[1]))
            out.append((f"GTEPS at scale {top}, ef 48", cells, run))
    return out


def rows_gpu_sssp(f):
    out = []
    for path in f.files("gpu-sssp*.json"):
        doc = load(path)
        run = f.run(path, doc, gpu_machine(doc))
        graphs = []
        for v in doc.get("variants", []):
            if v["graph"] not in graphs:
                graphs.append(v["graph"])
        for g in graphs:
            vs = [v for v in doc["variants"] if v["graph"] == g]
            fams = [
                ("edge chunks", [v for v in vs if v["kernel"] == "balanced"]),
                ("direction", [v for v in vs if v["kernel"] != "balanced" and v.get("delta") is None]),
                ("near-far", [v for v in vs if v["kernel"] != "balanced" and v.get("delta") is not None]),
            ]
            cells = []
            for name, fam in fams:
                if fam:
                    best = min(fam, key=lambda v: v["time_ms_median"])
                    d = f", Δ {best['delta']}" if best.get("delta") is not None else ""
                    cells.append(f"{name} {fmt(best['time_ms_median'])} ms{d}")
            out.append((f"SSSP {graph_name(g)}, best of each kernel", " · ".join(cells), run))
    return out


def rows_apsp_cpu(f):
    out = []
    for path in f.files("apsp-cpu*.json"):
        doc = load(path)
        host = doc.get("host") or {}
        run = f.run(path, doc, short_cpu(host.get("cpu"), host.get("threads")))
        ratios = doc.get("ratios") or []
        for n in sorted({r[0] for r in ratios}):
            cells = []
            for n2, what, v in ratios:
                if n2 != n or "1 thread" in what:
                    continue
                peer = what.split(" / ")[0].replace(" floyd_warshall", "")
                cells.append(f"{peer} {fmt(v, 1)}×")
            out.append((f"N = {n}: time over our blocked FW (all threads)", " · ".join(cells), run))
    return out


def rows_apsp_gpu(f):
    out = []
    for path in f.files("apsp-gpu*.json"):
        doc = load(path)
        run = f.run(path, doc, gpu_machine(doc))
        ratios = doc.get("ratios") or []
        seed = [(n, v) for n, what, v in ratios if what.startswith("cpu naive / gpu naive")]
        if seed:
            n, v = max(seed)
            out.append((f"seed 002: sequential CPU FW / naive GPU FW, N = {n}", f"{fmt(v, 0)}×", run))
        peak = [(n, v) for n, what, v in ratios if "relax/s / peak" in what]
        if peak:
            n, v = max(peak)
            out.append((f"blocked GPU FW, N = {n}: share of the add+min peak", f"{fmt(100 * v, 0)} %", run))
        blk = [(n, v) for n, what, v in ratios if what.startswith("gpu naive fast / gpu blocked fast")]
        if blk:
            n, v = max(blk)
            out.append((f"naive / blocked GPU FW, N = {n}", f"{fmt(v, 1)}×", run))
    return out


def rows_pagerank(f):
    out = []
    m = re.search(r"\(([^()]*\d+ CPUs)\)", f.readme_line("machine") or "")
    machine = m.group(1) if m else "CPU"
    for path in f.files("pr-*.json"):
        doc = load(path)
        rows = doc.get("rows") or []
        # The first row is the reference: the rounds program, synchronous, 1 thread.
        ref_program = rows[0].get("program") if rows else None
        cells = []
        for t in sorted({r["threads"] for r in rows}):
            at = [r for r in rows if r["threads"] == t and r["schedule"] != "gpu"]
            ref = next((r for r in at if r.get("program") == ref_program and r["schedule"] == "sync"), None)
            # Data-driven: every other column (the delta program in any schedule,
            # and the rounds program's own data-driven sweeps).
            dd = [r for r in at if r is not ref and not (r.get("program") == ref_program and r["schedule"] == "sync")]
            best = min(dd, key=lambda r: r["time_ms"], default=None)
            c = f"{t} t: rounds {fmt(ref['time_ms'] / 1e3, 2)} s" if ref else f"{t} t"
            if best and ref:
                c += f", data-driven (best: {best['schedule']}) {fmt(best['time_ms'] / ref['time_ms'], 1)}× that time"
            cells.append(c)
        gpu = [r for r in rows if r["schedule"] == "gpu"]
        if gpu:
            cells.append(f"GPU {fmt(min(r['time_ms'] for r in gpu), 1)} ms")
        out.append((f"PageRank {graph_name(doc.get('graph', '?'))}", " · ".join(cells), f.run(path, doc, machine)))
    return out


def rows_prgpu(f):
    """GPU PageRank, the DSL program against the hand-written pull kernel."""
    out = []
    for path in f.files("pr-gpu-*.json"):
        doc = load(path)
        run = f.run(path, doc, short_gpu((doc.get("device") or {}).get("name")) or "GPU")
        for r in doc.get("rows", []):
            ours = r.get("ours") or {}
            hands = [h for h in (r.get("hand_chunk"), r.get("hand_warp")) if h]
            best = min(hands, key=lambda h: h["timing"]["ms_total"], default=None)
            cells = [f"ours {fmt(ours.get('ms_total'), 2)} ms"]
            if best:
                cells.append(
                    f"{fmt(r.get('ratio_vs_best_hand'))}× the hand-written kernel "
                    f"({best['kernel']}, {fmt(best['timing']['ms_total'], 2)} ms)"
                )
            cells.append(f"{fmt(ours.get('pct_peak'), 1)} % of peak bandwidth")
            if r.get("gpu_vs_gapbs") is not None:
                cells.append(f"{fmt(r['gpu_vs_gapbs'], 3)} of gapbs on {(r.get('gapbs') or {}).get('threads', '?')} threads")
            if not r.get("verified"):
                cells.append("**check failed**")
            out.append((f"PageRank {graph_name(r.get('graph', '?'))}, {ours.get('rounds', '?')} rounds", " · ".join(cells), run))
    return out


def rows_gunrock(f):
    out = []
    for path in f.files("gpu-bfs-vs-gunrock*.json"):
        doc = load(path)
        run = f.run(path, doc, short_gpu((doc.get("device") or {}).get("name")) or gpu_machine(doc))
        sides = doc.get("sides") or []
        ratio = doc.get("ratio_vs_gunrock")
        best = max(sides, key=lambda s: s.get("gteps_hmean", 0), default=None)
        if best and ratio:
            g = best["gteps_hmean"]
            m = re.search(r"kron(\d+)", doc.get("graph", ""))
            graph = f"Kronecker {m.group(1)}" if m else os.path.basename(doc.get("graph", "?"))
            out.append(
                (
                    f"BFS {graph}, ours / Gunrock",
                    f"{fmt(ratio, 1)}× ({fmt(g, 1)} vs {fmt(g / ratio, 2)} GTEPS, {best['name']})",
                    run,
                )
            )
    return out


def rows_multi(f):
    out = []
    for path in f.files("gpu-multi*.json"):
        doc = load(path)
        devs = doc.get("devices") or []
        name = short_gpu(devs[0].get("name") if devs and isinstance(devs[0], dict) else None) or "GPU"
        run = f.run(path, doc, f"{len(devs) or '?'}× {name}")
        route = doc.get("route")
        # The scaling figures are the default route's (peer access where there
        # is one); NCCL's rows beside them feed `peer_over_nccl`.
        rows = [r for r in doc.get("rows") or [] if r["gpus"] == 1 or route is None or r.get("route") == route]
        gmax = max((r["gpus"] for r in rows), default=1)
        for scale, lps, v in doc.get("strong_speedup") or []:
            if lps != max(x[1] for x in doc["strong_speedup"]):
                continue
            g = [r for r in rows if r["scale"] == scale and r["gpus"] == gmax and r.get("levels_per_sync") == lps]
            extra = f", {fmt(g[0]['gteps_hmean'], 1)} GTEPS" if g else ""
            out.append((f"BFS scale {scale}, {gmax} GPUs / 1 (strong)", f"{fmt(v)}×{extra}", run))
        for scale, lps, v in doc.get("weak_efficiency") or []:
            if lps != max(x[1] for x in doc["weak_efficiency"]):
                continue
            out.append((f"BFS weak scaling from scale {scale}", f"{fmt(100 * v, 0)} % efficiency", run))
        big = [r for r in rows if r["gpus"] == gmax and gmax > 1]
        if big:
            top = max(big, key=lambda r: (r["scale"], r.get("levels_per_sync") or 0))
            out.append((f"BFS scale {top['scale']} on {gmax} GPUs: exchange share",
                        f"{fmt(100 * top['exchange_share'], 0)} % of the search time"
                        + (f" ({route} exchange)" if route else ""), run))
        pn = doc.get("peer_over_nccl") or []
        if pn:
            lps = max(x[1] for x in pn)
            cells = [f"scale {x[0]} {fmt(x[2])}×" for x in pn if x[1] == lps]
            out.append((f"BFS on {gmax} GPUs, peer exchange / NCCL (time ratio)", " · ".join(cells), run))
        # Program speedups on the Kronecker check graph (graph, program, lps, gpus, x).
        sp = [x for x in doc.get("program_speedup") or [] if str(x[0]).startswith("kron:")]
        if sp:
            lps = max(x[2] for x in sp)
            cells = [f"{x[1]} {fmt(x[4])}×" for x in sp if x[2] in (lps, 0)]
            out.append((f"{sp[0][0]}, {sp[0][3]} GPUs / 1", " · ".join(cells), run))
    return out


def rows_ranks(f):
    """Graph500 over GPU ranks (one process per GPU) against the same graph and
    roots in one process on as many GPUs: the TEPS ratio per scale."""
    out = []
    for path in f.files("graph500-gpu-ranks*.json"):
        doc = load(path)
        rep = doc.get("report") or {}
        scale = (rep.get("config") or {}).get("scale")
        ranks = rep.get("processes")
        one_path = os.path.join(f.dir, f"graph500-gpu-x{ranks}-direction-s{scale}.json")
        if not os.path.exists(one_path):
            continue
        one = load(one_path).get("report") or {}
        t_rk = (rep.get("teps") or {}).get("harmonic_mean")
        t_one = (one.get("teps") or {}).get("harmonic_mean")
        if not (t_rk and t_one):
            continue
        valid = rep.get("valid") and one.get("valid")
        out.append((f"Graph500 scale {scale}, {ranks} ranks / one process on {ranks} GPUs",
                    f"{fmt(t_rk / t_one)}× ({fmt(t_rk / 1e9, 1)} vs {fmt(t_one / 1e9, 1)} GTEPS)"
                    + ("" if valid else " · **invalid searches**"),
                    f.run(path, doc, gpu_machine(doc))))
    return out


# The order of the table; the link names the folder.
def rows_bc(f):
    """BC with several sources per run (gap-format files): the rows of rows_gap,
    the case naming the sources per run."""
    out = []
    for path in f.files("gap-*.json"):
        doc = load(path)
        per = {graph_name(r["graph"]): (r.get("detail") or {}).get("sources_per_run") for r in doc.get("rows", [])}
        sub = Folder(f.name)
        sub.files = lambda pattern="*.json", p=path: [p]
        for case, result, run in rows_gap(sub):
            graph = case.split(" ", 1)[1]
            out.append((f"bc {graph}, {per.get(graph)} sources a run", result, run))
    return out


def rows_sources(f):
    """Batched BFS (sources-*.json) and personalized PageRank (ppr-*.json, `vertex
    bench ppr`) of K sources vs K single runs, per graph; exact closeness."""
    out = []
    for path in f.files("sources-*.json") + f.files("ppr-*.json"):
        what = "PPR, " if "/ppr-" in str(path) else ""
        doc = load(path)
        machine = short_gpu(doc.get("gpu")) or gpu_machine(doc)
        for r in doc.get("rows", []):
            cells = []
            for side in ("gpu", "cpu"):
                p = r.get(side)
                if p:
                    bad = "" if p.get("verified") else " **check failed**"
                    cells.append(f"{side.upper()} {ms(p['batched_ms'] / 1e3)}, single runs / batch {fmt(p['speedup'], 1)}{bad}")
            out.append((f"{what}{r['sources']} sources {graph_name(r['graph'])}", " · ".join(cells) or "–", f.run(path, doc, machine or "?")))
            c = r.get("closeness_gpu")
            if c:
                out.append((f"closeness, all {c['vertices']} vertices, {graph_name(r['graph'])}",
                            f"GPU {c['seconds']:.2f} s ({c['edge_visits_per_s'] / 1e9:.0f} G edge visits/s)",
                            f.run(path, doc, machine or "?")))
    return out


BENCHMARKS = [
    ("gap", "GAP suite vs gapbs (ours / gapbs time)", rows_gap),
    ("bc", "Betweenness, K sources a run (ours / gapbs time)", rows_bc),
    ("many-sources", "Many sources at once (batched BFS and PPR)", rows_sources),
    ("cpu-vs-gapbs", "CPU vs gapbs by threads (ours / gapbs time)", rows_cpu),
    ("graph500-gpu", "Graph500 BFS, GPU", rows_graph500),
    ("gpu-bfs-kernels", "GPU BFS kernels", rows_gpu_bfs),
    ("gpu-sssp", "GPU SSSP kernels", rows_gpu_sssp),
    ("gunrock", "GPU BFS vs Gunrock", rows_gunrock),
    ("multi-gpu", "Multi-GPU programs", rows_multi),
    ("multi-ranks", "GPU ranks (one process per GPU)", rows_ranks),
    ("pagerank-sync-async", "PageRank sync vs data-driven", rows_pagerank),
    ("pagerank-gpu", "GPU PageRank: DSL program vs hand-written pull kernel", rows_prgpu),
    ("apsp-cpu", "APSP, CPU", rows_apsp_cpu),
    ("apsp-gpu", "APSP, GPU", rows_apsp_gpu),
]


def render():
    lines = [
        "| benchmark | case | result | run |",
        "|---|---|---|---|",
    ]
    for name, title, fn in BENCHMARKS:
        f = Folder(name)
        if not os.path.isdir(f.dir):
            continue
        for i, (case, result, run) in enumerate(fn(f)):
            bench = f"[{title}](docs/results/{name}/)" if i == 0 else ""
            lines.append(f"| {bench} | {case} | {result} | {run} |")
    return "\n".join(lines) + "\n"


def splice(readme, table):
    try:
        a = readme.index(BEGIN) + len(BEGIN)
        b = readme.index(END, a)
    except ValueError:
        sys.exit(f"README.md: markers {BEGIN} / {END} not found")
    return readme[:a] + "\n" + table + readme[b:]


def main():
    global RESULTS
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--write", action="store_true", help="rewrite README.md between the markers")
    g.add_argument("--check", action="store_true", help="exit 1 with a diff when README.md disagrees")
    ap.add_argument("--readme", default=os.path.join(REPO, "README.md"))
    ap.add_argument("--results", default=RESULTS, help="the results folder (default docs/results)")
    a = ap.parse_args()
    RESULTS = a.results
    table = render()
    if not (a.write or a.check):
        sys.stdout.write(table)
        return 0
    with open(a.readme, encoding="utf-8") as f:
        old = f.read()
    new = splice(old, table)
    if a.write:
        if new != old:
            with open(a.readme, "w", encoding="utf-8") as f:
                f.write(new)
        return 0
    if new != old:
        sys.stdout.writelines(
            difflib.unified_diff(
                old.splitlines(True), new.splitlines(True), "README.md", "README.md (from docs/results)"
            )
        )
        print("\nREADME.md's results table disagrees with docs/results/: run python3 scripts/results_table.py --write")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
