# The built-in BFS's level launch now pushes the CSR through DeviceGraph::csr_args
# (like every other launch): naive and balanced levels, Graph500-validated, and memcheck.
cd bundle
for k in naive balanced; do
  echo "== graph500 $k"; ./vertex bench graph500 --scale 18 --roots 8 --backend gpu --kernel $k --out /tmp/g5 2>&1 | grep -E -i "valid|harmonic|TEPS|error" | head -4
done
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -n1)
timeout 200 $SAN --tool memcheck ./vertex bench graph500 --scale 12 --roots 2 --backend gpu --kernel balanced --out /tmp/g5s 2>&1 | grep -E "ERROR SUMMARY|valid" | head -3
