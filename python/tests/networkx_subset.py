"""networkx's own tests of the functions the ``vertex`` backend implements,
run with the backend: every dispatchable call converts its graphs to vertex
graphs; calls the backend does not implement, or whose arguments its
``can_run`` refuses, run networkx's code (``--fallback-to-nx``), so a test
fails only where vertex's answer differs from networkx's.

    python python/tests/networkx_subset.py [pytest args]

(what ``scripts/test.sh`` runs; the README reports the counts).
"""

import os
import sys

import networkx
import pytest

# One file per implemented function family (networkx 3.4 - 3.6 layout).
FILES = [
    "algorithms/traversal/tests/test_bfs.py",
    "algorithms/shortest_paths/tests/test_unweighted.py",
    "algorithms/shortest_paths/tests/test_weighted.py",
    "algorithms/shortest_paths/tests/test_generic.py",
    "algorithms/shortest_paths/tests/test_dense_numpy.py",
    "algorithms/components/tests/test_connected.py",
    "algorithms/components/tests/test_weakly_connected.py",
    "algorithms/link_analysis/tests/test_pagerank.py",
    "algorithms/tests/test_core.py",
    "algorithms/tests/test_cluster.py",
    "algorithms/centrality/tests/test_betweenness_centrality.py",
    "algorithms/centrality/tests/test_closeness_centrality.py",
]


def main(argv):
    root = os.path.dirname(networkx.__file__)
    paths = [os.path.join(root, f) for f in FILES if os.path.exists(os.path.join(root, f))]
    if not paths:
        print(f"none of the test files exist under {root}", file=sys.stderr)
        return 1
    # --rootdir above the package: networkx/conftest.py (which defines
    # --backend) is then loaded before the options are parsed.
    args = ["-q", "-p", "no:cacheprovider", "-W", "ignore", "--rootdir", os.path.dirname(root)]
    return pytest.main(args + paths + ["--backend", "vertex", "--fallback-to-nx"] + argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
