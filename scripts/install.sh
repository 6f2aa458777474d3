#!/usr/bin/env bash
# Installs remindd (and remindctl when built) where Debian expects things, under
# $DESTDIR$PREFIX. The binaries are stripped and carry the Swift runtime libraries they link
# beside them ($PREFIX/lib/remindd, found through their $ORIGIN rpath), so a machine without
# the Swift toolchain runs them. Static linking is not used: with --static-swift-stdlib,
# TimeZone(identifier:) returns nil here, which would silently turn quiet hours off.
#
#   scripts/install.sh BUILD_DIR        (install)
#   scripts/install.sh --uninstall      (remove what install put in place)
set -euo pipefail
PREFIX=${PREFIX:-/usr/local}
DESTDIR=${DESTDIR:-}
root="$DESTDIR$PREFIX"
top=$(cd "$(dirname "$0")/.." && pwd)

files=(
    "$root/bin/remindd" "$root/bin/remindctl"
    "$root/lib/systemd/system/remindd.service" "$root/lib/systemd/system/remindd.socket"
    "$root/lib/sysusers.d/remindd.conf" "$root/lib/systemd/catalog/remindd.catalog"
    "$root/share/doc/remindd/README.md" "$root/share/doc/remindd/remindd.json"
    "$root/share/bash-completion/completions/remindctl" "$root/share/zsh/site-functions/_remindctl"
    "$root/share/fish/vendor_completions.d/remindctl.fish"
)

if [ "${1:-}" = "--uninstall" ]; then
    rm -f "${files[@]}"
    rm -rf "$root/lib/remindd" "$root/share/doc/remindd"
    echo "remindd: uninstalled from $root (kept $DESTDIR/etc/remindd and /var/lib/remindd)"
    exit 0
fi

build=${1:?usage: install.sh BUILD_DIR}
install -d "$root/bin" "$root/lib/remindd" "$root/lib/systemd/system" "$root/lib/sysusers.d" \
    "$root/lib/systemd/catalog" "$root/share/doc/remindd" "$DESTDIR/etc/remindd"
for binary in remindd remindctl; do
    [ -x "$build/$binary" ] || continue
    install -m 0755 "$build/$binary" "$root/bin/$binary"
    strip --strip-unneeded "$root/bin/$binary"
    # The Swift runtime libraries it links, copied once each.
    ldd "$build/$binary" | awk '/=> \// {print $3}' | while read -r library; do
        case "$library" in
            /lib/* | /usr/lib/*) ;;
            *) install -m 0644 "$library" "$root/lib/remindd/" && strip --strip-unneeded "$root/lib/remindd/$(basename "$library")" ;;
        esac
    done
done
sed "s|/usr/local/bin/remindd|$PREFIX/bin/remindd|" "$top/systemd/remindd.service" >"$root/lib/systemd/system/remindd.service"
install -m 0644 "$top/systemd/remindd.socket" "$root/lib/systemd/system/remindd.socket"
install -m 0644 "$top/systemd/remindd.sysusers" "$root/lib/sysusers.d/remindd.conf"
install -m 0644 "$top/systemd/remindd.catalog" "$root/lib/systemd/catalog/remindd.catalog"
install -m 0644 "$top/README.md" "$root/share/doc/remindd/README.md"
install -m 0644 "$top/etc/remindd/remindd.json" "$root/share/doc/remindd/remindd.json"
# An existing configuration is the operator's: never overwritten.
[ -e "$DESTDIR/etc/remindd/remindd.json" ] || install -m 0644 "$top/etc/remindd/remindd.json" "$DESTDIR/etc/remindd/remindd.json"
if [ -x "$root/bin/remindctl" ]; then
    install -d "$root/share/bash-completion/completions" "$root/share/zsh/site-functions" \
        "$root/share/fish/vendor_completions.d"
    "$build/remindctl" --generate-completion-script bash >"$root/share/bash-completion/completions/remindctl"
    "$build/remindctl" --generate-completion-script zsh >"$root/share/zsh/site-functions/_remindctl"
    "$build/remindctl" --generate-completion-script fish >"$root/share/fish/vendor_completions.d/remindctl.fish"
fi
echo "remindd: installed under $root"
