#!/usr/bin/env bash
# Benchmarks (release build). Prints measured numbers only; machines are shared and noisy, so compare the ratios
# printed within one run rather than absolute speeds across runs.
#
#   scripts/bench.sh            1-hour 48 kHz stereo 24-bit WAV repaired by -131 ppm at each quality
#   BENCH_SECONDS=600 scripts/bench.sh   a shorter file
#   BENCH_SECTIONS="dispatch repair" scripts/bench.sh   only some sections (tour kernel memory converters engines resample stretch stretch-speed quality aac content soundindex sync
#                                music soundnight movieprobe scan fleet journal dispatch repair traces slurm chaos chaos-net compare;
#                                default: all)
#   BENCH_NIGHT_CLIPS=200 BENCH_NIGHT_SECONDS=2400   the soundnight section's large shoot (clips, recorder seconds)
#   BENCH_JOURNAL_DEVICES=500 BENCH_JOURNAL_NIGHTS=3   the journal section: devices x 40 real repair jobs, then
#                                unchanged nights
#   BENCH_SCAN_DEVICES="2501 250"   the scan section's fleets (40 takes a device: 100,040 and 10,000 pairs)
#   BENCH_FLEET_DEVICES=500 BENCH_FLEET_TAKES=40 BENCH_FLEET_NIGHTS=5   the fleet section's size (100,000 pairs)
#   BENCH_ENGINE_SECONDS="600 3600"   the engines section's file lengths
#   BENCH_TRACES_ARGS="--engine soxr --quality best"   the traces section's repair options
#   BENCH_CHAOS_SEEDS="11 22 33" BENCH_CHAOS_FILES=1000   the chaos nights' seeds and size
#   BENCH_CHAOSNET_FILES=1000 BENCH_CHAOSNET_RUNS="5:1 20:2"   the networked chaos nights (scripts/chaos-net.sh): their
#                                size, and each night's seconds a file and seed
#   BENCH_BASELINE=REV scripts/bench.sh   also build revision REV in a worktree and measure journalled dispatch and
#                                the 24 x 60 s repair for REV and for this tree, interleaved, in the same run
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
swift build -c release --static-swift-stdlib --product driftfix >/dev/null
swift build -c release --static-swift-stdlib --product driftfix-bench >/dev/null
bin=.build/release
seconds=${BENCH_SECONDS:-3600}
work=${BENCH_DIR:-bench-output}
mkdir -p "$work"
sections=" ${BENCH_SECTIONS:-tour kernel memory converters engines resample stretch quality aac content sync music soundnight movieprobe scan fleet journal dispatch repair traces slurm chaos chaos-net compare} "
want() { [[ "$sections" == *" $1 "* ]]; }
input="$work/in-${seconds}s.wav"
ratio=0.999869          # -131 ppm: output length / input length
speed=1.000131          # the same repair as a sox speed factor (input length / output length)

if want resample || want stretch || want stretch-speed || want aac; then
[[ -f "$input" ]] || { echo "generating $seconds s of 48 kHz stereo 24-bit audio in $input"; "$bin/driftfix-bench" generate "$input" --seconds "$seconds"; }
fi
raw_seconds=$(( seconds < 300 ? seconds : 300 ))

render_figures() {  # the docs' generated regions from bench-results/ (a region whose results are missing waits)
    python3 scripts/figures.py render || echo "bench: a generated region's results are missing; it is left as it was"
}

# stats (median min max), since (seconds between clock readings) and runs (a command's median, min and max wall
# seconds and peak MiB over N runs): written once, for every section.
source scripts/lib/bench-stats.sh

measure() {  # measure LABEL COMMAND... → "LABEL xRT peakMiB"
    local label=$1; shift
    /usr/bin/time -o "$work/time.txt" -f "%e %M" "$@" >/dev/null 2>"$work/stderr.txt" \
        || { echo "$label failed: $(cat "$work/stderr.txt")" >&2; return 1; }
    local out wall rss
    out=$(tail -1 "$work/time.txt")
    wall=${out% *} rss=${out#* }
    awk -v l="$label" -v s="$seconds" -v w="$wall" -v r="$rss" \
        'BEGIN { printf "%-34s %9.1f %11.1f\n", l, s / w, r / 1024 }'
}

if want kernel; then
# The speed of a copy: the default repair (the polyphase kernel) against a plain copy, ffmpeg and sox, side by side in
# one run, on the whole machine and on one core; files on tmpfs when there is one. Median of 3 wall seconds; peak RSS
# (MiB, the largest of the three); SNR against the analytically known ideal; frames off the exact target.
kscratch=$work; [[ -d /dev/shm && -w /dev/shm ]] && kscratch=$(mktemp -d /dev/shm/driftfix-kernel.XXXXXX)
klen=${BENCH_KERNEL_SECONDS:-600}
ksrc="$kscratch/kernel-src.wav"
"$bin/driftfix-bench" generate "$ksrc" --seconds "$klen"
kn=$((klen * 48000)); kt=$(awk -v n="$kn" 'BEGIN { printf "%.0f", n * 0.999869 }')
declare -A kwall=()
# Each row also goes to bench-results/kernel.json (scripts/figures.py renders the docs' table and the README's sentence).
krows="$work/kernel-rows.jsonl"
: >"$krows"
krow() {  # krow LABEL OUTPUT(or -) COMMAND...
    local label=$1 out=$2; shift 2
    if [[ "$out" != - ]]; then rm -f "$out"; fi
    read -r w lo hi m < <(runs 5 "$@")
    kwall[$label]=$w
    local quality="-" snr=null off=null
    if [[ "$out" != - && -f "$out" ]]; then
        read -r snr _ _ off < <("$bin/driftfix-bench" snr "$out" --input-frames "$kn" --target-frames "$kt")
        quality="$snr dB, $off off"
    fi
    printf '{"label": "%s", "wall": %s, "min": %s, "max": %s, "peakMiB": %s, "snrDB": %s, "framesOff": %s}\n' \
        "$label" "$w" "$lo" "$hi" "$m" "$snr" "${off#+}" >>"$krows"
    printf "| %-52s | %6.3f s (%.3f-%.3f) | %8s | %9s | %-18s |\n" "$label" "$w" "$lo" "$hi" \
        "$(awk -v a="${kwall[ffmpeg swr]:-0}" -v w="$w" 'BEGIN { if (a > 0) printf "%.2fx", a / w; else print "-" }')" "$m" "$quality"
    if [[ "$out" != - ]]; then rm -f "$out"; fi
}
echo
echo "## The speed of a copy: $klen s, 48 kHz stereo 24-bit WAV, -131 ppm ($kn -> $kt frames), $(nproc) cores; median of 5 (min-max)"
echo "| command | wall | vs ffmpeg swr | peak MiB | against the ideal |"
echo "| --- | --- | --- | --- | --- |"
krow "ffmpeg swr" "$kscratch/o.wav" ffmpeg -nostdin -loglevel error -y -i "$ksrc" \
    -af "asetrate=1000000,aresample=999869:resampler=swr,asetrate=48000" -c:a pcm_s24le "$kscratch/o.wav"
krow "dd conv=fsync of the input (the floor)" - dd if="$ksrc" of="$kscratch/copy.wav" bs=1M conv=fsync status=none
rm -f "$kscratch/copy.wav"
krow "cp of the input (no fsync)" - cp "$ksrc" "$kscratch/copy.wav"
rm -f "$kscratch/copy.wav"
krow "ffmpeg decode + PCM encode, no resampling" - ffmpeg -nostdin -loglevel error -y -i "$ksrc" -c:a pcm_s24le "$kscratch/copy.wav"
rm -f "$kscratch/copy.wav"
krow "driftfix process --to-frames N (default, every core)" "$kscratch/o.wav" "$bin/driftfix" process "$ksrc" "$kscratch/o.wav" --to-frames "$kt" -q -y
krow "driftfix process --engine soxr (every core)" "$kscratch/o.wav" "$bin/driftfix" process "$ksrc" "$kscratch/o.wav" --to-frames "$kt" --engine soxr -q -y
krow "ffmpeg swr, one core" "$kscratch/o.wav" taskset -c 0 ffmpeg -nostdin -loglevel error -y -i "$ksrc" \
    -af "asetrate=1000000,aresample=999869:resampler=swr,asetrate=48000" -c:a pcm_s24le "$kscratch/o.wav"
krow "sox speed, one core" "$kscratch/o.wav" taskset -c 0 sox "$ksrc" "$kscratch/o.wav" speed 1.000131017
krow "driftfix process (default), one core" "$kscratch/o.wav" taskset -c 0 "$bin/driftfix" process "$ksrc" "$kscratch/o.wav" --to-frames "$kt" -q -y
# The same two on the disk (the work folder), where fsync writes to a device rather than to memory.
if [[ "$kscratch" != "$work" ]]; then
    cp "$ksrc" "$work/kernel-src.wav"
    krow "dd conv=fsync of the input, on the disk" - dd if="$work/kernel-src.wav" of="$work/copy.wav" bs=1M conv=fsync status=none
    rm -f "$work/copy.wav"
    krow "driftfix process (default, every core), on the disk" "$work/o.wav" "$bin/driftfix" process "$work/kernel-src.wav" "$work/o.wav" --to-frames "$kt" -q -y
    rm -f "$work/kernel-src.wav"
fi
# The goal's ratio again, the two commands alternated (a busy minute then slows both alike): 9 pairs, the median of
# each and of the pairs' ratios.
kpairs=()
for _ in 1 2 3 4 5 6 7 8 9; do
    s0=$EPOCHREALTIME; dd if="$ksrc" of="$kscratch/copy.wav" bs=1M conv=fsync status=none; s1=$EPOCHREALTIME
    "$bin/driftfix" process "$ksrc" "$kscratch/o.wav" --to-frames "$kt" -q -y; s2=$EPOCHREALTIME
    d=$(since "$s0" "$s1") f=$(since "$s1" "$s2")
    kpairs+=("$d $f $(awk -v d="$d" -v f="$f" 'BEGIN { printf "%.4f", f / d }')")
done
rm -f "$kscratch/copy.wav" "$kscratch/o.wav"
printf "%s\n" "${kpairs[@]}" >"$work/kernel-pairs.txt"
kcolumn() { printf "%s\n" "${kpairs[@]}" | cut -d' ' -f"$1"; }
# shellcheck disable=SC2046  # one number a word
{ read -r dmed _ _ < <(stats $(kcolumn 1)); read -r fmed _ _ < <(stats $(kcolumn 2)); read -r rmed rlo rhi < <(stats $(kcolumn 3)); }
printf "alternated, %d pairs: dd conv=fsync %.3f s, driftfix (every core) %.3f s; %.2fx the synced copy (pairs %.2f-%.2f; goal 2)\n" \
    "${#kpairs[@]}" "$dmed" "$fmed" "$rmed" "$rlo" "$rhi"
one=${kwall[driftfix process (default), one core]}
all=${kwall[driftfix process --to-frames N (default, every core)]}
kraw=$(taskset -c 0 "$bin/driftfix-bench" raw "$ksrc" --seconds "$klen" --engine polyphase --quality medium)
awk -v f="${kwall[ffmpeg swr]}" -v f1="${kwall[ffmpeg swr, one core]}" -v x="${kwall[sox speed, one core]}" \
    -v c="${kwall[dd conv=fsync of the input (the floor)]}" -v a="$all" -v o="$one" -v r="$kraw" -v l="$klen" 'BEGIN {
    printf "whole machine: %.2fx ffmpeg swr (goal 2.5); one core: %.2fx ffmpeg swr on one core (goal 1.5), %.2fx sox; %.2fx the synced copy (goal 2)\n", f / a, f1 / o, x / o, a / c
    printf "the kernel alone on one core (in memory): %.2f s of the %.2f s; the rest is reading, converting and writing\n", l / r, o }'
