# Sourced by scripts/setup.sh and scripts/test.sh: install_packages REQUIRED... [-- OPTIONAL...]
# installs the Debian packages of the lists that are missing (an optional one the distribution does
# not have is left out), with sudo when not root, and so that no service of theirs starts or stays
# enabled:
#   - while apt-get runs, /usr/sbin/policy-rc.d exits 101 ("action forbidden"), which invoke-rc.d
#     and deb-systemd-invoke, the tools every maintainer script starts services with, obey
#     (policy-rc.d(8), /usr/share/doc/init-system-helpers/README.policy-rc.d); an existing
#     policy-rc.d is left as it is (and in charge), one we wrote is removed afterwards;
#   - then every systemd unit and init script shipped by a package this run installed (the named
#     ones and their dependencies, nothing that was there before) is disabled: deb-systemd-helper
#     disable (which also keeps it disabled across upgrades) and update-rc.d disable, and, where
#     systemd runs, stopped.
# The tests start the daemons they need themselves, from throw-away folders (tests/integration/).

# What building gpuvet needs, and nothing else: the C compiler, its C library headers, make, CMake
# and pkg-config (not build-essential: g++ and dpkg-dev are not needed to build a C program); the
# field's own libraries, from the distribution; gettext's msgfmt compiles the Chinese catalogue
# (po/zh_CN.po) into the binary at build time. setup.sh installs these, test.sh too (it also runs
# alone, e.g. in CI).
build_packages=(gcc libc6-dev make cmake pkg-config libhwloc-dev libjansson-dev libxml2-dev libturbojpeg0-dev
                gettext)
install_packages() {
  local required=() optional=() p in_optional=0
  for p in "$@"; do
    if [ "$p" = "--" ]; then in_optional=1; continue; fi
    if [ $in_optional = 1 ]; then optional+=("$p"); else required+=("$p"); fi
  done
  local missing=()
  for p in "${required[@]}" "${optional[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -gt 0 ] || return 0
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  local wanted=()
  for p in "${missing[@]}"; do
    if printf '%s\n' "${optional[@]}" | grep -qx -- "$p" && ! apt-cache show "$p" >/dev/null 2>&1; then
      echo "not in this distribution, left out: $p"
      continue
    fi
    wanted+=("$p")
  done
  [ ${#wanted[@]} -gt 0 ] || return 0
  echo "installing: ${wanted[*]}"
  local before
  before=$(dpkg-query -W -f='${binary:Package}\n' | sort)
  local own_policy=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\n# written by gpuvet scripts/install-packages.sh while it installs: start nothing\nexit 101\n' |
      $sudo tee /usr/sbin/policy-rc.d >/dev/null
    $sudo chmod 755 /usr/sbin/policy-rc.d
    own_policy=1
  fi
  local rc=0
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${wanted[@]}" || rc=$?
  [ $own_policy = 0 ] || $sudo rm -f /usr/sbin/policy-rc.d
  [ $rc -eq 0 ] || return $rc
  local new unit path
  new=$(comm -13 <(echo "$before") <(dpkg-query -W -f='${binary:Package}\n' | sort))
  for p in $new; do
    while read -r path; do
      case "$path" in
        /lib/systemd/system/*.service | /lib/systemd/system/*.socket | /lib/systemd/system/*.timer | \
          /usr/lib/systemd/system/*.service | /usr/lib/systemd/system/*.socket | /usr/lib/systemd/system/*.timer)
          unit=${path##*/}
          case "$unit" in *@.*) continue ;; esac   # templates are never enabled by themselves
          if [ -d /run/systemd/system ]; then $sudo systemctl stop "$unit" 2>/dev/null || true; fi
          # deb-systemd-helper acts only when called as a maintainer script would call it.
          if command -v deb-systemd-helper >/dev/null; then
            $sudo env DPKG_MAINTSCRIPT_PACKAGE="$p" deb-systemd-helper disable "$unit" >/dev/null 2>&1 || true
          fi
          if [ -d /run/systemd/system ]; then $sudo systemctl disable --quiet "$unit" 2>/dev/null || true; fi
          echo "not started, not enabled: $unit ($p)"
          ;;
        /etc/init.d/*)
          [ -x "$path" ] || continue
          if [ ! -d /run/systemd/system ]; then $sudo "$path" stop >/dev/null 2>&1 || true; fi
          $sudo update-rc.d "${path##*/}" disable >/dev/null 2>&1 || true
          ;;
      esac
    done < <(dpkg-query -L "$p" 2>/dev/null)
  done
  # What would start at boot: a unit of ours still linked from a .wants folder.
  local left
  for p in $new; do
    for unit in $(dpkg-query -L "$p" 2>/dev/null | grep -E '^(/usr)?/lib/systemd/system/[^/@]+\.(service|socket|timer)$' | sed 's|.*/||'); do
      left=$(ls /etc/systemd/system/*.wants/"$unit" 2>/dev/null || true)
      [ -z "$left" ] || echo "warning: still enabled: $left" >&2
    done
  done
}
