//! Flash-attention forward (examples/kernels/attention.rs, sm_90a), checked and unchecked,
//! beside its hand-written CUDA twin (cuda/attention.cu), torch's
//! scaled_dot_product_attention and the Triton flash-attention kernel of
//! bench/peers_tensor.py, at the shapes (B=4 H=32 L=4096 D=128, B=16 H=16 L=2048
//! D=64), full and causal. Q, K and V are random in [-2, 2); the last head is compared with
//! an f64 CPU reference (relative error below 1e-2: P is rounded to bf16 before `P V`), the
//! unchecked kernel's O with the checked one's bit for bit. O starts poisoned (NaN). Skipped
//! (a row saying so) on a GPU other than compute capability 9.0.

use cudarc::driver::PushKernelArg;
use warpspeed::swizzle::Swizzle;
use warpspeed::{bf16x2, DeviceBuffer, TensorMap};

use crate::attention_kernels::{
    attention_config, attention_error, attention_flop, attention_inputs, attention_launches,
    attention_reference, checked, scale_log2, unchecked,
};
use crate::hand::{cfg as cfg_of, raw, HandMap};
use crate::table::{Row, Unit};
use crate::timing::{best_ms, Step};
use crate::{Bench, Kernel, Res};

pub fn kernels() -> Vec<Kernel> {
    vec![
        ("checked", &checked::attention_d64::KERNEL),
        ("unchecked", &unchecked::attention_d64::KERNEL),
        ("checked", &checked::attention_d128::KERNEL),
        ("unchecked", &unchecked::attention_d128::KERNEL),
    ]
}

pub fn rows(b: &Bench) -> Res<Vec<Row>> {
    let mut rows = Vec::new();
    for &shape in &b.sizes.attention {
        for causal in [false, true] {
            if b.dev.compute_capability() == Some((9, 0)) {
                rows.push(row(b, shape, causal)?);
            } else {
                rows.push(
                    Row::new("attention (wgmma, TMA)", label(shape, causal), Unit::Ms)
                        .note("skipped: needs sm_90a (compute capability 9.0)"),
                );
            }
        }
    }
    Ok(rows)
}

fn label((bs, h, len, d): (usize, usize, usize, usize), causal: bool) -> String {
    let kind = if causal { " causal" } else { "" };
    format!("B{bs} H{h} L{len} D{d}{kind}")
}

fn row(b: &Bench, (bs, h, len, d): (usize, usize, usize, usize), causal: bool) -> Res<Row> {
    let dev = &b.dev;
    let n = bs * h * len * d;
    let [hq, hk, hv] = attention_inputs(n, len, d, causal);
    let (q, k, v) = (dev.upload(&hq)?, dev.upload(&hk)?, dev.upload(&hv)?);
    let rows = bs * h * len;
    let map = |buf| TensorMap::tiled_2d(buf, [rows, d], [128, 64], Swizzle::B128);
    let (mq, mk, mv) = (map(&q)?, map(&k)?, map(&v)?);
    let poison = vec![bf16x2::from_bits(u32::MAX); n / 2];
    let mut o: [DeviceBuffer<bf16x2>; 3] = [
        dev.upload(&poison)?,
        dev.upload(&poison)?,
        dev.upload(&poison)?,
    ];
    let cfg = attention_config(bs, h, len, d);
    let launch = attention_launches(d);
    let (heads, len32, scale) = ((bs * h) as u32, len as u32, scale_log2(d));
    // The hand-written twin (cuda/attention.cu): the same grid, blocks and shared memory.
    let hand = b
        .hand
        .function("attention.cu", &format!("attention_d{d}_hand"))?;
    hand.set_attribute(
        cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        cfg.shared_mem_bytes as i32,
    )?;
    let maps = (HandMap::of(&mq)?, HandMap::of(&mk)?, HandMap::of(&mv)?);
    let causal32 = u32::from(causal);
    let [oc, ou, oh] = &mut o;
    let mut steps: Vec<Step> = vec![
        Box::new(|| {
            Ok(launch[0](
                dev, cfg, &mq, &mk, &mv, oc, heads, len32, causal, scale,
            )?)
        }),
        Box::new(|| {
            Ok(launch[1](
                dev, cfg, &mq, &mk, &mv, ou, heads, len32, causal, scale,
            )?)
        }),
        Box::new(|| {
            let (hq, hk, hv) = &maps;
            let mut l = b.stream.launch_builder(&hand);
            l.arg(hq)
                .arg(hk)
                .arg(hv)
                .arg(raw(&*oh))
                .arg(&heads)
                .arg(&len32)
                .arg(&causal32)
                .arg(&scale);
            // SAFETY: attention_d{64,128}_hand(tmap q, k, v, unsigned* o, unsigned heads,
            // unsigned len, unsigned causal, float scale): the maps describe live [B·H·L, D]
            // buffers, o holds B·H·L·D / 2 pairs, and the grid, blocks and shared memory are
            // the warpspeed kernel's.
            unsafe { l.launch(cfg_of(cfg)) }?;
            Ok(())
        }),
    ];
    let t = best_ms(b, &mut steps)?;
    drop(steps);
    let name = format!("attention {}", label((bs, h, len, d), causal));
    let got = o[0].download()?;
    let unwritten = bf16x2::from_bits(u32::MAX).to_bits();
    if let Some(i) = got.iter().position(|p| p.to_bits() == unwritten) {
        b.mismatch(format_args!("{name}: pair {i} was never written"));
    }
    let last = bs * h - 1;
    let want = attention_reference(&hq, &hk, &hv, last, len, d, causal);
    let err = attention_error(&got, last, len, d, &want);
    if err.is_nan() || err > 1e-2 {
        b.mismatch(format_args!(
            "{name}: head {last}: relative error {err:.2e}, above 1e-2"
        ));
    }
    b.check(
        &format!("{name}, unchecked, against the checked kernel"),
        &o[1].download()?,
        &got,
        |p| p.to_bits(),
    );
    // The twin's f32 arithmetic is NVRTC's own schedule of the same steps: it is checked
    // against the f64 reference, as the warpspeed kernel is.
    let hand_out = o[2].download()?;
    if let Some(i) = hand_out.iter().position(|p| p.to_bits() == unwritten) {
        b.mismatch(format_args!(
            "{name}, hand-written twin: pair {i} was never written"
        ));
    }
    let hand_err = attention_error(&hand_out, last, len, d, &want);
    if hand_err.is_nan() || hand_err > 1e-2 {
        b.mismatch(format_args!(
            "{name}, hand-written twin: head {last}: relative error {hand_err:.2e}, above 1e-2"
        ));
    }
    let flop = attention_flop(bs * h, len, d, causal);
    let tflops = flop / (t[0] * 1e-3) / 1e12;
    let key = format!(
        "attention_b{bs}h{h}l{len}d{d}_bf16{}",
        if causal { "_causal" } else { "" }
    );
    Ok(Row::new(
        "attention (wgmma, TMA)",
        label((bs, h, len, d), causal),
        Unit::Ms,
    )
    .times(t[0], Some(t[1]), Some(t[2]))
    .peers(b.peers(&key, Unit::Ms))
    .note(format!(
        "{tflops:.0} TFLOP/s; error {err:.1e} vs f64 (head {last})"
    )))
}