python3 - "$krows" "$work/kernel-pairs.txt" "$klen" "$kn" "$kt" "$kraw" "$( [[ "$kscratch" != "$work" ]] && echo tmpfs || echo disk)" <<'PY' |
import json, sys
rows_file, pairs_file, seconds, frames, target, raw, scratch = sys.argv[1:]
rows = [json.loads(line) for line in open(rows_file) if line.strip()]
pairs = [dict(zip(("copy", "driftfix", "ratio"), map(float, line.split()))) for line in open(pairs_file) if line.strip()]
print(json.dumps({"seconds": int(seconds), "frames": int(frames), "targetFrames": int(target), "files": scratch,
                  "kernelRealtime": float(raw), "rows": rows, "alternated": pairs}))
PY
    python3 scripts/figures.py record kernel.json --command "BENCH_SECTIONS=kernel scripts/bench.sh"
rm -f "$ksrc"
if [[ "$kscratch" != "$work" ]]; then rm -rf "$kscratch"; fi
fi

if want memory; then
# Peak memory of every engine, quality and repair kind on every core and on 1 (the goal: under 64 MiB each): 600 s of
# stereo and 300 s of six channels, 48 kHz 24-bit at -131 ppm, files on tmpfs when there is one; the largest peak RSS
# of two runs (MiB).
mscratch=$work; [[ -d /dev/shm && -w /dev/shm ]] && mscratch=$(mktemp -d /dev/shm/driftfix-memory.XXXXXX)
"$bin/driftfix-bench" generate "$mscratch/stereo.wav" --seconds 600
"$bin/driftfix-bench" generate "$mscratch/six.wav" --seconds 300 --channels 6
peak() {  # peak COMMAND...: the largest peak RSS (MiB) of two runs
    local m
    read -r _ _ _ m < <(runs 2 "$@") && echo "$m"
}
# Each row also goes to bench-results/memory.json (scripts/figures.py renders the docs' table and the README's range).
mrows="$work/memory-rows.jsonl"
: >"$mrows"
mrow() {  # mrow LABEL FILE FRAMES OPTIONS...: one row, every core then 1
    local label=$1 file=$2 frames=$3; shift 3
    local all one
    all=$(peak "$bin/driftfix" process "$file" "$mscratch/o.wav" --to-frames "$frames" -q -y "$@")
    one=$(peak taskset -c 0 "$bin/driftfix" process "$file" "$mscratch/o.wav" --to-frames "$frames" -q -y "$@")
    printf "| %-46s | %7s | %7s |\n" "$label" "$all" "$one"
    printf '{"label": "%s", "everyCore": %s, "oneCore": %s}\n' "$label" "$all" "$one" >>"$mrows"
}
st=$(awk 'BEGIN { printf "%.0f", 600 * 48000 * 0.999869 }'); sx=$(awk 'BEGIN { printf "%.0f", 300 * 48000 * 0.999869 }')
echo
echo "## Peak memory (MiB): 600 s stereo and 300 s six channels, 48 kHz 24-bit, -131 ppm; the larger of two runs"
echo "| repair | every core ($(nproc)) | 1 core |"
echo "| --- | --- | --- |"
for engine in polyphase soxr libsamplerate; do
    for quality in fast medium best; do
        mrow "stereo, $engine, $quality" "$mscratch/stereo.wav" "$st" --engine "$engine" --quality "$quality"
    done
done
mrow "stereo, --method stretch" "$mscratch/stereo.wav" "$st" --method stretch
mrow "stereo, --method stretch --engine soxr" "$mscratch/stereo.wav" "$st" --method stretch --engine soxr
for engine in polyphase soxr libsamplerate; do
    mrow "six channels, $engine, best" "$mscratch/six.wav" "$sx" --engine "$engine" --quality best
done
mrow "six channels, --method stretch" "$mscratch/six.wav" "$sx" --method stretch
python3 -c 'import json, sys; print(json.dumps({"cores": int(sys.argv[2]), "rows": [json.loads(l) for l in open(sys.argv[1]) if l.strip()]}))' \
    "$mrows" "$(nproc)" | python3 scripts/figures.py record memory.json --command "BENCH_SECTIONS=memory scripts/bench.sh"
rm -f "$mscratch/stereo.wav" "$mscratch/six.wav" "$mscratch/o.wav"
if [[ "$mscratch" != "$work" ]]; then rm -rf "$mscratch"; fi
fi

if want converters; then
# Every engine at every quality: SNR against the analytic multi-tone ideal (tones up to 0.30, 0.40 and 0.45 of the
# rate, 20 s at -131 ppm, float output) and the converter's own speed in memory, pinned to one core. The docs'
# converter table and the sentences around it are generated from bench-results/converters.json.
echo
echo "## Converters: SNR against the ideal and in-memory speed, one core"
taskset -c 0 "$bin/driftfix-bench" converters --seconds 20 --speed-seconds 60 |
    python3 scripts/figures.py record converters.json --command "BENCH_SECTIONS=converters scripts/bench.sh"
python3 - bench-results/converters.json <<'PY'
import json, sys
for m in json.load(open(sys.argv[1]))["measurements"]:
    snr = " / ".join(f"{value:.1f}" for _, value in sorted(m["snr"].items()))
    print(f"{m['engine']:>14} {m['quality']:>6}: {snr} dB, {m['realtime']:.0f}x realtime")
PY
render_figures
fi

if want engines; then
# One core for everything (taskset), files on tmpfs when there is one (the CPU cost, not the disk's), each command
# three times, the median; SNR against the analytically known ideal over the whole file (driftfix-bench snr: a
# timing error counts as noise), and the lag left at the start and at the end.
scratch=$work; [[ -d /dev/shm && -w /dev/shm ]] && scratch=$(mktemp -d /dev/shm/driftfix-bench.XXXXXX)
one=(taskset -c 0)
# Each row also goes to bench-results/engines.json (the docs' engines table is generated from it).
erows="$work/engine-rows.jsonl"; : >"$erows"
for len in ${BENCH_ENGINE_SECONDS:-600 3600}; do
    src="$scratch/engines-$len.wav"
    "$bin/driftfix-bench" generate "$src" --seconds "$len"
    n=$((len * 48000)); t=$(awk -v n="$n" 'BEGIN { printf "%.0f", n * 0.999869 }')
    factor=$(awk -v n="$n" -v t="$t" 'BEGIN { printf "%.15f", n / t }')
    echo
    echo "## Resampling engines on one core: $len s, 48 kHz stereo 24-bit WAV, -131 ppm ($n -> $t frames); median of 3"
    printf "%-48s %8s %7s %9s %8s %10s %10s %6s\n" "command" "xRT" "x sox" "peak MiB" "SNR dB" "lag start" "lag end" "off"
    declare -A wall=()
    row() {  # row LABEL OUTPUT COMMAND...
        local label=$1 out=$2; shift 2
        rm -f "$out"
        read -r w _ _ m < <(runs 3 "$@")
        wall[$label]=$w
        read -r snr l0 l1 off < <("$bin/driftfix-bench" snr "$out" --input-frames "$n" --target-frames "$t")
        printf "%-48s %8.0f %7s %9s %8s %10s %10s %6s\n" "$label" "$(awk -v s="$len" -v w="$w" 'BEGIN { print s / w }')" \
            "$(awk -v a="${wall[sox speed]:-0}" -v w="$w" 'BEGIN { if (a > 0) printf "%.2f", a / w; else print "-" }')" "$m" "$snr" "$l0" "$l1" "$off"
        printf '{"seconds": %d, "label": "%s", "wall": %s, "peakMiB": %s, "snrDB": %s, "lagStart": "%s", "lagEnd": "%s", "framesOff": %s}\n' \
            "$len" "$label" "$w" "$m" "$snr" "$l0" "$l1" "$off" >>"$erows"
        rm -f "$out"
    }
    row "sox speed" "$scratch/o.wav" "${one[@]}" sox "$src" "$scratch/o.wav" speed "$factor"
    row "driftfix process (the default: auto, medium)" "$scratch/o.wav" "${one[@]}" "$bin/driftfix" process "$src" "$scratch/o.wav" --to-frames "$t" -q -y
    for q in fast medium best; do
        row "driftfix process --engine soxr --quality $q" "$scratch/o.wav" "${one[@]}" "$bin/driftfix" process "$src" "$scratch/o.wav" --to-frames "$t" --engine soxr --quality "$q" -q -y
    done
    row "driftfix process --engine libsamplerate (medium)" "$scratch/o.wav" "${one[@]}" "$bin/driftfix" process "$src" "$scratch/o.wav" --to-frames "$t" --engine libsamplerate -q -y
    if command -v ffmpeg >/dev/null; then
        for r in swr soxr; do
            row "ffmpeg asetrate/aresample exact ($r)" "$scratch/o.wav" "${one[@]}" ffmpeg -nostdin -loglevel error -y -i "$src" \
                -af "asetrate=1000000,aresample=999869:resampler=$r,asetrate=48000" -c:a pcm_s24le "$scratch/o.wav"
        done
    fi
    # The whole machine: the default uses every core on the one file (--threads, cut into chunks joined as one pass).
    row "driftfix process (default) on every core" "$scratch/o.wav" "$bin/driftfix" process "$src" "$scratch/o.wav" --to-frames "$t" -q -y
    if command -v ffmpeg >/dev/null; then
        row "ffmpeg asetrate/aresample exact (swr), unpinned" "$scratch/o.wav" ffmpeg -nostdin -loglevel error -y -i "$src" \
            -af "asetrate=1000000,aresample=999869:resampler=swr,asetrate=48000" -c:a pcm_s24le "$scratch/o.wav"
    fi
    raw_len=$(( len < 600 ? len : 600 ))
    for e in libsamplerate soxr; do
        raws=(); for _ in 1 2 3; do raws+=("$("${one[@]}" "$bin/driftfix-bench" raw "$src" --seconds "$raw_len" --engine "$e" --quality medium)"); done
        read -r raw _ _ < <(stats "${raws[@]}")
        label="driftfix process --engine $e --quality medium"; [[ $e == libsamplerate ]] && label="driftfix process --engine libsamplerate (medium)"
        echo "$e medium converter alone (in memory, first $raw_len s): $raw xRT; the pipeline runs at $(awk -v s="$len" -v w="${wall[$label]}" -v r="$raw" 'BEGIN { printf "%.2f", s / w / r }')x of it"
        printf '{"seconds": %d, "converter": "%s", "realtime": %s, "pipeline": "%s"}\n' "$len" "$e" "$raw" "$label" >>"$erows"
    done
    rm -f "$src"
