"""The tensor-core peers of the bench (issue "Tensor cores"): GEMM in bf16, f16, tf32 and fp8
through cuBLAS (torch) and an autotuned Triton kernel, and flash-attention forward through
torch's scaled_dot_product_attention and a Triton kernel. peers.py calls `rows(p, quick)`.

Both Triton kernels are written here in the manner of Triton's tutorials (the matrix
multiplication one, grouped program order and autotuned tiles; the fused-attention one,
online softmax over key blocks), not copied from them. Published figures of Triton's
fused attention on an H100 SXM5 (FlashAttention-3 paper, forward fp16): 605 TFLOP/s at head
dim 128 and 499 at 64 (L=4k); docs/benchmarks.md has them beside ours. The figure measured
here, in the same run as warpspeed's kernel, is the one the bench compares with.

Rows (ms per call, best of the rounds; FLOPs are the bench's business):
  gemm_{n}_{bf16,f16}_ms    n^3 GEMM, row-major A and B, f32 accumulate, output in the
                            input type                      cuBLAS (torch.matmul), triton
  gemm_{n}_{bf16,f16}_nt_ms the same with B given n x k (K-major, C = A B^T, a linear
                            layer's layout; warpspeed's Hopper gemm)   cuBLAS, triton
  gemm_{n}_tf32_ms          f32 in and out, TF32 products    cuBLAS, triton
  gemm_{n}_e4m3_ms          fp8 e4m3 in, bf16 out            cuBLAS (torch._scaled_mm)
  attention_b{B}h{H}l{L}d{D}_bf16[_causal]_ms
                            softmax(Q K^T / sqrt(D)) V       torch SDPA, triton

Every result is checked against a float32 (or float64) reference before it is timed.
"""

import math
import sys

try:
    import torch
except Exception:  # noqa: BLE001 (peers.py reports torch's absence)
    torch = None
try:
    import triton
    import triton.language as tl
except Exception:  # noqa: BLE001
    triton = tl = None


def require(ok, what):
    if not ok:
        raise RuntimeError(f"wrong result: {what}")


def rel_err(got, want):
    """Largest absolute error relative to the largest reference element."""
    return ((got.float() - want.float()).abs().max() / want.float().abs().max()).item()


# ---- GEMM -----------------------------------------------------------------------------------

if triton is not None:

    @triton.jit
    def _gemm(a_ptr, b_ptr, c_ptr, M, N, K, s_am, s_ak, s_bk, s_bn, s_cm, s_cn,
              BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr,
              PRECISION: tl.constexpr):
        # Programs walk the output in groups of GROUP_M tile rows, so that the tiles of A
        # and B that consecutive programs load stay in L2.
        pid = tl.program_id(0)
        tiles_m = tl.cdiv(M, BM)
        tiles_n = tl.cdiv(N, BN)
        per_group = GROUP_M * tiles_n
        first_m = (pid // per_group) * GROUP_M
        rows_here = tl.minimum(tiles_m - first_m, GROUP_M)
        tile_m = first_m + (pid % per_group) % rows_here
        tile_n = (pid % per_group) // rows_here
        # Rows and columns past the edge wrap (their results are never stored); only K is
        # masked, since a partial K tile would add garbage.
        rm = (tile_m * BM + tl.arange(0, BM)) % M
        rn = (tile_n * BN + tl.arange(0, BN)) % N
        rk = tl.arange(0, BK)
        a = a_ptr + rm[:, None] * s_am + rk[None, :] * s_ak
        b = b_ptr + rk[:, None] * s_bk + rn[None, :] * s_bn
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            left = K - k * BK
            x = tl.load(a, mask=rk[None, :] < left, other=0.0)
            y = tl.load(b, mask=rk[:, None] < left, other=0.0)
            acc = tl.dot(x, y, acc, input_precision=PRECISION)
            a += BK * s_ak
            b += BK * s_bk
        cm = tile_m * BM + tl.arange(0, BM)
        cn = tile_n * BN + tl.arange(0, BN)
        c = c_ptr + cm[:, None] * s_cm + cn[None, :] * s_cn
        tl.store(c, acc.to(c_ptr.dtype.element_ty), mask=(cm[:, None] < M) & (cn[None, :] < N))

    def _gemm_configs():
        # (BM, BN, BK, stages, warps): the tile shapes Triton's tutorial autotunes over on
        # CUDA GPUs for 16-bit inputs.
        shapes = [(128, 256, 64, 3, 8), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4),
                  (128, 64, 32, 4, 4), (64, 128, 32, 4, 4), (128, 32, 32, 4, 4),
                  (64, 32, 32, 5, 2), (32, 64, 32, 5, 2), (128, 256, 32, 3, 8),
                  (256, 128, 64, 3, 8), (128, 128, 64, 4, 4)]
        return [triton.Config({"BM": m, "BN": n, "BK": k, "GROUP_M": 8}, num_stages=s,
                              num_warps=w) for m, n, k, s, w in shapes]

    _gemm_tuned = triton.autotune(configs=_gemm_configs(), key=["M", "N", "K"])(_gemm)


