#!/usr/bin/env python3
"""Renumber a W x H grid's vertices (row-major ids) so that every run of T = ceil(n/parts)
consecutive new ids is a compact block (recursive coordinate bisection, exact sizes).
usage: rcb.py IN.wel W H PARTS OUT.wel -> prints 'map OLD NEW' for old 0 and the centre."""
import sys, numpy as np
inp, W, H, parts, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
n = W * H
T = -(-n // parts)
x = np.arange(n) % W
y = np.arange(n) // W
new = np.empty(n, dtype=np.int64)
nxt = [0]
def split(idx, k):
    if k == 1 or len(idx) == 0:
        idx = np.sort(idx)
        new[idx] = np.arange(nxt[0], nxt[0] + len(idx))
        nxt[0] += len(idx)
        return
    k1 = k // 2
    s1 = min(k1 * T, len(idx))
    xs, ys = x[idx], y[idx]
    if xs.max() - xs.min() >= ys.max() - ys.min():
        order = np.lexsort((ys, xs))
    else:
        order = np.lexsort((xs, ys))
    split(idx[order[:s1]], k1)
    split(idx[order[s1:]], k - k1)
split(np.arange(n), parts)
assert nxt[0] == n
data = np.loadtxt(inp, dtype=np.int64, comments='#', ndmin=2)
data[:, 0] = new[data[:, 0]]
data[:, 1] = new[data[:, 1]]
np.savetxt(out, data, fmt='%d')
print('T', T, 'map', 0, int(new[0]), 'map', (H // 2) * W + W // 2, int(new[(H // 2) * W + W // 2]))
