#!/usr/bin/env bash
# The built-in demo: builds driftfix, makes a few drifted sample recordings with sox and ffmpeg (independent tools),
# repairs each to its reference's exact length, and verifies the results by reopening (or decoding) them.
#
# It shows: folder scanning with a QA drift report (`scan`), the fleet repair of a tree by a coordinator and local
# worker processes over ZeroMQ (`repair`), verification (`verify`), one-file editing (`process`), compressed
# recordings (an AAC .m4a beside its .mp4, and a phone video whose own audio track drifts, its picture copied), and
# measurement by the sound: a recorder that started late and one that dropped buffers, each beside a camera whose
# own microphone heard the same scene, measured (`measure`), repaired by what was measured, and proved in sync; a
# shoot whose clips and recorders are paired by their sound alone and cut in sync (`sync`); and a
# fleet of recorders over two nights, one starting to drift, reported per device and ending with its alert.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
echo "== building driftfix (release)"
swift build -c release --static-swift-stdlib --product driftfix 2>&1 | tail -1
swift build -c release --static-swift-stdlib --product driftfix-bench 2>&1 | tail -1
bin=.build/release/driftfix
scenes=.build/release/driftfix-bench

out=${DEMO_DIR:-demo-output}
rm -rf "$out"
mkdir -p "$out/media/camA" "$out/media/camB" "$out/media/stage" "$out/media/handheld" "$out/media/phone" "$out/repaired"

# Each take: a reference (the camera's own audio track, whose clock matches the picture) and a recording from a
# separate recorder whose clock drifted. Lengths are given in samples, so the drift is exact.
make_take() {  # folder name rate ref_frames rec_frames description
    local folder=$1 name=$2 rate=$3 ref=$4 rec=$5
    sox -q -n -r "$rate" -c 1 -b 16 "$out/media/$folder/${name}_ref.wav" synth "${ref}s" sine 1000 vol 0.3
    sox -q -n -r "$rate" -c 2 -b 24 "$out/media/$folder/$name.wav" synth "${rec}s" \
        sine 440 sine 660 vol 0.5 fade t 0.01 "${rec}s" 0.01
    printf "   %-14s %s\n" "$folder/$name" "$6"
}
echo "== making sample media in $out/media"
make_take camA take01 48000 2880000 2879623 "60 s reference; recorder clock 131 ppm slow (sound leads by 7.9 ms)"
make_take camA take02 48000 17280000 17282264 "6 min reference; recorder clock 131 ppm fast (sound lags by 47 ms)"
make_take camB take03 48000 1441440 1440000 "30.03 s reference (NTSC 1000/1001 pull-down); recording 30.00 s"
make_take stage take04 48000 480000 441000 "10 s reference; 44.1 kHz audio labelled 48 kHz (8.1% short)"
make_take handheld take05 48000 960000 957600 "20 s reference; a recorder that dropped 50 ms of buffers (pitch is right)"
# What a production recorder writes besides the sound: iXML (scene, take, tape, the tracks' names) and markers.
"$scenes" slate "$out/media/camA/take01.wav" --scene 4 --take 2 --track BOOM --track "LAV 1" \
    --marker "12.5:clap" --marker "41.25:false start"
printf "   %-14s %s\n" "" "take01 slated as a recorder writes it: iXML scene 4, take 2, tracks BOOM and LAV 1, two markers"
# What fleets record: a screen recorder's microphone track as AAC in .m4a beside its .mp4 (made by ffmpeg), and a
# phone video whose own AAC track came out 120 ms short of its picture (a pair by itself).
ffmpeg -v error -y -f lavfi -i "testsrc=size=320x240:rate=30:duration=12" -c:v libx264 -preset ultrafast -pix_fmt yuv420p \
    "$out/media/phone/screen06.mp4"
ffmpeg -v error -y -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=11.998" -ac 2 -c:a aac -b:a 128k \
    "$out/media/phone/screen06.m4a"
printf "   %-14s %s\n" "phone/screen06" "12 s screen capture (.mp4); its microphone track (.m4a, AAC) 2 ms short: clock 167 ppm slow"
ffmpeg -v error -y -f lavfi -i "testsrc=size=320x240:rate=30:duration=10" -f lavfi -i "sine=frequency=330:sample_rate=48000:duration=9.88" \
    -map 0:v -map 1:a -c:v libx264 -preset ultrafast -pix_fmt yuv420p -c:a aac -b:a 128k -metadata title="Site visit" \
    -movflags +faststart "$out/media/phone/clip07.mp4"