def triton_gemm(a, b, c, precision):
    m, k = a.shape
    n = b.shape[1]
    grid = lambda meta: (triton.cdiv(m, meta["BM"]) * triton.cdiv(n, meta["BN"]),)  # noqa: E731
    _gemm_tuned[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                      c.stride(0), c.stride(1), PRECISION=precision)


def gemm_rows(p, have, n):
    def inputs(dtype, nt=False):
        g = torch.Generator(device="cuda").manual_seed(n)
        a = torch.randn(n, n, device="cuda", generator=g).to(dtype)
        b = torch.randn(n, n, device="cuda", generator=g).to(dtype)
        if nt:
            # B stored n x k (row-major), used through its transpose: a K-major B.
            b = b.t().contiguous().t()
        # The reference: the same (rounded) inputs in float64 on the GPU.
        return a, b, a.double() @ b.double()

    def cublas(dtype, tf32=False, tol=1e-2, nt=False):
        def measure():
            torch.backends.cuda.matmul.allow_tf32 = tf32
            try:
                a, b, ref = inputs(dtype, nt)
                c = torch.empty_like(a)
                ms = p.timer.best_ms(lambda: torch.matmul(a, b, out=c))
                err = rel_err(c, ref)
                require(err < tol, f"torch.matmul {dtype}: relative error {err:.2e}")
                return ms
            finally:
                torch.backends.cuda.matmul.allow_tf32 = False
        return measure

    def triton_run(dtype, precision, tol=1e-2, nt=False):
        def measure():
            a, b, ref = inputs(dtype, nt)
            c = torch.empty_like(a)
            run = lambda: triton_gemm(a, b, c, precision)  # noqa: E731
            run()  # autotunes
            ms = p.timer.best_ms(run)
            err = rel_err(c, ref)
            require(err < tol, f"the Triton GEMM {dtype}: relative error {err:.2e}")
            return ms
        return measure

    def scaled_mm():
        g = torch.Generator(device="cuda").manual_seed(n)
        a = torch.randn(n, n, device="cuda", generator=g).to(torch.float8_e4m3fn)
        # _scaled_mm wants B column-major: the transpose of a row-major matrix.
        b = torch.randn(n, n, device="cuda", generator=g).to(torch.float8_e4m3fn).t()
        one = torch.tensor(1.0, device="cuda")
        ref = a.double() @ b.double()
        out = [None]

        def run():
            out[0] = torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)

        ms = p.timer.best_ms(run)
        err = rel_err(out[0], ref)
        require(err < 1e-2, f"torch._scaled_mm: relative error {err:.2e}")
        return ms

    for name, dtype in [("bf16", torch.bfloat16), ("f16", torch.float16)]:
        row = f"gemm_{n}_{name}_ms"
        p.peer(row, "cuBLAS (torch)", have("torch"), cublas(dtype))
        p.peer(row, "triton", have("torch", "triton"), triton_run(dtype, "ieee"))
        row = f"gemm_{n}_{name}_nt_ms"
        p.peer(row, "cuBLAS (torch)", have("torch"), cublas(dtype, nt=True))
        p.peer(row, "triton", have("torch", "triton"), triton_run(dtype, "ieee", nt=True))
    if n > 4096:
        return  # the targets at 8192 are the 16-bit ones
    row = f"gemm_{n}_tf32_ms"
    p.peer(row, "cuBLAS (torch)", have("torch"), cublas(torch.float32, tf32=True))
    p.peer(row, "triton", have("torch", "triton"), triton_run(torch.float32, "tf32"))
    p.peer(f"gemm_{n}_e4m3_ms", "cuBLAS (torch._scaled_mm)", have("torch"), scaled_mm)


