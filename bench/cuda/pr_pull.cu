// pr_pull.cu: hand-written CUDA PageRank (pull form) on a gapbs `.sg` graph, a
// baseline for the DSL-generated PageRank kernel.
//
// PageRank as the GAP benchmark suite defines it (the same numbers as
// examples/src/programs/pagerank.rs and runtime/src/oracle.rs):
//   n vertices, d = 0.85, base = (1 - d)/n, rank_0[v] = 1/n;
//   each round:
//     contrib[u]  = (float)(rank[u] / out_degree[u])      (f32; 0 when out_degree 0,
//                                                           never read then)
//     sum[v]      = sum over in-neighbours u of (double)contrib[u]   (f64)
//     new_rank[v] = base + d * sum[v]                                (f64)
//     L1          = sum over v of |new_rank[v] - rank[v]|            (f64)
//   stop after the first round with L1 < tol, or after max_rounds rounds.
//
// Kernels of a round: contrib (one thread per vertex), pull (`--kernel warp` or
// `--kernel chunk`), apply + L1 (grid-stride, block reduction, one double
// atomicAdd per block).
//
// Build: nvcc -O3 -arch=sm_90 -o pr_pull bench/cuda/pr_pull.cu
// Usage: pr_pull FILE.sg [--kernel warp|chunk] [--mec 16] [--tol 1e-4]
//                [--max-rounds 20] [--trials 5] [--out FILE]
// Prints one JSON object on stdout; progress and errors go to stderr.

#include <cuda_runtime.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CUDA_CHECK(call)                                                         \
  do {                                                                           \
    cudaError_t err_ = (call);                                                   \
    if (err_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "pr_pull: CUDA error at %s:%d: %s: %s\n", __FILE__,   \
                   __LINE__, #call, cudaGetErrorString(err_));                   \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())

typedef unsigned long long u64;  // the device offset type (same width as uint64_t)
typedef unsigned int u32;        // the device neighbour type

static const double kDamping = 0.85;
static const int kBlock = 256;  // threads per block in every kernel (multiple of 32)

// ---------------------------------------------------------------------------
// Device code
// ---------------------------------------------------------------------------

__device__ __forceinline__ double warp_sum(double x) {
  // Every lane of the warp calls this (full mask).
  for (int off = 16; off > 0; off >>= 1) x += __shfl_down_sync(0xffffffffu, x, off);
  return x;  // the total is in lane 0
}

// Adds the block's sum of x into *out with one atomicAdd. Every thread of the
// block must call it (it has a __syncthreads); blockDim.x is a multiple of 32.
__device__ __forceinline__ void block_sum_atomic(double x, double* out) {
  __shared__ double warp_sums[32];
  const int lane = threadIdx.x & 31;
  const int wid = threadIdx.x >> 5;
  x = warp_sum(x);
  if (lane == 0) warp_sums[wid] = x;
  __syncthreads();
  if (wid == 0) {
    const int nwarps = (int)(blockDim.x >> 5);
    double y = lane < nwarps ? warp_sums[lane] : 0.0;
    y = warp_sum(y);
    if (lane == 0) atomicAdd(out, y);  // atomicAdd(double*, double): sm_60+
  }
}

// f32 contribution of a vertex: (float)(rank / out_degree), 0 without out-edges.
__device__ __forceinline__ float contribution(double rank, u32 deg) {
  return deg != 0 ? __double2float_rn(__ddiv_rn(rank, (double)deg)) : 0.0f;
}

// new rank = base + d * sum, with no fused multiply-add (as the Rust program does).
__device__ __forceinline__ double new_rank(double base, double damping, double sum) {
  return __dadd_rn(base, __dmul_rn(damping, sum));
}

__global__ void init_kernel(int64_t n, double init_rank, double* __restrict__ rank,
                            double* __restrict__ acc) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
    rank[v] = init_rank;
    acc[v] = 0.0;
  }
}

// (1) contrib[u] = (float)(rank[u] / out_degree[u]), one thread per vertex.
__global__ void contrib_kernel(int64_t n, const double* __restrict__ rank,
                               const u32* __restrict__ out_deg,
                               float* __restrict__ contrib) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t u = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; u < n; u += stride)
    contrib[u] = contribution(rank[u], out_deg[u]);
}

