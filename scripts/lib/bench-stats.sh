# shellcheck shell=bash
# The statistics scripts/bench.sh reports, each written once: the order statistics of a list of numbers, the seconds
# between two clock readings, and a command's wall time and peak memory over several runs. Sourced by bench.sh, whose
# $work folder holds time(1)'s output.

# stats NUMBER...: "median min max"; of an even count the lower of the two middle values.
stats() {
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)], v[1], v[NR] }'
}

# since START [END]: the seconds from START to END (now by default), both readings of $EPOCHREALTIME.
since() {
    awk -v a="$1" -v b="${2:-$EPOCHREALTIME}" 'BEGIN { printf "%.4f", b - a }'
}

# runs N COMMAND...: "median min max peakMiB" of N runs: wall seconds by the shell's microsecond clock (time(1)
# counts hundredths, a tenth of a 0.1 s copy) and the largest peak RSS. A failed run prints its error and fails the
# call; with RUNS_ANY_EXIT=1 a command's exit status does not matter (a scan that reports unreadable files).
runs() {
    local n=$1 walls=() rss=0 r start dir=${work:?runs: the work folder of bench.sh is not set}
    shift
    for ((k = 0; k < n; k++)); do
        start=$EPOCHREALTIME
        if ! /usr/bin/time -o "$dir/time.txt" -f "%M" "$@" >/dev/null 2>"$dir/stderr.txt"; then
            if [[ ${RUNS_ANY_EXIT:-0} != 1 ]]; then cat "$dir/stderr.txt" >&2; return 1; fi
        fi
        walls+=("$(since "$start")")
        r=$(tail -1 "$dir/time.txt")
        if ((r > rss)); then rss=$r; fi
    done
    echo "$(stats "${walls[@]}") $((rss / 1024))"
}