# ---- attention ------------------------------------------------------------------------------

if triton is not None:

    @triton.jit
    def _attn_blocks(acc, m_i, l_i, q, k_base, v_base, offs_m, lo, hi, qk_scale,
                     D: tl.constexpr, BN: tl.constexpr, MASK: tl.constexpr):
        # Online softmax over key blocks lo..hi: the running row maximum m_i (in log2
        # units), the running denominator l_i, and acc rescaled when the maximum grows.
        offs_n = tl.arange(0, BN)
        offs_d = tl.arange(0, D)
        for start in range(lo, hi, BN):
            kt = tl.load(k_base + (start + offs_n)[None, :] * D + offs_d[:, None])
            s = tl.dot(q, kt) * qk_scale
            if MASK:
                s = tl.where(offs_m[:, None] >= (start + offs_n)[None, :], s, float("-inf"))
            m_new = tl.maximum(m_i, tl.max(s, 1))
            pr = tl.math.exp2(s - m_new[:, None])
            alpha = tl.math.exp2(m_i - m_new)
            l_i = l_i * alpha + tl.sum(pr, 1)
            v = tl.load(v_base + (start + offs_n)[:, None] * D + offs_d[None, :])
            acc = tl.dot(pr.to(v.dtype), v, acc * alpha[:, None])
            m_i = m_new
        return acc, m_i, l_i

    @triton.jit
    def _attention(q_ptr, k_ptr, v_ptr, o_ptr, sm_scale, L, H: tl.constexpr,
                   D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                   CAUSAL: tl.constexpr):
        # One program: BM query rows of one (batch, head); q, k, v, o contiguous [B, H, L, D].
        block = tl.program_id(0)
        head = tl.program_id(1).to(tl.int64)
        base = head * L * D
        offs_m = block * BM + tl.arange(0, BM)
        offs_d = tl.arange(0, D)
        q = tl.load(q_ptr + base + offs_m[:, None] * D + offs_d[None, :])
        m_i = tl.full([BM], float("-inf"), dtype=tl.float32)
        l_i = tl.zeros([BM], dtype=tl.float32)
        acc = tl.zeros([BM, D], dtype=tl.float32)
        qk_scale = sm_scale * 1.4426950408889634  # exp(x) = exp2(x * log2(e))
        if CAUSAL:
            # Blocks wholly below the diagonal need no mask; the diagonal's do.
            acc, m_i, l_i = _attn_blocks(acc, m_i, l_i, q, k_ptr + base, v_ptr + base, offs_m,
                                         0, block * BM, qk_scale, D, BN, False)
            acc, m_i, l_i = _attn_blocks(acc, m_i, l_i, q, k_ptr + base, v_ptr + base, offs_m,
                                         block * BM, (block + 1) * BM, qk_scale, D, BN, True)
        else:
            acc, m_i, l_i = _attn_blocks(acc, m_i, l_i, q, k_ptr + base, v_ptr + base, offs_m,
                                         0, L, qk_scale, D, BN, False)
        out = acc / l_i[:, None]
        tl.store(o_ptr + base + offs_m[:, None] * D + offs_d[None, :],
                 out.to(o_ptr.dtype.element_ty))

    def _attention_configs():
        # BN divides BM, so the causal diagonal is whole key blocks.
        shapes = [(128, 64, 3, 4), (128, 64, 3, 8), (128, 64, 4, 8), (128, 128, 3, 8),
                  (64, 64, 3, 4), (64, 64, 4, 4), (128, 32, 4, 4)]
        return [triton.Config({"BM": m, "BN": n}, num_stages=s, num_warps=w)
                for m, n, s, w in shapes]

    _attention_tuned = triton.autotune(configs=_attention_configs(),
                                       key=["L", "H", "D", "CAUSAL"])(_attention)


