#!/usr/bin/env bash
# A night on a network that misbehaves: a coordinator and three remote workers, each in its own network namespace,
# joined by veth links and talking TCP with CURVE (keys made with `driftfix keygen`, workers admitted by an allowlist
# folder), each worker seeing the media and the output only through its own mount points and its path map (as
# scripts/multihost.sh sets them up). The same night runs twice over the same media, each into a fresh output folder:
#
#   undisturbed  first, for the wall time to compare with;
#   chaos        with a disruption every 1-3 s (seeded) until the coordinator exits, each on a worker not already
#                disrupted: a partition that heals (the worker's link down for 1-6 s, then up), packet loss or delay
#                (netem loss 100% or delay 300ms for 1-5 s, then removed; on a kernel without netem, 100% loss by a tbf
#                that passes no packet, and no delay), or a SIGKILL of the worker process, which is restarted under the
#                same identity after 0.3-2 s, as a supervisor would.
#
# Each night is then checked without driftfix's word for it: every recording must have exactly one output, its
# length (read from the WAV header here) exactly the target computed from the recording's rate and its sidecar
# reference; no temporary file may be left and no other file may appear. Summary lines (prefix "chaos-net:") go to
# standard output; progress and each disruption to standard error.
#
# usage: scripts/chaos-net.sh [DIR]
#        DIR holds the media, both nights' outputs, reports, journals and logs (made if missing; an earlier run's DIR
#        is reused, any other non-empty folder refused). Default: a temporary folder, removed at the end unless KEEP=1
#        or the run failed.
# env:   DRIFTFIX      the driftfix binary (default .build/release/driftfix, else .build/debug/driftfix)
#        FILES         recordings in the night (default 1000)
#        SEED          seeds the disruptions (bash's RANDOM; default 1)
#        FILE_SECONDS  seconds per recording, an integer >= 4 (default 5; 48 kHz stereo 24-bit WAV)
#        QUALITY       resampler quality (default medium)
#        MAX_ATTEMPTS  leases per job (default 8: every disruption may cost the job it hits one, and 3, the default,
#                      would fail some jobs by design over a long night)
#        TIMEOUT       seconds a night may take before its coordinator is stopped (default 3600)
#        KEEP          1: keep the default DIR
# exit:  0 every recording repaired exactly once and exactly, every disruption healed; 1 otherwise; 2 usage;
#        3 the chaos night ended before any disruption; 77 when network namespaces cannot be made here.
# Needs root (ip netns, tc, mount), sox or ffmpeg (or driftfix-bench beside the binary), and python3. Leaves nothing
# behind: namespaces (with their links and qdiscs), mounts and processes are removed on exit.
set -euo pipefail
# shellcheck source=lib/namespaces.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/namespaces.sh"

here=$(cd "$(dirname "$0")/.." && pwd)
default_bin=$here/.build/release/driftfix
[[ -x $default_bin ]] || default_bin=$here/.build/debug/driftfix
bin=$(realpath "${DRIFTFIX:-$default_bin}")
files=${FILES:-1000}
seed=${SEED:-1}
file_seconds=${FILE_SECONDS:-5}
quality=${QUALITY:-medium}
max_attempts=${MAX_ATTEMPTS:-8}
timeout=${TIMEOUT:-3600}
for value in "$files" "$seed" "$file_seconds" "$max_attempts" "$timeout"; do
    [[ $value =~ ^[0-9]+$ ]] || { echo "chaos-net: FILES, SEED, FILE_SECONDS, MAX_ATTEMPTS and TIMEOUT are integers" >&2; exit 2; }
