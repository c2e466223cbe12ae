#!/usr/bin/env bash
# `npm test`: unit tests (mocha in Node) and the e2e suite in a real VS Code (code-server + headless Chromium,
# installed outside node_modules by scripts/e2e/install.sh). Ends with one line `N passed, N failed`.
# VRAM_LENS_SKIP_E2E=1 runs the unit tests only.
set -uo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)

npx tsc -p . || { echo "0 passed, 1 failed"; exit 1; }
node esbuild.mjs || { echo "0 passed, 1 failed"; exit 1; }

node scripts/run-unit-tests.mjs 2>&1 | tee "$log"
unit_rc=${PIPESTATUS[0]}
read -r up uf < <(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed.*$/\1 \2/p' "$log" | tail -1)
up=${up:-0}; uf=${uf:-0}
[ "$unit_rc" -ne 0 ] && [ "$uf" -eq 0 ] && uf=1

ep=0; ef=0
if [ "${VRAM_LENS_SKIP_E2E:-0}" != "1" ]; then
  if bash scripts/e2e/install.sh > "$log.install" 2>&1; then
    node scripts/e2e/run.mjs --extension . --workspace test/e2e/fixtures/workspace --tests out/test/e2e/index.js \
      --ui test/e2e/ui/features.ui.mjs --screenshots out/e2e-artifacts 2>&1 | tee "$log.e2e"
    e2e_rc=${PIPESTATUS[0]}
    read -r ep ef < <(sed -n 's/^E2E: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$log.e2e" | tail -1)
    ep=${ep:-0}; ef=${ef:-0}
    [ "$e2e_rc" -ne 0 ] && [ "$ef" -eq 0 ] && ef=1
  else
    tail -20 "$log.install"
    echo "e2e setup failed (see above)"
    ef=1
  fi
fi

echo "$((up + ep)) passed, $((uf + ef)) failed"
[ $((uf + ef)) -eq 0 ]