printf "   %-14s %s\n" "phone/clip07" "10 s phone video whose own AAC track is 120 ms short of the picture"

# The configuration says which recorders drop buffers: their recordings are stretched (pitch kept), not resampled.
cat > "$out/driftfix.yaml" <<'YAML'
scan:
  patterns:                 # the demo's references are the cameras' own audio tracks, saved as NAME_ref.wav
    - recording: "{stem}.wav"
      reference: "{stem}_ref.wav"
repair:
  method: resample
  quality: medium
  rules:
    - match: "**/handheld/**"
      method: stretch
      reason: "drops buffers under load: pitch is right, length is not"
YAML
status=0
echo "== scanning: pairs, drift, likely cause and plan (headers only; nothing is touched)"
"$bin" scan "$out/media" --config "$out/driftfix.yaml" --format table --report "$out/report" || true
echo "   QA report: $out/report/report.html (also report.json, report.csv)"

echo "== repairing the whole tree: a coordinator and $(nproc) local worker processes over ZeroMQ (ipc://)"
"$bin" repair "$out/media" --out "$out/repaired" --config "$out/driftfix.yaml" --report "$out/repair-report" || status=1

echo "== verifying every repaired file against its reference by reopening it"
for rec in "$out"/media/*/take0?.wav; do
    rel=${rec#"$out/media/"}
    "$bin" verify "$out/repaired/$rel" --match "${rec%.wav}_ref.wav" || status=1
done

# Every chunk the recorder wrote went with the sound: read by wavinfo (a reader of every WAVE metadata chunk; its venv
# is made by scripts/install-deps.sh), the markers moved with the 131 ppm correction.
wavinfo_bin="${DRIFTFIX_WAVINFO:-$(pwd)/.build-otio/bin/wavinfo}"
slate_line() {  # file: scene, take, tracks, markers (frame and label) and the bext start, as wavinfo reads them
    "$wavinfo_bin" "$1" | python3 -c '
import json, sys
s = json.load(sys.stdin)["scopes"]
x, cues = s.get("ixml") or {}, s.get("cues") or {}
tracks = ", ".join(t["name"] for t in x.get("track_list", []))
marks = "; ".join("%s at frame %s" % (c.get("label"), c.get("frame")) for c in cues.values())
start = (s.get("bext") or {}).get("time_reference")
print("scene %s, take %s, tape %s, tracks %s; markers: %s%s" % (x.get("scene"), x.get("take"), x.get("tape"), tracks,
      marks or "none", "" if start is None else "; bext start %s samples" % start))'
}
if [[ -x "$wavinfo_bin" ]]; then
    echo "== the recorder's chunks went with its sound (read back by wavinfo):"
    echo "   before: $(slate_line "$out/media/camA/take01.wav")"
    echo "   after:  $(slate_line "$out/repaired/camA/take01.wav")"
    grep -q "scene 4, take 2, tape DAY04, tracks BOOM, LAV 1; markers: clap at frame 600079" \
        <<<"$(slate_line "$out/repaired/camA/take01.wav")" || status=1
fi

echo "== the phone folder: the .m4a came back as AAC in .m4a, exact when ffmpeg decodes it; the video's picture was copied bit for bit"
for take in screen06.m4a clip07.mp4; do
    frames=$(ffmpeg -v error -i "$out/repaired/phone/$take" -map 0:a -f f32le -ac 1 - | wc -c)
    echo "   phone/$take: ffmpeg decodes $((frames / 4)) audio frames"
done
before=$(ffmpeg -v error -i "$out/media/phone/clip07.mp4" -map 0:v -c copy -f md5 -)
after=$(ffmpeg -v error -i "$out/repaired/phone/clip07.mp4" -map 0:v -c copy -f md5 -)
echo "   clip07.mp4 video packets: input $before, repaired $after"
[[ "$before" == "$after" ]] || status=1

echo "== the next night: the same tree again; inputs and outputs unchanged, so nothing is redone (journal in $out/repaired/.driftfix)"
"$bin" repair "$out/media" --out "$out/repaired" --config "$out/driftfix.yaml" 2>/dev/null | tail -1 || status=1
echo "== drift history per recorder over the runs so far"
"$bin" history --out "$out/repaired" || status=1

echo "== editing in the same pass: first 5 s of take02, 0.8x tempo (pitch kept), 44.1 kHz, 0.5 s equal-power fades"
"$bin" process "$out/media/camA/take02.wav" "$out/repaired/camA/take02-excerpt.wav" --trim :5 --tempo 0.8 \
    --rate 44100 --fade-in 0.5 --fade-out 0.5 --fade-curve equal-power || status=1

echo "== measuring by the sound: each recorder beside a camera whose own microphone heard the same scene"
# The scenes are synthetic speech heard by two microphones (driftfix-bench content-pair, the tests' scene generator):
# the recorder close and bright on its own clock, the camera distant and reverberant, its sound coded as AAC by ffmpeg.
mkdir -p "$out/sound/interview" "$out/sound/field"
make_camera() {  # folder name seconds options...
    local folder=$1 name=$2 seconds=$3; shift 3
    "$scenes" content-pair "$out/sound/$folder/$name.wav" "$out/sound/$folder/.$name-camera.wav" --seconds "$seconds" "$@"
    ffmpeg -v error -y -f lavfi -i "testsrc=size=320x240:rate=25" -i "$out/sound/$folder/.$name-camera.wav" -shortest \
        -c:v libx264 -preset ultrafast -pix_fmt yuv420p -c:a aac -b:a 96k "$out/sound/$folder/$name.mp4"
    rm -f "$out/sound/$folder/.$name-camera.wav"
}
make_camera interview take08 120 --offset 1.5 --drift -131 --seed 3
printf "   %-18s %s\n" "interview/take08" "the recorder started 1.5 s after the camera; its clock 131 ppm slow"
make_camera field take09 120 --dropouts 40.02:30,80.5:12 --seed 5
printf "   %-18s %s\n" "field/take09" "a recorder that lost 30 ms at 40.02 s and 12 ms at 80.5 s (pitch right)"
echo "   the headers alone see only two lengths:"
"$bin" scan "$out/sound" --format table | sed 's/^/   /' || true
echo "   the sound, measured here (driftfix measure RECORDING REFERENCE):"
"$bin" measure "$out/sound/interview/take08.wav" "$out/sound/interview/take08.mp4" --format table | sed 's/^/   /' || status=1
"$bin" measure "$out/sound/field/take09.wav" "$out/sound/field/take09.mp4" --format table | sed 's/^/   /' || status=1
printf 'content:\n  measure: content     # plan each repair by what the sound says\n' > "$out/content.yaml"
echo "== repairing by content on workers: the late start padded to the camera's start and the clock corrected; the lost"
echo "   buffers re-inserted where they went missing (the recorded samples between them untouched); each output proved in sync"
"$bin" repair "$out/sound" --out "$out/repaired-by-sound" --config "$out/content.yaml" --report "$out/sound-report" || status=1
echo "== and checked again from the outside: driftfix verify OUT --sync REFERENCE"
"$bin" verify "$out/repaired-by-sound/interview/take08.wav" --sync "$out/sound/interview/take08.mp4" || status=1
"$bin" verify "$out/repaired-by-sound/field/take09.wav" --sync "$out/sound/field/take09.mp4" || status=1
echo "   the report draws each pair's lag before and after: $out/sound-report/report.html"

echo "== a shoot where nothing pairs by name: camera clips C0001.MP4... with scratch tracks, a recorder running through"
echo "   them (ZOOM0001.WAV, 131 ppm slow), a second one on a lavalier for part of the time (57 ppm fast), a clip nobody"
echo "   recorded and a recorder from another room (driftfix-bench shoot: the tests' scene generator, with its truth.json)"
"$scenes" shoot "$out/shoot" --clips 4 --seconds 240
echo "   paired by their sound, each clip's audio cut out of its recorder in sync (driftfix sync ROOT --out DIR):"
sync_status=0
"$bin" sync "$out/shoot" --out "$out/synced" --format table --timeline "$out/timeline.otio" 2>"$out/sync.log" \
    | sed 's/^/   /' || sync_status=$?
# The clip nobody recorded is left for a person: exit 1, said before the timeline's line; anything else is a failure.
grep "left for a person" "$out/sync.log" | sed 's/^/   /'
echo "   (exit code $sync_status)"
[[ $sync_status -eq 1 ]] && grep -q "1 clip left for a person" "$out/sync.log" || status=1
echo "   the editor's timeline (a video track per camera, an audio track per recorder, each clip's audio where the"
echo "   recorder heard it): $out/timeline.otio; with --timeline FILE.fcpxml or FILE.edl the same for Final Cut Pro or any editor"
grep -q "timeline written to .*/timeline.otio" "$out/sync.log" || status=1
# Read back by OpenTimelineIO itself (scripts/install-deps.sh puts it in .build-otio/), against the shoot's truth.
otio_python="${DRIFTFIX_OTIO_PYTHON:-$(pwd)/.build-otio/bin/python}"
if [[ -x "$otio_python" ]]; then
    "$bin" sync "$out/shoot" --out "$out/synced" --format json > "$out/sync.json" 2>/dev/null || true
    if "$otio_python" scripts/check-timeline.py "$out/timeline.otio" --truth "$out/shoot/truth.json" \
        --report "$out/sync.json" --tolerance 2 > "$out/timeline-check.json"; then
        "$otio_python" -c 'import json, sys; d = json.load(open(sys.argv[1])); print("   read back by OpenTimelineIO: %d clips, %d audio items, each within %.2f samples of the truth and %.2f of the measurement" % (len(d["clips"]), d["checked"], d["worst"], d["fromReport"]))' "$out/timeline-check.json"
    else
        echo "   the timeline does not read back as the truth says: $out/timeline-check.json"
        status=1
    fi
