#!/usr/bin/env python3
"""vertex through networkx against networkx itself and the other Python graph
libraries, on the CPU: PageRank, BFS and connected components, timed per call
*including* the conversion from the networkx graph (what a networkx user pays),
and also kernel-only (each library's graph built beforehand).

    python python/bench/bench.py [--graphs kron:16 grid:500x500] [--out docs/results/python]

Writes ``python-bench.json`` (machine, commit, command line, every timing) and
``python-bench.svg`` into ``--out``. Libraries that are not installed are
listed under ``missing`` in the JSON. Every library computes its own PageRank
variant at its defaults (networkx's tolerance 1e-6); the backend's answer is
checked against networkx's.
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import time

import networkx as nx
import numpy as np

import vertex
import vertex.nx_backend

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def best(f, repeat):
    """Best wall time of ``repeat`` calls of ``f`` (and its last result)."""
    t, r = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = f()
        t = min(t, time.perf_counter() - t0)
    return t, r


def fresh(G):
    """Drop conversions networkx cached on G: each call then converts."""
    if getattr(G, "__networkx_cache__", None) is not None:
        G.__networkx_cache__.clear()
    return G


def nx_graph(spec):
    g = vertex.load(spec, ignore_weights=True)
    indptr, indices, _ = g.csr()
    src = np.repeat(np.arange(len(indptr) - 1, dtype=np.int64), np.diff(indptr).astype(np.int64))
    keep = src < indices  # undirected: each edge once
    edges = list(zip(src[keep].tolist(), indices[keep].tolist()))
    t0 = time.perf_counter()
    G = nx.Graph()
    G.add_nodes_from(range(len(indptr) - 1))
    G.add_edges_from(edges)
    # BFS from the vertex of highest degree (vertex 0 of a Kronecker graph
    # may be isolated).
    source = int(np.argmax(np.diff(indptr)))
    return G, time.perf_counter() - t0, source


def libraries():
    libs, missing = {}, []
    for name, mod in [("graphblas", "graphblas_algorithms"), ("networkit", "networkit"),
                      ("igraph", "igraph"), ("rustworkx", "rustworkx")]:
        try:
            libs[name] = __import__(mod)
        except Exception as e:  # noqa: BLE001 - report any import failure
            missing.append(f"{name}: {type(e).__name__}: {e}")
    return libs, missing


def cases(G, s, libs, gpu=False):
    """name → (convert(G) -> h, pagerank(h), bfs(h), cc(h)) per library."""
    n = G.number_of_nodes()
    c = {
        "networkx": (lambda: G,
                     lambda h: nx.pagerank(h),
                     lambda h: nx.single_source_shortest_path_length(h, s),
                     lambda h: nx.number_connected_components(h)),
    }
    c["vertex"] = (lambda: vertex.nx_backend.convert(fresh(G), "weight"),
                   lambda h: nx.pagerank(h, backend="vertex"),
                   lambda h: nx.single_source_shortest_path_length(h, s, backend="vertex"),
                   lambda h: nx.number_connected_components(h, backend="vertex"))

    def with_config(name, value, f):
        def call(h):
            cfg = nx.config.backends.vertex
            old = getattr(cfg, name)
            setattr(cfg, name, value)
            try:
                return f(h)
            finally:
                setattr(cfg, name, old)
        return call

    # The backend returning plain dicts, as networkx does, instead of its
    # default NodeMaps over the result arrays (what building the dict costs).
    convert, pr, bfs, cc = c["vertex"]
    c["vertex-dict"] = (convert, with_config("lazy_results", False, pr),
                        with_config("lazy_results", False, bfs), None)
    if gpu:
        # The same backend with its programs on the GPU (device opened, kernels
        # loaded and graph uploaded inside the call; best-of-N keeps warm runs).
        # Only BFS: the backend's pagerank (networkx's dangling semantics) and
        # components run on the CPU whatever the setting.
        convert, _, bfs, _ = c["vertex"]
        c["vertex-gpu"] = (convert, None, with_config("backend", "gpu", bfs), None)
    if "graphblas" in libs:
        ga = libs["graphblas"]
        c["graphblas"] = (lambda: ga.Graph.from_networkx(fresh(G)),
                          lambda h: nx.pagerank(h, backend="graphblas"),
                          lambda h: nx.single_source_shortest_path_length(h, s, backend="graphblas"),
                          None)  # graphblas-algorithms has no connected_components
    if "networkit" in libs:
        nk = libs["networkit"]
        nk.setNumberOfThreads(os.cpu_count())
        c["networkit"] = (lambda: nk.nxadapter.nx2nk(G),
                          lambda h: nk.centrality.PageRank(h, damp=0.85, tol=1e-6).run().scores(),
                          lambda h: nk.distance.BFS(h, s).run().getDistances(),
                          lambda h: nk.components.ConnectedComponents(h).run().numberOfComponents())
    if "igraph" in libs:
        ig = libs["igraph"]
        c["igraph"] = (lambda: ig.Graph.from_networkx(G),
                       lambda h: h.pagerank(),
                       lambda h: h.distances(source=s)[0],
                       lambda h: len(h.connected_components()))
    if "rustworkx" in libs:
        rx = libs["rustworkx"]

        def rx_convert():
            # rustworkx's PageRank takes a directed graph: both directions.
            h = rx.PyDiGraph()
            h.add_nodes_from(range(n))
            h.extend_from_edge_list(list(G.edges()) + [(v, u) for u, v in G.edges()])
            return h

        c["rustworkx"] = (rx_convert,
                          lambda h: rx.pagerank(h, alpha=0.85, tol=1e-6),
                          lambda h: rx.dijkstra_shortest_path_lengths(h, s, lambda _: 1.0),
                          lambda h: rx.number_weakly_connected_components(h))
    return c


def run(spec, libs, repeat, skip_nx_over, gpu=False, once_over=None):
    G, build_s, source = nx_graph(spec)
    m = G.number_of_edges()
    if once_over is not None and m > once_over:
        repeat = 1
    rows = []
    ref_pr = None
    for lib, (convert, pr, bfs, cc) in cases(G, source, libs, gpu).items():
        if lib == "networkx" and m > skip_nx_over:
            continue
        reps = 1 if lib == "networkx" else repeat
        conv_s, h = best(convert, reps)
        row = {"graph": spec, "library": lib, "vertices": G.number_of_nodes(), "edges": m,
               "convert_s": conv_s}
        for alg, f in (("pagerank", pr), ("bfs", bfs), ("cc", cc)):
            if f is None:
                continue
            try:
                kernel_s, out = best(lambda f=f: f(h), reps)
            except Exception as e:  # noqa: BLE001 - record it, time the rest
                row[f"{alg}_error"] = f"{type(e).__name__}: {e}"
                continue
            if lib.startswith("vertex"):  # per call: the backend converts again each time
                call_s, out = best(lambda f=f: f(fresh(G)), reps)
            else:
                call_s = conv_s + kernel_s
            row[f"{alg}_kernel_s"] = kernel_s
            row[f"{alg}_call_s"] = call_s
            if alg == "pagerank" and lib.startswith("vertex") and m <= skip_nx_over:
                # networkx's answer at its defaults is within its own tolerance
                # (L1 change < n * 1e-6) of the fixed point; compare both with
                # networkx run to 1e-12.
                if ref_pr is None:
                    ref_pr = nx.pagerank(G, tol=1e-12, max_iter=10000)
                    loose = nx.pagerank(G)
                    row["networkx_default_max_err"] = max(abs(loose[v] - ref_pr[v]) for v in G)
                row["pagerank_max_err"] = max(abs(out[v] - ref_pr[v]) for v in G)
                # networkx's own answer at its defaults, which the backend
                # reproduces (same iteration, same stopping rule).
                row["pagerank_max_diff_networkx"] = max(abs(out[v] - loose[v]) for v in G)
        rows.append(row)
        print(json.dumps(row), file=sys.stderr)
    return {"graph": spec, "nx_build_s": build_s, "bfs_source": source, "rows": rows}


TITLES = {"call": "per call incl. conversion from networkx",
          "kernel": "graph already converted (a repeat call: networkx caches conversions)"}


def svg(results, path, kind="call"):
    """Time of each library (log scale bars): per call including the
    conversion (``kind="call"``) or on the converted graph (``"kernel"``,
    what a repeat call pays with networkx's conversion cache)."""
    libs = ["networkx", "vertex", "vertex-dict", "vertex-gpu", "graphblas", "networkit", "igraph", "rustworkx"]
    colors = ["#888", "#d62728", "#e377c2", "#8c1c13", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e"]
    groups = []
    for r in results:
        for alg in ("pagerank", "bfs", "cc"):
            times = {row["library"]: row[f"{alg}_{kind}_s"] for row in r["rows"] if f"{alg}_{kind}_s" in row}
            groups.append((f"{r['graph']} {alg}", times))
    W, H, left, top, bh = 900, 60 + 22 * len(groups) * 1, 190, 40, 18
    H = top + len(groups) * (bh * len(libs) + 10) + 40
    lo, hi = -4, 2  # 10^-4 .. 10^2 seconds
    x = lambda t: left + (np.log10(max(t, 1e-4)) - lo) / (hi - lo) * (W - left - 20)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="11">',
           f'<text x="{left}" y="20" font-size="14">{TITLES[kind]}, seconds (log)</text>']
    for e in range(lo, hi + 1):
        out.append(f'<line x1="{x(10**e):.1f}" y1="{top}" x2="{x(10**e):.1f}" y2="{H-30}" stroke="#ddd"/>'
                   f'<text x="{x(10**e):.1f}" y="{H-15}" text-anchor="middle">1e{e}</text>')
    y = top
    for label, times in groups:
        out.append(f'<text x="{left-6}" y="{y + bh * len(libs) / 2:.0f}" text-anchor="end">{label}</text>')
        for lib, col in zip(libs, colors):
            t = times.get(lib)
            if t is not None:
                out.append(f'<rect x="{left}" y="{y}" width="{x(t)-left:.1f}" height="{bh-3}" fill="{col}"/>'
                           f'<text x="{x(t)+3:.1f}" y="{y+bh-6}">{lib} {t:.3g}</text>')
            y += bh
        y += 10
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def machine():
    cpu = platform.processor()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": cpu, "cpus": os.cpu_count(), "python": platform.python_version(),
            "networkx": nx.__version__, "numpy": np.__version__}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--graphs", nargs="+", default=["kron:16", "grid:500x500", "kron:18"])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-networkx-over", type=int, default=2_000_000,
                    help="edges above which networkx itself is not run")
    ap.add_argument("--once-over", type=int, default=None,
                    help="edges above which every library runs once (no best-of)")
    ap.add_argument("--append", action="store_true",
                    help="keep the results of other graphs already in --out (same commit only)")
    ap.add_argument("--gpu", action="store_true",
                    help="also time the backend with nx.config.backends.vertex.backend = 'gpu'")
    ap.add_argument("--out", default=os.path.join(REPO, "docs", "results", "python"))
    a = ap.parse_args()
    libs, missing = libraries()
    versions = {k: getattr(v, "__version__", "?") for k, v in libs.items()}
    # VERTEX_GIT_REV: the commit the installed wheel was built from, where
    # this checkout's git cannot say (a copy carried to another machine).
    rev = os.environ.get("VERTEX_GIT_REV") or subprocess.run(
        ["git", "-C", REPO, "describe", "--always", "--dirty"],
        capture_output=True, text=True).stdout.strip()
    kept, lines = [], [" ".join([sys.executable] + sys.argv)]
    path = os.path.join(a.out, "python-bench.json")
    if a.append and os.path.exists(path):
        with open(path) as f:
            old = json.load(f)
        if old.get("commit") != rev:
            sys.exit(f"--append: {path} is from commit {old.get('commit')}, this is {rev}")
        kept = [r for r in old["results"] if r["graph"] not in a.graphs]
        lines = old["command_line"].split("\n") + lines
    results = kept + [run(g, libs, a.repeat, a.skip_networkx_over, a.gpu, a.once_over) for g in a.graphs]
    doc = {"host": machine() | {"libraries": versions}, "commit": rev,
           "date": time.strftime("%Y-%m-%d"), "command_line": "\n".join(lines),
           "missing": missing, "results": results}
    os.makedirs(a.out, exist_ok=True)
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
    svg(results, os.path.join(a.out, "python-bench.svg"), "kernel")
    svg(results, os.path.join(a.out, "python-bench-per-call.svg"), "call")


if __name__ == "__main__":
    main()
