#!/usr/bin/env bash
# Checks that every system file the configured build uses comes from a Debian package in the
# Depends closure of packaging/debian-packages.txt.
#
# Why: issue 15. A fresh Debian 12 machine failed to configure because Qt6Charts' CMake config
# needs Qt6OpenGL, whose package (libqt6opengl6-dev) is only a Recommends of qt6-base-dev and
# was missing from packaging/debian-packages.txt. Developer machines had it (installed with
# Recommends), so nothing noticed. This script looks at what a configured build directory really
# uses -- every absolute path in CMakeCache.txt, in build.ninja (include dirs, libraries, tools,
# and the CMake config files CMake loaded) and in the compiler description CMake wrote -- asks dpkg
# which package owns each one, and fails when an owner is not pulled in by the package list.
#
# Usage: scripts/check-build-deps.sh [BUILD_DIR]        (default: build/ci)
#   SHARDMAP_PACKAGE_LIST=FILE  check against FILE instead of packaging/debian-packages.txt
#                               (tests/scripts/check_build_deps_test.sh uses this to prove the
#                               check catches a package dropped from the list)
#
# packaging/optional-build-finds.txt lists packages the build finds when they are present but
# does not need; paths they own are reported as "optional, not required" and do not fail.
#
# Exit status: 0 all satisfied, 1 packages missing from the list, 2 usage or setup error.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
build="${1:-$here/build/ci}"
list="${SHARDMAP_PACKAGE_LIST:-$here/packaging/debian-packages.txt}"
optional_list="$here/packaging/optional-build-finds.txt"

die() { echo "check-build-deps: $*" >&2; exit 2; }

[ -d "$build" ] || die "build directory '$build' does not exist (configure first: cmake --preset ci)"
build="$(cd "$build" && pwd -P)"
[ -f "$build/CMakeCache.txt" ] || die "$build/CMakeCache.txt not found (configure first: cmake --preset ci)"
[ -f "$build/build.ninja" ] || die "$build/build.ninja not found (configure with the Ninja generator first)"
[ -f "$list" ] || die "package list '$list' not found"
for tool in dpkg dpkg-query apt-cache perl; do
    command -v "$tool" >/dev/null || die "needs $tool (this check is for Debian machines)"
done

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# --- 1. every existing absolute path the configured build uses --------------------------------
# Output: "f<TAB>path" for files, "d<TAB>path" for directories. Paths in the source tree, the build
# directory and pseudo/temporary file systems, and paths that do not exist, are dropped. CMake's
# install destinations (CMAKE_INSTALL_*) are outputs, not inputs, so they are skipped too.
compiler_files=("$build"/CMakeFiles/*/CMake*Compiler.cmake)
[ -e "${compiler_files[0]}" ] || compiler_files=()
perl -e '
    use strict; use warnings; use Cwd qw(realpath);
    my ($src, $bld, $cache, @rest) = @ARGV;
    my @skip = ($src, $bld, "/tmp", "/proc", "/sys", "/dev", "/run");
    my %seen;
    sub skipped { my $p = shift; for my $s (@skip) { return 1 if $p eq $s || index($p, "$s/") == 0 } 0 }
    sub empty_dir {
        opendir(my $dh, shift) or return 0;
        my @e = grep { $_ ne "." && $_ ne ".." } readdir($dh);
        closedir $dh;
        return !@e;
    }
    sub emit {
        my $p = shift;
        $p =~ s{/+}{/}g; $p =~ s{/\.(?=/|$)}{}g; $p =~ s{(.)/$}{$1};
        return if $seen{$p}++;
        return if skipped($p) || !-e $p;
        my $r = realpath($p);
        return if defined $r && skipped($r);
        return if -d $p && empty_dir($p);    # e.g. /usr/local/include: provides nothing
        print((-d $p ? "d" : "f"), "\t$p\n");
    }
    my $path_re = qr{(?:^|(?<=[\s"\x27=;:,(\[])|(?<=-I)|(?<=-L)|(?<=-isystem))(/[A-Za-z0-9_+./@~-]+)};
    open(my $fh, "<", $cache) or die "$cache: $!";
    while (<$fh>) {
        next if /^\s*(?:#|\/\/)/;
        next if /^(?:CMAKE_INSTALL_|_GNUInstallDirs_|CMAKE_CACHEFILE_DIR|CMAKE_HOME_DIRECTORY|CMAKE_FIND_PACKAGE_REDIRECTS_DIR|\w+_(?:BINARY|SOURCE)_DIR)/;
        # <Name>_DIR entries name the directory of the config file find_package(<Name>) loaded:
        # check that file itself (owned by exactly one package; the directory may have several).
        if (/^(\w+)_DIR:[A-Z]+=(\/.*?)\s*$/ && -d $2) {
            my ($name, $d) = ($1, $2);
            emit("$d/$_") for grep { -f "$d/$_" } ("${name}Config.cmake", lc($name) . "-config.cmake");
        }
        emit($1) while m{$path_re}g;
    }
    close $fh;
    for my $f (@rest) {
        open(my $in, "<", $f) or die "$f: $!";
        while (<$in>) { emit($1) while m{$path_re}g; }
        close $in;
    }
' "$here" "$build" "$build/CMakeCache.txt" "$build/build.ninja" "${compiler_files[@]}" \
    | sort -u -k2 >"$tmp/paths"

[ -s "$tmp/paths" ] || die "found no system paths in $build (is it a configured CMake build directory?)"

# --- 2. owning packages, with dpkg -S in as few calls as possible ---------------------------------
# Prints "path<TAB>pkg1 pkg2..." (architecture suffixes stripped) for every path dpkg knows.
dpkg_owners() {
    local in="$1"
    [ -s "$in" ] || return 0
    # dpkg -S exits 1 when some path is unknown; that is expected here.
    LC_ALL=C xargs -d '\n' dpkg -S <"$in" 2>/dev/null | awk '
        /^diversion by / { next }
        {
            i = index($0, ": /"); if (i == 0) next
            path = substr($0, i + 2); n = split(substr($0, 1, i - 1), p, /, */)
            out = ""
            for (k = 1; k <= n; k++) { sub(/:.*/, "", p[k]); if (!(p[k] in s)) { s[p[k]]; out = out (out == "" ? "" : " ") p[k] } }
            delete s
            print path "\t" out
        }' || true
}

