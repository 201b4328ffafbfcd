#!/usr/bin/env bash
# Lays out the root filesystem of loadshift's container image in ROOTFS (which must not exist):
# the binary (stripped) as /usr/bin/loadshift, exactly the shared libraries it loads (as `ldd`
# resolves them, at the paths it resolves them to) with their loader, the CA certificates, and
# /etc/passwd and /etc/group with the non-root user and group 65532 (nonroot), and
# /etc/nsswitch.conf (names from /etc/hosts first, then DNS, as on Debian). Nothing else: no
# shell, no package manager. scripts/build-image.sh and the Dockerfile both call it, so the image
# holds the same files either way; test/deploy/image_test.sh checks the list.
# usage: scripts/image-rootfs.sh BINARY ROOTFS
set -euo pipefail

if (($# != 2)); then
  echo "usage: scripts/image-rootfs.sh BINARY ROOTFS" >&2
  exit 2
fi
binary=$1
rootfs=$2
[[ -x $binary ]] || {
  echo "image-rootfs: $binary is not an executable file" >&2
  exit 1
}
[[ ! -e $rootfs ]] || {
  echo "image-rootfs: $rootfs exists; give a new directory" >&2
  exit 1
}
certs=/etc/ssl/certs/ca-certificates.crt
[[ -s $certs ]] || {
  echo "image-rootfs: $certs is missing: install Debian's ca-certificates (scripts/setup.sh)" >&2
  exit 1
}

mkdir -p "$rootfs/usr/bin" "$rootfs/etc/ssl/certs" "$rootfs/tmp"
chmod 1777 "$rootfs/tmp"
install -m 0755 "$binary" "$rootfs/usr/bin/loadshift"
strip --strip-unneeded "$rootfs/usr/bin/loadshift"

# Every library ldd resolves ("name => /path (addr)") and the loader ("/lib64/ld-... (addr)"),
# copied as files (symlinks followed) to the path ldd printed. A library ldd cannot find is an
# error, never left out.
if ldd "$binary" | grep -q "not found"; then
  echo "image-rootfs: ldd cannot resolve every library of $binary:" >&2
  ldd "$binary" | grep "not found" >&2
  exit 1
fi
libraries=$(ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
  sort -u)
[[ -n $libraries ]] || {
  echo "image-rootfs: ldd lists no library of $binary (a static binary needs no script)" >&2
  exit 1
}
for library in $libraries; do
  mkdir -p "$rootfs$(dirname "$library")"
  cp -L "$library" "$rootfs$library"
  chmod 0755 "$rootfs$library"
done

install -m 0644 "$certs" "$rootfs$certs"
printf 'nonroot:x:65532:65532:nonroot:/nonexistent:/usr/sbin/nologin\n' >"$rootfs/etc/passwd"
printf 'nonroot:x:65532:\n' >"$rootfs/etc/group"
# Without it glibc asks DNS first and reads /etc/hosts (the kubelet's: hostAliases, the pod's own
# name) only when DNS is unavailable.
printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$rootfs/etc/nsswitch.conf"
chmod 0644 "$rootfs/etc/passwd" "$rootfs/etc/group" "$rootfs/etc/nsswitch.conf"
echo "image-rootfs: $(find "$rootfs" -type f | wc -l) files, $(du -sh "$rootfs" | cut -f1) in $rootfs"
