#!/usr/bin/env bash
# The package tested where nothing else is: builds dist/driftfix_*.deb (scripts/package.sh), makes a fresh Debian 12
# root with debootstrap (minbase: no Swift, no compiler, no -dev package), installs the .deb there with apt, and runs
# `driftfix --version`, `driftfix scan` and a real `driftfix repair` with two local workers on generated media
# (/usr/share/driftfix/demo.sh), checking every output's exact length.
#
#   scripts/test-package.sh          needs root (debootstrap, chroot) and the Debian mirror; says so and exits 0
#                                    without them, never silently; with DRIFTFIX_REQUIRE_PACKAGE_TEST=1 (CI) it
#                                    fails instead
#   DRIFTFIX_PACKAGE_ROOT=DIR        keep the debootstrapped root in DIR between runs (it is made once, then reused);
#                                    by default it is kept for a week in /var/cache/driftfix-test (the next week's
#                                    run makes a fresh one, with that week's updates) - the packages installed into
#                                    a copy of it are this run's, so only waiting is saved
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ $(id -u) -ne 0 ]]; then
    if [[ -n "${DRIFTFIX_REQUIRE_PACKAGE_TEST:-}" ]]; then
        echo "test-package.sh: required (DRIFTFIX_REQUIRE_PACKAGE_TEST) but needs root (debootstrap and chroot)" >&2
        exit 1
    fi
    echo "test-package.sh: SKIPPED: needs root (debootstrap and chroot)"
    exit 0
fi
command -v debootstrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
started=$SECONDS
deb=$(scripts/package.sh | tail -1)
echo "test-package.sh: built $deb ($(du -h "$deb" | cut -f1)) in $((SECONDS - started)) s"

mirror=$(sed -n 's/^URIs: *\(http[^ ]*\/debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
mirror=${mirror:-http://deb.debian.org/debian}
keep=${DRIFTFIX_PACKAGE_ROOT:-}
if [[ -z "$keep" ]]; then
    cache=/var/cache/driftfix-test
    keep="$cache/debian12-$(date -u +%G-w%V)"
    mkdir -p "$cache"
    find "$cache" -mindepth 1 -maxdepth 1 -name 'debian12-*' ! -path "$keep" -exec rm -rf {} + 2>/dev/null || true
fi
base=$keep
mkdir -p "$base"
root="$base/work"
cleanup() {
    umount "$root/proc" 2>/dev/null || true
    umount "$root/dev" 2>/dev/null || true
    rm -rf "$root"
    [[ -n "$keep" ]] || rm -rf "$base"
}
trap cleanup EXIT
if [[ ! -f "$base/pristine/etc/debian_version" ]]; then
    step=$SECONDS
    rm -rf "$base/pristine"
    if ! debootstrap --variant=minbase bookworm "$base/pristine" "$mirror" >"$base/debootstrap.log" 2>&1; then
        if [[ -n "${DRIFTFIX_REQUIRE_PACKAGE_TEST:-}" ]]; then
            echo "test-package.sh: debootstrap failed:" >&2; tail -5 "$base/debootstrap.log" >&2; exit 1
        fi
        echo "test-package.sh: SKIPPED: debootstrap could not make a Debian 12 root from $mirror:"
        tail -3 "$base/debootstrap.log"
        exit 0
    fi
    echo "test-package.sh: debootstrap (minbase) took $((SECONDS - step)) s"
fi
rm -rf "$root"
cp -a "$base/pristine" "$root"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
cp "$deb" "$root/tmp/"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }

fail() { echo "test-package.sh: FAILED: $*" >&2; exit 1; }
in_root sh -c '! command -v swift && ! command -v swiftc && ! command -v cc' >/dev/null || fail "the root is not bare (a compiler is there)"
step=$SECONDS
in_root apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive in_root apt-get install -y -qq --no-install-recommends "/tmp/$(basename "$deb")" >"$base/install.log" 2>&1 \
    || { tail -20 "$base/install.log" >&2; fail "apt-get install ./$(basename "$deb")"; }
echo "test-package.sh: apt-get install took $((SECONDS - step)) s"
dev=$(in_root dpkg-query -W -f='${Package}\n' | grep -- '-dev$' || true)
[[ -z "$dev" ]] || fail "installing the package pulled -dev packages: $dev"
in_root sh -c 'ls /usr/lib/swift 2>/dev/null; ls /usr/lib/*/libswiftCore.so 2>/dev/null' | grep -q . && fail "a Swift runtime was installed"

version=$(in_root driftfix --version) || fail "driftfix --version"
echo "test-package.sh: driftfix --version: $version"
[[ "$version" == "$(sed -n 's/^ *static let version = "\(.*\)"$/\1/p' Sources/driftfix/Driftfix.swift) (revision "* ]] || fail "unexpected version: $version"
# A man page for the command and for every subcommand its --help lists; the manual's pages beside the README.
in_root test -f /usr/share/man/man1/driftfix.1.gz || fail "no man page for driftfix"
subcommands=$(in_root driftfix --help | sed -n '/^SUBCOMMANDS:/,$p' | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')
[[ $(wc -w <<<"$subcommands") -ge 9 ]] || fail "driftfix --help lists too few subcommands: $subcommands"
for command in $subcommands; do
    in_root test -f "/usr/share/man/man1/driftfix-$command.1.gz" || fail "no man page for driftfix $command"
done
for page in guide operations formats measuring-by-sound performance reports development architecture protocol clusters; do
    in_root test -f "/usr/share/doc/driftfix/docs/$page.md" || fail "the manual's $page.md is not installed"
done
in_root test -f /usr/share/bash-completion/completions/driftfix || fail "no bash completion"
in_root test -f /lib/systemd/system/driftfix-worker@.service || fail "no worker unit"
in_root getent passwd driftfix >/dev/null || fail "no driftfix system user"
step=$SECONDS
in_root sh -c 'cd /tmp && /usr/share/driftfix/demo.sh /tmp/demo' >"$base/demo.log" 2>&1 || { tail -30 "$base/demo.log" >&2; fail "the demo night"; }
grep -q "4 repaired, 0 unchanged, 2 skipped, 0 refused, 0 failed" "$base/demo.log" || { cat "$base/demo.log" >&2; fail "the demo night's summary"; }
[[ $(grep -c ": OK$" "$base/demo.log") == 4 ]] || { cat "$base/demo.log" >&2; fail "an output without its exact length"; }
echo "test-package.sh: scan + repair (2 local workers) + verify in the bare root took $((SECONDS - step)) s"
echo "test-package.sh: passed in $((SECONDS - started)) s"
