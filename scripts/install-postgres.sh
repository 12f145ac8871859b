#!/usr/bin/env bash
# Install PostgreSQL 15 (Debian bookworm), pg_trgm (postgresql-contrib) and pgvector.
#
# pgvector is not packaged for bookworm, so it is built from the source package of the
# next Debian release (trixie) against PostgreSQL 15. The trixie deb-src line lives in a
# private apt state directory, so the machine's own apt lists never see trixie.
#
# Idempotent: every step is skipped when its result is already there, so a second run
# takes well under a second. Progress goes to stderr; command output is shown only on
# failure. Must run as root.
#
# Environment:
#   LOREBASE_DEBIAN_MIRROR  mirror URI for the trixie deb-src line
#                           (default: the bookworm mirror found in the apt sources)
#   LOREBASE_PGVECTOR_SUITE Debian suite to take pgvector's source from (default: trixie)
set -euo pipefail

PG_MAJOR=15
PG_CONFIG="/usr/lib/postgresql/${PG_MAJOR}/bin/pg_config"
VECTOR_CONTROL="/usr/share/postgresql/${PG_MAJOR}/extension/vector.control"
SRC_SUITE="${LOREBASE_PGVECTOR_SUITE:-trixie}"

export DEBIAN_FRONTEND=noninteractive
export LC_ALL=C