done
# 300-800 ppm of drift must stay above the 1 ms in-sync tolerance: 4 s at 300 ppm is 1.2 ms.
((files >= 1 && file_seconds >= 4)) || { echo "chaos-net: FILES >= 1 and FILE_SECONDS >= 4" >&2; exit 2; }
[[ -x $bin ]] || { echo "chaos-net: no driftfix binary at $bin (set DRIFTFIX)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "chaos-net: needs python3 (the independent checks)" >&2; exit 2; }

temporary_dir=""
if (($# > 0)); then
    dir=$(realpath -m "$1")
    if [[ -d $dir && -n $(ls -A "$dir") && ! -e $dir/.chaos-net ]]; then
        echo "chaos-net: $dir is not empty and not an earlier run's folder; refused" >&2
        exit 2
    fi
else
    dir=$(mktemp -d /var/tmp/driftfix-chaos-net-XXXXXX)
    temporary_dir=$dir
fi
mkdir -p "$dir"
dir=$(realpath "$dir")   # the report names outputs by their resolved paths
touch "$dir/.chaos-net"
rm -rf --one-file-system "${dir:?}/media" "$dir/undisturbed" "$dir/chaos" "$dir/take.wav"
media=$dir/media

tag="cnx$$"
work=$(mktemp -d "/run/driftfix-chaos-net-XXXXXX")
port=5555
workers=(1 2 3)
declare -A wpid=()     # worker n -> its pid (the driftfix process itself; emptied once it is waited for)
coordinator=""         # the coordinator's pid, emptied once it is waited for (a pid waited for may be reused)
mounts=()
failed=yes             # cleared when the run passed (or was skipped): a failed run's temporary DIR is kept

say() { printf 'chaos-net: %s\n' "$*" >&2; }

cleanup() {
    local pids=("$coordinator" "${wpid[@]}") pid
    for pid in "${pids[@]}"; do if [[ -n $pid ]]; then kill -TERM "$pid" 2>/dev/null || true; fi; done
    sleep 0.5
    for pid in "${pids[@]}"; do if [[ -n $pid ]]; then kill -KILL "$pid" 2>/dev/null || true; fi; done
    for mount in "${mounts[@]}"; do umount "$mount" 2>/dev/null || true; done
    # Deleting a namespace deletes its veth ends and their qdiscs with it.
    ns_remove "$tag" 1 2 3
    # The views are bind mounts of the media and output: never delete through one that is still mounted.
    for mount in "${mounts[@]}"; do
        if mountpoint -q "$mount"; then
            echo "chaos-net: $mount is still mounted; leaving $work and $dir in place" >&2
            return
        fi
    done
    rm -rf --one-file-system "$work"
    if [[ -n $temporary_dir ]]; then
        if [[ -z $failed && ${KEEP:-0} != 1 ]]; then
            rm -rf --one-file-system "$temporary_dir"
        else
            echo "chaos-net: media, outputs and logs kept in $temporary_dir" >&2
        fi
    fi
}
trap cleanup EXIT

# One point-to-point link per worker: 10.202.N.1 (coordinator side, $tag-cN, where the disruptions are made)
# <-> 10.202.N.2 (worker N).
if ! ns_star "$tag" 202 "${workers[@]}"; then
    echo "chaos-net: cannot create network namespaces here (needs root and CAP_SYS_ADMIN); skipped" >&2
    failed=""
    exit 77
fi

# Keys: the coordinator's pair; one per worker, admitted through the allowlist folder.
keys="$work/keys"
ns_keys "$bin" "$keys" "${workers[@]}"

# Media: one recording, linked under FILES names in 10 device folders, each beside a sidecar reference 300-800 ppm
# longer or shorter than it (frames at 48 kHz), so that every pair is planned as a clock-drift repair and every
# output has a target of its own (an output written under another recording's name would be caught).
rate=48000
frames=$((file_seconds * rate))
if [[ -x $(dirname "$bin")/driftfix-bench ]]; then
    "$(dirname "$bin")/driftfix-bench" generate "$dir/take.wav" --seconds "$file_seconds" >/dev/null
elif command -v sox >/dev/null; then
    sox -q -n -r "$rate" -c 2 -b 24 "$dir/take.wav" synth "$file_seconds" sine 220 sine 330
elif command -v ffmpeg >/dev/null; then
    ffmpeg -nostdin -v error -y -f lavfi -i "sine=frequency=220:sample_rate=$rate:duration=$file_seconds" -ac 2 \
        -c:a pcm_s24le "$dir/take.wav"
else
    echo "chaos-net: needs driftfix-bench beside the binary, sox or ffmpeg to make the media" >&2
    exit 2
fi
for ((i = 0; i < files; i++)); do
    folder=$(printf '%s/d%02d' "$media" $((i % 10)))
    name=$(printf 'take%04d' "$i")
    mkdir -p "$folder"
    ln "$dir/take.wav" "$folder/$name.wav" 2>/dev/null || cp "$dir/take.wav" "$folder/$name.wav"
    offset=$((frames * (300 + i * 37 % 501) / 1000000))
    ((i % 2 == 0)) || offset=$((-offset))
    echo "$((frames + offset))@$rate" >"$folder/$name.duration"
done
say "$files recordings of $file_seconds s in $media; seed $seed; driftfix $bin"

# The night's folders, set by start_night: its output root, and the views' root.
out=""
night_dir=""

# Starts worker n in its own network namespace and its own mount namespace, where the coordinator's paths are covered
# by empty file systems, so only the path map leads to the files. Sets wpid[n]: the child is this shell's (wait works).
start_worker() {  # n
    local n=$1
    ns_exec_worker "$tag" "$n" "$media" "$out" "$bin" worker --connect "tcp://10.202.$n.1:$port" --identity "w$n" --concurrency 1 --heartbeat 0.5 \
        --max-backoff 1 --curve-secret "$keys/w$n.key" --server-key "$keys/coordinator.pub" \
        --config "$work/$label-w$n.yaml" >>"$night_dir/w$n.log" 2>&1 &
    wpid[$n]=$!
}

now_ms() { now=$((${EPOCHREALTIME/[.,]/} / 1000)); }   # sets now (no subshell: keeps RANDOM's sequence)
rand() { r=$(($1 + RANDOM % ($2 - $1 + 1))); }      # sets r, uniform in [$1, $2]
seconds_of() { printf '%d.%d' $(($1 / 1000)) $(($1 % 1000 / 100)); }
alive() { [[ -n ${1:-} ]] && kill -0 "$1" 2>/dev/null; }

# netem is a kernel module (sch_netem) some kernels lack. Without it, the loss is made by a token bucket too small for
# any packet (tbf drops every packet larger than its bucket: 100% loss on that device, as netem's), and a delay cannot
# be made (tbf only delays what exceeds its rate): both draws become the loss, and the summary says so.
netem_available=yes
if tc -n "$tag-c" qdisc add dev lo root netem delay 1ms 2>/dev/null; then
    tc -n "$tag-c" qdisc del dev lo root
else
    netem_available=no
    say "this kernel has no netem (sch_netem): 100% loss is made with tbf instead, and no delay"
fi

# The chaos, one disruption at a time per worker; each is healed by the loop when its time is up. A command that fails
# is said and its disruption not counted; a heal that fails is counted and makes the night fail.
declare -A busy_until=() busy_kind=()
kills=0 partitions=0 netems=0 losses=0 delays=0 heals=0 heal_failures=0 restarts_skipped=0 idle_ticks=0
elapsed() { seconds_of $((now - night_start)); }
heal() {  # n
    local n=$1 done=yes
    case ${busy_kind[$n]} in
        partition) ip -n "$tag-c" link set "$tag-c$n" up || done=no ;;
        netem) tc -n "$tag-c" qdisc del dev "$tag-c$n" root || done=no ;;
        kill) start_worker "$n" ;;
    esac
    if [[ $done == yes ]]; then
        say "+$(elapsed) s w$n: ${busy_kind[$n]} healed"
    else
        say "+$(elapsed) s w$n: ${busy_kind[$n]} NOT healed"
        heal_failures=$((heal_failures + 1))
    fi
    heals=$((heals + 1))
    busy_kind[$n]=""
}
disrupt() {
    local free=() n
    for n in "${workers[@]}"; do [[ -z ${busy_kind[$n]:-} ]] && free+=("$n"); done
    if ((${#free[@]} == 0)); then
        idle_ticks=$((idle_ticks + 1))
        return
    fi
    rand 0 $((${#free[@]} - 1))
    n=${free[$r]}
    rand 0 2
    case $r in
        0)
            rand 1000 6000
            ip -n "$tag-c" link set "$tag-c$n" down || { say "+$(elapsed) s w$n: could not take the link down"; return; }
            busy_kind[$n]=partition
            partitions=$((partitions + 1))
            say "+$(elapsed) s w$n: partition (link down) for $(seconds_of "$r") s"
            ;;
        1)
            # On the coordinator's end of the link: what it sends to the worker (its replies are then never acked).
            local shape=(netem loss 100%) delay=no
            rand 0 1
            if ((r == 1)); then delay=yes; shape=(netem delay 300ms); fi
            [[ $netem_available == yes ]] || { delay=no; shape=(tbf rate 8bit burst 1 limit 1); }
            rand 1000 5000
            tc -n "$tag-c" qdisc add dev "$tag-c$n" root "${shape[@]}" \
                || { say "+$(elapsed) s w$n: could not add qdisc ${shape[*]}"; return; }
            busy_kind[$n]=netem
            netems=$((netems + 1))
            if [[ $delay == yes ]]; then delays=$((delays + 1)); else losses=$((losses + 1)); fi
            say "+$(elapsed) s w$n: ${shape[*]} for $(seconds_of "$r") s"
            ;;
        2)
            if ! alive "${wpid[$n]}"; then
                say "+$(elapsed) s w$n: not running (it left by itself); not killed"
                return
            fi
            kill -KILL "${wpid[$n]}"
            wait "${wpid[$n]}" 2>/dev/null || true
            wpid[$n]=""
            rand 300 2000
            busy_kind[$n]="kill"
            kills=$((kills + 1))
            say "+$(elapsed) s w$n: SIGKILL; restarted in $(seconds_of "$r") s"
            ;;
    esac
    busy_until[$n]=$((now + r))
}

# One night: views and path maps for the workers, the coordinator and the workers, disruptions if asked for; sets
# status (the coordinator's exit code) and wall_ms.
run_night() {  # label chaos(0|1)
    label=$1
    local chaos=$2 n next deadline signal=TERM
    night_dir=$dir/$label
    out=$night_dir/out
    mkdir -p "$out" "$night_dir/report"
    for n in "${workers[@]}"; do
        ns_worker_view "$work/$label-w$n-view" "$work/$label-w$n.yaml" "$media" "$out"
    done
    say "$label night: coordinator and 3 workers starting"
    now_ms
    night_start=$now
    # `ip netns exec` replaces itself with the command, so $! is the coordinator itself.
    ip netns exec "$tag-c" "$bin" repair "$media" --out "$out" --report "$night_dir/report" \
        --journal "$night_dir/journal.sqlite" --quality "$quality" --max-attempts "$max_attempts" \
        --bind "tcp://0.0.0.0:$port" --workers 0 --curve-secret "$keys/coordinator.key" --allow "$keys/allow" \
        --heartbeat 0.5 --idle-timeout 60 >"$night_dir/coordinator.out" 2>"$night_dir/coordinator.err" &
    coordinator=$!
    for n in "${workers[@]}"; do start_worker "$n"; done

    RANDOM=$seed
    rand 1000 3000
    next=$((now + r))
    deadline=$((now + timeout * 1000))
    while alive "$coordinator"; do
        now_ms
        if ((now > deadline)); then
            # SIGTERM: it stops dispatch and writes its report; if that hangs too, SIGKILL a minute later.
            say "$label night: past TIMEOUT ($timeout s); stopping the coordinator"
            kill "-$signal" "$coordinator" 2>/dev/null || true
            signal=KILL
            deadline=$((now + 60000))
        fi
        if ((chaos)); then
            for n in "${workers[@]}"; do
                if [[ -n ${busy_kind[$n]:-} ]] && ((now >= busy_until[$n])); then heal "$n"; fi
            done
            if ((now >= next)); then
                disrupt
                rand 1000 3000
                next=$((now + r))
            fi
        fi
        sleep 0.1
    done
    status=0
    wait "$coordinator" || status=$?
    coordinator=""
    now_ms
    wall_ms=$((now - night_start))
    say "$label night: coordinator exit $status after $(seconds_of "$wall_ms") s"

    # The night is over: what is still disrupted is healed now (a killed worker is not restarted: nothing to join).
    for n in "${workers[@]}"; do
        if [[ ${busy_kind[$n]:-} == kill ]]; then
            busy_kind[$n]=""
            heals=$((heals + 1))
            restarts_skipped=$((restarts_skipped + 1))
        elif [[ -n ${busy_kind[$n]:-} ]]; then
            heal "$n"
        fi
    done
    # Workers leave when their coordinator's run ends; one that was cut off at the end is stopped.
    for n in "${workers[@]}"; do
        for _ in $(seq 1 100); do alive "${wpid[$n]}" || break; sleep 0.1; done
        if alive "${wpid[$n]}"; then
            say "$label night: w$n still running 10 s after the coordinator; stopped"
            kill -TERM "${wpid[$n]}" 2>/dev/null || true
            for _ in $(seq 1 50); do alive "${wpid[$n]}" || break; sleep 0.1; done
            kill -KILL "${wpid[$n]}" 2>/dev/null || true
        fi
        wait "${wpid[$n]}" 2>/dev/null || true
        wpid[$n]=""
    done
    for n in "${workers[@]}"; do
        umount "$work/$label-w$n-view/media" "$work/$label-w$n-view/out"
    done
}

# Checks a night without driftfix's word: every recording's output exists once and has exactly its target's frames,
# read from the WAV header here; the target is the sidecar's duration at the recording's rate, rounded half up (as
# docs/guide.md defines it). Also counts the report's outcomes and compares its targets with these.
# Prints: files repaired failed unfinished other exact temporary duplicates report_targets_agree
check_night() {  # night_dir
    python3 - "$media" "$1/out" "$1/report/report.json" <<'PY'
import json, os, struct, sys
from fractions import Fraction

media, out, report_path = sys.argv[1:4]

def wav(path):
    """(rate, frames) from a RIFF/WAVE file's fmt and data chunks (WAVE_FORMAT_EXTENSIBLE included)."""
    with open(path, "rb") as f:
        head = f.read(12)
        if len(head) < 12 or head[:4] != b"RIFF" or head[8:12] != b"WAVE":
            raise ValueError("not a RIFF WAVE file")
        size = os.fstat(f.fileno()).st_size
        rate = align = None
        while True:
            chunk = f.read(8)
            if len(chunk) < 8:
                raise ValueError("no data chunk")
            cid, length = chunk[:4], struct.unpack("<I", chunk[4:])[0]
            if cid == b"fmt ":
                fmt = f.read(length)
                _, rate, _, align = struct.unpack("<HIIH", fmt[2:14])
                f.seek(length & 1, 1)
            elif cid == b"data":
                if align is None or align == 0 or length % align or f.tell() + length > size:
                    raise ValueError("bad data chunk")
                return rate, length // align
            else:
                f.seek(length + (length & 1), 1)

def target(recording):
    rate, _ = wav(recording)
    text = open(recording[:-4] + ".duration").read().split("#")[0].strip()
    if "@" in text:
        count, at = text.split("@")
        seconds = Fraction(int(count), int(at))
    else:
        seconds = Fraction(text)
    scaled = seconds * rate
    return (scaled.numerator * 2 + scaled.denominator) // (2 * scaled.denominator)  # round half up

expected = {}
for folder, _, names in os.walk(media):
    for name in names:
        if name.endswith(".wav"):
            recording = os.path.join(folder, name)
            expected[os.path.join(out, os.path.relpath(recording, media))] = target(recording)

exact = temporary = duplicates = 0
for folder, dirs, names in os.walk(out):
    if folder == out and ".driftfix" in dirs:
        dirs.remove(".driftfix")
    for name in names:
        path = os.path.join(folder, name)
        if name.startswith(".") and name.endswith(".tmp"):
            temporary += 1
        elif path not in expected:
            duplicates += 1
        else:
            try:
                exact += wav(path)[1] == expected[path]
            except (OSError, ValueError):
                pass

outcomes = {}
agree = 0
try:
    pairs = json.load(open(report_path))["pairs"]
except (OSError, ValueError, KeyError):
    pairs = []
for pair in pairs:
    outcomes[pair.get("outcome")] = outcomes.get(pair.get("outcome"), 0) + 1
    output = pair.get("output")
    agree += output in expected and pair.get("targetFrames") == expected[output]
repaired, failed, unfinished = (outcomes.pop(k, 0) for k in ("repaired", "failed", "unfinished"))
# Recordings the report does not mention at all are unfinished too.
unfinished += max(0, len(expected) - len(pairs))
print(len(expected), repaired, failed, unfinished, sum(outcomes.values()), exact, temporary, duplicates, agree)
PY
}

run_night undisturbed 0
base_status=$status base_wall=$wall_ms
line=$(check_night "$dir/undisturbed") || { say "the undisturbed night's check failed"; exit 1; }
read -r b_files b_repaired b_failed b_unfinished b_other b_exact b_temporary b_duplicates b_agree <<<"$line"

run_night chaos 1
chaos_status=$status chaos_wall=$wall_ms
line=$(check_night "$dir/chaos") || { say "the chaos night's check failed"; exit 1; }
read -r c_files c_repaired c_failed c_unfinished c_other c_exact c_temporary c_duplicates c_agree <<<"$line"

# Every disruption healed: the links up, no qdisc of ours left (the namespaces are deleted on exit regardless).
healed=yes
for n in "${workers[@]}"; do
    [[ -n $(ip -o -n "$tag-c" link show dev "$tag-c$n" up) ]] || healed="no: $tag-c$n is down"
    if tc -n "$tag-c" qdisc show dev "$tag-c$n" | grep -qE "netem|tbf"; then healed="no: a qdisc left on $tag-c$n"; fi
done
disruptions=$((kills + partitions + netems))
((heals == disruptions && heal_failures == 0)) || healed="no: $((heals - heal_failures)) of $disruptions healed"

count() { grep -cE "$1" "$dir/chaos/coordinator.err" || true; }
tally=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1])).get("disruptions") or {}
print(d.get("workersLost", 0), d.get("workersRestarted", 0), d.get("jobsRequeued", 0))' "$dir/chaos/report/report.json" \
    2>/dev/null || echo "? ? ?")
