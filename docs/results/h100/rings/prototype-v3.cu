// Prototype: floors of grid BFS/SSSP on one H100 (issue 19). Not part of the build.
// K0: one block, level-synchronous, states and queues in global memory.
// K1: tiles (one block per SM owns a band of ids), states/rows in shared memory,
//     local label-correcting levels, messages (v+1)<<32|cand to the owner's ring.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <queue>
#include <algorithm>
#include <cooperative_groups.h>
#define CK(x) do{cudaError_t e=(x); if(e!=cudaSuccess){printf("CUDA %s at %d: %s\n",#x,__LINE__,cudaGetErrorString(e)); exit(1);}}while(0)
#define INF 0x7fffffff
typedef unsigned long long u64;

__global__ void k0_oneblock(const int* off, const int* tgt, const int* wt, int* dist, int* qa, int* qb, int src, int weighted, int* levels_out) {
  __shared__ int cnt, qlen;
  int* cur = qa; int* nxt = qb;
  if (threadIdx.x == 0) { cur[0] = src; qlen = 1; cnt = 0; }
  __syncthreads();
  int lvl = 0;
  while (true) {
    int len = qlen;
    if (len == 0) break;
    for (int i = threadIdx.x; i < len; i += blockDim.x) {
      int u = cur[i];
      int du = dist[u];
      for (int e = off[u]; e < off[u + 1]; e++) {
        int v = tgt[e];
        if (!weighted) {
          if (dist[v] == INF && atomicCAS(&dist[v], INF, lvl + 1) == INF) { int p = atomicAdd(&cnt, 1); nxt[p] = v; }
        }
      }
      (void)du;
    }
    __syncthreads();
    if (threadIdx.x == 0) { qlen = cnt; cnt = 0; }
    __syncthreads();
    int* t = cur; cur = nxt; nxt = t; lvl++;
  }
  if (threadIdx.x == 0) *levels_out = lvl;
}

struct Stats { unsigned long long levels, pops, sends, recvs, idle, cyc_drain, cyc_relax, cyc_idle, overflow; };

