#!/usr/bin/env bash
# Where the engine's thread waits for the disk under sustained ingest with many users: a
# measurement, not one of the `npm run bench` ratios (Linux only; needs strace).
#
#   bash bench/engine-io.measure.sh [seconds, default 60] [messages/s asked, default 2000]
#
# Runs bench/follow-up.measure.ts into an empty folder under strace, which records every fsync,
# fdatasync and ftruncate with its duration and file, and reads the disk's counters before and
# after (/proc/diskstats, the device the folder is on). Prints the measure's own lines, then those
# calls by thread (the engine's, the process's first, against all the others: the checkpointer, the
# read worker) and file, and how much the disk wrote per message accepted.
set -euo pipefail
seconds=${1:-60}
rate=${2:-2000}
cd "$(dirname "$0")/.."
work=$(mktemp -d /tmp/hookbench-engine-io-XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir "$work/data"
device=$(basename "$(df --output=source "$work" | tail -1)")
sectors() { awk -v d="$device" '$3 == d { print $10 }' /proc/diskstats; }
before=$(sectors)
strace -f -y --seccomp-bpf -T -e trace=fsync,fdatasync,ftruncate -o "$work/trace" \
  node --import tsx bench/follow-up.measure.ts "$work/data" "$seconds" "$rate" > "$work/out" 2>&1
after=$(sectors)
grep -v '^\s*$' "$work/out"
messages=$(sed -n '1s/.*: \([0-9,]*\) messages in .*/\1/p' "$work/out" | tr -d ,)
engine=$(awk 'NR == 1 || $1 + 0 < first { first = $1 + 0 } END { print first }' "$work/trace")
echo "calls that wait for the disk, by thread and file (engine = the process's first thread):"
awk -v engine="$engine" '
  # A call another thread interrupted is split in two lines: "<unfinished ...>", then "<... resumed>".
  $2 ~ /^(fsync|fdatasync|ftruncate)\(/ && /<unfinished/ { pending[$1] = $2; next }
  $2 == "<..." && ($3 == "fsync" || $3 == "fdatasync" || $3 == "ftruncate") { line = pending[$1]; delete pending[$1] }
  $2 ~ /^(fsync|fdatasync|ftruncate)\(/ { line = $2 }
  line != "" {
    thread = ($1 == engine) ? "engine" : "others"
    call = line; sub(/\(.*/, "", call)
    file = line; sub(/^[^<]*</, "", file); sub(/>.*/, "", file); sub(/.*\//, "", file)
    took = $NF; gsub(/[<>]/, "", took)
    line = ""
    key = sprintf("%-7s %-10s %-22s", thread, call, file)
    n[key]++; total[key] += took; if (took > max[key]) max[key] = took; if (took > 0.010) over[key]++
  }
  END { for (k in n) printf "  %s %5d calls, %6.2f s in all, longest %5.1f ms, %4d over 10 ms\n", k, n[k], total[k], max[k] * 1000, over[k] }
' "$work/trace" | sort
if [ -n "$before" ] && [ -n "$after" ] && [ -n "$messages" ] && [ "$messages" -gt 0 ]; then
  awk -v b="$before" -v a="$after" -v m="$messages" -v d="$device" \
    'BEGIN { printf "disk %s: %.0f MB written while it ran, %.1f KB per message accepted\n", d, (a - b) * 512 / 1e6, (a - b) * 512 / 1e3 / m }'
fi