read -r t_lost t_restarted t_requeued <<<"$tally"

echo "chaos-net: seed $seed; $files recordings of $file_seconds s; coordinator and 3 workers in network namespaces (CURVE)"
echo "chaos-net: files $c_files repaired $c_repaired failed $c_failed unfinished $c_unfinished$( ((c_other == 0)) || echo " other $c_other")"
netem_note="loss $losses, delay $delays"
[[ $netem_available == yes ]] || netem_note="all loss 100% by tbf: this kernel has no sch_netem"
echo "chaos-net: kills $kills partitions $partitions netem $netems ($([[ $healed == yes ]] && echo "all healed" || echo "NOT healed: ${healed#no: }"); netem: $netem_note; restarts not made after the night's end $restarts_skipped; turns with every worker already disrupted $idle_ticks)"
echo "chaos-net: requeues $(count 'job [0-9]+ requeued') late-results-discarded $(count 'late result for job') workers-lost $(count 'worker [^ ]+ lost;') (the coordinator's tally: workers lost $t_lost, replaced $t_restarted, jobs requeued $t_requeued)"
echo "chaos-net: wall undisturbed $(seconds_of "$base_wall") s, chaos $(seconds_of "$chaos_wall") s ($(awk -v a="$base_wall" -v b="$chaos_wall" 'BEGIN { printf "%.2f", b / a }')x)"
echo "chaos-net: outputs exact: $c_exact of $c_files; temporary files left: $c_temporary; duplicates: $c_duplicates; report targets agree: $c_agree"
echo "chaos-net: undisturbed night: repaired $b_repaired of $b_files, failed $b_failed, unfinished $b_unfinished, other $b_other, exact $b_exact, temporary files left $b_temporary, duplicates $b_duplicates, report targets agree $b_agree"
echo "chaos-net: coordinator exit undisturbed $base_status, chaos $chaos_status"

problems=()
for night in b c; do
    declare -n n_files=${night}_files n_repaired=${night}_repaired n_exact=${night}_exact n_temp=${night}_temporary \
        n_dup=${night}_duplicates n_agree=${night}_agree
    ((n_repaired == n_files && n_exact == n_files && n_temp == 0 && n_dup == 0 && n_agree == n_files)) \
        || problems+=("$([[ $night == b ]] && echo undisturbed || echo chaos) night lost, doubled, left or inexact")
    unset -n n_files n_repaired n_exact n_temp n_dup n_agree
done
((base_status == 0 && chaos_status == 0)) || problems+=("a coordinator exited non-zero")
[[ $healed == yes ]] || problems+=("disruptions not healed")
if ((${#problems[@]} > 0)); then
    say "FAILED: $(IFS=';'; echo "${problems[*]}"); logs in $dir"
    exit 1
fi
if ((disruptions == 0)); then
    say "the chaos night ended before its first disruption (more FILES?)"
    exit 3
fi
failed=""
exit 0