done
[[ "$scratch" != "$work" ]] && rm -rf "$scratch"
echo "xRT: seconds of audio per wall second on one core. SNR: against the ideal signal over the whole file. lag: frames"
echo "behind the ideal over the first and last 10 s. off: frames off the exact target length."
python3 -c 'import json, sys; print(json.dumps({"rows": [json.loads(l) for l in open(sys.argv[1]) if l.strip()]}))' "$erows" |
    python3 scripts/figures.py record engines.json \
        --command "BENCH_SECTIONS=engines BENCH_ENGINE_SECONDS=\"${BENCH_ENGINE_SECONDS:-600 3600}\" scripts/bench.sh"
render_figures
fi

if want resample; then
echo
echo "## Resample repair: $seconds s, 48 kHz stereo 24-bit WAV, ratio $ratio (converter on one core, file I/O overlapped on another)"
printf "%-34s %9s %11s %10s %s\n" "pipeline" "xRT" "peak MiB" "raw xRT" "pipeline/raw"
for q in best medium fast; do
    rm -f "$work/out.wav"
    line=$(measure "driftfix process --quality $q" "$bin/driftfix" process "$input" "$work/out.wav" --ratio "$ratio" --quality "$q" -q)
    raw=$("$bin/driftfix-bench" raw "$input" --seconds "$raw_seconds" --quality "$q" --ratio "$ratio")
    xrt=$(echo "$line" | awk '{print $(NF-1)}')
    printf "%s %10s %.2f\n" "$line" "$raw" "$(awk -v a="$xrt" -v b="$raw" 'BEGIN{print a/b}')"
done
"$bin/driftfix" verify "$work/out.wav" --frames "$("$bin/driftfix" verify "$work/out.wav" --frames 0 | awk '{print $2}')" >/dev/null

if command -v sox >/dev/null; then
    rm -f "$work/sox.wav"
    measure "sox speed $speed (varispeed)" sox "$input" "$work/sox.wav" speed "$speed"
    rm -f "$work/sox.wav"
fi
if command -v ffmpeg >/dev/null; then
    rm -f "$work/ffmpeg.wav"
    measure "ffmpeg asetrate/aresample (exact)" ffmpeg -nostdin -loglevel error -i "$input" \
        -af "asetrate=1000000,aresample=999869,asetrate=48000" -c:a pcm_s24le "$work/ffmpeg.wav"
    rm -f "$work/ffmpeg.wav"
fi
rm -f "$work/out.wav"
echo
echo "raw xRT: the same converter on the first $raw_seconds s held in memory (no file I/O)."
fi

if want stretch || want stretch-speed; then
# Speed on one core (taskset; Rubber Band, its channels together as driftfix's, and sox are single-threaded) on a
# real song looped to BENCH_STRETCH_SECONDS, 48 kHz stereo: median of 3 wall seconds, as xRT, and each tool's time
# over Rubber Band R3's at the same ratio. Then the vocoder on the whole $seconds s input, for its peak memory
# (constant whatever the length).
echo
sts=${BENCH_STRETCH_SECONDS:-120}
song="$work/stretch-song-${sts}s.wav"
rm -f "$work/stretch-speed.jsonl"
[[ -f "$song" ]] || sox Tests/Music/Kevin_MacLeod_-_Vibe_Ace.ogg -r 48000 -c 2 -b 24 "$song" repeat 60 trim 0 "$sts"
core=(); command -v taskset >/dev/null && core=(taskset -c 0)
stime() {  # stime INDEX COMMAND...: the median wall seconds and peak MiB of COMMAND on one core, kept at INDEX
    local i=$1 w m; shift
    read -r w _ _ m < <(runs 3 "${core[@]}" "$@")
    swall[i]=$w; srss[i]=$m
}
echo "## Pitch-preserving stretch: a song looped to $sts s, 48 kHz stereo, one core; xRT, time over R3's, peak MiB"
printf "%-30s %8s %9s %9s\n" "tool" "xRT" "vs R3" "peak MiB"
for r in 0.8 1.25; do
    frames=$(awk -v r="$r" -v n="$((sts * 48000))" 'BEGIN { printf "%d", n * r + 0.5 }')
    tempo=$(awk -v r="$r" 'BEGIN { printf "%.10f", 1 / r }')
    swall=() srss=()
    labels=("driftfix (auto) x$r" "driftfix vocoder x$r" "driftfix wsola x$r" "rubberband -3 (R3) x$r" "rubberband -2 (R2) x$r" "sox tempo x$r")
    stime 0 "$bin/driftfix" process "$song" "$work/st.wav" --method stretch --to-frames "$frames" -q -y
    stime 1 "$bin/driftfix" process "$song" "$work/st.wav" --method stretch --to-frames "$frames" --stretch-engine vocoder -q -y
    stime 2 "$bin/driftfix" process "$song" "$work/st.wav" --method stretch --to-frames "$frames" --stretch-engine wsola -q -y
    stime 3 rubberband -q -3 --centre-focus -D "$(awk -v f="$frames" 'BEGIN { printf "%.9f", f / 48000 }')" "$song" "$work/st.wav"
    stime 4 rubberband -q -2 --centre-focus -D "$(awk -v f="$frames" 'BEGIN { printf "%.9f", f / 48000 }')" "$song" "$work/st.wav"
    stime 5 sox "$song" "$work/st.wav" tempo "$tempo"
    tools=(driftfix driftfix:vocoder driftfix:wsola R3 R2 sox)
    for i in 0 1 2 3 4 5; do
        awk -v l="${labels[$i]}" -v s="$sts" -v w="${swall[$i]}" -v r3="${swall[3]}" -v m="${srss[$i]}" \
            'BEGIN { printf "%-30s %8.1f %8.2fx %9d\n", l, s / w, w / r3, m }'
        printf '{"ratio": %s, "tool": "%s", "wall": %s, "peakMiB": %s}\n' "$r" "${tools[$i]}" "${swall[$i]}" "${srss[$i]}" \
            >>"$work/stretch-speed.jsonl"
    done
    rm -f "$work/st.wav"
done
read -r w _ _ m < <(runs 3 "${core[@]}" "$bin/driftfix" process "$input" "$work/st.wav" --method stretch --ratio 1.25 --stretch-engine vocoder -q -y)
awk -v s="$seconds" -v w="$w" -v m="$m" 'BEGIN { printf "%-30s %8.1f %9s %9d\n", "driftfix vocoder x1.25, " s " s", s / w, "", m }'
rm -f "$work/st.wav"
# The docs' speed table is generated from bench-results/stretch-speed.json.
python3 - "$work/stretch-speed.jsonl" "$sts" "$seconds" "$w" "$m" <<'PY' |
import json, sys
rows_file, seconds, long_seconds, long_wall, long_peak = sys.argv[1:]
print(json.dumps({"seconds": int(seconds), "rows": [json.loads(line) for line in open(rows_file) if line.strip()],
                  "long": {"seconds": int(long_seconds), "wall": float(long_wall), "peakMiB": int(long_peak)}}))
PY
    python3 scripts/figures.py record stretch-speed.json --command "BENCH_SECTIONS=stretch-speed scripts/bench.sh"
rm -f "$work/stretch-speed.jsonl"
render_figures
fi

if want stretch; then
# ViSQOL (and PESQ on speech) against ideal stretches rendered from scores, and round trips of a real song
# (scripts/stretch-quality.py; docs/performance.md explains the materials): every tool, material and ratio. The older
# log-spectral distance is the quality section's.
echo
echo "## Stretch quality: ViSQOL MOS-LQO (1..5, higher is better) against ideal stretches; a song by round trip"
"${DRIFTFIX_OTIO_VENV:-.build-otio}/bin/python" scripts/stretch-quality.py score --driftfix "$bin/driftfix" \
    --tools driftfix,driftfix:vocoder,driftfix:wsola,R2,R3,sox --json bench-results/stretch-quality.json \
    2>"$work/stretch-quality.log"
# The docs' tables come from that file (scripts/figures.py render; the test command checks they still match it).
render_figures
fi

if want quality; then
echo
echo "## Stretch quality: round trip by r then 1/r on a 10 s speech-like signal (f0 120 Hz, three formants)"
echo "## log-spectral distance to the original in dB (lower is better); seconds for both legs"
speech="$work/speech.wav"
[[ -f "$speech" ]] || "$bin/driftfix-bench" signal "$speech" --kind speech --seconds 10
frames=480000
printf "%-10s %18s %18s %18s\n" "ratio" "driftfix" "sox tempo" "rubberband"
for r in 0.97 1.25 2; do
    there=$(awk -v r="$r" -v n="$frames" 'BEGIN { printf "%d", n * r + 0.5 }')
    row=$(printf "%-10s" "$r")
    start=$EPOCHREALTIME
    "$bin/driftfix" process "$speech" "$work/a.wav" --method stretch --to-frames "$there" -q
    "$bin/driftfix" process "$work/a.wav" "$work/b.wav" --method stretch --to-frames "$frames" -q
    end=$EPOCHREALTIME
    row="$row $(printf "%10s dB %4.2fs" "$("$bin/driftfix-bench" lsd "$speech" "$work/b.wav")" "$(since "$start" "$end")")"
    rm -f "$work/a.wav" "$work/b.wav"
    if command -v sox >/dev/null; then
        start=$EPOCHREALTIME
        sox "$speech" "$work/a.wav" tempo "$(awk -v r="$r" 'BEGIN { printf "%.10f", 1 / r }')" 2>/dev/null
        sox "$work/a.wav" "$work/b.wav" tempo "$r" 2>/dev/null
        end=$EPOCHREALTIME
        row="$row $(printf "%10s dB %4.2fs" "$("$bin/driftfix-bench" lsd "$speech" "$work/b.wav")" "$(since "$start" "$end")")"
        rm -f "$work/a.wav" "$work/b.wav"
    fi
    if command -v rubberband >/dev/null; then
        start=$EPOCHREALTIME
        rubberband -q -t "$r" "$speech" "$work/a.wav" >/dev/null 2>&1 && rubberband -q -t "$(awk -v r="$r" 'BEGIN { printf "%.10f", 1 / r }')" "$work/a.wav" "$work/b.wav" >/dev/null 2>&1
        end=$EPOCHREALTIME
        row="$row $(printf "%10s dB %4.2fs" "$("$bin/driftfix-bench" lsd "$speech" "$work/b.wav")" "$(since "$start" "$end")")"
        rm -f "$work/a.wav" "$work/b.wav"
    fi
    echo "$row"
done
fi

if want sync || want soundindex; then
echo
echo "## The landmark index against the hours indexed"
# The landmark index against the hours indexed (synthesised prints; the search of every recording up to 100 hours).
# Its table goes to bench-results/soundindex.json as printed (the docs' copy and the sentences after it are generated).
"$bin/driftfix-bench" soundindex --hours "${BENCH_INDEX_HOURS:-1,10,100,1000}" --clips "${BENCH_INDEX_CLIPS:-30}" \
    --repeats 3 | tee "$work/soundindex.txt"
