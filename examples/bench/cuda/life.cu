// Life, written by hand: what a CUDA programmer would write for the kernels of
// examples/kernels/life.rs. The same algorithms, the same index widths (Rust's usize is
// unsigned long long here), the same block shapes; no headers (NVRTC has none).

// ---- naive: one thread per cell, one generation per launch, blocks of 32x32 ----------

__device__ int nbrs(const int* __restrict__ in, unsigned int x, unsigned int y, unsigned int n) {
    unsigned int xm = (x + n - 1) % n, xp = (x + 1) % n;
    unsigned int ym = (y + n - 1) % n, yp = (y + 1) % n;
    return in[ym * n + xm] + in[ym * n + x] + in[ym * n + xp]
         + in[y * n + xm]                   + in[y * n + xp]
         + in[yp * n + xm] + in[yp * n + x] + in[yp * n + xp];
}

// The naive kernel's coordinates are unsigned int, as in examples/kernels/life.rs (the u32
// idiom); its n is passed as unsigned long long, as the bench passes it to every hand kernel.
extern "C" __global__ void life_naive(int* __restrict__ out, const int* __restrict__ in,
                                      unsigned long long n64) {
    unsigned int n = (unsigned int)n64;
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= n || y >= n) return;
    int k = nbrs(in, x, y, n);
    bool alive = in[y * n + x] == 1;
    out[y * n + x] = (k == 3 || (alive && k == 2)) ? 1 : 0;
}

// ---- the seed's own naive kernel (seed 000's conway_ker), int32 indices --------------
// A peer, not a twin: the lattice's width is the grid's width (n must be a multiple of 32),
// indices are int, and the rule is the seed's switch statements.

#define _X  ( threadIdx.x + blockIdx.x * blockDim.x )
#define _Y  ( threadIdx.y + blockIdx.y * blockDim.y )
#define _WIDTH  ( blockDim.x * gridDim.x )
#define _HEIGHT ( blockDim.y * gridDim.y  )
#define _XM(x)  ( (x + _WIDTH) % _WIDTH )
#define _YM(y)  ( (y + _HEIGHT) % _HEIGHT )
#define _INDEX(x,y)  ( _XM(x)  + _YM(y) * _WIDTH )

__device__ int seed_nbrs(int x, int y, int * in)
{
     return ( in[ _INDEX(x -1, y+1) ] + in[ _INDEX(x-1, y) ] + in[ _INDEX(x-1, y-1) ] \
                   + in[ _INDEX(x, y+1)] + in[_INDEX(x, y - 1)] \
                   + in[ _INDEX(x+1, y+1) ] + in[ _INDEX(x+1, y) ] + in[ _INDEX(x+1, y-1) ] );
}

extern "C" __global__ void conway_ker(int * lattice_out, int * lattice  )
{
   int x = _X, y = _Y;
   int n = seed_nbrs(x, y, lattice);
    if ( lattice[_INDEX(x,y)] == 1)
       switch(n)
       {
          case 2:
          case 3: lattice_out[_INDEX(x,y)] = 1;
                  break;
          default: lattice_out[_INDEX(x,y)] = 0;
       }
    else if( lattice[_INDEX(x,y)] == 0 )
         switch(n)
         {
            case 3: lattice_out[_INDEX(x,y)] = 1;
                    break;
            default: lattice_out[_INDEX(x,y)] = 0;
         }
}

// ---- one block of n x n threads (n <= 32), every generation in place ----------------

extern "C" __global__ void life_block(int* __restrict__ cells, unsigned long long n,
                                      unsigned int generations) {
    unsigned long long x = threadIdx.x, y = threadIdx.y;
    unsigned long long xm = (x + n - 1) % n, xp = (x + 1) % n;
    unsigned long long ym = (y + n - 1) % n, yp = (y + 1) % n;
    for (unsigned int g = 0; g < generations; g++) {
        int k = cells[ym * n + xm] + cells[ym * n + x] + cells[ym * n + xp]
              + cells[y * n + xm]                      + cells[y * n + xp]
              + cells[yp * n + xm] + cells[yp * n + x] + cells[yp * n + xp];
        bool alive = cells[y * n + x] == 1;
        int next = (k == 3 || (alive && k == 2)) ? 1 : 0;
        __syncthreads();
        cells[y * n + x] = next;
        __syncthreads();
    }
}

