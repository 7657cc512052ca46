// What compute-sanitizer racecheck reports for a shared-memory hand-over between
// two warps of one block that no block barrier orders: the pattern the tiled
// kernel's messenger warp and its workers use (kernels-rs/src/tiles), written
// six ways. Each variant is correct under the PTX memory model except `plain`
// (no fence, no atomics); the question is which of them racecheck flags.
//
//   nvcc -O2 -arch=sm_90 -lineinfo -o racecheck_handover racecheck_handover.cu
//   for v in 0 1 2 3 4 5; do compute-sanitizer --tool racecheck ./racecheck_handover $v; done
//
// Warp 0 (the producer) fills N words and publishes a count; warp 1 (the
// consumer) waits for the count and sums the words. The host checks the sum.
//   0 plain     plain stores and loads of the words, a volatile count, no fence
//   1 fenced    plain words, volatile count, __threadfence_block() on both sides
//   2 relaxed   every word and the count through cuda::atomic_ref (block scope,
//               memory_order_relaxed) with block-scope fences: what Rust's
//               AtomicU32::{store, load}(Relaxed) + fence(AcqRel) compile to
//   3 acq_rel   relaxed words, count stored with release and loaded with acquire
//   4 rmw       every word and the count through read-modify-write atomics
//               (atomicExch to write, atomicAdd(p, 0) to read)
//   5 exch      atomicExch to write, relaxed atomic_ref loads to read, block
//               fences on both sides: the tiled kernel's puts (StateWord::put)
#include <cuda/atomic>
#include <cstdio>
#include <cstdlib>

constexpr int N = 64;

template <int V>
__global__ void handover(unsigned *out) {
    __shared__ unsigned words[N];
    __shared__ unsigned count;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (threadIdx.x == 0) count = 0;
    for (int i = threadIdx.x; i < N; i += blockDim.x) words[i] = 0;
    __syncthreads();
    using ref = cuda::atomic_ref<unsigned, cuda::thread_scope_block>;
    if (warp == 0 && lane == 0) {
        for (int i = 0; i < N; ++i) {
            if (V <= 1) words[i] = i + 1;
            else if (V <= 3) ref(words[i]).store(i + 1, cuda::memory_order_relaxed);
            else atomicExch(&words[i], i + 1);
        }
        if (V == 1 || V == 2 || V == 5) cuda::atomic_thread_fence(cuda::memory_order_acq_rel, cuda::thread_scope_block);
        if (V <= 1) *(volatile unsigned *)&count = N;
        else if (V == 2) ref(count).store(N, cuda::memory_order_relaxed);
        else if (V == 3) ref(count).store(N, cuda::memory_order_release);
        else atomicExch(&count, N);
    } else if (warp == 1 && lane == 0) {
        unsigned c = 0;
        while (c < N) {
            if (V <= 1) c = *(volatile unsigned *)&count;
            else if (V == 2) c = ref(count).load(cuda::memory_order_relaxed);
            else if (V == 3) c = ref(count).load(cuda::memory_order_acquire);
            else if (V == 5) c = ref(count).load(cuda::memory_order_relaxed);
            else c = atomicAdd(&count, 0);
        }
        if (V == 1 || V == 2 || V == 5) cuda::atomic_thread_fence(cuda::memory_order_acq_rel, cuda::thread_scope_block);
        unsigned s = 0;
        for (int i = 0; i < N; ++i) {
            if (V <= 1) s += words[i];
            else if (V <= 3 || V == 5) s += ref(words[i]).load(cuda::memory_order_relaxed);
            else s += atomicAdd(&words[i], 0);
        }
        out[blockIdx.x] = s;
    }
}

int main(int argc, char **argv) {
    const int v = argc > 1 ? atoi(argv[1]) : 0;
    const char *names[] = {"plain", "fenced", "relaxed", "acq_rel", "rmw", "exch"};
    if (v < 0 || v > 5) { fprintf(stderr, "variant 0..5\n"); return 2; }
    const int blocks = 4;
    unsigned *d, h[blocks];
    cudaMalloc(&d, sizeof h);
    switch (v) {
        case 0: handover<0><<<blocks, 64>>>(d); break;
        case 1: handover<1><<<blocks, 64>>>(d); break;
        case 2: handover<2><<<blocks, 64>>>(d); break;
        case 3: handover<3><<<blocks, 64>>>(d); break;
        case 4: handover<4><<<blocks, 64>>>(d); break;
        default: handover<5><<<blocks, 64>>>(d); break;
    }
    cudaError_t e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) { fprintf(stderr, "%s: %s\n", names[v], cudaGetErrorString(e)); return 1; }
    bool ok = true;
    for (int b = 0; b < blocks; ++b) ok &= h[b] == N * (N + 1) / 2;
    printf("variant %d %-8s sum %s\n", v, names[v], ok ? "right" : "WRONG");
    return ok ? 0 : 1;
}