python3 -c 'import json, sys; print(json.dumps({"table": open(sys.argv[1]).read().splitlines()}))' "$work/soundindex.txt" |
    python3 scripts/figures.py record soundindex.json --command "driftfix-bench soundindex --hours ${BENCH_INDEX_HOURS:-1,10,100,1000} --clips ${BENCH_INDEX_CLIPS:-30} --repeats 3 (BENCH_SECTIONS=soundindex scripts/bench.sh)"
render_figures
python3 scripts/plot-soundindex.py bench-results/soundindex.json docs/images/soundindex-growth.svg
fi

if want sync; then
# A recorder-hour printed on one core, and a generated shoot synced end to end, go to bench-results/sync.json
# (performance.md's sync table and the day extrapolated from it and the soundindex table are generated).
echo
echo "## Sync by sound: prints, the search, and a generated shoot (BENCH_SYNC_SECONDS of recorder, BENCH_SYNC_CLIPS clips)"
sync_seconds=${BENCH_SYNC_SECONDS:-3600}
sync_clips=${BENCH_SYNC_CLIPS:-24}
[[ -f "$work/sync-print.wav" ]] || "$bin/driftfix-bench" generate "$work/sync-print.wav" --seconds 600 >/dev/null
# One core: what a worker's print costs per file, three runs warm.
: > "$work/sync-prints.txt"
for _ in 1 2 3; do
    taskset -c 0 "$bin/driftfix-bench" soundmatch --file "$work/sync-print.wav" --clips 0 | tee -a "$work/sync-prints.txt"
done
"$bin/driftfix-bench" soundmatch --clips "${BENCH_SYNC_SEARCH_CLIPS:-1000}" --hours "${BENCH_SYNC_SEARCH_HOURS:-50}" --recordings 50
# The same clips with every recording searched (onset-like noise: the index steps aside, at a small cost).
"$bin/driftfix-bench" soundmatch --clips "${BENCH_SYNC_SEARCH_CLIPS:-1000}" --hours "${BENCH_SYNC_SEARCH_HOURS:-50}" --recordings 50 --exhaustive-search
shoot="$work/shoot-$sync_seconds-$sync_clips"
[[ -f "$shoot/truth.json" ]] || "$bin/driftfix-bench" shoot "$shoot" --seconds "$sync_seconds" --clips "$sync_clips"
# Three runs listing the places, three cutting the clips too (--out); the last cut is checked against the truth.
: > "$work/sync-runs.txt"
for out in "" "$work/shoot-out" "" "$work/shoot-out" "" "$work/shoot-out"; do
    rm -rf "$work/shoot-out"
    status=0
    /usr/bin/time -o "$work/time.txt" -f "%e %M" "$bin/driftfix" sync "$shoot" ${out:+--out "$out"} --format json \
        > "$work/shoot.json" 2>"$work/shoot.log" || status=$?
    # A failed run (exit 2 or above; 1 is a clip left for a person) keeps its time, marked: the table counts them.
    echo "${out:+out} $status $(tail -1 "$work/time.txt")" >> "$work/sync-runs.txt"
done
cat "$work/sync-runs.txt"
python3 - "$shoot/truth.json" "$work/shoot.json" "$work/sync-prints.txt" "$work/sync-runs.txt" "$sync_seconds" \
    "$sync_clips" <<'PY' | python3 scripts/figures.py record sync.json --command "BENCH_SECTIONS=sync scripts/bench.sh (BENCH_SYNC_SECONDS=$sync_seconds BENCH_SYNC_CLIPS=$sync_clips)"
import json, os, re, sys
truth_file, found_file, prints_file, runs_file, seconds, clips = sys.argv[1:]
truth = json.load(open(truth_file))["clips"]
for clip in truth:  # the generator wrote the paths it was given; sync reports absolute ones
    clip["reference"] = os.path.abspath(clip["reference"])
    for h in clip["heardBy"]:
        h["recording"] = os.path.abspath(h["recording"])
found = [m for g in json.load(open(found_file))["groups"] for m in g["matches"]]
right = wrong = missed = 0
start_errors, drift_errors, pooled_errors, residuals = [], [], [], []
for clip in truth:
    rows = [m for m in found if m["reference"] == clip["reference"] and m["status"] != "uncertain"]
    expected = {h["recording"]: h for h in clip["heardBy"] if h["coverage"] >= 0.5}
    for m in rows:
        h = expected.get(m["recording"])
        if h is None:
            wrong += 1
            continue
        right += 1
        start_errors.append(abs(m["recordingStartSeconds"] - h["recordingStartSeconds"]) * 1000)
        drift_errors.append(abs(m["content"]["driftPPM"] - h["driftPPM"]))
        if m.get("recordingDriftPPM") is not None:
            pooled_errors.append(abs(m["recordingDriftPPM"] - h["driftPPM"]))
        if m.get("output") and m["content"].get("residualMs") is not None:
            residuals.append(m["content"]["residualMs"])
    missed += len(set(expected) - {m["recording"] for m in rows})
print("matches right %d, wrong %d, missed %d (uncertain ones are listed, not counted)" % (right, wrong, missed),
      file=sys.stderr)
prints = [{"sound": float(m.group(1)), "wall": float(m.group(2))}
          for m in re.finditer(r"([\d.]+) s of sound in ([\d.]+) s", open(prints_file).read())]
runs = []
for line in open(runs_file):
    words = line.split()
    runs.append({"out": words[0] == "out", "exit": int(words[-3]), "wall": float(words[-2]), "peakKiB": int(words[-1])})
seconds = float(seconds)
print(json.dumps({"prints": prints, "shoot": {
    "seconds": seconds, "clips": int(clips) + 1, "recorderSeconds": seconds + seconds / 2 + 120, "runs": runs,
    "right": right, "wrong": wrong, "missed": missed, "startErrorMs": max(start_errors, default=None),
    "driftErrorPPM": max(drift_errors, default=None), "recorderDriftErrorPPM": max(pooled_errors, default=None),
    "residualMs": max(residuals, default=None)}}))
PY
rm -rf "$work/shoot-out"
render_figures
fi

