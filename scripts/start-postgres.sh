#!/usr/bin/env bash
# Start a throwaway PostgreSQL 15 cluster for tests and print its DSN.
#
# Usage: scripts/start-postgres.sh [CLUSTER_NAME [PORT]]
#   CLUSTER_NAME  default $LOREBASE_PG_CLUSTER or "lorebase_test"
#   PORT          default $LOREBASE_PG_PORT or 55432
#
# Creates the cluster if needed (listening on 127.0.0.1 only, fsync off, its data on tmpfs
# when /dev/shm has room: for tests only),
# starts it if it is down, ensures the role and database "lorebase" (password "lorebase")
# and the extensions vector and pg_trgm, then prints exactly one line to stdout:
#   postgresql://lorebase:lorebase@127.0.0.1:PORT/lorebase
# Progress goes to stderr. Run as root, after scripts/install-postgres.sh.
# Stop and drop it with scripts/stop-postgres.sh [CLUSTER_NAME].
set -euo pipefail

PG_MAJOR=15
NAME="${1:-${LOREBASE_PG_CLUSTER:-lorebase_test}}"
PORT="${2:-${LOREBASE_PG_PORT:-55432}}"
DB_USER=lorebase
DB_PASSWORD=lorebase
DB_NAME=lorebase
SOCKET_DIR=/var/run/postgresql
CONF_DIR="/etc/postgresql/${PG_MAJOR}/${NAME}"
CONF_FILE="${CONF_DIR}/conf.d/90-lorebase-test.conf"

export LC_ALL=C