log() { printf '[install-postgres] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# Run a command with its output captured; print the output only if it fails.
run_quiet() {
    local out rc=0
    out="$(mktemp)"
    "$@" >"$out" 2>&1 || rc=$?
    if [ "$rc" -ne 0 ]; then
        cat "$out" >&2
        log "command failed (exit $rc): $*"
    fi
    rm -f "$out"
    return "$rc"
}

is_installed() {
    [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null || true)" = "installed" ]
}

APT_UPDATED=0
apt_update() {
    log "apt-get update"
    run_quiet apt-get update -q
    APT_UPDATED=1
}

apt_lists_present() {
    compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null
}

# Install the given packages that are not installed yet. Runs `apt-get update` first when
# the machine has no package lists, and once more (then retries) if installing fails,
# e.g. because the lists are stale and point at .debs the mirror no longer has.
apt_install_missing() {
    local pkg missing=()
    for pkg in "$@"; do
        is_installed "$pkg" || missing+=("$pkg")
    done
    [ "${#missing[@]}" -eq 0 ] && return 0
    if ! apt_lists_present && [ "$APT_UPDATED" -eq 0 ]; then
        apt_update
    fi
    local cmd=(apt-get install -y -q --no-install-recommends
        -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold
        "${missing[@]}")
    log "apt-get install ${missing[*]}"
    if ! run_quiet "${cmd[@]}"; then
        [ "$APT_UPDATED" -eq 0 ] || die "apt-get install failed"
        log "install failed; refreshing package lists and retrying"
        apt_update
        run_quiet "${cmd[@]}" || die "apt-get install failed"
    fi
}

# Print "URI<TAB>SUITE<TAB> COMPONENTS" for every enabled binary (deb) source, from both
# the one-line format (*.list) and the deb822 format (*.sources).
apt_source_entries() {
    local f
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -r "$f" ] || continue
        awk '
            /^[ \t]*deb[ \t]/ {
                sub(/^[ \t]*deb[ \t]+/, "")
                if ($0 ~ /^\[/) sub(/^\[[^]]*\][ \t]*/, "")
                comps = ""
                for (i = 3; i <= NF; i++) { if ($i ~ /^#/) break; comps = comps " " $i }
                print $1 "\t" $2 "\t" comps
            }' "$f"
    done
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -r "$f" ] || continue
        awk '
            BEGIN { RS = ""; FS = "\n" }
            {
                types = ""; uris = ""; suites = ""; comps = ""; enabled = "yes"
                for (i = 1; i <= NF; i++) {
                    line = $i
                    if (line ~ /^[ \t]*#/) continue
                    if (match(line, /^[A-Za-z-]+:/)) {
                        key = tolower(substr(line, 1, RLENGTH - 1))
                        val = substr(line, RLENGTH + 1)
                        gsub(/^[ \t]+|[ \t]+$/, "", val)
                        if (key == "types") types = val
                        else if (key == "uris") uris = val
                        else if (key == "suites") suites = val
                        else if (key == "components") comps = val
                        else if (key == "enabled") enabled = tolower(val)
                    }
                }
                if (enabled == "no" || (" " types " ") !~ /[ \t]deb[ \t]/) next
                split(uris, u, /[ \t]+/)
                n = split(suites, s, /[ \t]+/)
                for (j = 1; j <= n; j++) print u[1] "\t" s[j] "\t " comps
            }' "$f"
    done
}

# The mirror the machine installs Debian itself from: a source for this release's codename
# with the main component, preferring a URI whose path ends in /debian.
detect_mirror() {
    if [ -n "${LOREBASE_DEBIAN_MIRROR:-}" ]; then
        printf '%s\n' "${LOREBASE_DEBIAN_MIRROR%/}"
        return 0
    fi
    local codename
    codename="$(. /etc/os-release && printf '%s' "${VERSION_CODENAME:-}")"
    [ -n "$codename" ] || die "cannot read VERSION_CODENAME from /etc/os-release"
    apt_source_entries | awk -F '\t' -v cn="$codename" '
        $2 == cn && $3 ~ / main( |$)/ {
            uri = $1; sub(/\/+$/, "", uri)
            if (uri ~ /\/debian$/) { print uri; found = 1; exit }
            if (first == "") first = uri
        }
        END { if (!found && first != "") print first }'
}

build_pgvector() {
    apt_install_missing "postgresql-server-dev-${PG_MAJOR}" build-essential
    [ -x "$PG_CONFIG" ] || die "$PG_CONFIG not found after installing postgresql-server-dev-${PG_MAJOR}"

    local mirror
    mirror="$(detect_mirror)"
    [ -n "$mirror" ] || die "no Debian mirror found in /etc/apt/sources.list{,.d}; set LOREBASE_DEBIAN_MIRROR"

    local work
    work="$(mktemp -d /tmp/lorebase-pgvector.XXXXXX)"
    # shellcheck disable=SC2064
    trap "rm -rf '$work'" EXIT
    mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/parts" "$work/src"

    local signed_by=""
    [ -r /usr/share/keyrings/debian-archive-keyring.gpg ] &&
        signed_by="[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] "
    printf 'deb-src %s%s %s main\n' "$signed_by" "$mirror" "$SRC_SUITE" >"$work/sources.list"

    local apt_private=(
        -o "Dir::Etc::SourceList=$work/sources.list"
        -o "Dir::Etc::SourceParts=$work/parts"
        -o "Dir::State::Lists=$work/lists"
        -o "Dir::Cache=$work/cache"
        -o "Dir::Cache::pkgcache=$work/cache/pkgcache.bin"
        -o "Dir::Cache::srcpkgcache=$work/cache/srcpkgcache.bin"
        -o "APT::Sandbox::User=root"
    )
    log "fetching the pgvector source package from $mirror $SRC_SUITE (private apt state)"
    run_quiet apt-get "${apt_private[@]}" update -q || die "apt-get update for $SRC_SUITE sources failed"
    (cd "$work/src" && run_quiet apt-get "${apt_private[@]}" source --download-only -q pgvector) ||
        die "apt-get source pgvector failed"

    local dsc
    dsc="$(compgen -G "$work/src/pgvector_*.dsc" | head -n 1 || true)"
    [ -n "$dsc" ] || die "no pgvector .dsc downloaded"
    log "unpacking $(basename "$dsc")"
    run_quiet dpkg-source -x "$dsc" "$work/src/pgvector" || die "dpkg-source -x failed"

    log "building and installing pgvector for PostgreSQL ${PG_MAJOR}"
    run_quiet make -C "$work/src/pgvector" -j "$(nproc)" PG_CONFIG="$PG_CONFIG" OPTFLAGS="" ||
        die "pgvector build failed"
    run_quiet make -C "$work/src/pgvector" PG_CONFIG="$PG_CONFIG" OPTFLAGS="" install ||
        die "pgvector install failed"
    [ -f "$VECTOR_CONTROL" ] || die "$VECTOR_CONTROL missing after make install"
}

main() {
    [ "$(id -u)" -eq 0 ] || die "must run as root"
    local start=$SECONDS

    if is_installed postgresql && is_installed postgresql-contrib && [ -x "/usr/lib/postgresql/${PG_MAJOR}/bin/postgres" ]; then
        log "postgresql ${PG_MAJOR} and postgresql-contrib already installed"
    else
        apt_install_missing postgresql postgresql-contrib
        [ -x "/usr/lib/postgresql/${PG_MAJOR}/bin/postgres" ] ||
            die "PostgreSQL ${PG_MAJOR} server not found after install (is this Debian bookworm?)"
    fi
    command -v pg_createcluster >/dev/null || die "pg_createcluster missing (postgresql-common)"

    if [ -f "$VECTOR_CONTROL" ]; then
        log "pgvector already installed"
    else
        build_pgvector
    fi

    local version
    version="$(sed -n "s/^default_version *= *'\(.*\)'.*/\1/p" "$VECTOR_CONTROL")"
    log "done in $((SECONDS - start))s: PostgreSQL $("/usr/lib/postgresql/${PG_MAJOR}/bin/postgres" --version | awk '{print $3}'), pgvector ${version:-?}"
}

main "$@"
