#!/usr/bin/env bash
# One command on the GPU machine: the peers (bench/peers.py: torch, CuPy, Triton), then the
# Rust bench with their figures, one table. Extra arguments go to the bench
# (--quick also makes peers.py use the quick sizes; --peers-only stops after peers.py).
#
#   bash bench/run.sh                 # from the repository root or anywhere
#   bash bench/run.sh --quick         # small sizes, a smoke run
#   bash bench/run.sh --only life,scan --strict
#
# The bench binary: .gpu/bin/bench (the developers' gpu-bundle tool builds it for a GPU
# machine without cargo) if present, else target/release/examples/bench (cargo build
# --release --examples). bench_raw_start must sit next to it (both builds put it there).
# docs/benchmarks.md says what is measured and what the targets are.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bench="$root/.gpu/bin/bench"
[ -x "$bench" ] || bench="$root/target/release/examples/bench"
if [ ! -x "$bench" ]; then
  echo "bench/run.sh: no bench binary at .gpu/bin/bench or target/release/examples/bench;" \
       "build it with cargo build --release --examples" >&2
  exit 1
fi
peer_args=()
bench_args=()
peers_only=0
for a in "$@"; do
  case "$a" in
    --quick) peer_args+=(--quick); bench_args+=(--quick) ;;
    --peers-only) peers_only=1 ;;
    *) bench_args+=("$a") ;;
  esac
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || true
echo "bench/run.sh: peers (python3 bench/peers.py)..." >&2
peers=()
if python3 "$root/bench/peers.py" --out "$tmp/peers.json" ${peer_args[@]+"${peer_args[@]}"}; then
  peers=(--peers "$tmp/peers.json")
  cp "$tmp/peers.json" "${OUT:-$tmp}/peers.json" 2>/dev/null || true
else
  echo "bench/run.sh: peers.py failed; the table will have no peers" >&2
fi
[ "$peers_only" = 1 ] && { cat "$tmp/peers.json"; exit 0; }
echo "bench/run.sh: $bench ${bench_args[*]-}" >&2
export WARPSPEED_BACKEND=cuda WARPSPEED_REQUIRE_GPU=1
# Empty arrays expand to nothing, also under `set -u` in bash before 4.4.
"$bench" ${peers[@]+"${peers[@]}"} ${bench_args[@]+"${bench_args[@]}"}
