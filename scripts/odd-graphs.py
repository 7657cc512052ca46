#!/usr/bin/env python3
"""Writes small graph files of the shapes that generators do not make, for the
GPU machine's `shapes` step (scripts/gpu-run.sh): every program and kernel runs on
each with --validate.

    python3 scripts/odd-graphs.py DIR

Shapes: directed edge lists with id gaps (isolated vertices) or a source in a small
component; DIMACS .gr with weights past 16 bits; weights at the 16-bit boundary (the
tiled kernel's narrow rows); zero weights, self-loops and multi-edges; a directed
chain of 100,000 vertices; distances past 2^32 (64-bit states); a hub with 200,000
leaves and a path behind it; two components; float weights; one-way grid streets.
Seeded: the same files every run.
"""
import os
import random
import sys

rng = random.Random(7)


def write(path, edges):
    with open(path, "w") as f:
        for e in edges:
            f.write(" ".join(str(x) for x in e) + "\n")


def lattice(w, h, base=0):
    """Undirected w×h lattice edges (u, v), each once."""
    for y in range(h):
        for x in range(w):
            v = base + y * w + x
            if x + 1 < w:
                yield v, v + 1
            if y + 1 < h:
                yield v, v + w


def both_ways(pairs, weight):
    out = []
    for u, v in pairs:
        c = weight()
        out += [(u, v, c), (v, u, c)]
    return out


def main(d):
    os.makedirs(d, exist_ok=True)
    p = lambda name: os.path.join(d, name)
    write(p("dir_gaps.wel"), [(rng.randrange(0, 50000, 3), rng.randrange(0, 50000, 3),
                               rng.randint(1, 1000)) for _ in range(20000)])
    write(p("dir_small.el"), [(0, 1), (1, 2), (2, 0), (2, 3)]
          + [(rng.randrange(4, 30000), rng.randrange(4, 30000)) for _ in range(60000)])
    big = both_ways(lattice(300, 300), lambda: rng.randint(1, 1 << 20))
    with open(p("grid_bigw.gr"), "w") as f:
        f.write("c weights up to 2^20\n")
        f.write("p sp %d %d\n" % (300 * 300, len(big)))
        for u, v, c in big:
            f.write("a %d %d %d\n" % (u + 1, v + 1, c))
    write(p("grid_w16.wel"), both_ways(lattice(200, 200),
                                       lambda: rng.choice([1, 65534, 65535, 65536, 65537])))
    zm = [(v, v, rng.randint(0, 5)) for v in range(150 * 150)]
    for u, v in lattice(150, 150):
        for _ in range(rng.randint(1, 3)):
            zm += [(u, v, rng.randint(0, 3)), (v, u, rng.randint(0, 3))]
    write(p("grid_zero_multi.wel"), zm)
    write(p("chain.wel"), [(i, i + 1, rng.randint(1, 9)) for i in range(99999)])
    write(p("chain_huge.wel"), [(i, i + 1, (1 << 31) + i) for i in range(300)])
    star = [(0, i, rng.randint(1, 100)) for i in range(1, 200001)]
    star += [(i, 0, rng.randint(1, 100)) for i in range(1, 200001)]
    star += [(200000 + i, 200001 + i, 1) for i in range(5000)] + [(5, 200000, 1)]
    write(p("star_path.wel"), star)
    two = both_ways([(0, 1), (1, 2), (0, 2)], lambda: rng.randint(1, 5))
    two += both_ways(lattice(200, 200, base=10), lambda: rng.randint(1, 100))
    write(p("two_comp.wel"), two)
    write(p("grid_float.wel"), both_ways(lattice(100, 100),
                                         lambda: round(rng.uniform(0.001, 10.0), 4)))
    one_way = []
    for u, v in lattice(250, 250):
        one_way.append((u, v, rng.randint(1, 50)))
        if v == u + 1 and rng.random() < 0.02:
            one_way.append((v, u, rng.randint(1, 50)))
    write(p("dir_grid.wel"), one_way)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "odd-graphs")
