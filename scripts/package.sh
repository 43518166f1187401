#!/usr/bin/env bash
# Builds dist/driftfix_VERSION_ARCH.deb: the release binary with the Swift runtime linked in statically (the machine
# it goes to needs no Swift), a man page per command, bash/zsh/fish completions, the commented config and the
# systemd units. Depends: names the Debian packages of the shared libraries the binary loads, found from the binary
# itself (never a -dev package, never Swift).
#
#   scripts/package.sh            writes dist/driftfix_0.3.0_amd64.deb and prints its path
#   DRIFTFIX_REVISION=abc scripts/package.sh   the revision --version names when there is no git checkout
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
version=$(sed -n 's/^ *static let version = "\(.*\)"$/\1/p' Sources/driftfix/Driftfix.swift)
[[ -n "$version" ]] || { echo "package.sh: no version in Sources/driftfix/Driftfix.swift" >&2; exit 1; }
arch=$(dpkg --print-architecture)

swift build -c release --static-swift-stdlib --product driftfix >&2
binary="$(swift build -c release --static-swift-stdlib --show-bin-path)/driftfix"
# Man pages from the command definitions (swift-argument-parser's plugin, on the debug build the tests use, with
# their flags so that it is not built again).
swift package -Xswiftc -O -Xcc -O2 plugin generate-manual --multi-page --configuration debug >&2
manuals=.build/plugins/GenerateManual/outputs/driftfix

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root="$stage/root"
install -D -m 0755 "$binary" "$root/usr/bin/driftfix"
strip --strip-unneeded "$root/usr/bin/driftfix"
for page in "$manuals"/driftfix*.1; do
    name=$(basename "$page")
    [[ "$name" == driftfix.help.1 ]] && continue
    # driftfix.worker.1 → driftfix-worker.1, as `man driftfix-worker` finds it.
    target=${name/driftfix./driftfix-}
    [[ "$name" == driftfix.1 ]] && target=driftfix.1
    install -d "$root/usr/share/man/man1"
    gzip -9n <"$page" >"$root/usr/share/man/man1/$target.gz"
done
"$binary" --generate-completion-script bash | install -D -m 0644 /dev/stdin "$root/usr/share/bash-completion/completions/driftfix"
"$binary" --generate-completion-script zsh | install -D -m 0644 /dev/stdin "$root/usr/share/zsh/vendor-completions/_driftfix"
"$binary" --generate-completion-script fish | install -D -m 0644 /dev/stdin "$root/usr/share/fish/vendor_completions.d/driftfix.fish"
install -D -m 0644 config/driftfix.yaml "$root/etc/driftfix/driftfix.yaml"
install -D -m 0644 deploy/systemd/night.env "$root/etc/driftfix/night.env"
install -D -m 0644 deploy/systemd/worker.env "$root/etc/driftfix/worker.env.example"
for unit in driftfix-worker@.service driftfix-night.service driftfix-night.timer; do
    install -D -m 0644 "deploy/systemd/$unit" "$root/lib/systemd/system/$unit"