// (2a) pull, `warp`: one warp per vertex (grid-stride over vertices), lanes stride
// the in-edge range, shuffle reduction; lane 0 stores acc[v] (every v, so acc
// needs no reset between rounds).
__global__ void pull_warp_kernel(int64_t n, const u64* __restrict__ in_off,
                                 const u32* __restrict__ in_src,
                                 const float* __restrict__ contrib,
                                 double* __restrict__ acc) {
  const int lane = threadIdx.x & 31;
  const int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int64_t nwarps = ((int64_t)gridDim.x * blockDim.x) >> 5;
  for (int64_t v = warp; v < n; v += nwarps) {  // v is the same in all lanes
    const u64 beg = in_off[v];
    const u64 end = in_off[v + 1];
    double s = 0.0;
    for (u64 e = beg + (u64)lane; e < end; e += 32) s += (double)contrib[in_src[e]];
    s = warp_sum(s);
    if (lane == 0) acc[v] = s;
  }
}

// (2b) pull, `chunk`: thread c owns in-edges [c*mec, min((c+1)*mec, m)), starting
// in vertex chunk_owner[c] (precomputed on the host). It sums each run of edges
// that belongs to one vertex in a register and writes it with a plain store when
// the chunk holds that vertex's whole in-edge range, else with atomicAdd. acc
// must be 0 on entry (apply resets it), and vertices without in-edges are never
// touched.
__global__ void pull_chunk_kernel(int64_t num_chunks, int64_t m, int64_t mec,
                                  const u64* __restrict__ in_off,
                                  const u32* __restrict__ in_src,
                                  const u32* __restrict__ chunk_owner,
                                  const float* __restrict__ contrib,
                                  double* __restrict__ acc) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; c < num_chunks;
       c += stride) {
    const u64 e0 = (u64)(c * mec);
    const int64_t c_end = c * mec + mec;
    const u64 e1 = (u64)(c_end < m ? c_end : m);  // the last chunk may be short
    u64 v = chunk_owner[c];
    u64 vbeg = in_off[v];
    u64 vend = in_off[v + 1];  // vbeg <= e0 < vend
    u64 e = e0;
    while (e < e1) {
      const u64 stop = vend < e1 ? vend : e1;
      double s = 0.0;
      for (; e < stop; ++e) s += (double)contrib[in_src[e]];
      if (vbeg >= e0 && vend <= e1)
        acc[v] = s;  // the whole range of v lies in this chunk
      else
        atomicAdd(&acc[v], s);
      if (e < e1) {
        // e == vend < e1 <= m = in_off[n]: a later vertex with in-edges exists
        // below n, so in_off[v + 1] stays in bounds. Skip empty vertices.
        do {
          ++v;
          vbeg = vend;
          vend = in_off[v + 1];
        } while (vend == vbeg);
      }
    }
  }
}

// (3) apply + L1: rank[v] = base + d*acc[v] in place (contrib already holds
// what pull needed of the old ranks), L1 into *l1. With reset_acc, acc[v] = 0
// for the next `chunk` round.
__global__ void apply_kernel(int64_t n, double base, double damping,
                             double* __restrict__ acc, double* __restrict__ rank,
                             int reset_acc, double* __restrict__ l1) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  double change = 0.0;
  for (int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
    const double r = new_rank(base, damping, acc[v]);
    change += fabs(r - rank[v]);
    rank[v] = r;
    if (reset_acc) acc[v] = 0.0;
  }
  block_sum_atomic(change, l1);
}

// ---------------------------------------------------------------------------
// Host: options
// ---------------------------------------------------------------------------

struct Options {
  std::string file;
  std::string kernel = "chunk";
  int64_t mec = 16;
  double tol = 1e-4;
  int64_t max_rounds = 20;
  int64_t trials = 5;
  std::string out;
};

static void usage_exit(const char* msg) {
  if (msg) std::fprintf(stderr, "pr_pull: %s\n", msg);
  std::fprintf(stderr,
               "usage: pr_pull FILE.sg [--kernel warp|chunk] [--mec 16] [--tol 1e-4]\n"
               "               [--max-rounds 20] [--trials 5] [--out FILE]\n");
  std::exit(2);
}

