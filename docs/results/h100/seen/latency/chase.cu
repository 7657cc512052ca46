// How long one dependent L2 access takes from an SM, alone and under the
// conditions of the resident kernel's one-block rounds (the other 131 blocks
// polling a grid-barrier word with nanosleep; up to 1,024 threads of block 0
// chasing at once). Pointer chase over a random cycle; cycles per step of
// thread 0 (clock64).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <numeric>
#include <random>
#include <algorithm>
#include <cuda_runtime.h>

__device__ __forceinline__ unsigned ld_cg(const unsigned* p) { unsigned v; asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p)); return v; }
__device__ __forceinline__ unsigned ld_sys(const unsigned* p) { unsigned v; asm volatile("ld.relaxed.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p)); return v; }
__device__ __forceinline__ unsigned ld_nc(const unsigned* p) { unsigned v; asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(v) : "l"(p)); return v; }
__device__ __forceinline__ unsigned ld_plain(const unsigned* p) { unsigned v; asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(p)); return v; }

__global__ void chase(unsigned* next, unsigned n, int steps, unsigned long long* out, unsigned* gen,
                      int spin, int chasers, int kind) {
    if (blockIdx.x == 0) {
        if (threadIdx.x < chasers) {
            unsigned j = (threadIdx.x * 7919u) % n;
            long long t0 = clock64();
            for (int s = 0; s < steps; s++) {
                switch (kind) {
                    case 0: j = ld_cg(next + j); break;
                    case 1: j = ld_sys(next + j); break;
                    case 2: j = ld_nc(next + j); break;
                    case 3: j = ld_plain(next + j); break;
                    default: j = atomicMin(next + j, 0xffffffffu); break;
                }
            }
            long long t1 = clock64();
            if (threadIdx.x == 0) { out[0] = t1 - t0; out[1] = j; }
        }
        __syncthreads();
        if (threadIdx.x == 0) { __threadfence(); atomicExch(gen, 1u); }
    } else if (spin) {
        if (threadIdx.x == 0) {
            unsigned ns = 32;
            while (ld_sys(gen) == 0) { __nanosleep(ns); if (ns < 512) ns *= 2; }
        }
        __syncthreads();
    }
}

int main() {
    const char* kinds[] = {"ld.cg", "ld.relaxed.sys", "ld.nc", "ld (plain)", "atom.min"};
    for (unsigned n : {1u << 12, 1u << 22}) {
        std::vector<unsigned> perm(n), next(n);
        std::iota(perm.begin(), perm.end(), 0u);
        std::shuffle(perm.begin(), perm.end(), std::mt19937(7));
        for (unsigned i = 0; i < n; i++) next[perm[i]] = perm[(i + 1) % n];
        unsigned *d_next, *d_gen; unsigned long long* d_out;
        cudaMalloc(&d_next, n * 4); cudaMalloc(&d_gen, 4); cudaMalloc(&d_out, 16);
        cudaMemcpy(d_next, next.data(), n * 4, cudaMemcpyHostToDevice);
        int steps = 2000;
        for (int kind = 0; kind < 5; kind++)
            for (int spin : {0, 1})
                for (int chasers : {1, 32, 512, 1024}) {
                    unsigned long long out[2];
                    for (int rep = 0; rep < 2; rep++) {  // the first warms the L2
                        cudaMemset(d_gen, 0, 4);
                        void* args[] = {&d_next, &n, &steps, &d_out, &d_gen, &spin, &chasers, &kind};
                        cudaError_t e = cudaLaunchCooperativeKernel((void*)chase, dim3(132), dim3(1024), args, 0, 0);
                        if (e != cudaSuccess) { printf("launch: %s\n", cudaGetErrorString(e)); return 1; }
                        cudaDeviceSynchronize();
                        cudaMemcpy(out, d_out, 16, cudaMemcpyDeviceToHost);
                    }
                    printf("n=%8u %-15s spinners=%d chasers=%4d: %7.1f cycles/step\n", n, kinds[kind], spin,
                           chasers, double(out[0]) / steps);
                }
        cudaFree(d_next); cudaFree(d_gen); cudaFree(d_out);
    }
    return 0;
}