if want music; then
echo
echo "## Music by sound: real songs (Tests/Music, CC BY) played back and heard by a room recorder and a line feed"
echo "   per case: clips right (used at the scene's place), wrong (used anywhere else), left for a person; the sure answer"
echo "   for 'twice' and 'loop' is 'left' (the same sound at two places or more, nothing to tell them apart)"
printf "%-34s %6s %6s %6s %6s %12s %8s\n" "song, case" "clips" "right" "wrong" "left" "worst start" "time s"
# Each row also goes to bench-results/music.json (measuring-by-sound.md's table is generated from it).
mrows="$work/music-rows.jsonl"
: > "$mrows"
for song in Tests/Music/*.ogg; do
    for spec in excerpts takes "takes --clocks" twice loop; do
        case="$work/music-$(basename "$song" .ogg)-${spec// /}"
        [[ -f "$case/truth.json" ]] || "$bin/driftfix-bench" playback "$case" --song "$song" --case $spec >/dev/null
        start=$EPOCHREALTIME
        "$bin/driftfix" sync "$case" --format json >"$work/music.json" 2>"$work/music.log" || true
        end=$EPOCHREALTIME
        python3 - "$case/truth.json" "$work/music.json" "$(basename "$song" .ogg | cut -c1-18), $spec" \
            "$(printf "%.2f" "$(since "$start" "$end")")" "$mrows" "$(basename "$song" .ogg)" "$spec" <<'PY'
import json, os, sys
truth = json.load(open(sys.argv[1]))["clips"]
found = [m for g in json.load(open(sys.argv[2]))["groups"] for m in g["matches"]]
right = wrong = left = 0
worst = 0.0
for clip in truth:
    heard = {os.path.abspath(h["recording"]): h["recordingStartSeconds"] for h in clip["heardBy"]}
    used = [m for m in found if m["reference"] == os.path.abspath(clip["reference"]) and m["status"] in ("used", "alternative")]
    if not used:
        left += 1
        continue
    errors = [abs(m["recordingStartSeconds"] - heard[m["recording"]]) if m["recording"] in heard else 1e9 for m in used]
    if max(errors) < 0.001:
        right += 1
        worst = max(worst, max(errors))
    else:
        wrong += 1
print("%-34s %6d %6d %6d %6d %9.3f ms %8s" % (sys.argv[3], len(truth), right, wrong, left, worst * 1000, sys.argv[4]))
with open(sys.argv[5], "a") as rows:
    rows.write(json.dumps({"song": sys.argv[6], "case": sys.argv[7], "clips": len(truth), "right": right, "wrong": wrong,
                           "left": left, "worstMs": worst * 1000 if right else None, "seconds": float(sys.argv[4])}) + "\n")
PY
    done
done
python3 -c 'import json, sys; print(json.dumps({"rows": [json.loads(l) for l in open(sys.argv[1]) if l.strip()]}))' "$mrows" |
    python3 scripts/figures.py record music.json --command "BENCH_SECTIONS=music scripts/bench.sh"
render_figures
fi

if want soundnight; then
echo
echo "## A sound night, then the same night unchanged (repair --pair-by sound, a local worker per core, the journal in OUT)"
echo "   the demo's shoot (4 clips, 240 s of recorder at 48 kHz), then BENCH_NIGHT_CLIPS clips (16 kHz recorders)"
printf "%-36s %10s %14s %10s\n" "shoot" "first s" "unchanged s" "unchanged/first"
for spec in "4 240 48000" "${BENCH_NIGHT_CLIPS:-200} ${BENCH_NIGHT_SECONDS:-2400} 16000"; do
    read -r clips secs rate <<<"$spec"
    shoot="$work/night-$clips-$secs-$rate"
    [[ -f "$shoot/truth.json" ]] || "$bin/driftfix-bench" shoot "$shoot" --clips "$clips" --seconds "$secs" --rate "$rate" >/dev/null
    rm -rf "$work/night-out"
    start=$EPOCHREALTIME
    # Exit 1 when a clip could not be synced (each failure is said in the log and tried again every night).
    "$bin/driftfix" repair "$shoot" --out "$work/night-out" --pair-by sound >"$work/night.txt" 2>"$work/night.log" || true
    first=$(since "$start")
    # The unchanged night, three times: the median.
    walls=()
    for _ in 1 2 3; do
        start=$EPOCHREALTIME
        "$bin/driftfix" repair "$shoot" --out "$work/night-out" --pair-by sound >"$work/night.txt" 2>>"$work/night.log" || true
        walls+=("$(since "$start")")
    done
    read -r again _ _ < <(stats "${walls[@]}")
    grep -q "^0 repaired," "$work/night.txt" || echo "the unchanged night repaired something: $(tail -1 "$work/night.txt")" >&2
    awk -v l="$((clips + 1)) clips, ${secs} s at ${rate} Hz" -v f="$first" -v u="$again" \
        'BEGIN { printf "%-36s %10.2f %14.2f %9.1f %%\n", l, f, u, 100 * u / f }'
    echo "   (the last unchanged night: $(tail -1 "$work/night.txt"))"
done
rm -rf "$work/night-out"
fi

if want tour; then
echo
echo "## The README's tour: the outputs of scripts/demo.sh, as it printed them"
# The README shows what the demo's commands print (a one-file edit, a measurement by the sound, a proof of sync, a
# fleet's history); they go to bench-results/tour.json from this run, never copied by hand.
scripts/demo.sh > "$work/tour.log"
python3 - "$work/tour.log" <<'PY' | python3 scripts/figures.py record tour.json --command "BENCH_SECTIONS=tour scripts/bench.sh (scripts/demo.sh)"
import json, re, sys
lines = open(sys.argv[1]).read().split("\n")
def after(heading, stop):
    """The lines after the first that starts with `heading`, up to the first that `stop` matches, unindented."""
    start = next(i for i, line in enumerate(lines) if line.startswith(heading)) + 1
    end = next(i for i in range(start, len(lines)) if stop(lines[i]))
    return [line[3:] if line.startswith("   ") else line for line in lines[start:end]]
def measured(name):
    start = next(i for i, line in enumerate(lines) if re.search(rf"{name}\.wav against the sound of", line))
    end = next(i for i in range(start + 1, len(lines)) if "against the sound of" in lines[i] or lines[i].startswith("=="))
    return [line[3:] for line in lines[start:end]]
print(json.dumps({
    "process": next(line for line in lines if " -> " in line and line.endswith("realtime)")),
    "measure": measured("interview/take08"),
    "verifySync": next(line for line in lines if "repaired-by-sound/interview/take08.wav: residual lag" in line),
    "history": after("== driftfix history", lambda line: not line.startswith("   ") or re.match(r"   \w.*, started late", line)),
}))
PY
render_figures
fi
if want movieprobe; then
echo
echo "## MP4/MOV reference durations: the own box parser against libavformat (BENCH_MOVIE_FILES files, 3 shapes)"
# scan reads .mp4/.mov/.m4v references with its own parser and every other container through libavformat. Three
# runs; their lines go to bench-results/movieprobe.json (performance.md's table is generated from it).
: > "$work/movieprobe.txt"
for _ in 1 2 3; do
    "$bin/driftfix-bench" movieprobe "$work/movies-${BENCH_MOVIE_FILES:-20000}" --files "${BENCH_MOVIE_FILES:-20000}" |
        tee -a "$work/movieprobe.txt"
done
python3 - "$work/movieprobe.txt" <<'PY' | python3 scripts/figures.py record movieprobe.json --command "BENCH_SECTIONS=movieprobe scripts/bench.sh"
import json, re, sys
runs = [{"files": int(m.group(1)), "own": float(m.group(2)), "libavformat": float(m.group(3)), "disagreeing": int(m.group(4))}
        for m in re.finditer(r"(\d+) MP4/MOV references: own box parser ([\d.]+) s .*?libavformat ([\d.]+) s .*?disagreeing: (\d+)",
                             open(sys.argv[1]).read())]
print(json.dumps({"runs": runs}))
PY
render_figures
fi

if want scan; then
echo
# One night of a fleet (60 s sparse WAVs with duration sidecars), 40 takes per device: 2,501 devices make 100,040
# pairs, 250 make 10,000. Each size is a row of bench-results/scan.json (the docs' fleet-scan table and the README's
# sentence are generated from it).
spread5() {  # spread5 COMMAND...: "median min max" wall seconds of five runs (after one to warm the cache)
    "$@" >/dev/null 2>&1 || true
    local med lo hi
    read -r med lo hi _ < <(RUNS_ANY_EXIT=1 runs 5 "$@") && echo "$med $lo $hi"
}
heads() { find "$tree/media" -type f -print0 | xargs -0 head -c 4096; }
scan_rows="$work/scan-rows.jsonl"; : >"$scan_rows"
for scan_devices in ${BENCH_SCAN_DEVICES:-2501 250}; do
    tree="$work/scan-fleet-$scan_devices"
    [[ -d "$tree" ]] || "$bin/driftfix-bench" fleet "$tree/media" --devices "$scan_devices" --takes 40 --night 0 >/dev/null
    read -r json_med json_min json_max < <(spread5 "$bin/driftfix" scan "$tree/media" --format json)
    read -r table_med table_min table_max < <(spread5 "$bin/driftfix" scan "$tree/media" --format table)
    read -r head_med head_min head_max < <(spread5 bash -c "$(declare -f heads); tree='$tree' heads")
    pairs=$("$bin/driftfix" scan "$tree/media" --format json 2>/dev/null | grep -c '"recording" :' || true)
    echo "## Fleet scan: $pairs pairs (WAV headers and sidecars), warm cache, all cores; median of 5 (min-max)"
    echo "scan --format json    $json_med s ($json_min-$json_max)"
    echo "scan --format table   $table_med s ($table_min-$table_max)"
    echo "first 4 KiB of every file (find | xargs head): $head_med s ($head_min-$head_max)"
    awk -v j="$json_med" -v h="$head_med" 'BEGIN { printf "json scan / header read: %.1fx\n", j / h }'
    cold=null
    if [[ -w /proc/sys/vm/drop_caches ]]; then
        sync && echo 3 >/proc/sys/vm/drop_caches
        /usr/bin/time -o "$work/time.txt" -f "%e" "$bin/driftfix" scan "$tree/media" --format json >/dev/null 2>&1 || true
        cold=$(tail -1 "$work/time.txt")
        echo "scan --format json, cold cache (one run): $cold s"
    fi
    printf '{"pairs": %s, "json": [%s, %s, %s], "table": [%s, %s, %s], "headers": [%s, %s, %s], "coldJSON": %s}\n' \
        "$pairs" "$json_med" "$json_min" "$json_max" "$table_med" "$table_min" "$table_max" \
        "$head_med" "$head_min" "$head_max" "$cold" >>"$scan_rows"
done
python3 -c 'import json, sys; print(json.dumps({"rows": [json.loads(l) for l in open(sys.argv[1]) if l.strip()]}))' \
    "$scan_rows" | python3 scripts/figures.py record scan.json --command "BENCH_SECTIONS=scan scripts/bench.sh"
render_figures
fi

if want fleet; then
# Each number also goes to bench-results/fleet.json (the docs' fleet QA table and its sentences are generated from it).
devices=${BENCH_FLEET_DEVICES:-500} takes=${BENCH_FLEET_TAKES:-40} nights=${BENCH_FLEET_NIGHTS:-5}
fleet="$work/fleet"
rm -rf "$fleet" && mkdir -p "$fleet"
frows="$work/fleet-rows.jsonl"; : >"$frows"
echo
echo "## Fleet QA: $devices devices x $takes takes x $nights nights = $((devices * takes * nights)) pairs (60 s sparse WAVs with"
echo "## sidecar references; night K's repair scans nights 0..K; device 1 starts drifting and device 2 turns erratic on the last)"
printf "%-6s %8s %8s %10s %9s %9s %9s %9s %11s %11s\n" night pairs "run s" "peak MiB" "html MB" "json MB" "csv MB" \
    "journal MB" "journal +MB" "B/pair/run"
last_size=0
for ((night = 0; night < nights; night++)); do
    "$bin/driftfix-bench" fleet "$fleet/media" --devices "$devices" --takes "$takes" --night "$night" --change-night $((nights - 1)) >/dev/null
    rm -rf "$fleet/report"
    /usr/bin/time -o "$work/time.txt" -f "%e %M" "$bin/driftfix" repair "$fleet/media" --out "$fleet/out" --workers 2 \
        --report "$fleet/report" >"$fleet/run.log" 2>&1 || true
    read -r wall rss < <(tail -1 "$work/time.txt")
    pairs=$(( (night + 1) * devices * takes ))
    size=$(stat -c %s "$fleet/out/.driftfix/journal.sqlite")
    html=$(stat -c %s "$fleet/report/report.html") json=$(stat -c %s "$fleet/report/report.json")
    csv=$(stat -c %s "$fleet/report/report.csv")
    awk -v n="$night" -v p="$pairs" -v w="$wall" -v r="$rss" -v h="$html" -v j="$json" -v c="$csv" -v s="$size" -v l="$last_size" \
        'BEGIN { printf "%-6s %8d %8.1f %10.0f %9.2f %9.1f %9.1f %9.1f %11.1f %11.0f\n", n, p, w, r / 1024, h / 1e6, j / 1e6, c / 1e6, s / 1e6, (s - l) / 1e6, (s - l) / p }'
    printf '{"night": %d, "pairs": %d, "wall": %s, "peakKiB": %d, "html": %d, "json": %d, "csv": %d, "journal": %d}\n' \
        "$night" "$pairs" "$wall" "$rss" "$html" "$json" "$csv" "$size" >>"$frows"
    last_size=$size
done
read -r scan_wall scan_rss < <( { /usr/bin/time -f "%e %M" "$bin/driftfix" scan "$fleet/media" --format table >/dev/null; } 2>&1 | tail -1 || true)
echo "scan alone (header probes, $(( nights * devices * takes )) pairs): $(awk -v w="$scan_wall" -v r="$scan_rss" -v p=$(( nights * devices * takes )) 'BEGIN { printf "%.1f s, %.0f pairs/s, peak %.0f MiB", w, p / w, r / 1024 }')"
grep -E "alerting|started drifting|erratic" "$fleet/run.log" | sed 's/^.*\] //' | head -4 | tee "$work/fleet-alerts.txt"
render=""
if command -v node >/dev/null && command -v chromium >/dev/null; then
    render=$(node --experimental-websocket scripts/render-time.mjs "$fleet/report/report.html" 3 2>/dev/null || true)
    echo "report.html in headless Chromium (first contentful paint, DOMContentLoaded, load; median of 3): $render"
fi
history_time() {  # history_time KEY LABEL ARGS...: median wall time of 5 runs of driftfix history, in ms, kept as KEY
    local key=$1 label=$2; shift 2
    local wall median
    read -r wall _ _ _ < <(runs 5 "$bin/driftfix" history --out "$fleet/out" "$@")
    median=$(awk -v w="$wall" 'BEGIN { printf "%d", w * 1000 }')
    printf "%-52s %6s ms\n" "$label" "$median"
    printf '{"key": "%s", "ms": %d}\n' "$key" "$median" >>"$work/fleet-history.jsonl"
}
: >"$work/fleet-history.jsonl"
echo "history at $nights runs (whole command, median of 5):"
history_time device "  driftfix history --device dev001 (its $takes files)" --device dev001
history_time fleet "  driftfix history (every device, table)" --limit 50
"$bin/driftfix-bench" journal-fill --journal "$fleet/out/.driftfix/journal.sqlite" --report "$fleet/report/report.json" \
    --runs $((30 - nights)) | sed 's/^/  journal-fill: /'
long_journal=$(stat -c %s "$fleet/out/.driftfix/journal.sqlite")
echo "history at 30 runs of $(( nights * devices * takes )) pairs (journal $(awk -v s="$long_journal" 'BEGIN{printf "%.0f MB", s/1e6}')):"
history_time device30 "  driftfix history --device dev001 --runs 30" --device dev001 --runs 30
history_time fleet30 "  driftfix history --runs 30 (every device, table)" --runs 30 --limit 50
history_time json30 "  driftfix history --runs 30 --format json (all devices)" --runs 30 --format json
python3 - "$frows" "$work/fleet-history.jsonl" "$work/fleet-alerts.txt" "$devices" "$takes" "$nights" "$scan_wall" \
    "$scan_rss" "$render" "$long_journal" <<'PY' |
import json, re, sys
rows, history, alerts, devices, takes, nights, scan_wall, scan_rss, render, journal = sys.argv[1:]
found = dict(re.findall(r"(\w+)_ms=(\d+)", render))
print(json.dumps({
    "devices": int(devices), "takes": int(takes), "nights": int(nights),
    "rows": [json.loads(line) for line in open(rows) if line.strip()],
    "scan": {"wall": float(scan_wall), "peakKiB": int(scan_rss)},
    "alerts": [line.strip() for line in open(alerts) if line.strip()],
    "render": {key: int(value) for key, value in found.items()} or None,
    "historyMs": {entry["key"]: entry["ms"] for entry in map(json.loads, open(history)) if entry},
    "journalAt30Runs": int(journal)}))
PY
    python3 scripts/figures.py record fleet.json --command "BENCH_SECTIONS=fleet scripts/bench.sh"
render_figures
fi

if want journal; then
# The journal's size per pair: one night of real repair jobs (every pair drifted 400 ppm: resampled, verified,
# recorded with its fingerprints for the next nights), then nights over the unchanged tree (every pair "unchanged").
devices=${BENCH_JOURNAL_DEVICES:-500} unchanged=${BENCH_JOURNAL_NIGHTS:-3}
jtree="$work/journal"
rm -rf "$jtree" && mkdir -p "$jtree"
"$bin/driftfix-bench" fleet "$jtree/media" --devices "$devices" --takes 40 --seconds 5 --add-ppm 400 >/dev/null
pairs=$(find "$jtree/media" -name '*.wav' | wc -l)
echo
echo "## Journal size: $pairs pairs of 5 s WAVs (paths like $jtree/media/dev123/night0/take12.wav), 2 workers"
printf "%-16s %10s %10s %12s %12s\n" night "run s" "repaired" "journal MB" "B/pair added"
last=0
# Each night also goes to bench-results/journal.json (the docs' bytes-per-pair sentence is generated from it).
jrows="$work/journal-rows.jsonl"; : >"$jrows"
for ((n = 0; n <= unchanged; n++)); do
    start=$EPOCHREALTIME
    "$bin/driftfix" repair "$jtree/media" --out "$jtree/out" --workers 2 >"$jtree/run.log" 2>&1 || true
    end=$EPOCHREALTIME
    size=$(stat -c %s "$jtree/out/.driftfix/journal.sqlite")
    repaired=$(grep -oE '^[0-9]+ repaired' "$jtree/run.log" | cut -d' ' -f1 || true)
    awk -v n="$([[ $n == 0 ]] && echo "first (repairs)" || echo "unchanged $n")" -v w="$(since "$start" "$end")" \
        -v r="${repaired:-?}" -v s="$size" -v l="$last" -v p="$pairs" \
        'BEGIN { printf "%-16s %10.1f %10s %12.2f %12.0f\n", n, w, r, s / 1e6, (s - l) / p }'
    printf '{"night": %d, "wall": %s, "repaired": %s, "journal": %d}\n' "$n" \
        "$(since "$start" "$end")" "${repaired:-null}" "$size" >>"$jrows"
    last=$size
done
rm -rf "$jtree"
python3 -c 'import json, sys; print(json.dumps({"pairs": int(sys.argv[2]), "seconds": 5,
    "nights": [json.loads(l) for l in open(sys.argv[1]) if l.strip()]}))' "$jrows" "$pairs" |
    python3 scripts/figures.py record journal.json --command "BENCH_SECTIONS=journal scripts/bench.sh"
render_figures
fi

if want dispatch; then
echo
echo "## Distributed: dispatch overhead (no-op jobs over ZeroMQ, 2 worker processes)"
# Each line also goes to bench-results/dispatch.json (the docs' distributed table is generated from it and repair.json).
{
    "$bin/driftfix-bench" dispatch --jobs 20000 --workers 2 --driftfix "$bin/driftfix"
    # The same with every lease and result committed to the SQLite journal first (write-ahead), as `repair` runs.
    rm -f "$work/bench-journal.sqlite"
    "$bin/driftfix-bench" dispatch --jobs 20000 --workers 2 --driftfix "$bin/driftfix" --journal "$work/bench-journal.sqlite"
    # Authenticated and encrypted: workers over loopback TCP with CURVE, admitted by the ZAP handler.
    "$bin/driftfix-bench" dispatch --jobs 20000 --workers 2 --driftfix "$bin/driftfix" --curve
} | tee "$work/dispatch.txt"
python3 - "$work/dispatch.txt" <<'PY' |
import json, re, sys
rows = []
for line in open(sys.argv[1]):
    m = re.match(r"(\d+) no-op jobs to (\d+) workers .*?, (in-memory store|journal), (CURVE over TCP|ipc): ([0-9.]+) s, (\d+) jobs/s", line)
    if m:
        rows.append({"jobs": int(m.group(1)), "workers": int(m.group(2)), "store": m.group(3), "transport": m.group(4),
                     "seconds": float(m.group(5)), "jobsPerSecond": int(m.group(6))})
print(json.dumps({"rows": rows}))
PY
    python3 scripts/figures.py record dispatch.json --command "BENCH_SECTIONS=dispatch scripts/bench.sh"
render_figures
fi

make_corpus() {
    corpus="$work/corpus"
    if [[ ! -d "$corpus" ]]; then
        mkdir -p "$corpus"
        for i in $(seq 1 24); do
            "$bin/driftfix-bench" generate "$corpus/take$i.wav" --seconds 60 >/dev/null
            echo "2880377@48000" > "$corpus/take$i.duration"   # the reference: 131 ppm longer than the recording
        done
    fi
}

if want repair; then
echo
echo "## Distributed: repair throughput with 1 and 2 local workers (24 x 60 s stereo, -131 ppm, medium)"
make_corpus
declare -A took
for n in 1 2; do
    rm -rf "$work/repaired-$n"
    start=$EPOCHREALTIME
    "$bin/driftfix" repair "$corpus" --out "$work/repaired-$n" --workers "$n" >/dev/null 2>&1 || true
    end=$EPOCHREALTIME
    took[$n]=$(since "$start" "$end")
    awk -v n="$n" -v t="${took[$n]}" 'BEGIN { printf "%d worker(s): 24 files, 1440 s of audio in %.2f s: %.0fx realtime\n", n, t, 1440 / t }'
done
awk -v a="${took[1]}" -v b="${took[2]}" 'BEGIN { printf "scaling efficiency 1 -> 2 workers: %.2f (speed-up %.2fx)\n", a / b / 2, a / b }'
rerun_start=0 rerun_end=0

echo
echo "## Nightly rerun over the unchanged corpus (incremental: fingerprints + output verification, no repair)"
rerun_start=$EPOCHREALTIME
"$bin/driftfix" repair "$corpus" --out "$work/repaired-2" --workers 2 >"$work/rerun.txt" 2>&1 || true
rerun_end=$EPOCHREALTIME
awk -v r="$(since "$rerun_start" "$rerun_end")" -v t="${took[2]}" 'BEGIN { printf "rerun in %.2f s (first run %.2f s: %.0fx faster)\n", r, t, t / r }'
grep -E "^[0-9]+ repaired" "$work/rerun.txt" || true
rm -rf "$work/repaired-1" "$work/repaired-2"

echo
echo "## The night's last file: one 600 s stereo recording (-131 ppm, medium) with 2 local workers, its idle core"
echo "## lent, then held by another process (as another job would: nothing to lend); 3 rounds, interleaved"
long="$work/long-night"
if [[ ! -d "$long" ]]; then
    mkdir -p "$long"
    "$bin/driftfix-bench" generate "$long/take.wav" --seconds 600 >/dev/null
    echo "28803773@48000" > "$long/take.duration"
fi
cores=$(nproc)
: >"$work/long-rounds.txt"
for round in 1 2 3; do
    for mode in lent held; do
        holder=""
        if [[ $mode == held ]]; then
            # Binds every core name but one (this night's job takes that one), as jobs of another process would.
            python3 -c 'import socket, sys, time
held = []
for k in range(int(sys.argv[2]) - 1):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.bind("\0driftfix-%s-core-%d" % (sys.argv[1], k)); held.append(s)
time.sleep(3600)' "$(id -u)" "$cores" &
            holder=$!
            sleep 0.5
        fi
        rm -rf "$work/long-out"
        start=$EPOCHREALTIME
        "$bin/driftfix" repair "$long" --out "$work/long-out" --workers 2 >/dev/null 2>&1 || true
        end=$EPOCHREALTIME
        if [[ -n $holder ]]; then kill "$holder"; wait "$holder" 2>/dev/null || true; fi
        awk -v m="$mode" -v w="$(since "$start" "$end")" 'BEGIN { printf "%-5s %.2f s: %.0fx realtime\n", m, w, 600 / w }' |
            tee -a "$work/long-rounds.txt"
    done
done
rm -rf "$work/long-out"
python3 - "${took[1]}" "${took[2]}" "$rerun_start" "$rerun_end" "$work/long-rounds.txt" <<'PY' |
import json, sys
one, two, rerun_start, rerun_end, rounds = sys.argv[1:]
walls = {"lent": [], "held": []}
for line in open(rounds):
    mode, seconds = line.split()[:2]
    walls[mode].append(float(seconds))
print(json.dumps({"files": 24, "fileSeconds": 60, "oneWorker": float(one), "twoWorkers": float(two),
                  "rerun": float(rerun_end) - float(rerun_start), "longSeconds": 600, "longLent": walls["lent"],
                  "longHeld": walls["held"]}))
PY
    python3 scripts/figures.py record repair.json --command "BENCH_SECTIONS=repair scripts/bench.sh"
render_figures
fi

if want traces; then
echo
traces_args=${BENCH_TRACES_ARGS:---engine soxr --quality best}
echo "## Traces: the same night (24 x 60 s stereo, -131 ppm, $traces_args, 2 local workers) untraced, traced to a collector"
echo "## that refuses (closed port), to one that never answers (a loopback listener that accepts nothing), and to a"
echo "## real receiver (scripts/otlp-receiver.py);"
echo "## ${BENCH_TRACES_ROUNDS:-7} rounds interleaved, median (min-max) wall and CPU seconds, against untraced"
make_corpus
python=${DRIFTFIX_OTIO_PYTHON:-.build-otio/bin/python}
"$python" scripts/otlp-receiver.py --port-file "$work/otlp.port" --out "$work/spans.jsonl" &
receiver=$!
# A collector that never answers: it listens and accepts nothing (requests wait for their timeout).
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
open(sys.argv[1], "w").write(str(s.getsockname()[1])); time.sleep(86400)' "$work/silent.port" &
silent=$!
for _ in $(seq 1 100); do [[ -s "$work/otlp.port" && -s "$work/silent.port" ]] && break; sleep 0.05; done
declare -A endpoint=([untraced]="" [refused]="http://127.0.0.1:9" [silent]="http://127.0.0.1:$(cat "$work/silent.port")"
    [received]="http://127.0.0.1:$(cat "$work/otlp.port")")
modes=(untraced refused silent received)
declare -A night_walls night_cpu
rounds=${BENCH_TRACES_ROUNDS:-7}
for _ in $(seq 1 "$rounds"); do
    for mode in "${modes[@]}"; do
        rm -rf "$work/traced-out"
        # Wall seconds, and the CPU seconds of the coordinator and its workers (its children, waited for).
        # shellcheck disable=SC2086  # the arguments are words
        env ${endpoint[$mode]:+OTEL_EXPORTER_OTLP_ENDPOINT=${endpoint[$mode]}} /usr/bin/time -o "$work/time.txt" \
            -f "%e %U %S" "$bin/driftfix" repair "$corpus" --out "$work/traced-out" --workers 2 $traces_args \
            >/dev/null 2>&1 || echo "$mode: the night failed" >&2
        read -r wall user system < <(tail -1 "$work/time.txt")
        night_walls[$mode]+="$wall "
        night_cpu[$mode]+="$(awk -v u="$user" -v s="$system" 'BEGIN { print u + s }') "
    done
done
kill "$receiver" "$silent" 2>/dev/null || true
# shellcheck disable=SC2086  # the values are words
read -r base _ _ < <(stats ${night_walls[untraced]})
# shellcheck disable=SC2086
read -r cpu_base _ _ < <(stats ${night_cpu[untraced]})
for mode in "${modes[@]}"; do
    # shellcheck disable=SC2086
    read -r w lo hi < <(stats ${night_walls[$mode]})
    # shellcheck disable=SC2086
    read -r c clo chi < <(stats ${night_cpu[$mode]})
    awk -v m="$mode" -v w="$w" -v lo="$lo" -v hi="$hi" -v b="$base" -v c="$c" -v clo="$clo" -v chi="$chi" -v cb="$cpu_base" \
        'BEGIN { printf "%-9s wall %.2f s (%.2f-%.2f) %+.1f %%   cpu %.2f s (%.2f-%.2f) %+.1f %%\n", m, w, lo, hi, (w / b - 1) * 100, c, clo, chi, (c / cb - 1) * 100 }'
done
spans=$(wc -l <"$work/spans.jsonl")
echo "spans received: $spans over ${BENCH_TRACES_ROUNDS:-7} traced nights"
# Every night's wall and CPU seconds go to bench-results/traces.json (the docs' table is generated from it).
python3 - "$rounds" "$traces_args" "$spans" "${night_walls[untraced]}" "${night_cpu[untraced]}" \
    "${night_walls[refused]}" "${night_cpu[refused]}" "${night_walls[silent]}" "${night_cpu[silent]}" \
    "${night_walls[received]}" "${night_cpu[received]}" <<'PY' |
import json, sys
rounds, args, spans, *values = sys.argv[1:]
modes = {}
for index, mode in enumerate(["untraced", "refused", "silent", "received"]):
    modes[mode] = {"wall": [float(v) for v in values[2 * index].split()],
                   "cpu": [float(v) for v in values[2 * index + 1].split()]}
print(json.dumps({"rounds": int(rounds), "arguments": args, "spans": int(spans), "modes": modes}))
PY
    python3 scripts/figures.py record traces.json --command "BENCH_SECTIONS=traces scripts/bench.sh"
rm -rf "$work/traced-out" "$work/spans.jsonl" "$work/otlp.port" "$work/silent.port"
render_figures
fi

if want slurm; then
echo
echo "## Slurm: a night of 200 x 5 s stereo files (-400 ppm, medium) with 2 worker tasks on a real single-node cluster"
echo "## (scripts/slurm-cluster.sh), against the same night with 2 local workers; two rounds, interleaved"
if [[ $(id -u) != 0 ]] || ! command -v slurmctld >/dev/null; then
    echo "skipped: needs root and apt's slurm-wlm and munge (the daemons run as root)"
else
    slurm_media="$work/slurm-media"
    [[ -f "$work/slurm-take.wav" ]] || sox -n -r 48000 -c 2 -b 24 "$work/slurm-take.wav" synth 5 sine 220 sine 330 tremolo 3 40
    for i in $(seq 0 199); do
        mkdir -p "$slurm_media/d$((i % 10))"
        [[ -f "$slurm_media/d$((i % 10))/take$i.wav" ]] || cp "$work/slurm-take.wav" "$slurm_media/d$((i % 10))/take$i.wav"
        # 5 s recorded where the video ran 96 frames (2 ms) longer: a -400 ppm clock
        echo "$(( 240000 + 96 ))@48000" >"$slurm_media/d$((i % 10))/take$i.duration"
    done
    scripts/slurm-cluster.sh start "$work/slurm-cluster" >/dev/null
    trap 'scripts/slurm-cluster.sh stop "$work/slurm-cluster"' EXIT
    declare -A slurm_took
    slurm_repaired=()
    for round in 1 2; do
        for how in local slurm; do
            rm -rf "$work/slurm-out"
            args=(--workers 2)
            [[ $how == slurm ]] && args=(--launcher slurm --workers 2 --bind tcp://127.0.0.1:0)
            start=$EPOCHREALTIME
            SLURM_CONF="$work/slurm-cluster/slurm.conf" "$bin/driftfix" repair "$slurm_media" --out "$work/slurm-out" "${args[@]}" \
                >"$work/slurm-$how.txt" 2>&1 || { echo "$how night failed:"; tail -3 "$work/slurm-$how.txt"; }
            end=$EPOCHREALTIME
            t=$(since "$start" "$end")
            slurm_took[$how]="${slurm_took[$how]:-} $t"
            slurm_repaired+=("$(grep -oE "^[0-9]+ repaired" "$work/slurm-$how.txt" | grep -oE "^[0-9]+" || echo 0)")
            printf "round %d, %-5s workers: %6.2f s  (%s)\n" "$round" "$how" "$t" "$(grep -E "^[0-9]+ repaired" "$work/slurm-$how.txt")"
        done
    done
    awk -v l="${slurm_took[local]}" -v s="${slurm_took[slurm]}" 'BEGIN {
        split(l, a, " "); split(s, b, " "); la = (a[1] < a[2]) ? a[1] : a[2]; sb = (b[1] < b[2]) ? b[1] : b[2]
        printf "best of two: local %.2f s, Slurm %.2f s: Slurm at %.2fx the local wall time (the difference is sbatch and the scheduler placing the tasks)\n", la, sb, sb / la }'
    # The rounds go to bench-results/slurm.json (clusters.md's sentence is generated from it).
    # Each night's repaired count too: a night that failed fast must not read as a fast night.
    python3 -c 'import json, sys; print(json.dumps({"files": 200, "fileSeconds": 5, "local": [float(x) for x in sys.argv[1].split()],
        "slurm": [float(x) for x in sys.argv[2].split()], "repaired": [int(x) for x in sys.argv[3].split()]}))' \
        "${slurm_took[local]}" "${slurm_took[slurm]}" "${slurm_repaired[*]}" |
        python3 scripts/figures.py record slurm.json --command "BENCH_SECTIONS=slurm scripts/bench.sh"
    render_figures
    scripts/slurm-cluster.sh stop "$work/slurm-cluster"
    trap - EXIT
    rm -rf "$work/slurm-out"
fi
fi

if want chaos; then
chaos_files=${BENCH_CHAOS_FILES:-1000}
# device2 gets a third of the outputs (576 KB each) on a volume with room for about half of them.
volume_mib=$(( chaos_files / 3 * 576 / 1024 / 2 + 1 ))
[[ $(id -u) == 0 ]] || volume_mib=0
echo
echo "## Chaos nights: $chaos_files x 2 s stereo files, 3 local workers, a worker SIGKILLed about every 1.5 s, the"
echo "## coordinator killed once and resumed, a poison file that kills every worker that opens it, one"
echo "## recording cut to a third mid-read, device2's outputs on a ${volume_mib} MiB tmpfs that fills (8 attempts a job)"
# Each night's row goes to bench-results/chaos.json (operations.md's table is generated from it).
# shellcheck disable=SC2046
"$bin/driftfix-bench" chaos --driftfix "$bin/driftfix" --files "$chaos_files" --seconds 2 --workers 3 --interval 1.5 \
    --small-volume-mib "$volume_mib" --vanishing-input \
    $(for seed in ${BENCH_CHAOS_SEEDS:-11 22 33}; do printf -- "--seeds %s " "$seed"; done) | tee "$work/chaos.txt"
python3 - "$work/chaos.txt" "$chaos_files" "$volume_mib" <<'PY' | python3 scripts/figures.py record chaos.json --command "BENCH_SECTIONS=chaos scripts/bench.sh"
import json, re, sys
nights = []
for line in open(sys.argv[1]):
    m = re.match(r"^(undisturbed|seed \d+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(.*)$", line)
    if m:
        nights.append({"night": m.group(1), "wall": float(m.group(2)), "killed": int(m.group(4)), "poison": int(m.group(5)),
                       "coordinator": int(m.group(6)), "lost": int(m.group(7)), "restarted": int(m.group(8)),
                       "requeued": int(m.group(9)), "result": m.group(10).strip()})
print(json.dumps({"files": int(sys.argv[2]), "volumeMiB": int(sys.argv[3]), "nights": nights}))
PY
render_figures
fi

if want chaos-net; then
chaosnet_files=${BENCH_CHAOSNET_FILES:-1000}
echo
echo "## Chaos on the network: $chaosnet_files x 5 s stereo files, a coordinator and 3 CURVE workers each in its own network"
echo "## namespace (scripts/chaos-net.sh); every 1-3 s a link cut for 1-6 s, netem loss 100% or delay 300ms for 1-5 s, or"
echo "## a worker SIGKILLed and restarted; against the same night undisturbed; outputs checked from their WAV headers"
if [[ $(id -u) != 0 ]]; then
    echo "skipped: needs root (network namespaces, veth links, tc netem, bind mounts)"
else
    # One night per SECONDS:SEED of BENCH_CHAOSNET_RUNS; each night's summary lines go to
    # bench-results/chaos-net.json (clusters.md's table is generated from it).
    : > "$work/chaos-net-all.txt"
    chaosnet_recorded=1
    for run in ${BENCH_CHAOSNET_RUNS:-5:${BENCH_CHAOSNET_SEED:-1} 20:2}; do
        chaosnet_status=0
        # Its summary lines on stdout; the disruptions and the nights' progress in the log.
        DRIFTFIX="$bin/driftfix" FILES="$chaosnet_files" FILE_SECONDS="${run%%:*}" SEED="${run##*:}" scripts/chaos-net.sh \
            >"$work/chaos-net.txt" 2>"$work/chaos-net.log" || chaosnet_status=$?
        if [[ $chaosnet_status == 77 ]]; then
            echo "skipped: network namespaces cannot be made here (needs CAP_SYS_ADMIN)"
            chaosnet_recorded=0
            break
        fi
        grep '^chaos-net:' "$work/chaos-net.txt" | tee -a "$work/chaos-net-all.txt" || true
        echo "chaos-net: exit $chaosnet_status" >> "$work/chaos-net-all.txt"
        [[ $chaosnet_status == 0 ]] || { echo "chaos-net exit $chaosnet_status; its log: $work/chaos-net.log"; chaosnet_recorded=0; }
    done
    if [[ $chaosnet_recorded == 1 ]]; then
        python3 - "$work/chaos-net-all.txt" <<'PY' | python3 scripts/figures.py record chaos-net.json --command "BENCH_SECTIONS=chaos-net scripts/bench.sh"
import json, re, sys
nights, night = [], None
for line in open(sys.argv[1]):
    def number(pattern):
        m = re.search(pattern, line)
        return float(m.group(1)) if m else None
    if m := re.search(r"seed (\d+); (\d+) recordings of (\d+) s", line):
        night = {"seed": int(m.group(1)), "files": int(m.group(2)), "fileSeconds": int(m.group(3))}
        nights.append(night)
    elif night is None:
        continue
    elif line.startswith("chaos-net: kills"):
        night.update(kills=int(number(r"kills (\d+)")), partitions=int(number(r"partitions (\d+)")),
                     losses=int(number(r"netem (\d+)")), healed="all healed" in line)
    elif line.startswith("chaos-net: requeues"):
        night.update(requeues=int(number(r"requeues (\d+)")), late=int(number(r"late-results-discarded (\d+)")),
                     lost=int(number(r"workers-lost (\d+)")))
    elif line.startswith("chaos-net: wall"):
        night.update(undisturbed=number(r"undisturbed ([\d.]+) s"), chaos=number(r"chaos ([\d.]+) s"))
    elif line.startswith("chaos-net: outputs exact"):
        night.update(exact=int(number(r"exact: (\d+) of")), temporary=int(number(r"temporary files left: (\d+)")),
                     duplicates=int(number(r"duplicates: (\d+)")))
    elif line.startswith("chaos-net: undisturbed night"):
        night.update(undisturbedExact=int(number(r"exact (\d+)")))
    elif line.startswith("chaos-net: exit"):
        night.update(exit=int(number(r"exit (\d+)")))
print(json.dumps({"nights": nights}))
PY
        render_figures
    fi
fi
fi

if want aac; then
# Each pipeline, the decoded lengths and the phases go to bench-results/aac.json (performance.md's compressed-repair
# tables and the sentences after them are generated from it).
echo
echo "## Compressed repair: $seconds s, AAC 192 kb/s stereo in .m4a (made by ffmpeg), ratio $ratio, medium quality"
aac="$work/in-${seconds}s.m4a"
[[ -f "$aac" ]] || ffmpeg -nostdin -loglevel error -i "$input" -c:a aac -b:a 192k "$aac"
arows="$work/aac-rows.jsonl"
: > "$arows"
aac_row() {  # aac_row LABEL COMMAND...: measure's line, and its wall time and peak as a JSON row
    measure "$@" || return 1
    read -r w r < <(tail -1 "$work/time.txt")
    printf '{"label": "%s", "wall": %s, "peakMiB": %s}\n' "$1" "$w" "$(awk -v r="$r" 'BEGIN { printf "%.1f", r / 1024 }')" >> "$arows"
}
decoded() { echo $(( $(ffmpeg -nostdin -v error -i "$1" -f f32le -ac 1 - | wc -c) / 4 )); }
printf "%-34s %9s %11s\n" "pipeline" "xRT" "peak MiB"
rm -f "$work/out.m4a"
aac_row "driftfix process (aac in m4a)" "$bin/driftfix" process "$aac" "$work/out.m4a" --ratio "$ratio" -q
one_pass_frames=$(decoded "$work/out.m4a")
rm -f "$work/out.m4a"
aac_row "driftfix process --parallel-encode" "$bin/driftfix" process "$aac" "$work/out.m4a" --ratio "$ratio" --parallel-encode -q
segmented_frames=$(decoded "$work/out.m4a")
target=$(awk -v s="$seconds" -v r="$ratio" 'BEGIN { printf "%.0f", s * 48000 * r }')
echo "   ffmpeg decodes driftfix's outputs to $one_pass_frames and $segmented_frames frames (target: $target)"
rm -f "$work/out.m4a" "$work/ffmpeg.m4a"
# ffmpeg's exact-rate trick, re-encoding AAC; its length is what its resampler and AAC padding make it.
aac_row "ffmpeg asetrate/aresample -c:a aac" ffmpeg -nostdin -loglevel error -i "$aac" \
    -af "asetrate=1000000,aresample=999869,asetrate=48000" -c:a aac -b:a 192k "$work/ffmpeg.m4a"
ffmpeg_frames=$(decoded "$work/ffmpeg.m4a")
echo "   ffmpeg's own output decodes to $ffmpeg_frames frames"
rm -f "$work/ffmpeg.m4a"
echo "time per phase, each run alone on one core:"
"$bin/driftfix-bench" media "$aac" --ratio "$ratio" --output "$work/phases.m4a" | tee "$work/aac-phases.txt"
python3 - "$arows" "$work/aac-phases.txt" "$seconds" "$ratio" "$target" "$one_pass_frames" "$segmented_frames" \
    "$ffmpeg_frames" <<'PY' | python3 scripts/figures.py record aac.json --command "BENCH_SECTIONS=aac scripts/bench.sh"
import json, re, sys
rows, phases, seconds, ratio, target, one_pass, segmented, ffmpeg = sys.argv[1:]
shares = []
for line in open(phases):
    m = re.match(r"^(.+?)\s+([\d.]+) s\s+([\d.]+)%\s+([\d.]+) xRT$", line.strip())
    if m:
        shares.append({"phase": m.group(1), "seconds": float(m.group(2)), "share": float(m.group(3))})
print(json.dumps({"seconds": int(seconds), "ratio": float(ratio), "rows": [json.loads(l) for l in open(rows) if l.strip()],
                  "frames": {"target": int(target), "driftfix": int(one_pass), "parallel": int(segmented),
                             "ffmpeg": int(ffmpeg)},
                  "phases": shares}))
PY
render_figures
fi

if want content; then
# The accuracy table and the speed rows go to bench-results/content.json (docs/measuring-by-sound.md's table and the
# sentences after it are generated from it).
echo
echo "## Content measurement and repair against known truths"
echo "Recording: a close stereo 24-bit microphone on a faulty clock; reference: a distant, reverberant, noisier"
echo "microphone coded as AAC 96 kb/s by ffmpeg. Each pair measured, repaired by content, proved in sync; 'independent"
echo "check': the output against the scene rendered on a perfect clock, by direct correlation (no driftfix code)."
echo
mkdir -p "$work/content"
"$bin/driftfix-bench" content-accuracy --folder "$work/content" --long "$([[ $seconds -ge 3600 ]] && echo true || echo false)" |
    tee "$work/content-accuracy.txt"
echo
echo "## Content measurement speed and memory: one core, \`driftfix measure\` on a pair of ${seconds} s"
printf "%-34s %9s %11s\n" "pair" "xRT" "peak MiB"
rm -f "$work/content/speed-rec.wav" "$work/content/speed-ref.wav" "$work/content/speed-ref.m4a"
"$bin/driftfix-bench" content-pair "$work/content/speed-rec.wav" "$work/content/speed-ref.wav" --seconds "$seconds" \
    --offset 0.3 --drift -20 --seed 31
ffmpeg -nostdin -loglevel error -y -i "$work/content/speed-ref.wav" -c:a aac -b:a 96k "$work/content/speed-ref.m4a"
one=(); command -v taskset >/dev/null && one=(taskset -c 0)
{
    measure "WAV 24-bit stereo vs WAV reference" "${one[@]}" "$bin/driftfix" measure "$work/content/speed-rec.wav" "$work/content/speed-ref.wav" --format json
    measure "WAV 24-bit stereo vs AAC reference" "${one[@]}" "$bin/driftfix" measure "$work/content/speed-rec.wav" "$work/content/speed-ref.m4a" --format json
} | tee "$work/content-speed.txt"
rm -f "$work/content/speed-rec.wav" "$work/content/speed-ref.wav" "$work/content/speed-ref.m4a"
python3 - "$work/content-accuracy.txt" "$work/content-speed.txt" "$seconds" <<'PY' |
import json, sys
table, speed, seconds = sys.argv[1:]
rows = []
for line in open(speed):
    words = line.split()
    if len(words) >= 3:
        rows.append({"label": " ".join(words[:-2]), "realtime": float(words[-2]), "peakMiB": float(words[-1])})
print(json.dumps({"seconds": int(seconds), "table": [l.rstrip("\n") for l in open(table) if l.startswith("|")],
                  "speed": rows}))
PY
    python3 scripts/figures.py record content.json --command "BENCH_SECTIONS=content scripts/bench.sh"
render_figures
fi

if want compare && [[ -n "${BENCH_BASELINE:-}" ]]; then
    echo
    base="$work/baseline"
    rev=$(git rev-parse --short "$BENCH_BASELINE")
    if [[ "$(git -C "$base" rev-parse --short HEAD 2>/dev/null || true)" != "$rev" ]]; then
        git worktree remove --force "$base" 2>/dev/null || rm -rf "$base"
        git worktree add -f --detach "$base" "$BENCH_BASELINE" >/dev/null 2>&1
    fi
    (cd "$base" && swift build -c release --static-swift-stdlib --product driftfix >/dev/null && swift build -c release --static-swift-stdlib --product driftfix-bench >/dev/null)
    make_corpus
    head_rev=$(git rev-parse --short HEAD)
    if [[ -n "$(git status --porcelain --untracked-files=no)" ]]; then head_rev+="+changes"; fi
    echo "## Before/after: $rev (baseline) vs $head_rev, same machine, interleaved, 3 rounds each (median)"
    declare -A rate repair
    for round in 1 2 3; do
        for side in baseline head; do
            if [[ $side == baseline ]]; then b="$base/.build/release"; else b="$bin"; fi
            j="$work/compare-journal.sqlite"
            out=$("$b/driftfix-bench" dispatch --jobs 20000 --workers 2 --driftfix "$b/driftfix" --journal "$j" | tail -1)
            rate[$side]+="$(echo "$out" | sed -E 's/.* ([0-9.]+) jobs\/s.*/\1/') "
            rm -rf "$work/compare-out"
            start=$EPOCHREALTIME
            "$b/driftfix" repair "$corpus" --out "$work/compare-out" --workers 2 >/dev/null 2>&1 || true
            end=$EPOCHREALTIME
            repair[$side]+="$(since "$start" "$end") "
        done
    done
    # shellcheck disable=SC2046  # the numbers on its input, one a word
    median() { stats $(cat) | cut -d' ' -f1; }
    printf "%-48s %12s %12s %8s\n" "measure" "$rev" "$head_rev" "ratio"
    rb=$(echo "${rate[baseline]}" | median); rh=$(echo "${rate[head]}" | median)
    printf "%-48s %12.0f %12.0f %8.2f\n" "dispatch, journalled (jobs/s, higher is better)" "$rb" "$rh" "$(awk -v a="$rb" -v b="$rh" 'BEGIN { print b / a }')"
    tb=$(echo "${repair[baseline]}" | median); th=$(echo "${repair[head]}" | median)
    printf "%-48s %12.2f %12.2f %8.2f\n" "24 x 60 s repair, 2 workers (s, lower is better)" "$tb" "$th" "$(awk -v a="$tb" -v b="$th" 'BEGIN { print b / a }')"
    echo "all rounds: dispatch baseline ${rate[baseline]}| head ${rate[head]}; repair baseline ${repair[baseline]}| head ${repair[head]}"
    rm -rf "$work/compare-out" "$work/compare-journal.sqlite"*
fi