// Shared layout: dist[T], cur[Q], nxt[Q], inq[T/32], loff[T+1], ltgt u16[E], w u16[E]
template <bool W, bool BATCH>
__global__ void __launch_bounds__(512, 1) k1_tiles(int n, int T, int Q, const int* __restrict__ off, const int* __restrict__ tgt, const int* __restrict__ wt,
    int* dist_g, u64* inbox, unsigned* tails, int* outstanding, int src, int prefetch_tail, int delta, unsigned* heads, unsigned cap, int rcap, Stats* stats) {
  extern __shared__ __align__(16) unsigned char sm[];
  const int b = blockIdx.x, tid = threadIdx.x, step = blockDim.x;
  const int lo = min(b * T, n), hi = min(lo + T, n), len = hi - lo;
  const int first = off[lo], E = off[hi] - first;
  int* dist = (int*)sm;
  int* cur = dist + T;
  int* nxt = cur + Q;
  unsigned* inq = (unsigned*)(nxt + Q);
  int* loff = (int*)(inq + (T + 31) / 32);
  unsigned short* ltgt = (unsigned short*)(loff + T + 1);
  unsigned short* lw = ltgt + E;
  int* rtab = (int*)(lw + (W ? E : 0) + ((W ? 2 * E : E) & 1));
  __shared__ int rcount;
  if (tid == 0) rcount = 0;
  __syncthreads();
  __shared__ int qlen, nlen, tail_s, done, ovf, qmin, nmin;
  const int OB = 512;
  __shared__ int ov[2][OB], oc[2][OB];
  __shared__ int olen[2];
  __shared__ unsigned hcache[160];
  for (int i = tid; i < len; i += step) dist[i] = INF;
  for (int i = tid; i <= len; i += step) loff[i] = off[lo + i] - first;
  for (int i = tid; i < (T + 31) / 32; i += step) inq[i] = 0;
  for (int i = tid; i < 160; i += step) hcache[i] = 0;
  for (int e = tid; e < E; e += step) {
    int v = tgt[first + e];
    if (v >= lo && v < hi) ltgt[e] = (unsigned short)(v - lo);
    else { int r = atomicAdd(&rcount, 1); if (r < rcap && len + r < 0xFFFF) { rtab[r] = v; ltgt[e] = (unsigned short)(len + r); } else ltgt[e] = 0xFFFF; }
    if (W) lw[e] = (unsigned short)wt[first + e];
  }
  if (tid == 0) {
    qlen = 0; nlen = 0; tail_s = 0; done = 0; ovf = 0; qmin = 0; nmin = INF; olen[0] = 0; olen[1] = 0;
    if (src >= lo && src < hi) { cur[0] = src - lo; qlen = 1; }
  }
  __syncthreads();
  if (tid == 0 && src >= lo && src < hi) { dist[src - lo] = 0; inq[(src - lo) / 32] |= 1u << ((src - lo) % 32); }
  __syncthreads();
  unsigned drained = 0, published = 0; int held = (tid == 0); 
  u64 lv = 0, pops = 0, sends = 0, recvs = 0, idle = 0, cd = 0, cr = 0, ci = 0;
  u64* ring = inbox + (size_t)lo * 4;
  int par = 0;
  long long c0 = clock64();
  unsigned next_tail = 0;
  while (true) {
    // drain
    if (tid == 0) next_tail = *(volatile unsigned*)&tails[b];
    unsigned tail = prefetch_tail ? (unsigned)tail_s : 0;
    if (!prefetch_tail) { if (tid == 0) tail_s = next_tail; __syncthreads(); tail = tail_s; }
    unsigned count = tail - drained;
    int dtid = tid, dstep = step;
    if (BATCH) {
      dtid = tid - 32; dstep = step - 32;
      if (tid == 0) {
        int q = par ^ 1, L = olen[q];
        if (L > 0) {
          int own[8], cnt[8], nown = 0;
          unsigned at[8];
          for (int i = 0; i < L; i++) {
            int o = ov[q][i] / T, j = 0;
            while (j < nown && own[j] != o) j++;
            if (j == nown && nown < 8) { own[nown] = o; cnt[nown] = 0; nown++; }
            if (j < nown) cnt[j]++;
          }
          atomicAdd(outstanding, L);
          __threadfence();
          for (int j = 0; j < nown; j++) at[j] = atomicAdd(&tails[own[j]], cnt[j]);
          for (int j = 0; j < nown; j++) if (at[j] + cnt[j] - hcache[own[j]] > cap) {
            unsigned h;
            while (at[j] + cnt[j] - (h = *(volatile unsigned*)&heads[own[j]]) > cap) __nanosleep(64);
            hcache[own[j]] = h;
          }
          for (int i = 0; i < L; i++) {
            int v = ov[q][i], c = oc[q][i], o = v / T, j = 0;
            while (j < nown && own[j] != o) j++;
            unsigned slot;
            if (j < nown) slot = at[j]++;
            else {
              slot = atomicAdd(&tails[o], 1);
              unsigned h;
              while (slot + 1 - (h = *(volatile unsigned*)&heads[o]) > cap) __nanosleep(64);
            }
            *(volatile u64*)(inbox + (size_t)o * T * 4 + slot % cap) = ((u64)(v + 1) << 32) | (unsigned)c;
          }
          sends += L;
          olen[q] = 0;
        }
      }
    }
    for (unsigned i = dtid; dtid >= 0 && i < count; i += dstep) {
      volatile u64* slot = ring + ((drained + i) % cap);
      u64 x;
      while ((x = *slot) == 0) __nanosleep(32);
      *slot = 0;
      int v = (int)(x >> 32) - 1, c = (int)(x & 0xffffffffu);
      int l = v - lo;
      if (atomicMin(&dist[l], c) > c) {
        if (!(atomicOr(&inq[l / 32], 1u << (l % 32)) & (1u << (l % 32)))) {
          int p = atomicAdd(&qlen, 1);
          if (p < Q) cur[p] = l; else ovf = 1;
        }
        if (delta) atomicMin(&qmin, c);
      }
      recvs++;
    }
    drained = tail;
    if (tid == 0) held += count;
    __syncthreads();
    if (prefetch_tail && tid == 0) tail_s = next_tail;
    if (BATCH && tid == 0 && drained - published >= cap / 4) { __threadfence(); *(volatile unsigned*)&heads[b] = drained; published = drained; }
    long long c1 = clock64(); cd += c1 - c0; c0 = c1;
    int ql = qlen;
    if (ql == 0) {
      idle++;
      if (tid == 0) {
        qmin = INF;
        if (held) { __threadfence(); atomicSub(outstanding, held); held = 0; }
        if (*(volatile int*)outstanding == 0) done = 1; else __nanosleep(64);
      }
      __syncthreads();
      c1 = clock64(); ci += c1 - c0; c0 = c1;
      if (done) break;
      continue;
    }
    if (ql > Q) ql = Q;
    lv++;
    for (int i = tid; i < ql; i += step) {
      int u = cur[i];
      if (delta) {
        int d0 = *(volatile int*)&dist[u];
        if ((long long)d0 >= (long long)qmin + delta) {
          int p = atomicAdd(&nlen, 1);
          if (p < Q) nxt[p] = u; else ovf = 1;
          atomicMin(&nmin, d0);
          continue;
        }
      }
      atomicAnd(&inq[u / 32], ~(1u << (u % 32)));
      int du = *(volatile int*)&dist[u];
      pops++;
      for (int e = loff[u]; e < loff[u + 1]; e++) {
        int cand = du + (W ? (int)lw[e] : 1);
        unsigned short t = ltgt[e];
        if (t < len) {
          if (atomicMin(&dist[t], cand) > cand) {
            if (!(atomicOr(&inq[t / 32], 1u << (t % 32)) & (1u << (t % 32)))) {
              int p = atomicAdd(&nlen, 1);
              if (p < Q) nxt[p] = t; else ovf = 1;
            }
            if (delta) atomicMin(&nmin, cand);
          }
        } else {
          int v = t != 0xFFFF ? rtab[t - len] : tgt[first + e];
          if (BATCH) {
            int p = atomicAdd(&olen[par], 1);
            if (p < OB) { ov[par][p] = v; oc[par][p] = cand; continue; }
            ovf = 2;
          }
          if (atomicMin(&dist_g[v], cand) > cand) {
            int owner = v / T;
            int olen = min(T, n - owner * T);
            atomicAdd(outstanding, 1);
            __threadfence();
            unsigned at = atomicAdd(&tails[owner], 1) % cap;
            u64 msg = ((u64)(v + 1) << 32) | (unsigned)cand;
            u64* slot = inbox + (size_t)owner * T * 4 + at;
            while (atomicCAS(slot, 0ull, msg) != 0ull) __nanosleep(32);
            sends++;
          }
        }
      }
    }
    __syncthreads();
    if (tid == 0) { qlen = nlen; nlen = 0; qmin = nmin; nmin = INF; }
    { int* t = cur; cur = nxt; nxt = t; }
    par ^= 1;
    __syncthreads();
    c1 = clock64(); cr += c1 - c0; c0 = c1;
  }
  for (int i = tid; i < len; i += step) dist_g[lo + i] = dist[i];
  atomicAdd(&stats->pops, pops); atomicAdd(&stats->sends, sends); atomicAdd(&stats->recvs, recvs);
  if (tid == 0) {
    atomicMax(&stats->levels, lv); atomicAdd(&stats->idle, idle);
    atomicAdd(&stats->cyc_drain, cd); atomicAdd(&stats->cyc_relax, cr); atomicAdd(&stats->cyc_idle, ci);
    if (ovf) atomicAdd(&stats->overflow, 1);
  }
}

