#!/usr/bin/env bash
# Stop and drop the throwaway test cluster made by scripts/start-postgres.sh.
#
# Usage: scripts/stop-postgres.sh [CLUSTER_NAME]
#   CLUSTER_NAME  default $LOREBASE_PG_CLUSTER or "lorebase_test"
# Does nothing (and succeeds) when the cluster does not exist. Run as root.
set -euo pipefail

PG_MAJOR=15
NAME="${1:-${LOREBASE_PG_CLUSTER:-lorebase_test}}"

export LC_ALL=C

log() { printf '[stop-postgres] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "must run as root"
[[ "$NAME" =~ ^[A-Za-z0-9_]+$ ]] || die "bad cluster name: $NAME"

if ! command -v pg_lsclusters >/dev/null ||
    [ -z "$(pg_lsclusters -h 2>/dev/null | awk -v v="$PG_MAJOR" -v n="$NAME" '$1 == v && $2 == n')" ]; then
    log "no cluster ${PG_MAJOR}/${NAME}; nothing to do"
    exit 0
fi

exec 9>"/tmp/lorebase-postgres-${NAME}.lock"
flock -w 30 9 || log "lock /tmp/lorebase-postgres-${NAME}.lock busy for 30s; stopping anyway"

log "stopping and dropping cluster ${PG_MAJOR}/${NAME}"
# Fast shutdown: roll back open transactions and disconnect clients, no waiting for them.
pg_ctlcluster --skip-systemctl-redirect "$PG_MAJOR" "$NAME" stop -m fast >/dev/null 2>&1 9>&- || true
out="$(pg_dropcluster "$PG_MAJOR" "$NAME" --stop 2>&1 9>&-)" || { printf '%s\n' "$out" >&2; die "pg_dropcluster failed"; }
log "dropped"
