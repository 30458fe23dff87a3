// Bit-packed Life, written by hand: what a CUDA programmer would write for conway_bits in
// examples/kernels/life_bits.rs. The same algorithm (64 cells a word, a 32-word x 64-row
// tile in two halves of 66 rows, one word and `generations` rows of halo, the strips of 8
// rows walked with a window of three, the edge bits by shuffles), the same index widths
// (Rust's usize is unsigned long long, u32 is unsigned int), the same block shape
// (__launch_bounds__(256): 32x8 threads); no headers (NVRTC has none).

typedef unsigned long long u64;

// w + c + e of each cell of c, as two bit planes (sum = s0 + 2 * s1).
__device__ __forceinline__ void row_sums(u64 c, unsigned left_hi, unsigned right_lo,
                                         u64* s0, u64* s1) {
    u64 w = (c << 1) | (u64)(left_hi >> 31);
    u64 e = (c >> 1) | ((u64)(right_lo & 1u) << 63);
    *s0 = w ^ c ^ e;
    *s1 = (w & c) | (e & (w | c));
}

// Alive next: the nine-cell sum is 3, or 4 and the cell is alive.
__device__ __forceinline__ u64 next_cells(u64 u0, u64 u1, u64 m0, u64 m1, u64 d0, u64 d1,
                                          u64 alive) {
    u64 t0 = u0 ^ m0 ^ d0;
    u64 k = (u0 & m0) | (d0 & (u0 | m0));
    u64 p = u1 ^ m1 ^ d1;
    u64 q = (u1 & m1) | (d1 & (u1 | m1));
    u64 one = ~q & (p ^ k);
    u64 two = (q & ~(p | k)) | (~q & p & k);
    return (t0 & one) | (~t0 & alive & two);
}

extern "C" __global__ void __launch_bounds__(256)
life_bits(u64* __restrict__ out, const u64* __restrict__ cells, unsigned rows,
          unsigned words, unsigned generations) {
    __shared__ u64 tile[132][32];
    if (rows == 0u || words == 0u || generations > 16u) return;
    u64 tx = threadIdx.x;
    u64 r0 = (u64)threadIdx.y * 8ull;
    u64 halo = generations;
    unsigned x0 = blockIdx.x * 30u;
    unsigned y0 = blockIdx.y * (64u - 2u * generations);
    unsigned x = (x0 + (unsigned)tx + words - 1u) % words;
    unsigned up = generations % rows;
    for (u64 k = 0; k < 8; k++) {
        u64 r = r0 + k;
        unsigned y = (y0 + (unsigned)r + rows - up) % rows;
        tile[r + 1][tx] = cells[(u64)(y * words + x)];
    }
    __syncthreads();
    for (u64 g = 1; g <= halo; g++) {
        u64 src = ((g - 1) & 1) * 66;
        u64 dst = 66 - src;
        u64 lo = min(max(r0, g), 64ull);
        u64 hi = min(r0 + 8, 64 - g);
        u64 u0 = 0, u1 = 0, m0 = 0, m1 = 0, alive = 0;
        for (u64 a = lo; a < hi + 2; a++) {
            u64 c = tile[src + a][tx];
            unsigned left_hi = __shfl_up_sync(0xffffffffu, (unsigned)(c >> 32), 1);
            unsigned right_lo = __shfl_down_sync(0xffffffffu, (unsigned)c, 1);
            u64 d0, d1;
            row_sums(c, left_hi, right_lo, &d0, &d1);
            if (a >= lo + 2) tile[dst + a - 1][tx] = next_cells(u0, u1, m0, m1, d0, d1, alive);
            u0 = m0;
            u1 = m1;
            m0 = d0;
            m1 = d1;
            alive = c;
        }
        __syncthreads();
    }
    u64 fin = (halo & 1) * 66;
    if (tx >= 1 && tx <= 30 && x0 + (unsigned)tx <= words) {
        for (u64 k = 0; k < 8; k++) {
            u64 r = r0 + k;
            if (r >= halo && r + halo < 64 && y0 + (unsigned)r < rows + generations) {
                unsigned y = (y0 + (unsigned)r + rows - up) % rows;
                out[(u64)(y * words + x)] = tile[fin + r + 1][tx];
            }
        }
    }
}