static int64_t parse_int(const char* opt, const char* s, int64_t lo, int64_t hi) {
  char* end = nullptr;
  errno = 0;
  long long x = std::strtoll(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0' || x < lo || x > hi) {
    std::fprintf(stderr, "pr_pull: %s wants an integer in [%" PRId64 ", %" PRId64
                 "], got '%s'\n", opt, lo, hi, s);
    std::exit(2);
  }
  return (int64_t)x;
}

static double parse_double(const char* opt, const char* s) {
  char* end = nullptr;
  errno = 0;
  double x = std::strtod(s, &end);
  if (errno != 0 || end == s || *end != '\0' || !std::isfinite(x) || x < 0.0) {
    std::fprintf(stderr, "pr_pull: %s wants a finite number >= 0, got '%s'\n", opt, s);
    std::exit(2);
  }
  return x;
}

static Options parse_args(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](void) -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "pr_pull: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--kernel") {
      o.kernel = value();
      if (o.kernel != "warp" && o.kernel != "chunk") usage_exit("--kernel is warp or chunk");
    } else if (a == "--mec") {
      o.mec = parse_int("--mec", value(), 1, 1 << 20);
    } else if (a == "--tol") {
      o.tol = parse_double("--tol", value());
    } else if (a == "--max-rounds") {
      o.max_rounds = parse_int("--max-rounds", value(), 1, 1000000);
    } else if (a == "--trials") {
      o.trials = parse_int("--trials", value(), 1, 100000);
    } else if (a == "--out") {
      o.out = value();
    } else if (a == "-h" || a == "--help") {
      usage_exit(nullptr);
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "pr_pull: unknown option '%s'\n", a.c_str());
      usage_exit(nullptr);
    } else if (o.file.empty()) {
      o.file = a;
    } else {
      std::fprintf(stderr, "pr_pull: more than one input file ('%s', '%s')\n",
                   o.file.c_str(), a.c_str());
      usage_exit(nullptr);
    }
  }
  if (o.file.empty()) usage_exit("no input file");
  return o;
}

// ---------------------------------------------------------------------------
// Host: reading a gapbs serialized graph (.sg), as gapbs's writer.h writes it:
//   bool directed (1 byte); int64 num_edges; int64 num_nodes;
//   int64 out_offsets[n+1]; int32 out_neighbors[m];
//   if directed: int64 in_offsets[n+1]; int32 in_neighbors[m].
// num_edges is num_edges_directed(): the length of the neighbour array, so an
// undirected graph's edges are counted twice (once per direction).
// ---------------------------------------------------------------------------

struct Graph {
  bool directed = false;
  int64_t n = 0, m = 0;
  std::vector<int64_t> out_off;  // n+1
  std::vector<int32_t> out_nbr;  // m
  std::vector<int64_t> in_off;   // n+1 (directed only)
  std::vector<int32_t> in_nbr;   // m   (directed only)
};

[[noreturn]] static void file_error(const std::string& file, const std::string& msg) {
  std::fprintf(stderr, "pr_pull: %s: %s\n", file.c_str(), msg.c_str());
  std::exit(1);
}

static void read_exact(std::FILE* f, void* dst, size_t elem, size_t count,
                       const std::string& file, const char* what) {
  char* p = static_cast<char*>(dst);
  size_t left = count;
  while (left > 0) {
    const size_t step = std::min(left, (size_t)1 << 24);
    const size_t got = std::fread(p, elem, step, f);
    if (got != step)
      file_error(file, std::string("truncated: could not read ") + what);
    p += got * elem;
    left -= got;
  }
}

static void check_csr(const std::string& file, const char* which, int64_t n, int64_t m,
                      const std::vector<int64_t>& off, const std::vector<int32_t>& nbr) {
  char buf[256];
  if (off[0] != 0) {
    std::snprintf(buf, sizeof buf, "%s offsets start at %" PRId64 ", not 0", which, off[0]);
    file_error(file, buf);
  }
  for (int64_t v = 0; v < n; ++v) {
    if (off[v + 1] < off[v]) {
      std::snprintf(buf, sizeof buf, "%s offsets decrease at vertex %" PRId64, which, v);
      file_error(file, buf);
    }
    if (off[v + 1] - off[v] > (int64_t)UINT32_MAX) {
      std::snprintf(buf, sizeof buf, "%s degree of vertex %" PRId64 " exceeds 2^32-1",
                    which, v);
      file_error(file, buf);
    }
  }
  if (off[n] != m) {
    std::snprintf(buf, sizeof buf, "%s offsets end at %" PRId64 ", but num_edges is %" PRId64,
                  which, off[n], m);
    file_error(file, buf);
  }
  for (int64_t e = 0; e < m; ++e) {
    if (nbr[e] < 0 || (int64_t)nbr[e] >= n) {
      std::snprintf(buf, sizeof buf, "%s neighbour %" PRId64 " is %d, outside [0, %" PRId64 ")",
                    which, e, (int)nbr[e], n);
      file_error(file, buf);
    }
  }
}

