#!/usr/bin/env bash
# Makes release-journal.tar.gz: a tree repaired by a driftfix release, with the journal that release wrote, for the
# test that a newer driftfix opens, resumes and keeps the history of an older journal.
#
#   Tests/DistributedTests/Fixtures/make-release-journal.sh OLD_DRIFTFIX_BINARY OUT.tar.gz
#
# The journal records absolute paths, so the tree lives at a fixed place: /tmp/driftfix-release-journal. Two nights:
# night 1 repairs all six recordings; before night 2 three references change, and night 2 is killed (SIGKILL, the
# failpoint after its second verified result), leaving a run with two jobs done and one out on lease.
set -euo pipefail
bin=$(realpath "$1")
target=$(realpath -m "$2")
base=/tmp/driftfix-release-journal
rm -rf "$base"
mkdir -p "$base/media/dev0" "$base/media/dev1" "$base/out"
for i in 0 1 2 3 4 5; do
    dev=dev$((i / 4))
    sox -q -n -r 8000 -c 1 -b 16 "$base/media/$dev/take$i.wav" synth 1 sine $((300 + 50 * i)) vol 0.5
    echo "$((8000 + 60 + 10 * i))@8000" > "$base/media/$dev/take$i.duration"
done
"$bin" repair "$base/media" --out "$base/out" --workers 1 >/dev/null 2>&1
sleep 1.1  # new modification times for night 2
for i in 0 1 2; do echo "$((8000 - 70 - 10 * i))@8000" > "$base/media/dev0/take$i.duration"; done
DRIFTFIX_FAILPOINT=result:2 "$bin" repair "$base/media" --out "$base/out" --workers 1 >/dev/null 2>&1 || true
sleep 1  # local workers notice their coordinator is gone and stop
sqlite3 "$base/out/.driftfix/journal.sqlite" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null 2>&1 || true
tar --format=posix -czf "$target" -C /tmp driftfix-release-journal
echo "wrote $target"
