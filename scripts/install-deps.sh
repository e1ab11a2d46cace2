#!/usr/bin/env bash
# Installs whichever Debian packages listed in packaging/debian-packages.txt are missing.
# Runs apt-get directly as root, through sudo otherwise. Safe to run again: it does nothing
# when everything is there.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
list="$here/packaging/debian-packages.txt"

mapfile -t wanted < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$list" | grep -v '^$')
missing=()
for pkg in "${wanted[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$pkg")
    fi
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "install-deps: all ${#wanted[@]} packages are installed"
    exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
    sudo=(sudo)
fi
echo "install-deps: installing ${#missing[@]} missing packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
# Debian's etcd-server package starts a system etcd on the default ports; Shardmap's tests start
# their own on other ports, so the system one is left as the package set it up. The same holds for
# the prometheus package (installed for promtool), whose server listens on 9090.