static Graph read_sg(const std::string& file) {
  Graph g;
  std::FILE* f = std::fopen(file.c_str(), "rb");
  if (!f) file_error(file, std::string("cannot open: ") + std::strerror(errno));
  if (std::fseek(f, 0, SEEK_END) != 0) file_error(file, "cannot seek (not a regular file?)");
  const long long size = (long long)std::ftell(f);  // long is 64-bit on Linux
  if (size < 0 || std::fseek(f, 0, SEEK_SET) != 0) file_error(file, "cannot get the file size");

  const long long header = 1 + 8 + 8;
  char buf[512];
  if (size < header) {
    std::snprintf(buf, sizeof buf, "truncated: %lld bytes, a .sg header alone is %lld", size,
                  header);
    file_error(file, buf);
  }
  unsigned char dir_byte = 0;
  int64_t m = 0, n = 0;
  read_exact(f, &dir_byte, 1, 1, file, "the header");
  read_exact(f, &m, sizeof m, 1, file, "the header");
  read_exact(f, &n, sizeof n, 1, file, "the header");
  if (dir_byte > 1) {
    std::snprintf(buf, sizeof buf, "not a gapbs .sg file (first byte is %u, not 0 or 1)",
                  (unsigned)dir_byte);
    file_error(file, buf);
  }
  g.directed = dir_byte == 1;
  if (n < 0 || m < 0) {
    std::snprintf(buf, sizeof buf, "bad header: num_nodes %" PRId64 ", num_edges %" PRId64, n, m);
    file_error(file, buf);
  }
  if (n > (int64_t)INT32_MAX + 1) {
    std::snprintf(buf, sizeof buf, "num_nodes %" PRId64 " does not fit 32-bit vertex ids", n);
    file_error(file, buf);
  }
  // Both n and m are now bounded (m by the file size) so these products fit.
  if (m > size / 4) {
    std::snprintf(buf, sizeof buf,
                  "truncated or not a .sg file: num_edges %" PRId64 " needs more than the %lld "
                  "bytes of the file", m, size);
    file_error(file, buf);
  }
  const long long part = 8LL * (n + 1) + 4LL * m;
  const long long expected = header + (g.directed ? 2 : 1) * part;
  if (size != expected) {
    std::snprintf(buf, sizeof buf,
                  "wrong size: %lld bytes, but %s .sg with %" PRId64 " vertices and %" PRId64
                  " edges has %lld%s",
                  size, g.directed ? "a directed" : "an undirected", n, m, expected,
                  size < expected ? " (truncated)"
                                  : " (trailing bytes; weighted .wsg files are not supported)");
    file_error(file, buf);
  }
  g.n = n;
  g.m = m;
  g.out_off.resize((size_t)n + 1);
  g.out_nbr.resize((size_t)m);
  read_exact(f, g.out_off.data(), 8, (size_t)n + 1, file, "the out-offsets");
  read_exact(f, g.out_nbr.data(), 4, (size_t)m, file, "the out-neighbours");
  check_csr(file, "out", n, m, g.out_off, g.out_nbr);
  if (g.directed) {
    g.in_off.resize((size_t)n + 1);
    g.in_nbr.resize((size_t)m);
    read_exact(f, g.in_off.data(), 8, (size_t)n + 1, file, "the in-offsets");
    read_exact(f, g.in_nbr.data(), 4, (size_t)m, file, "the in-neighbours");
    check_csr(file, "in", n, m, g.in_off, g.in_nbr);
  }
  std::fclose(f);
  return g;
}

// ---------------------------------------------------------------------------
// Host: running
// ---------------------------------------------------------------------------

