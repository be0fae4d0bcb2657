#!/usr/bin/env bash
# Seeds every target's corpus with the pyarrow interop fixtures (streams and files alike:
# each reader should see both), plus the committed regressions.
set -euo pipefail
cd "$(dirname "$0")"
for target in ipc_stream ipc_file ipc_zero_copy; do
    mkdir -p "corpus/$target"
    cp ../alkaid-ipc/tests/fixtures/pyarrow/* "corpus/$target/"
    if [ -d "regressions/$target" ]; then cp regressions/$target/* "corpus/$target/" 2>/dev/null || true; fi
done
mkdir -p corpus/array_data corpus/c_data corpus/tensor corpus/integration_json
cp ../alkaid-ipc/tests/fixtures/pyarrow/tensor_* corpus/tensor/
cp ../alkaid-integration/tests/data/*.json corpus/integration_json/