cut -f2 "$tmp/paths" >"$tmp/query1"
dpkg_owners "$tmp/query1" >"$tmp/owners1"

# Paths dpkg does not know as given: try the resolved path (alternatives such as /usr/bin/c++,
# library symlinks) and the usr-merged twins (/lib <-> /usr/lib, /bin <-> /usr/bin, ...).
awk -F'\t' 'FILENAME == ARGV[1] { known[$1]; next } !($2 in known) { print $2 }' "$tmp/owners1" "$tmp/paths" \
    >"$tmp/unknown1"
: >"$tmp/candidates"
if [ -s "$tmp/unknown1" ]; then
    while IFS= read -r p; do
        r="$(realpath -e -- "$p" 2>/dev/null || echo "$p")"
        for c in "$r" "$p"; do
            case "$c" in
                /usr/lib/* | /usr/lib32/* | /usr/lib64/* | /usr/libx32/* | /usr/bin/* | /usr/sbin/*)
                    alt="${c#/usr}" ;;
                /lib/* | /lib32/* | /lib64/* | /libx32/* | /bin/* | /sbin/*)
                    alt="/usr$c" ;;
                *) alt="" ;;
            esac
            [ "$c" = "$p" ] || printf '%s\t%s\n' "$p" "$c"
            [ -z "$alt" ] || printf '%s\t%s\n' "$p" "$alt"
        done
    done <"$tmp/unknown1" >"$tmp/candidates"
fi
cut -f2 "$tmp/candidates" | sort -u >"$tmp/query2"
dpkg_owners "$tmp/query2" >"$tmp/owners2"

# path<TAB>kind<TAB>owners ("" when no package owns it in any spelling)
awk -F'\t' '
    FILENAME == ARGV[1] { own[$1] = $2; next }
    FILENAME == ARGV[2] { alt[$1] = $2; next }
    FILENAME == ARGV[3] { if (!($1 in pick) && ($2 in alt)) pick[$1] = alt[$2]; next }
    {
        o = ($2 in own) ? own[$2] : (($2 in pick) ? pick[$2] : "")
        print $2 "\t" $1 "\t" o
    }' "$tmp/owners1" "$tmp/owners2" "$tmp/candidates" "$tmp/paths" >"$tmp/resolved"

# --- 3. the Depends closure of the package list ----------------------------------------------------
read_list() { sed -e 's/#.*//' -e 's/[[:space:]]//g' "$1" | grep -v '^$' || true; }
mapfile -t wanted < <(read_list "$list")
[ ${#wanted[@]} -gt 0 ] || die "package list '$list' names no packages"

# apt-cache knows nothing until apt-get update has run once on the machine.
policy="$(apt-cache policy build-essential 2>/dev/null || true)"
if ! grep -q 'Candidate: [^(]' <<<"$policy"; then
    sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    echo "check-build-deps: apt has no package lists yet, running apt-get update" >&2
    "${sudo[@]}" apt-get update -qq || die "apt-get update failed; apt-cache needs package lists"
fi

# Every Debian system has the Essential and Priority: required packages.
mapfile -t base < <(dpkg-query -W -f='${db:Status-Abbrev}\t${Package}\t${Essential}\t${Priority}\n' \
    | awk -F'\t' '$1 ~ /^ii/ && ($3 == "yes" || $4 == "required") { print $2 }')

apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances "${wanted[@]}" "${base[@]}" 2>"$tmp/apt-errors" >"$tmp/depends" \
    || die "apt-cache depends failed: $(cat "$tmp/apt-errors")"
# Top-level lines are packages; "Depends:"/"PreDepends:" lines name dependencies ("|" marks an
# alternative, "<...>" a virtual package); the indented lines after a virtual one are its providers.
awk '
    /^[^ ]/ { print $1; next }
    /^ +\|?(Pre)?Depends:/ { print $2; next }
    /^    +[^ ]/ { print $1 }' "$tmp/depends" \
    | sed -e 's/[<>]//g' -e 's/:.*//' | sort -u >"$tmp/closure"
for p in "${wanted[@]}"; do
    grep -qxF "$p" "$tmp/closure" || echo "check-build-deps: warning: apt does not know '$p' from $list" >&2
done

read_list "$optional_list" 2>/dev/null | sort -u >"$tmp/optional" || : >"$tmp/optional"

# --- 4. compare ------------------------------------------------------------------------------------
# A path is satisfied when any of its owners is in the closure (directories such as /usr/include
# have many owners; a file normally has exactly one). Otherwise it is optional when an owner is on
# the optional list, and missing when not. Unowned paths are only warnings.
awk -F'\t' -v out="$tmp" '
    FILENAME == ARGV[1] { closure[$1]; next }
    FILENAME == ARGV[2] { optional[$1]; next }
    {
        path = $1; kind = $2; n = split($3, o, " ")
        if (n == 0) { print path > (out "/unowned"); next }
        ok = 0; opt = ""
        for (k = 1; k <= n; k++) { if (o[k] in closure) ok = 1; if (o[k] in optional && opt == "") opt = o[k] }
        if (ok) {
            if (kind == "f") { files++; for (k = 1; k <= n; k++) if (o[k] in closure) pk[o[k]] }
            next
        }
        if (opt != "") { key = opt; file = "/optional-hits" }
        else { key = o[1]; for (k = 2; k <= n; k++) key = key " or " o[k]; file = "/missing" }
        print key "\t" path > (out file)
    }
    END { m = 0; for (p in pk) m++; print files + 0, m > (out "/counts") }
' "$tmp/closure" "$tmp/optional" "$tmp/resolved"

# Prints each package once with up to two example paths.
report() {
    sort -t$'\t' -k1,1 -k2,2 "$1" | awk -F'\t' -v label="$2" '
        { if (!($1 in n)) { order[++keys] = $1; n[$1] = 0 }
          if (++n[$1] <= 2) ex[$1] = ex[$1] (n[$1] == 1 ? "" : ", ") $2 }
        END { for (i = 1; i <= keys; i++) { k = order[i]
                printf "  %s  (%s %s%s)\n", k, label, ex[k], (n[k] > 2 ? sprintf(" and %d more", n[k] - 2) : "") } }'
}

if [ -s "$tmp/unowned" ]; then
    echo "check-build-deps: warning: no Debian package owns these paths the build uses (locally installed?):" >&2
    sed 's/^/  /' "$tmp/unowned" >&2
fi
if [ -s "$tmp/optional-hits" ]; then
    echo "check-build-deps: optional, not required (listed in ${optional_list#"$here"/}):"
    report "$tmp/optional-hits" "the build found" | sed 's/$/ -- optional, not required/'
fi

read -r nfiles npkgs <"$tmp/counts"
list_name="${list#"$here"/}"
if [ -s "$tmp/missing" ]; then
    echo "check-build-deps: the build in $build uses files from packages that $list_name does not pull in:" >&2
    report "$tmp/missing" "needed by" >&2
    echo "Add each package above to $list_name (one per line, with a comment saying what needs it)" \
        "so scripts/install-deps.sh installs it on a fresh machine. If the build finds it but really" \
        "does without it, list it in ${optional_list#"$here"/} instead." >&2
    exit 1
fi
echo "check-build-deps: $nfiles files from $npkgs packages, all in the Depends closure of $list_name"