struct Device {
  int64_t n = 0, m = 0, num_chunks = 0, mec = 16;
  u64* in_off = nullptr;
  u32* in_src = nullptr;
  u32* out_deg = nullptr;
  u32* chunk_owner = nullptr;
  float* contrib = nullptr;
  double* rank = nullptr;
  double* acc = nullptr;
  double* l1 = nullptr;
  int sms = 1;
};

struct RunResult {
  int64_t rounds = 0;
  double l1_last = 0.0;
  std::vector<float> round_ms;
  float total_ms = 0.0f;
};

template <typename T>
static T* device_alloc(size_t count) {
  void* p = nullptr;
  CUDA_CHECK(cudaMalloc(&p, std::max(count * sizeof(T), (size_t)16)));  // never 0 bytes
  return static_cast<T*>(p);
}

static int blocks_for(int64_t threads, int64_t cap) {
  int64_t b = (threads + kBlock - 1) / kBlock;
  b = std::max<int64_t>(1, std::min<int64_t>(b, cap));
  return (int)std::min<int64_t>(b, 0x7fffffff);
}

// One PageRank run on the device (n > 0). Always records events; the caller
// decides whether the run is timed.
static RunResult run_pagerank(const Device& d, const Options& o,
                              std::vector<cudaEvent_t>& ev_start,
                              std::vector<cudaEvent_t>& ev_end, cudaEvent_t ev_total0,
                              cudaEvent_t ev_total1) {
  RunResult res;
  const int64_t n = d.n;
  const double init = 1.0 / (double)n;
  const double base = (1.0 - kDamping) / (double)n;
  const bool warp = o.kernel == "warp";

  // Vertex kernels: grid-stride, at most 16 blocks of 256 per SM (apply does one
  // atomic per block). Warp pull: one warp per vertex, a big grid (blocks queue
  // and so balance power-law degrees).
  const int vb = blocks_for(n, (int64_t)d.sms * 16);
  const int wb = blocks_for(n * 32, (int64_t)1 << 30);
  const int cb = blocks_for(d.num_chunks, (int64_t)1 << 30);

  init_kernel<<<vb, kBlock>>>(n, init, d.rank, d.acc);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());

  CUDA_CHECK(cudaEventRecord(ev_total0));
  for (int64_t r = 0; r < o.max_rounds; ++r) {
    CUDA_CHECK(cudaEventRecord(ev_start[r]));
    CUDA_CHECK(cudaMemsetAsync(d.l1, 0, sizeof(double)));
    contrib_kernel<<<vb, kBlock>>>(n, d.rank, d.out_deg, d.contrib);
    CUDA_CHECK_LAUNCH();
    if (warp) {
      pull_warp_kernel<<<wb, kBlock>>>(n, d.in_off, d.in_src, d.contrib, d.acc);
      CUDA_CHECK_LAUNCH();
    } else if (d.num_chunks > 0) {
      pull_chunk_kernel<<<cb, kBlock>>>(d.num_chunks, d.m, d.mec, d.in_off, d.in_src,
                                        d.chunk_owner, d.contrib, d.acc);
      CUDA_CHECK_LAUNCH();
    }
    // chunk needs acc reset (atomics, untouched vertices); warp stores every acc[v].
    apply_kernel<<<vb, kBlock>>>(n, base, kDamping, d.acc, d.rank, warp ? 0 : 1, d.l1);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaEventRecord(ev_end[r]));
    double l1 = 0.0;
    CUDA_CHECK(cudaMemcpy(&l1, d.l1, sizeof(double), cudaMemcpyDeviceToHost));
    res.rounds = r + 1;
    res.l1_last = l1;
    if (l1 < o.tol) break;
  }
  CUDA_CHECK(cudaEventRecord(ev_total1));
  CUDA_CHECK(cudaEventSynchronize(ev_total1));
  for (int64_t r = 0; r < res.rounds; ++r) {
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, ev_start[r], ev_end[r]));
    res.round_ms.push_back(ms);
  }
  CUDA_CHECK(cudaEventElapsedTime(&res.total_ms, ev_total0, ev_total1));
  return res;
}

static double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t k = v.size() / 2;
  return v.size() % 2 ? v[k] : 0.5 * (v[k - 1] + v[k]);
}