fi

if [[ -x "$wavinfo_bin" ]]; then
    echo "   each cut carries its recorder's slate, tracks and markers, its start at its clip's timecode (sync by timecode"
    echo "   in any editor lines it up):"
    for clip in C0001 C0002; do
        tc=$(ffprobe -v error -show_entries stream_tags=timecode -of csv=p=0 "$out/shoot/camera/$clip.MP4" | head -1)
        echo "   $clip.wav: $(slate_line "$out/synced/camera/$clip.wav") (clip timecode $tc)"
    done
fi

echo "== a bad input is one clear line and exit code 1; the batch would go on"
printf 'not audio\n' > "$out/media/stage/broken.wav"
"$bin" process "$out/media/stage/broken.wav" "$out/repaired/broken.wav" --ratio 1.001 || echo "   (exit code $?)"

echo "== a fleet over two nights: 6 recorders, 5 takes each a night, laid out fleet/devNNN/nightK/takeM.wav (60 s files"
echo "   with sidecar references); the device is the folder under the root (the night folders are left out by default)."
echo "   dev005 records real sound beside a camera (takeM.mp4) and is started 0.4-0.9 s after it every take, stopped about"
echo "   a second before: its lengths differ by some 20,000 ppm, its clock runs 47 ppm slow"
"$scenes" fleet "$out/fleet" --devices 6 --takes 5 --night 0 --change-night 1 --late-device 5 | sed 's/^/   /'
"$bin" repair "$out/fleet" --out "$out/fleet-repaired" --report "$out/fleet-report" 2>/dev/null | tail -1 | sed 's/^/   night 0: /' || true
"$scenes" fleet "$out/fleet" --devices 6 --takes 5 --night 1 --change-night 1 --late-device 5 | sed 's/^/   /'
echo "   night 1: dev001's clock starts drifting (+80 ppm), dev002 turns erratic, dev003 has a wrong pairing, a broken file"
echo "   and a lost reference"
"$bin" repair "$out/fleet" --out "$out/fleet-repaired" --report "$out/fleet-report" 2>/dev/null | tail -1 | sed 's/^/   night 1: /' || true
echo "   the fleet report (devices worst first, problems, every pair): $out/fleet-report/report.html; devices.csv beside it"
echo "== driftfix history: the alerting devices first"
"$bin" history --out "$out/fleet-repaired" | sed 's/^/   /' || status=1
# dev005's lengths were never its clock: the default content.measure (auto) measured its takes by their sound, so its
# history is its clock (-47 ppm, by the sound) and its late starts a series of their own.
"$bin" history --out "$out/fleet-repaired" --device dev005 --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)["devices"][0]
ok = all(abs(v + 47) < 1 for v in d["ppm"]) and all(m == "content" for m in d["measuredBy"]) and not d.get("alert")
print("   dev005, started late every take: clock %s ppm per night (measured by %s), start %s ms; %s" % (
    ", ".join("%+.1f" % v for v in d["ppm"]), "/".join(sorted(set(d["measuredBy"]))),
    ", ".join("%+.0f" % v for v in d["startOffsetMs"]), "reported right" if ok else "NOT RIGHT"))
sys.exit(0 if ok else 1)' || status=1

echo "== originals untouched; repaired files in $out/repaired, $out/repaired-by-sound and $out/synced; reports in $out/report, $out/repair-report, $out/sound-report and $out/fleet-report"
exit $status
