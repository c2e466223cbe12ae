#!/usr/bin/env bash
# Installs what the VRAM Lens end-to-end tests need, from Debian apt and the npm registry only.
# Idempotent: every step is skipped when already done (a warm re-run takes about a second).
#
#   bash scripts/e2e/install.sh
#
# Layout (outside the repo's node_modules):
#   $E2E_HOME/code-server/node_modules/code-server   code-server (VS Code 1.100.3 web + server)
#   $E2E_HOME/tools/node_modules/playwright-core     Playwright driver (no browser download)
# env: E2E_HOME (default ~/.cache/vram-lens-e2e), CS_VERSION (4.100.3), PW_VERSION (1.65.1)
set -euo pipefail
E2E_HOME=${E2E_HOME:-$HOME/.cache/vram-lens-e2e}
CS_VERSION=${CS_VERSION:-4.100.3}
PW_VERSION=${PW_VERSION:-1.65.1}
mkdir -p "$E2E_HOME"; E2E_HOME=$(cd "$E2E_HOME" && pwd)
t0=$SECONDS
log() { echo "[e2e-install +$((SECONDS-t0))s] $*"; }

# 1) Debian packages: chromium (headless workbench client), ripgrep (stands in for @vscode/ripgrep's
#    GitHub download), libkrb5-dev (code-server's `kerberos` native module needs gssapi.h).
missing=()
for p in chromium ripgrep libkrb5-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
  log "apt-get install ${missing[*]}"
  $SUDO apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi
log "apt ok (chromium, ripgrep, libkrb5-dev)"

# 2) code-server from npm. Its postinstall runs `npm install` in lib/vscode and compiles native modules
#    (argon2, kerberos, node-pty, @vscode/spdlog, native-watchdog, @vscode/deviceid) with node-gyp.
CS_DIR="$E2E_HOME/code-server"
CS_MARK="$CS_DIR/.installed-$CS_VERSION"
if [ -f "$CS_MARK" ] && [ -f "$CS_DIR/node_modules/code-server/out/node/entry.js" ]; then
  log "code-server $CS_VERSION already installed"
else
  rm -rf "$CS_DIR"; mkdir -p "$CS_DIR"
  echo '{"name":"vram-lens-e2e-code-server","private":true}' > "$CS_DIR/package.json"
  # Private TMPDIR, thrown away afterwards. @vscode/ripgrep's postinstall downloads rg from GitHub
  # (unreachable here) unless $TMPDIR/vscode-ripgrep-cache-<ver>/<asset> exists: seed it with Debian's rg.
  INSTALL_TMP=$(mktemp -d /tmp/vram-lens-e2e-install.XXXXXX)
  trap 'rm -rf "$INSTALL_TMP"' EXIT
  RG_CACHE="$INSTALL_TMP/vscode-ripgrep-cache-${RG_PKG_VERSION:-1.15.11}"
  mkdir -p "$RG_CACHE" "$INSTALL_TMP/rg"
  cp "$(command -v rg)" "$INSTALL_TMP/rg/rg"
  tar czf "$RG_CACHE/ripgrep-${RG_TAG:-v13.0.0-10}-x86_64-unknown-linux-musl.tar.gz" -C "$INSTALL_TMP/rg" rg
  log "npm install code-server@$CS_VERSION (native builds, ~40-90 s)"
  # npm_config_yes: node-pty's postinstall runs `npx node-gyp` (a `yes=false` in ~/.npmrc cancels it)
  # npm_config_unsafe_perm: code-server's postinstall refuses to run as root otherwise
  # npm_config_nodedir: build native modules against the running node's headers when they exist
  NODEDIR=$(dirname "$(dirname "$(command -v node)")")
  [ -f "$NODEDIR/include/node/node.h" ] && export npm_config_nodedir="$NODEDIR"
  if ! (cd "$CS_DIR" && TMPDIR="$INSTALL_TMP" npm_config_yes=true npm_config_unsafe_perm=true \
        npm install --no-audit --no-fund --foreground-scripts "code-server@$CS_VERSION" > install.log 2>&1); then
    tail -60 "$CS_DIR/install.log"; echo "[e2e-install] code-server install FAILED (log: $CS_DIR/install.log)" >&2; exit 1
  fi
  [ -f "$CS_DIR/node_modules/code-server/lib/vscode/node_modules/@vscode/ripgrep/bin/rg" ] \
    || { echo "[e2e-install] code-server installed without ripgrep (see $CS_DIR/install.log)" >&2; exit 1; }
  touch "$CS_MARK"
  log "code-server $CS_VERSION installed"
fi

# 3) playwright-core only: never `playwright` / `playwright install` (they download browsers).
PW_DIR="$E2E_HOME/tools"
if [ -f "$PW_DIR/.installed-pw-$PW_VERSION" ] && [ -f "$PW_DIR/node_modules/playwright-core/package.json" ]; then
  log "playwright-core $PW_VERSION already installed"
else
  rm -rf "$PW_DIR"; mkdir -p "$PW_DIR"
  echo '{"name":"vram-lens-e2e-tools","private":true}' > "$PW_DIR/package.json"
  (cd "$PW_DIR" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund "playwright-core@$PW_VERSION" > install.log 2>&1) \
    || { tail -30 "$PW_DIR/install.log"; exit 1; }
  touch "$PW_DIR/.installed-pw-$PW_VERSION"
  log "playwright-core $PW_VERSION installed"
fi
log "done: E2E_HOME=$E2E_HOME"