int main(int argc, char** argv) {
  int Wd = argc > 1 ? atoi(argv[1]) : 1000, Ht = argc > 2 ? atoi(argv[2]) : 1000;
  int src = argc > 3 ? atoi(argv[3]) : 0;
  int weighted = argc > 4 ? atoi(argv[4]) : 0;
  int reps = argc > 5 ? atoi(argv[5]) : 5;
  int delta = argc > 6 ? atoi(argv[6]) : 0;
  int n = Wd * Ht;
  std::vector<int> off(n + 1), tgt, wt;
  srand(7);
  for (int r = 0; r < Ht; r++) for (int c = 0; c < Wd; c++) {
    int v = r * Wd + c; off[v] = tgt.size();
    int nb[4] = {r > 0 ? v - Wd : -1, c > 0 ? v - 1 : -1, c + 1 < Wd ? v + 1 : -1, r + 1 < Ht ? v + Wd : -1};
    for (int k = 0; k < 4; k++) if (nb[k] >= 0) { tgt.push_back(nb[k]); wt.push_back(weighted ? 1 + rand() % 255 : 1); }
  }
  off[n] = tgt.size();
  int m = tgt.size();
  // reference (Dijkstra / BFS)
  std::vector<long long> ref(n, INF);
  { typedef std::pair<long long,int> P; std::priority_queue<P, std::vector<P>, std::greater<P>> pq; ref[src] = 0; pq.push({0, src});
    while (!pq.empty()) { auto [d,u] = pq.top(); pq.pop(); if (d > ref[u]) continue; for (int e = off[u]; e < off[u+1]; e++) { long long nd = d + wt[e]; if (nd < ref[tgt[e]]) { ref[tgt[e]] = nd; pq.push({nd, tgt[e]}); } } } }
  int *d_off, *d_tgt, *d_wt, *d_dist, *d_qa, *d_qb, *d_lv, *d_out; u64* d_inbox; unsigned* d_tails; Stats* d_st;
  CK(cudaMalloc(&d_off, 4 * (n + 1))); CK(cudaMalloc(&d_tgt, 4 * m)); CK(cudaMalloc(&d_wt, 4 * m));
  CK(cudaMalloc(&d_dist, 4 * n)); CK(cudaMalloc(&d_qa, 4 * n)); CK(cudaMalloc(&d_qb, 4 * n)); CK(cudaMalloc(&d_lv, 4));
  CK(cudaMalloc(&d_inbox, 8 * 4 * (size_t)(n + n / 100 + 1024))); unsigned* d_heads; CK(cudaMalloc(&d_heads, 4 * 1024)); CK(cudaMalloc(&d_tails, 4 * 1024)); CK(cudaMalloc(&d_out, 4)); CK(cudaMalloc(&d_st, sizeof(Stats)));
  CK(cudaMemcpy(d_off, off.data(), 4 * (n + 1), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_tgt, tgt.data(), 4 * m, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_wt, wt.data(), 4 * m, cudaMemcpyHostToDevice));
  std::vector<int> h(n), inf(n, INF);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  auto check = [&](const char* name) { CK(cudaMemcpy(h.data(), d_dist, 4 * n, cudaMemcpyDeviceToHost)); long bad = 0; for (int i = 0; i < n; i++) if (h[i] != ref[i]) bad++; if (bad) printf("%s: %ld WRONG\n", name, bad); return bad == 0; };
  if (!weighted) {
    for (int r = 0; r < reps; r++) {
      CK(cudaMemcpy(d_dist, inf.data(), 4 * n, cudaMemcpyHostToDevice));
      int z = 0; CK(cudaMemcpy(d_dist + src, &z, 4, cudaMemcpyHostToDevice));
      cudaEventRecord(e0); k0_oneblock<<<1, 1024>>>(d_off, d_tgt, d_wt, d_dist, d_qa, d_qb, src, 0, d_lv); cudaEventRecord(e1); CK(cudaEventSynchronize(e1));
      float ms; cudaEventElapsedTime(&ms, e0, e1); int lv; cudaMemcpy(&lv, d_lv, 4, cudaMemcpyDeviceToHost);
      bool ok = check("k0");
      printf("k0 oneblock grid %dx%d src %d: %.3f ms, %d levels, %.2f us/level %s\n", Wd, Ht, src, ms, lv, 1000 * ms / lv, ok ? "ok" : "BAD");
    }
  }
  int dev; cudaGetDevice(&dev); cudaDeviceProp pr; cudaGetDeviceProperties(&pr, dev);
  int B = pr.multiProcessorCount;
  int T = (n + B - 1) / B, Q = 2048;
  int Emax = 0; for (int b = 0; b < B; b++) { int lo = std::min(b * T, n), hi = std::min(lo + T, n); Emax = std::max(Emax, off[hi] - off[lo]); }
  int rcap = 2560;
  size_t smem = 4 * (size_t)T + 8 * (size_t)Q + 4 * ((T + 31) / 32) + 4 * (size_t)(T + 1) + 2 * (size_t)Emax + (weighted ? 2 * (size_t)Emax : 0) + 16 + 4 * (size_t)rcap;
  printf("tiles: %d blocks, tile %d, smem %zu bytes\n", B, T, smem);
  unsigned cap = 4 * T;
  int threads_list[3] = {512, 256, 128};
  for (int batch = 1; batch < 2; batch++) for (int ti = 0; ti < 3; ti++) { int threads = threads_list[ti];
  auto kern = weighted ? (batch ? k1_tiles<true, true> : k1_tiles<true, false>) : (batch ? k1_tiles<false, true> : k1_tiles<false, false>);
  CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  int pf = 1;
  for (int r = 0; r < reps; r++) {
    CK(cudaMemcpy(d_dist, inf.data(), 4 * n, cudaMemcpyHostToDevice));
    CK(cudaMemset(d_inbox, 0, 8 * 4 * (size_t)(n + n / 100 + 1024))); CK(cudaMemset(d_heads, 0, 4 * 1024)); CK(cudaMemset(d_tails, 0, 4 * 1024)); CK(cudaMemset(d_st, 0, sizeof(Stats)));
    CK(cudaMemcpy(d_out, &B, 4, cudaMemcpyHostToDevice));
    void* args[] = {&n, &T, &Q, &d_off, &d_tgt, &d_wt, &d_dist, &d_inbox, &d_tails, &d_out, &src, &pf, &delta, &d_heads, &cap, &rcap, &d_st};
    cudaEventRecord(e0);
    CK(cudaLaunchCooperativeKernel((void*)kern, B, threads, args, smem, 0));
    cudaEventRecord(e1); CK(cudaEventSynchronize(e1));
    float ms; cudaEventElapsedTime(&ms, e0, e1);
    Stats st; cudaMemcpy(&st, d_st, sizeof st, cudaMemcpyDeviceToHost);
    bool ok = check("k1");
    double lvs = st.levels;
    printf("k1 tiles%s threads=%d delta=%d grid %dx%d src %d: %.3f ms; busiest %llu levels; pops %llu sends %llu recvs %llu idle %llu ovf %llu; cyc/level-iter drain %.0f relax %.0f; idle cyc/pass %.0f %s\n",
      weighted ? " sssp" : " bfs", threads, delta, Wd, Ht, src, ms, st.levels, st.pops, st.sends, st.recvs, st.idle, st.overflow,
      (double)st.cyc_drain / std::max(1.0, (double)(st.idle)+ lvs*B), (double)st.cyc_relax / std::max(1.0, lvs * B), (double)st.cyc_idle / std::max(1.0, (double)st.idle), ok ? "ok" : "BAD");
  }
  }
  return 0;
}
