#!/usr/bin/env bash
# One command on a machine of several GPUs: torch.distributed's all-reduce
# (bench/peers_multi.py), then warpspeed's on the same sizes beside it, for each world size;
# then Life's weak- and strong-scaling tables (examples/life_multi).
#
#   bash bench/multi.sh                      # 2, 4, .. up to every GPU of the host
#   bash bench/multi.sh --gpus "2 4" --max-mib 256 --side 16384 --strong 32768
#
# The binaries: .gpu/bin/ (the developers' gpu-bundle tool) if present, else
# target/release/examples/ (cargo build --release --examples). docs/multi-gpu.md and
# docs/benchmarks.md ("Multi-GPU") say what is measured.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin="$root/.gpu/bin"
[ -x "$bin/all_reduce" ] || bin="$root/target/release/examples"
for b in all_reduce life_multi; do
  if [ ! -x "$bin/$b" ]; then
    echo "bench/multi.sh: no $b at .gpu/bin or target/release/examples;" \
         "build it with cargo build --release --examples" >&2
    exit 1
  fi
done
present=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
gpus="" max_mib=2048 side=32768 strong=65536
while [ $# -gt 0 ]; do
  case "$1" in
    --gpus) gpus="$2"; shift 2 ;;
    --max-mib) max_mib="$2"; shift 2 ;;
    --side) side="$2"; shift 2 ;;
    --strong) strong="$2"; shift 2 ;;
    *) echo "bench/multi.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ -z "$gpus" ]; then  # 2, 4, 8 .. and the host's count
  n=2
  while [ "$n" -le "$present" ]; do gpus="$gpus $n"; n=$((n * 2)); done
  case " $gpus " in *" $present "*) ;; *) [ "$present" -ge 2 ] && gpus="$gpus $present" ;; esac
fi
if [ -z "${gpus// /}" ]; then
  echo "bench/multi.sh: $present GPU(s) here; the multi-GPU bench needs at least 2" >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sort | uniq -c || true
export WARPSPEED_BACKEND=cuda WARPSPEED_REQUIRE_GPU=1
echo "bench/multi.sh: peers (python3 bench/peers_multi.py --gpus$gpus)..." >&2
peers=()
# shellcheck disable=SC2086  # $gpus is a list of numbers
if python3 "$root/bench/peers_multi.py" --gpus $gpus --max-mib "$max_mib" --out "$tmp/multi.json"; then
  peers=(--peers "$tmp/multi.json")
  cp "$tmp/multi.json" "${OUT:-$tmp}/multi.json" 2>/dev/null || true
else
  echo "bench/multi.sh: peers_multi.py failed; the tables will have no peers" >&2
fi
for g in $gpus; do
  echo
  "$bin/all_reduce" --gpus "$g" --max-mib "$max_mib" ${peers[@]+"${peers[@]}"}
done
life_gpus=1
for g in $gpus; do life_gpus="$life_gpus,$g"; done
echo
"$bin/life_multi" --gpus "$life_gpus" --side "$side" --strong "$strong"