done
install -D -m 0755 scripts/demo-package.sh "$root/usr/share/driftfix/demo.sh"
install -D -m 0644 README.md "$root/usr/share/doc/driftfix/README.md"
# The manual: the docs/ pages beside the front page (its links point into docs/).
for page in docs/*.md; do install -D -m 0644 "$page" "$root/usr/share/doc/driftfix/$page"; done
gzip -9n <CHANGELOG.md >"$root/usr/share/doc/driftfix/changelog.gz" 2>/dev/null || rm -f "$root/usr/share/doc/driftfix/changelog.gz"
{
    echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
    echo "Upstream-Name: driftfix"
    echo
    echo "Files: *"
    echo "License: Apache-2.0"
    echo "Comment: driftfix itself. The binary also contains, linked statically, the Swift runtime and standard"
    echo " library (Apache-2.0 with Runtime Library Exception), swift-argument-parser, swift-log,"
    echo " swift-service-lifecycle, swift-nio, swift-prometheus, swift-metrics, swift-atomics, swift-system"
    echo " (Apache-2.0), Yams with libyaml and GRDB.swift (MIT)."
    echo " It loads, dynamically, the Debian packages named in Depends: libzmq (LGPL-3+ with a static-linking"
    echo " exception), libsndfile (LGPL-2.1+), libsamplerate (BSD-2-Clause), libsoxr (LGPL-2.1+), SQLite (public"
    echo " domain), zlib (Zlib), libxxhash (BSD-2-Clause), KISS FFT (BSD-3-Clause) and FFmpeg's libavformat, libavcodec and libavutil. Debian builds FFmpeg with"
    echo " --enable-gpl, which makes those libraries GPL-2+: distributing this package means distributing the whole"
    echo " under the GPL (GPL-3.0, with which Apache-2.0 is compatible), with its complete source. See README.md,"
    echo " \"Licences\"."
    echo
    echo "License: Apache-2.0"
    sed 's/^/ /; s/^ $/ ./' LICENSE
} >"$root/usr/share/doc/driftfix/copyright"

# Depends: the package of every shared library the binary asks for, at least the version built against: those it
# links (NEEDED), and libavformat and libzmq, which it loads at first use by the sonames written into it
# (libavformat's package brings libavcodec's and libavutil's).
needed=$(objdump -p "$binary" | awk '$1 == "NEEDED" { print $2 }')
loaded=""
for library in libavformat libzmq; do
    soname=$(strings -a "$binary" | grep -xE "$library\.so\.[0-9]+" | sort -u || true)
    [[ $(wc -w <<<"$soname") -eq 1 ]] || { echo "package.sh: the binary names no single $library soname" >&2; exit 1; }
    loaded+=" $soname"
done
depends=()
for library in $needed $loaded; do
    # (awk reads to the end: an early exit would make ldconfig die of SIGPIPE under pipefail)
    path=$(ldconfig -p | awk -v l="$library" '$1 == l && !found { print $NF; found = 1 }')
    [[ -n "$path" ]] || { echo "package.sh: $library is not installed here" >&2; exit 1; }
    owner=$(dpkg -S "$path" 2>/dev/null || dpkg -S "$(realpath "$path")" 2>/dev/null || true)
    package=${owner%%:*}
    [[ -n "$package" ]] || { echo "package.sh: no package owns $path" >&2; exit 1; }
    [[ "$package" == *-dev ]] && { echo "package.sh: $library comes from a -dev package ($package)" >&2; exit 1; }
    upstream=$(dpkg-query -W -f='${Version}' "$package" | sed 's/-[^-]*$//; s/^[0-9]*://')
    depends+=("$package (>= $upstream)")
done
depends_line=$(printf '%s\n' "${depends[@]}" | sort -u | paste -sd, | sed 's/,/, /g')

size=$(du -sk "$root" | cut -f1)
install -d "$root/DEBIAN"
cat >"$root/DEBIAN/control" <<EOF
Package: driftfix
Version: $version
Architecture: $arch
Maintainer: driftfix maintainers <driftfix@localhost>
Installed-Size: $size
Depends: $depends_line, adduser
Section: sound
Priority: optional
Homepage: https://github.com/driftfix/driftfix
Description: repairs lip-sync drift in recordings, at fleet scale
 driftfix pairs each recording with its reference, measures the drift from the
 headers or the sound, and repairs it by resampling or time-stretching to the
 exact frame, across many machines over ZeroMQ, with a run journal, drift
 reports (JSON, CSV, HTML) and Prometheus metrics. Includes systemd units for
 persistent workers and a nightly run.
EOF
printf '%s\n' /etc/driftfix/driftfix.yaml /etc/driftfix/night.env /etc/driftfix/worker.env.example >"$root/DEBIAN/conffiles"
cat >"$root/DEBIAN/postinst" <<'EOF'
#!/bin/sh
# The units run as the system user driftfix.
set -e
if [ "$1" = configure ] && ! getent passwd driftfix >/dev/null; then
    adduser --system --group --no-create-home --home /nonexistent --quiet driftfix
fi
if [ -d /run/systemd/system ]; then systemctl daemon-reload >/dev/null 2>&1 || true; fi
exit 0
EOF
chmod 0755 "$root/DEBIAN/postinst"

mkdir -p dist
deb="dist/driftfix_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >&2
echo "$deb"
