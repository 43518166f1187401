#!/usr/bin/env bash
# A night on sample media, with nothing but the installed driftfix (the package ships this as
# /usr/share/driftfix/demo.sh; from source, scripts/demo.sh does more).
#
#   /usr/share/driftfix/demo.sh [DIR]     makes DIR/media (default: ./driftfix-demo), repairs it into DIR/repaired
#                                         with two local workers, writes DIR/report, and checks every output's length
#
# The media: three recorders, two takes each, 10 s of 48 kHz 16-bit noise per take; beside each a sidecar
# (TAKE.duration, "FRAMES@RATE") giving the length of the picture it was recorded with. Recorder A runs 150 ppm slow,
# B 220 ppm fast, C is in sync.
set -euo pipefail
driftfix=${DRIFTFIX:-driftfix}
dir=${1:-driftfix-demo}
rate=48000
frames=$((10 * rate))
rm -rf "${dir:?}/media" "${dir:?}/repaired" "${dir:?}/report"

le32() { printf "\\x$(printf %02x $(($1 & 255)))\\x$(printf %02x $((($1 >> 8) & 255)))\\x$(printf %02x $((($1 >> 16) & 255)))\\x$(printf %02x $((($1 >> 24) & 255)))"; }
le16() { printf "\\x$(printf %02x $(($1 & 255)))\\x$(printf %02x $((($1 >> 8) & 255)))"; }
wave() {  # wave PATH FRAMES: mono 16-bit PCM noise
    local bytes=$(($2 * 2))
    {
        printf 'RIFF'; le32 $((36 + bytes)); printf 'WAVEfmt '; le32 16; le16 1; le16 1; le32 "$rate"; le32 $((rate * 2))
        le16 2; le16 16; printf 'data'; le32 "$bytes"
        head -c "$bytes" /dev/urandom
    } >"$1"
}

declare -A ppm=([recorderA]=-150 [recorderB]=220 [recorderC]=0)
for device in recorderA recorderB recorderC; do
    mkdir -p "$dir/media/$device"
    for take in 1 2; do
        wave "$dir/media/$device/take$take.wav" "$frames"
        # The picture's length: what the recording would hold on a perfect clock.
        reference=$(( (frames * 1000000 + (1000000 + ${ppm[$device]}) / 2) / (1000000 + ${ppm[$device]}) ))
        echo "$reference@$rate" >"$dir/media/$device/take$take.duration"
    done
done
echo "== sample media in $dir/media: 3 recorders x 2 takes (A 150 ppm slow, B 220 ppm fast, C in sync)"

echo "== driftfix scan"
"$driftfix" scan "$dir/media"
echo "== driftfix repair --workers 2"
status=0
"$driftfix" repair "$dir/media" --out "$dir/repaired" --workers 2 --report "$dir/report" || status=$?
echo "== every output has exactly its reference's length"
for device in recorderA recorderB; do
    for take in 1 2; do
        expected=$(cut -d@ -f1 "$dir/media/$device/take$take.duration")
        "$driftfix" verify "$dir/repaired/$device/take$take.wav" --frames "$expected"
    done
done
echo "== reports in $dir/report (report.html, report.json, report.csv)"
exit "$status"
