#!/usr/bin/env python3
"""Hangs a path off a graph file, for the GPU machine's `handover` step
(scripts/gpu-run.sh): a low-diameter core with a long tail behind it, as web
graphs have, which a bounded probe from the source cannot see.

    python3 scripts/tail-graph.py CORE.el VERTICES TAIL OUT.el

CORE.el: an edge list (`u v` lines, both directions listed, as `vertex gen`
writes it) over ids below VERTICES. The path's TAIL new vertices VERTICES,
VERTICES + 1, ... are joined both ways, the first to the first edge's source.
OUT.el gets the core's lines, then the path's. Prints "HANG END": a source in
the core, and the far end of the tail.
"""
import shutil
import sys


def main(core, vertices, tail, out):
    with open(core) as f:
        first = f.readline().split()
    hang = int(first[0])
    shutil.copyfile(core, out)
    with open(out, "a") as f:
        prev = hang
        for v in range(vertices, vertices + tail):
            f.write(f"{prev} {v}\n{v} {prev}\n")
            prev = v
    print(hang, vertices + tail - 1)


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