static std::string json_string(const std::string& s) {
  std::string r = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      r += '\\';
      r += (char)c;
    } else if (c < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", (unsigned)c);
      r += b;
    } else {
      r += (char)c;
    }
  }
  return r + "\"";
}

int main(int argc, char** argv) {
  const Options o = parse_args(argc, argv);
  Graph g = read_sg(o.file);
  const int64_t n = g.n, m = g.m;
  // Pull reads in-edges: CSC. Undirected: in-edges are the out-edges.
  const std::vector<int64_t>& in_off = g.directed ? g.in_off : g.out_off;
  const std::vector<int32_t>& in_nbr = g.directed ? g.in_nbr : g.out_nbr;
  std::fprintf(stderr, "pr_pull: %s: %s, %" PRId64 " vertices, %" PRId64 " edges\n",
               o.file.c_str(), g.directed ? "directed" : "undirected", n, m);

  // Bytes a pull round must read/write (the model in bench/cuda/README.md):
  // in_offsets 8(n+1) + in_sources 4m + contrib reads 4m + contrib write 4n
  // + rank read/write 16n + out_degree (u32) 4n.
  const double bytes = 8.0 * (double)(n + 1) + 8.0 * (double)m + 24.0 * (double)n;

  std::vector<double> rank_host((size_t)n, 0.0);
  RunResult last;
  double ms_round_med = 0.0, ms_total_med = 0.0;
  int64_t num_chunks = (m + o.mec - 1) / o.mec;

  if (n > 0) {
    // Host preprocessing: out-degrees and chunk owners (not timed).
    std::vector<u32> out_deg((size_t)n);
    for (int64_t u = 0; u < n; ++u) out_deg[u] = (u32)(g.out_off[u + 1] - g.out_off[u]);
    std::vector<u32> owner;
    if (o.kernel == "chunk") {
      // owner[c] = the vertex whose in-edge range holds edge c*mec: a sweep (c*mec
      // increases), the same as upper_bound(in_off, c*mec) - 1. Since
      // c*mec < m = in_off[n], the vertex is < n and has in-edges.
      owner.resize((size_t)num_chunks);
      int64_t v = 0;
      for (int64_t c = 0; c < num_chunks; ++c) {
        const int64_t e = c * o.mec;
        while (in_off[v + 1] <= e) ++v;
        owner[c] = (u32)v;
      }
    } else {
      num_chunks = 0;
    }

    int dev = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
    Device d;
    d.n = n;
    d.m = m;
    d.mec = o.mec;
    d.num_chunks = num_chunks;
    d.sms = prop.multiProcessorCount > 0 ? prop.multiProcessorCount : 1;
    std::fprintf(stderr, "pr_pull: device %s, %d SMs; kernel %s, mec %" PRId64 "\n",
                 prop.name, d.sms, o.kernel.c_str(), o.mec);

    d.in_off = device_alloc<u64>((size_t)n + 1);
    d.in_src = device_alloc<u32>((size_t)m);
    d.out_deg = device_alloc<u32>((size_t)n);
    d.chunk_owner = device_alloc<u32>((size_t)num_chunks);
    d.contrib = device_alloc<float>((size_t)n);
    d.rank = device_alloc<double>((size_t)n);
    d.acc = device_alloc<double>((size_t)n);
    d.l1 = device_alloc<double>(1);
    // int64 offsets >= 0 and int32 ids >= 0 (checked) have the bits of u64 / u32.
    static_assert(sizeof(u64) == sizeof(int64_t) && sizeof(u32) == sizeof(int32_t), "sizes");
    CUDA_CHECK(cudaMemcpy(d.in_off, in_off.data(), sizeof(u64) * ((size_t)n + 1),
                          cudaMemcpyHostToDevice));
    if (m > 0)
      CUDA_CHECK(cudaMemcpy(d.in_src, in_nbr.data(), sizeof(u32) * (size_t)m,
                            cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d.out_deg, out_deg.data(), sizeof(u32) * (size_t)n,
                          cudaMemcpyHostToDevice));
    if (num_chunks > 0)
      CUDA_CHECK(cudaMemcpy(d.chunk_owner, owner.data(), sizeof(u32) * (size_t)num_chunks,
                            cudaMemcpyHostToDevice));

    std::vector<cudaEvent_t> ev_start((size_t)o.max_rounds), ev_end((size_t)o.max_rounds);
    for (auto& e : ev_start) CUDA_CHECK(cudaEventCreate(&e));
    for (auto& e : ev_end) CUDA_CHECK(cudaEventCreate(&e));
    cudaEvent_t ev_total0, ev_total1;
    CUDA_CHECK(cudaEventCreate(&ev_total0));
    CUDA_CHECK(cudaEventCreate(&ev_total1));

    // Warm-up: one full run, not timed.
    run_pagerank(d, o, ev_start, ev_end, ev_total0, ev_total1);

    std::vector<double> round_ms_all, total_ms_all;
    for (int64_t t = 0; t < o.trials; ++t) {
      last = run_pagerank(d, o, ev_start, ev_end, ev_total0, ev_total1);
      for (float x : last.round_ms) round_ms_all.push_back((double)x);
      total_ms_all.push_back((double)last.total_ms);
      std::fprintf(stderr, "pr_pull: trial %" PRId64 ": %" PRId64 " rounds, %.3f ms total, "
                   "l1 %.6e\n", t + 1, last.rounds, (double)last.total_ms, last.l1_last);
    }
    ms_round_med = median(round_ms_all);
    ms_total_med = median(total_ms_all);

    CUDA_CHECK(cudaMemcpy(rank_host.data(), d.rank, sizeof(double) * (size_t)n,
                          cudaMemcpyDeviceToHost));

    for (auto& e : ev_start) CUDA_CHECK(cudaEventDestroy(e));
    for (auto& e : ev_end) CUDA_CHECK(cudaEventDestroy(e));
    CUDA_CHECK(cudaEventDestroy(ev_total0));
    CUDA_CHECK(cudaEventDestroy(ev_total1));
    CUDA_CHECK(cudaFree(d.in_off));
    CUDA_CHECK(cudaFree(d.in_src));
    CUDA_CHECK(cudaFree(d.out_deg));
    CUDA_CHECK(cudaFree(d.chunk_owner));
    CUDA_CHECK(cudaFree(d.contrib));
    CUDA_CHECK(cudaFree(d.rank));
    CUDA_CHECK(cudaFree(d.acc));
    CUDA_CHECK(cudaFree(d.l1));
  } else {
    std::fprintf(stderr, "pr_pull: the graph has no vertices; nothing to rank\n");
    num_chunks = 0;
  }

  double rank_sum = 0.0, top_rank = 0.0;
  int64_t top_vertex = -1;
  for (int64_t v = 0; v < n; ++v) {
    rank_sum += rank_host[v];
    if (top_vertex < 0 || rank_host[v] > top_rank) {  // ties: the lowest id
      top_rank = rank_host[v];
      top_vertex = v;
    }
  }

  if (!o.out.empty()) {
    std::FILE* f = std::fopen(o.out.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "pr_pull: cannot write %s: %s\n", o.out.c_str(), std::strerror(errno));
      return 1;
    }
    for (int64_t v = 0; v < n; ++v) std::fprintf(f, "%" PRId64 " %.12e\n", v, rank_host[v]);
    if (std::fclose(f) != 0) {
      std::fprintf(stderr, "pr_pull: error writing %s\n", o.out.c_str());
      return 1;
    }
  }

  const double gbps = ms_round_med > 0.0 ? bytes / (ms_round_med * 1e6) : 0.0;
  std::printf("{\"file\":%s,\"vertices\":%" PRId64 ",\"edges\":%" PRId64 ",\"directed\":%s,"
              "\"kernel\":%s,\"mec\":%" PRId64 ",\"trials\":%" PRId64
              ",\"rounds\":%" PRId64 ",\"l1_last\":%.17g,\"ms_per_round_median\":%.6f,"
              "\"ms_total_median\":%.6f,\"bytes_per_round\":%.0f,\"gbps\":%.3f,"
              "\"rank_sum\":%.17g,\"top_vertex\":%" PRId64 ",\"top_rank\":%.17g}\n",
              json_string(o.file).c_str(), n, m, g.directed ? "true" : "false",
              json_string(o.kernel).c_str(), o.mec, o.trials,
              last.rounds, last.l1_last, ms_round_med, ms_total_med, bytes, gbps, rank_sum,
              top_vertex, top_rank);
  return 0;
}