def triton_attention(q, k, v, o, causal):
    b, h, length, d = q.shape
    grid = lambda meta: (triton.cdiv(length, meta["BM"]), b * h)  # noqa: E731
    _attention_tuned[grid](q, k, v, o, 1.0 / math.sqrt(d), length, H=h, D=d, CAUSAL=causal)


def attention_reference(q, k, v, causal, heads):
    """float32 attention of the given (batch, head) pairs, by the formula."""
    out = []
    for b, h in heads:
        s = (q[b, h].float() @ k[b, h].float().t()) / math.sqrt(q.shape[-1])
        if causal:
            n = s.shape[0]
            s = s.masked_fill(torch.ones(n, n, device=s.device, dtype=torch.bool).triu(1),
                              float("-inf"))
        out.append(torch.softmax(s, -1) @ v[b, h].float())
    return out


def attention_rows(p, have, shape):
    b, h, length, d = shape

    def inputs():
        g = torch.Generator(device="cuda").manual_seed(length + d)
        make = lambda: torch.randn(b, h, length, d, device="cuda", generator=g,  # noqa: E731
                                   dtype=torch.bfloat16)
        return make(), make(), make()

    def check(o, q, k, v, causal, who):
        heads = [(0, 0), (b - 1, h - 1)]
        for (bi, hi), want in zip(heads, attention_reference(q, k, v, causal, heads)):
            err = rel_err(o[bi, hi], want)
            require(err < 2e-2, f"{who}: relative error {err:.2e} at (b={bi}, h={hi})")

    def sdpa(causal):
        def measure():
            q, k, v = inputs()
            f = torch.nn.functional.scaled_dot_product_attention
            out = [None]

            def run():
                out[0] = f(q, k, v, is_causal=causal)

            ms = p.timer.best_ms(run)
            check(out[0], q, k, v, causal, "torch SDPA")
            return ms
        return measure

    def triton_run(causal):
        def measure():
            q, k, v = inputs()
            o = torch.empty_like(q)
            run = lambda: triton_attention(q, k, v, o, causal)  # noqa: E731
            run()  # autotunes
            ms = p.timer.best_ms(run)
            check(o, q, k, v, causal, "the Triton attention")
            return ms
        return measure

    for causal in (False, True):
        row = f"attention_b{b}h{h}l{length}d{d}_bf16{'_causal' if causal else ''}_ms"
        p.peer(row, "torch SDPA", have("torch"), sdpa(causal))
        p.peer(row, "triton", have("torch", "triton"), triton_run(causal))


# ---- sizes ----------------------------------------------------------------------------------


def sizes(quick):
    """The GEMM sizes and attention shapes (batch, heads, length, head dim)."""
    if quick:
        return dict(gemm=[512], attention=[(1, 2, 256, 64), (1, 2, 256, 128)])
    return dict(gemm=[4096, 8192], attention=[(4, 32, 4096, 128), (16, 16, 2048, 64)])


def rows(p, have, quick, gemm=True, attention=True):
    s = sizes(quick)
    for n in s["gemm"] if gemm else []:
        gemm_rows(p, have, n)
    for shape in s["attention"] if attention else []:
        attention_rows(p, have, shape)
    print(f"peers_tensor.py: sizes {s}", file=sys.stderr)
    return s
