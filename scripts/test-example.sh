#!/usr/bin/env bash
# The DriftKit example service (Examples/RepairService, a package that depends on driftfix by path) built and run
# against real requests on loopback: a recording 131 ppm slow and started late, uploaded with its reference, must come
# back measured by its sound and repaired to exactly the reference's length. Run by scripts/test.sh (full tier).
set -euo pipefail
cd "$(dirname "$0")/.."
example=Examples/RepairService
# Once more on a failure, planned afresh: SwiftPM's cached build plan of a path dependency can still name a source file
# the dependency has since deleted ("missing inputs"), or miss one it has since added (seen once with a new DriftDSP
# file: "cannot find StretchInput in scope" twice in a row, then built at a third try). The plan, not the objects, is
# thrown away before the second try; a real compile error fails twice.
if ! swift build --package-path "$example"; then
    rm -f "$example/.build/debug.yaml" "$example/.build/debug/description.json"
    swift build --package-path "$example"
fi
service=$(swift build --package-path "$example" --show-bin-path)/RepairService
# The example depends on driftfix with `traits: []`: DriftKit without its LiveMetrics trait links neither DriftMetrics
# nor swift-prometheus (their Swift symbols are mangled with the module's name).
# nm's own failure (none installed, an unreadable binary) stops the script rather than reading as "not linked".
symbols=$(nm "$service")
if grep -q '12DriftMetrics\|10Prometheus' <<<"$symbols"; then
    echo "test-example: DriftKit built without LiveMetrics still links DriftMetrics or swift-prometheus"
    exit 1
fi

work=$(mktemp -d)
pid=
cleanup() {
    [[ -n "$pid" ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

# The reference: 30 s of bursts of noise, each its own length, level and gap (sound with an envelope to measure, as
# speech has), written by Python's standard library; the recording: the same sound from 0.5 s in, on a clock 131 ppm
# slow (sox's speed: a shorter file, the sound ahead), 24-bit.
python3 - "$work/reference.wav" <<'PY'
import random, struct, sys, wave
rate, seconds = 48000, 30
rng = random.Random(68)
samples = []
while len(samples) < rate * seconds:
    burst, gap, level = rng.randint(2400, 19200), rng.randint(1200, 14400), rng.uniform(0.1, 0.45)
    samples += [int(32767 * level * rng.uniform(-1, 1)) for _ in range(burst)] + [0] * gap
with wave.open(sys.argv[1], "wb") as out:
    out.setnchannels(1)
    out.setsampwidth(2)
    out.setframerate(rate)
    out.writeframes(struct.pack("<%dh" % (rate * seconds), *samples[: rate * seconds]))
PY
sox "$work/reference.wav" -b 24 "$work/recording.wav" trim 0.5 speed 1.000131
expected=$(soxi -s "$work/reference.wav")

"$service" --port 0 --work-folder "$work/service" >"$work/service.log" 2>&1 &
pid=$!
port=
for _ in $(seq 1 100); do
    port=$(sed -n 's/^RepairService listening on \([0-9]*\),.*/\1/p' "$work/service.log")
    [[ -n "$port" ]] && break
    kill -0 "$pid" || { cat "$work/service.log"; exit 1; }
    sleep 0.1
done
[[ -n "$port" ]] || { echo "test-example: the service did not start"; cat "$work/service.log"; exit 1; }
url="http://127.0.0.1:$port"

curl -sS --fail-with-body -F "recording=@$work/recording.wav" -F "reference=@$work/reference.wav" "$url/repair" \
    >"$work/report.json"
python3 - "$work/report.json" "$expected" <<'PY'
import json, sys
report, expected = json.load(open(sys.argv[1])), int(sys.argv[2])
assert report["frames"]["output"] == expected, f"output {report['frames']['output']} frames, reference {expected}"
drift = report["drift"]
assert drift["measured"], f"the sound was not measured: {drift['reason']}"
assert abs(drift["driftPPM"] - -131) < 5, f"drift {drift['driftPPM']} ppm, the truth -131"
print(f"test-example: repaired to {expected} frames; the sound measured {drift['driftPPM']:.1f} ppm "
      f"(truth -131), offset {drift['offsetMs']:.1f} ms")
PY
output=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["output"])' "$work/report.json")
curl -sS --fail-with-body -o "$work/repaired.wav" "$url$output"
found=$(soxi -s "$work/repaired.wav")
[[ "$found" == "$expected" ]] || { echo "test-example: fetched $found frames, expected $expected"; exit 1; }
[[ "$(soxi -r "$work/repaired.wav")" == 48000 && "$(soxi -b "$work/repaired.wav")" == 24 ]] \
    || { echo "test-example: the repaired file's format changed"; soxi "$work/repaired.wav"; exit 1; }

# A request without its reference is a 400, a recording that is no audio a 422 naming it; the service goes on.
status=$(curl -sS -o "$work/err1" -w '%{http_code}' -F "recording=@$work/recording.wav" "$url/repair")
[[ "$status" == 400 ]] || { echo "test-example: no reference gave HTTP $status"; cat "$work/err1"; exit 1; }
printf 'RIFF....WAVEnot audio' >"$work/bad.wav"
status=$(curl -sS -o "$work/err2" -w '%{http_code}' -F "recording=@$work/bad.wav" \
    -F "reference=@$work/reference.wav" "$url/repair")
[[ "$status" == 422 ]] && grep -q '^{.*recording' <(tr -d '\n' <"$work/err2") \
    || { echo "test-example: a broken recording gave HTTP $status"; cat "$work/err2"; exit 1; }
status=$(curl -sS -o /dev/null -w '%{http_code}' "$url$output")
[[ "$status" == 200 ]] || { echo "test-example: the service stopped answering ($status)"; exit 1; }
echo "test-example: the example service answered an upload with a file of exactly the reference's length"
