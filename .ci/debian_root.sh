#!/usr/bin/env bash
# The README's test command in a fresh Debian root made with debootstrap, with only the Debian
# packages the README names, run as a user of a fresh machine runs it: first the README's
# virtual environment, then its test command, both read from the README (readme_commands.py).
#
#   debian_root.sh SUITE      (trixie: Debian 13, bookworm: Debian 12)
#
# The root is made anew on every run, from a copy of the checkout (tracked files and untracked
# ones git does not ignore; no build output). What debootstrap downloads and pip's download
# cache are kept between runs under $KPROF_CI_CACHE (default /var/cache/kprof-ci) and used when
# there: a fresh machine has none and gets the same result, slower. Needs root (debootstrap,
# chroot, mount); every mount under the root is undone on exit, failure and interrupt.
set -euo pipefail
suite="${1:?usage: debian_root.sh SUITE (trixie for Debian 13)}"
checkout="$(cd "$(dirname "$0")/.." && pwd)"
cache="${KPROF_CI_CACHE:-/var/cache/kprof-ci}"
root="${KPROF_CI_ROOTS:-/var/tmp/kprof-ci-roots}/$suite"
# The commands run as a user, as the README's reader would: pip and the tests behave
# differently as root (pip warns, file permissions do not apply).
user=ci
home="/home/$user"

readme() { python3 "$checkout/.ci/readme_commands.py" "$@"; }
packages="$(readme packages | paste -sd, -)"
venv="$(readme venv)"
test_command="$(readme test)"

# The mount points under the root, deepest first (debootstrap's own too, after an interrupt).
mounts_under_root() {
  awk -v r="$root/" 'index($2, r) == 1 { print $2 }' /proc/self/mounts | sort -r
}

# Processes left in the root (started by this script) would hold its mounts busy.
stop_processes_in_root() {
  local proc
  for proc in /proc/[0-9]*; do
    if [ "$(readlink "$proc/root" 2>/dev/null)" = "$root" ]; then
      kill -KILL "${proc#/proc/}" 2>/dev/null || true
    fi
  done
}

unmount_root() {
  stop_processes_in_root
  local target
  for target in $(mounts_under_root); do
    umount "$target" 2>/dev/null || umount --lazy "$target"
  done
}

trap unmount_root EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# A fresh root every run. --one-file-system: should an unmount have failed, rm stops at the
# mount instead of deleting the host's /dev or the cache through it.
unmount_root
rm -rf --one-file-system "$root"
mkdir -p "$root" "$cache/debs-$suite" "$cache/pip"
echo "debian_root: debootstrap $suite with $packages"
started=$SECONDS
debootstrap --variant=minbase --include="$packages" --cache-dir="$cache/debs-$suite" \
  "$suite" "$root" >"$root.debootstrap.log" 2>&1 || {
  tail -n 30 "$root.debootstrap.log"
  echo "debian_root: debootstrap $suite failed (log above)"
  exit 1
}
echo "debian_root: debootstrap took $((SECONDS - started)) s"
chroot "$root" useradd --create-home --shell /bin/bash "$user"
uid="$(chroot "$root" id -u "$user")"
gid="$(chroot "$root" id -g "$user")"

# The checkout as git sees it: tracked files (but those deleted in the work tree) and untracked
# ones that git does not ignore.
mkdir -p "$root$home/kprof" "$root$home/.cache/pip"
(
  cd "$checkout"
  git ls-files -co --exclude-standard -z |
    while IFS= read -r -d '' file; do [ ! -e "$file" ] || printf '%s\0' "$file"; done |
    tar --null -T - -cf -
) | tar -C "$root$home/kprof" -xf -
chown -R "$uid:$gid" "$root$home" "$cache/pip"

rm -f "$root/etc/resolv.conf"
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
# The root trusts the site's certificate authorities that the host trusts (Debian keeps them in
# /usr/local/share/ca-certificates): behind a network that inspects TLS, pip reaches PyPI only
# with its authority's certificate. The root is otherwise as Debian made it.
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
  chroot "$root" update-ca-certificates >/dev/null 2>&1
fi
mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
# /dev with /dev/pts and /dev/shm; rslave: nothing mounted or unmounted in the root reaches
# the host's /dev.
mount --rbind /dev "$root/dev"
mount --make-rslave "$root/dev"
mount --bind "$cache/pip" "$root$home/.cache/pip"

echo "debian_root: in Debian $suite as $user: $venv && $test_command"
started=$SECONDS
status=0
chroot --userspec="$uid:$gid" "$root" /usr/bin/env -i HOME="$home" USER="$user" \
  LOGNAME="$user" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
  /bin/bash -c "cd ~/kprof && $venv && $test_command" || status=$?
echo "debian_root: the README's commands took $((SECONDS - started)) s, exit status $status"
exit $status