log() { printf '[start-postgres] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

run_quiet() {
    local out rc=0
    out="$(mktemp)"
    # 9>&-: the lock fd must not be inherited by the server that pg_ctlcluster starts.
    "$@" 9>&- >"$out" 2>&1 || rc=$?
    if [ "$rc" -ne 0 ]; then
        cat "$out" >&2
        log "command failed (exit $rc): $*"
    fi
    rm -f "$out"
    return "$rc"
}

# "VER NAME PORT STATUS ..." line of our cluster, empty if it does not exist.
cluster_line() {
    pg_lsclusters -h 2>/dev/null | awk -v v="$PG_MAJOR" -v n="$NAME" '$1 == v && $2 == n { print; exit }'
}

# psql as the postgres superuser over the Unix socket (peer authentication).
psql_admin() {
    local db="$1"
    shift
    (cd / && PGOPTIONS='-c client_min_messages=warning' \
        runuser -u postgres -- psql 9>&- -X -q -v ON_ERROR_STOP=1 -h "$SOCKET_DIR" -p "$PORT" -d "$db" "$@")
}

# The cluster's data in memory (tmpfs) when the machine has one with room: on these machines'
# virtual disks a CREATE DATABASE ... TEMPLATE of the tests took 0.3-0.6 s, on tmpfs 0.015 s.
# A throwaway cluster loses nothing it needs to keep. LOREBASE_PG_MEMORY_DISK=0 keeps it on disk.
MEMORY_DISK=/dev/shm
memory_disk() {
    [ "${LOREBASE_PG_MEMORY_DISK:-1}" != 0 ] || return 1
    [ -d "$MEMORY_DISK" ] && [ -w "$MEMORY_DISK" ] || return 1
    [ "$(stat -f -c %T "$MEMORY_DISK" 2>/dev/null)" = tmpfs ] || return 1
    local free_kb
    free_kb="$(df -Pk "$MEMORY_DISK" | awk 'NR == 2 { print $4 }')"
    [ "${free_kb:-0}" -ge $((4 * 1024 * 1024)) ] # 4 GiB free at least
}

write_conf() {
    local want
    want="# Written by scripts/start-postgres.sh: a throwaway cluster for tests only.
listen_addresses = '127.0.0.1'
fsync = off
synchronous_commit = off
full_page_writes = off"
    if [ -f "$CONF_FILE" ] && [ "$(cat "$CONF_FILE")" = "$want" ]; then
        return 1 # unchanged
    fi
    mkdir -p "$(dirname "$CONF_FILE")"
    printf '%s\n' "$want" >"$CONF_FILE"
    chown postgres:postgres "$CONF_FILE"
    return 0
}

main() {
    [ "$(id -u)" -eq 0 ] || die "must run as root"
    [[ "$NAME" =~ ^[A-Za-z0-9_]+$ ]] || die "bad cluster name: $NAME"
    [[ "$PORT" =~ ^[0-9]+$ ]] || die "bad port: $PORT"
    command -v pg_createcluster >/dev/null && [ -x "/usr/lib/postgresql/${PG_MAJOR}/bin/postgres" ] ||
        die "PostgreSQL ${PG_MAJOR} is not installed: run scripts/install-postgres.sh"
    [ -f "/usr/share/postgresql/${PG_MAJOR}/extension/vector.control" ] ||
        die "pgvector is not installed: run scripts/install-postgres.sh"

    # Serialise concurrent runs for the same cluster.
    exec 9>"/tmp/lorebase-postgres-${NAME}.lock"
    flock -w 120 9 || die "another start/stop of cluster ${NAME} holds /tmp/lorebase-postgres-${NAME}.lock"

    local line
    line="$(cluster_line)"
    if [ -n "$line" ]; then
        local datadir why=""
        datadir="$(awk '{print $6}' <<<"$line")"
        if [ ! -d "$datadir" ]; then
            why="lost its data directory (in memory, and the machine restarted)"
        elif [[ "$datadir" != "$MEMORY_DISK"/* ]] && memory_disk; then
            why="keeps its data on disk, where copying a database takes 30 times longer"
        fi
        if [ -n "$why" ]; then # a throwaway cluster: made again, in memory
            log "cluster ${PG_MAJOR}/${NAME} ${why}: dropping it to create it again"
            run_quiet pg_dropcluster --stop "$PG_MAJOR" "$NAME" || die "pg_dropcluster failed"
            line=""
        fi
    fi
    if [ -z "$line" ]; then
        local data=()
        if memory_disk; then
            data=(--datadir "${MEMORY_DISK}/lorebase-postgres-${NAME}")
        fi
        log "creating cluster ${PG_MAJOR}/${NAME} on port ${PORT} ${data[*]}"
        run_quiet pg_createcluster "$PG_MAJOR" "$NAME" --port "$PORT" --start-conf manual \
            --locale C.UTF-8 --encoding UTF8 "${data[@]}" || die "pg_createcluster failed"
        write_conf || true
        line="$(cluster_line)"
        [ -n "$line" ] || die "cluster ${PG_MAJOR}/${NAME} not listed after pg_createcluster"
    else
        local existing_port
        existing_port="$(awk '{print $3}' <<<"$line")"
        if [ "$existing_port" != "$PORT" ]; then
            log "cluster ${PG_MAJOR}/${NAME} already exists on port ${existing_port}; using that port"
            PORT="$existing_port"
        fi
        if write_conf && [[ "$(awk '{print $4}' <<<"$line")" == online* ]]; then
            log "settings changed; restarting cluster ${PG_MAJOR}/${NAME}"
            run_quiet pg_ctlcluster --skip-systemctl-redirect "$PG_MAJOR" "$NAME" restart ||
                die "pg_ctlcluster restart failed"
            line="$(cluster_line)"
        fi
    fi

    if [[ "$(awk '{print $4}' <<<"$line")" == online* ]]; then
        log "cluster ${PG_MAJOR}/${NAME} already running on port ${PORT}"
    else
        log "starting cluster ${PG_MAJOR}/${NAME} on port ${PORT}"
        run_quiet pg_ctlcluster --skip-systemctl-redirect "$PG_MAJOR" "$NAME" start ||
            die "pg_ctlcluster start failed (log: /var/log/postgresql/postgresql-${PG_MAJOR}-${NAME}.log)"
    fi

    local i
    for i in $(seq 1 60); do
        pg_isready -q -h 127.0.0.1 -p "$PORT" && break
        [ "$i" -eq 60 ] && die "cluster not accepting TCP connections on 127.0.0.1:${PORT} after 30s"
        sleep 0.5
    done

    log "ensuring role ${DB_USER}, database ${DB_NAME}, extensions vector and pg_trgm"
    psql_admin postgres <<SQL || die "creating role/database failed"
DO \$\$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${DB_USER}') THEN
        CREATE ROLE ${DB_USER} LOGIN SUPERUSER PASSWORD '${DB_PASSWORD}';
    ELSE
        ALTER ROLE ${DB_USER} LOGIN SUPERUSER PASSWORD '${DB_PASSWORD}';
    END IF;
END
\$\$;
SELECT 'CREATE DATABASE ${DB_NAME} OWNER ${DB_USER} TEMPLATE template0 ENCODING ''UTF8'''
WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = '${DB_NAME}')
\gexec
SQL
    psql_admin "$DB_NAME" <<SQL || die "creating extensions failed"
CREATE EXTENSION IF NOT EXISTS vector;
CREATE EXTENSION IF NOT EXISTS pg_trgm;
SQL

    local dsn="postgresql://${DB_USER}:${DB_PASSWORD}@127.0.0.1:${PORT}/${DB_NAME}"
    # Check the DSN itself works (TCP + password authentication).
    (cd / && psql -X -q -At "$dsn" -c 'SELECT 1' >/dev/null) || die "cannot connect with $dsn"
    log "ready: $dsn"
    printf '%s\n' "$dsn"
}

main "$@"
