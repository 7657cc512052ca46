#!/usr/bin/env bash
# widest paths under --kernel auto: the build before (vertex-old: auto = the
# resident kernel) against this one (auto = tiles for programs that are not
# BFS-like), alternating, every run validated.
set -u
cd bundle
for f in vertex vertex-old; do xz -dkf "$f.xz" && chmod +x "$f"; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for g in grid:1000x1000 grid:2000x1000 grid:1600x1600 grid:1x100000 grid:4000x400; do
  for i in 1 2 3; do
    for b in vertex-old vertex; do
      out=$(./$b widest "$g" --backend gpu --validate 2>&1)
      echo "$g $i $b: ok=$(grep -c 'oracle .*agrees' <<<"$out") $(grep -E '^  time ' <<<"$out" | tr -s ' ')| $(grep -E '^  kernel ' <<<"$out" | tr -s ' ' | cut -c1-40)"
    done
  done
done