extern "C" __global__ void life_block_shared(int* __restrict__ cells, unsigned long long n,
                                             unsigned int generations) {
    __shared__ int lattice[32][32];
    unsigned long long x = threadIdx.x, y = threadIdx.y;
    unsigned long long xm = (x + n - 1) % n, xp = (x + 1) % n;
    unsigned long long ym = (y + n - 1) % n, yp = (y + 1) % n;
    lattice[y][x] = cells[y * n + x];
    __syncthreads();
    for (unsigned int g = 0; g < generations; g++) {
        int k = lattice[ym][xm] + lattice[ym][x] + lattice[ym][xp]
              + lattice[y][xm]                   + lattice[y][xp]
              + lattice[yp][xm] + lattice[yp][x] + lattice[yp][xp];
        bool alive = lattice[y][x] == 1;
        int next = (k == 3 || (alive && k == 2)) ? 1 : 0;
        __syncthreads();
        lattice[y][x] = next;
        __syncthreads();
    }
    cells[y * n + x] = lattice[y][x];
}

// ---- tiled: each 32x32 block loads its tile and a one-cell halo into shared memory ----

extern "C" __global__ void __launch_bounds__(1024) life_tiled(int* __restrict__ out, const int* __restrict__ cells,
                                      unsigned long long n) {
    __shared__ int tile[34][34];
    unsigned long long tx = threadIdx.x, ty = threadIdx.y;
    unsigned long long x0 = (unsigned long long)blockIdx.x * 32;
    unsigned long long y0 = (unsigned long long)blockIdx.y * 32;
    for (unsigned long long i = ty * 32 + tx; i < 34 * 34; i += 1024) {
        unsigned long long r = i / 34, c = i % 34;
        unsigned long long gy = y0 + r + n - 1;
        while (gy >= n) gy -= n;
        unsigned long long gx = x0 + c + n - 1;
        while (gx >= n) gx -= n;
        tile[r][c] = cells[gy * n + gx];
    }
    __syncthreads();
    unsigned long long x = x0 + tx, y = y0 + ty;
    if (x < n && y < n) {
        int k = tile[ty][tx]     + tile[ty][tx + 1]     + tile[ty][tx + 2]
              + tile[ty + 1][tx]                        + tile[ty + 1][tx + 2]
              + tile[ty + 2][tx] + tile[ty + 2][tx + 1] + tile[ty + 2][tx + 2];
        bool alive = tile[ty + 1][tx + 1] == 1;
        out[y * n + x] = (k == 3 || (alive && k == 2)) ? 1 : 0;
    }
}

// ---- texture (seed 003): the lattice read through a texture object -------------------
// What a CUDA programmer writes with cudaTextureObject_t and tex2D<int>(tex, x + 0.5f,
// y + 0.5f), spelled as the PTX tex2D stands for (no headers): point sampling,
// unnormalised coordinates, so CUDA does not wrap them; the neighbours are wrapped by hand
// instead. The next generation goes into the memory of a second texture, rows `pitch`
// apart, as examples/kernels/life.rs's conway_texture does.

__device__ __forceinline__ int tex_fetch_int(unsigned long long t, int x, int y) {
    int r;
    asm("{ .reg .s32 t1, t2, t3;\n\t"
        "tex.2d.v4.s32.f32 {%0, t1, t2, t3}, [%1, {%2, %3}]; }"
        : "=r"(r) : "l"(t), "f"((float)x + 0.5f), "f"((float)y + 0.5f));
    return r;
}

extern "C" __global__ void life_texture(int* __restrict__ out, unsigned long long tex,
                                        int w, int h, unsigned int pitch) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int xm = x == 0 ? w - 1 : x - 1, xp = x + 1 == w ? 0 : x + 1;
    int ym = y == 0 ? h - 1 : y - 1, yp = y + 1 == h ? 0 : y + 1;
    int k = tex_fetch_int(tex, xm, ym) + tex_fetch_int(tex, x, ym) + tex_fetch_int(tex, xp, ym)
          + tex_fetch_int(tex, xm, y)                               + tex_fetch_int(tex, xp, y)
          + tex_fetch_int(tex, xm, yp) + tex_fetch_int(tex, x, yp) + tex_fetch_int(tex, xp, yp);
    bool alive = tex_fetch_int(tex, x, y) == 1;
    out[(unsigned int)y * pitch + (unsigned int)x] = (k == 3 || (alive && k == 2)) ? 1 : 0;
}
