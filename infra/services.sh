#!/usr/bin/env bash
# Local infrastructure for development and tests: NATS with JetStream and PostgreSQL
# on loopback.
#
#   infra/services.sh up              reuse what already answers at NATS_URL / DATABASE_URL,
#                                     start a local server under .data/ for what does not,
#                                     then make sure the database exists
#   infra/services.sh down            stop only what `up` started (listed in .data/started)
#   infra/services.sh status          exit 0 when both answer
#   infra/services.sh cluster-up      3-node NATS cluster on 127.0.0.1:14222-14224 (for chaos
#                                     tests); prints the client URL list on stdout. Starts only
#                                     the nodes that are not running, so it also restarts a
#                                     node a test killed.
#   infra/services.sh cluster-down    stop the 3-node cluster (keeps .data/nats-cluster;
#                                     rm -rf it for a fresh cluster)
#   infra/services.sh cluster-status  exit 0 when all three nodes answer
#
# `up` also installs Debian's Chromium (/usr/bin/chromium, for the browser SDK tests) when it is missing;
# GEP_CHROMIUM=skip leaves it out.
#
# Environment:
#   NATS_URL      default nats://127.0.0.1:4222 (the first URL of a comma list is used)
#   DATABASE_URL  default postgres://postgres@127.0.0.1:5432/gep
#
# Human output goes to stderr; only cluster-up writes to stdout (the URL list).
set -euo pipefail

ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd -P)"
# GEP_SERVICES_DATA moves the local servers' data elsewhere (fault tests run a throwaway PostgreSQL there).
DATA="${GEP_SERVICES_DATA:-$ROOT/.data}"
STARTED="$DATA/started"
NATS_PIDFILE="$DATA/nats.pid"
NATS_LOG="$DATA/nats.log"
PGDATA_DIR="$DATA/pg"
PG_LOG="$DATA/pg.log"
CLUSTER_DIR="$DATA/nats-cluster"
CLUSTER_URLS="nats://127.0.0.1:14222,nats://127.0.0.1:14223,nats://127.0.0.1:14224"

NATS_URL="${NATS_URL:-nats://127.0.0.1:4222}"
DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/gep}"

log() { printf 'services: %s\n' "$*" >&2; }
die() {
  printf 'services: error: %s\n' "$*" >&2
  exit 1
}

usage() {
  sed -n '2,25p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# ---------------------------------------------------------------------------
# URL parsing
# ---------------------------------------------------------------------------

urldecode() { printf '%b' "${1//%/\\x}"; }

# split_hostport HOSTPORT DEFAULT_PORT -> sets _host, _port ("[::1]:4222" works too)
split_hostport() {
  local hp=$1 rest
  if [[ $hp == \[* ]]; then
    _host=${hp%%]*}
    _host=${_host#[}
    rest=${hp#*]}
    _port=${rest#:}
  elif [[ $hp == *:* ]]; then
    _host=${hp%:*}
    _port=${hp##*:}
  else
    _host=$hp
    _port=
  fi
  [[ -n $_host ]] || _host=127.0.0.1
  [[ -n $_port ]] || _port=$2
  [[ $_port =~ ^[0-9]+$ ]] || die "cannot parse a port out of '$1'"
}

parse_nats_url() {
  local u=${NATS_URL%%,*}
  u=${u//[[:space:]]/}
  u=${u#*://}   # nats://, tls://; no scheme is fine too
  u=${u%%/*}
  u=${u##*@}    # user:pass@ or token@
  split_hostport "$u" 4222
  NATS_HOST=$_host
  NATS_PORT=$_port
}

parse_db_url() {
  local u=$DATABASE_URL rest auth path
  [[ $u =~ ^postgres(ql)?:// ]] || die "DATABASE_URL must start with postgres:// or postgresql:// (got '$u')"
  rest=${u#*://}
  rest=${rest%%\?*}
  rest=${rest%%#*}
  if [[ $rest == */* ]]; then
    path=${rest#*/}
    rest=${rest%%/*}
  else
    path=
  fi
  if [[ $rest == *@* ]]; then
    auth=${rest%@*}
    rest=${rest##*@}
  else
    auth=
  fi
  DB_USER=$(urldecode "${auth%%:*}")
  DB_PASS=
  if [[ $auth == *:* ]]; then DB_PASS=$(urldecode "${auth#*:}"); fi
  [[ -n $DB_USER ]] || DB_USER=postgres
  split_hostport "${rest%%,*}" 5432
  DB_HOST=$_host
  DB_PORT=$_port
  DB_NAME=$(urldecode "$path")
  [[ -n $DB_NAME ]] || DB_NAME=$DB_USER
}

is_local_host() {
  case $1 in
    localhost | 127.* | ::1 | 0.0.0.0) return 0 ;;
  esac
  return 1
}

# ---------------------------------------------------------------------------
# Probes
# ---------------------------------------------------------------------------

# shellcheck disable=SC2016 # bash -c '...' gets its arguments as $0, $1, ...
tcp_open() {
  timeout 3 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$1" "$2" 2>/dev/null
}

# nats_info HOST PORT -> prints the server's INFO line; fails if nothing NATS-like answers
# shellcheck disable=SC2016 # bash -c '...' gets its arguments as $0, $1, ...
nats_info() {
  local line
  line=$(timeout 4 bash -c 'exec 3<>"/dev/tcp/$0/$1" || exit 1
    IFS= read -r -t 3 line <&3 || exit 1
    printf "%s\n" "$line"' "$1" "$2" 2>/dev/null) || return 1
  line=${line%$'\r'}
  [[ $line == INFO\ \{* ]] || return 1
  printf '%s\n' "$line"
}

# http_get HOST PORT PATH -> prints the response body (no curl needed)
# shellcheck disable=SC2016 # bash -c '...' gets its arguments as $0, $1, ...
http_get() {
  local resp
  resp=$(timeout 4 bash -c 'exec 3<>"/dev/tcp/$0/$1" || exit 1
    printf "GET %s HTTP/1.0\r\nHost: %s\r\n\r\n" "$2" "$0" >&3
    cat <&3' "$1" "$2" "$3" 2>/dev/null) || return 1
  printf '%s\n' "${resp#*$'\r\n\r\n'}"
}

pg_isready_bin() {
  if command -v pg_isready >/dev/null 2>&1; then
    command -v pg_isready
  elif [[ -n ${PGBIN:-} && -x $PGBIN/pg_isready ]]; then
    printf '%s\n' "$PGBIN/pg_isready"
  fi
}

pg_answers() {
  local bin
  bin=$(pg_isready_bin)
  if [[ -n $bin ]]; then
    "$bin" -q -h "$DB_HOST" -p "$DB_PORT" -U "$DB_USER" -d postgres -t 3 >/dev/null 2>&1
  else
    tcp_open "$DB_HOST" "$DB_PORT"
  fi
}

pid_is() { # pid_is PID COMMAND_NAME
  [[ $1 =~ ^[0-9]+$ ]] && kill -0 "$1" 2>/dev/null &&
    [[ $(ps -p "$1" -o comm= 2>/dev/null) == "$2"* ]]
}

# ---------------------------------------------------------------------------
# Bookkeeping
# ---------------------------------------------------------------------------

was_started() { [[ -f $STARTED ]] && grep -qx "$1" "$STARTED"; }

mark_started() { was_started "$1" || printf '%s\n' "$1" >>"$STARTED"; }

unmark_started() {
  [[ -f $STARTED ]] || return 0
  local rest
  rest=$(grep -vx "$1" "$STARTED" || true)
  if [[ -n $rest ]]; then printf '%s\n' "$rest" >"$STARTED"; else rm -f "$STARTED"; fi
}

# Is the server at NATS_PORT / DB_PORT the one services.sh started?
ours_nats() {
  local pid
  was_started nats || return 1
  pid=$(cat "$NATS_PIDFILE" 2>/dev/null || true)
  pid_is "$pid" nats-server && [[ " $(ps -p "$pid" -o args= 2>/dev/null) " == *" -p $NATS_PORT "* ]]
}

ours_pg() {
  local lines
  was_started postgres || return 1
  mapfile -t lines <"$PGDATA_DIR/postmaster.pid" 2>/dev/null || return 1
  [[ ${#lines[@]} -ge 4 && ${lines[3]} == "$DB_PORT" ]] && pid_is "${lines[0]}" postgres
}

# Serialise concurrent runs (fd 9; close_extra_fds keeps it out of the servers we start).
take_lock() {
  mkdir -p "$DATA"
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$DATA/.lock"
    flock -w 180 9 || die "another infra/services.sh run holds $DATA/.lock"
  fi
}

# Close every inherited descriptor above 2 in the current (sub)shell, so that a server
# started from here holds neither our lock nor a pipe its caller waits on for EOF.
close_extra_fds() {
  local f fd
  for f in /proc/self/fd/*; do
    fd=${f##*/}
    [[ $fd =~ ^[0-9]+$ ]] && ((fd > 2)) && eval "exec $fd>&-" 2>/dev/null
  done
  return 0
}

# spawn_detached LOGFILE CMD... : run CMD in the background in its own session, stdin from
# /dev/null, stdout/stderr appended to LOGFILE. Sets SPAWNED_PID.
spawn_detached() {
  local logfile=$1
  shift
  (
    exec </dev/null >>"$logfile" 2>&1
    close_extra_fds
    if command -v setsid >/dev/null 2>&1; then exec setsid "$@"; else exec nohup "$@"; fi
  ) &
  SPAWNED_PID=$!
}

as_root() {
  if [[ $EUID -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    die "need root (or sudo) to run: $*"
  fi
}

apt_install() {
  command -v apt-get >/dev/null 2>&1 || die "$* is not installed and apt-get is not available; install it by hand"
  [[ $EUID -eq 0 ]] || command -v sudo >/dev/null 2>&1 || die "$* is not installed; installing it needs root or sudo"
  log "installing $* with apt-get (can take a minute)"
  if ! as_root env DEBIAN_FRONTEND=noninteractive apt-get update >"$DATA/apt.log" 2>&1 ||
    ! as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@" >>"$DATA/apt.log" 2>&1; then
    tail -n 20 "$DATA/apt.log" >&2
    die "apt-get install $* failed (full output in .data/apt.log)"
  fi
}

# ---------------------------------------------------------------------------
# Chromium (test/sdk drives it through playwright-core; never a downloaded browser)
# ---------------------------------------------------------------------------

ensure_chromium() {
  [[ ${GEP_CHROMIUM:-} != skip && ! -x /usr/bin/chromium ]] || return 0
  apt_install chromium
  [[ -x /usr/bin/chromium ]] || die "chromium still not found at /usr/bin/chromium after apt-get install"
}

# ---------------------------------------------------------------------------
# NATS
# ---------------------------------------------------------------------------

nats_bin() {
  NATS_BIN=$(command -v nats-server 2>/dev/null || true)
  if [[ -z $NATS_BIN ]]; then
    apt_install nats-server
    NATS_BIN=$(command -v nats-server 2>/dev/null || true)
    [[ -n $NATS_BIN ]] || NATS_BIN=/usr/sbin/nats-server
    [[ -x $NATS_BIN ]] || die "nats-server still not found after apt-get install"
  fi
}

# wait_nats HOST PORT SECONDS [PID]
wait_nats() {
  local i
  for ((i = 0; i < $3 * 4; i++)); do
    nats_info "$1" "$2" >/dev/null && return 0
    if [[ -n ${4:-} ]] && ! kill -0 "$4" 2>/dev/null; then return 1; fi
    sleep 0.25
  done
  return 1
}

describe_js() {
  if [[ $1 == *'"jetstream":true'* ]]; then echo "JetStream on"; else echo "JetStream not advertised in INFO"; fi
}

up_nats() {
  local info pid
  if info=$(nats_info "$NATS_HOST" "$NATS_PORT"); then
    if ours_nats; then
      log "nats     $NATS_HOST:$NATS_PORT already up, started by services.sh ($(describe_js "$info"))"
    else
      log "nats     $NATS_HOST:$NATS_PORT already up ($(describe_js "$info"))"
    fi
    [[ $info == *'"jetstream":true'* ]] ||
      log "warning: make sure the server at $NATS_HOST:$NATS_PORT runs with JetStream (-js)"
    return 0
  fi
  if tcp_open "$NATS_HOST" "$NATS_PORT"; then
    die "$NATS_HOST:$NATS_PORT accepts connections but does not speak NATS; pick another NATS_URL"
  fi
  is_local_host "$NATS_HOST" || die "NATS at $NATS_HOST:$NATS_PORT does not answer and is not a loopback address, so it cannot be started here"
  pid=$(cat "$NATS_PIDFILE" 2>/dev/null || true)
  if pid_is "$pid" nats-server; then
    die "the NATS started by services.sh (pid $pid) runs on another port and owns .data/nats; run 'infra/services.sh down' first"
  fi

  nats_bin
  mkdir -p "$DATA/nats"
  rm -f "$NATS_PIDFILE"
  log "nats     starting $NATS_BIN on $NATS_HOST:$NATS_PORT (JetStream store .data/nats, log .data/nats.log)"
  local args=(-a "$NATS_HOST" -p "$NATS_PORT" -js -sd "$DATA/nats" -l "$NATS_LOG" -P "$NATS_PIDFILE")
  spawn_detached "$NATS_LOG" "$NATS_BIN" "${args[@]}"
  pid=$SPAWNED_PID
  if ! wait_nats "$NATS_HOST" "$NATS_PORT" 15 "$pid"; then
    tail -n 15 "$NATS_LOG" >&2 || true
    kill "$pid" 2>/dev/null || true
    die "nats-server did not come up on $NATS_HOST:$NATS_PORT within 15 s (log: .data/nats.log)"
  fi
  [[ -s $NATS_PIDFILE ]] || printf '%s\n' "$pid" >"$NATS_PIDFILE"
  mark_started nats
  log "nats     up on $NATS_HOST:$NATS_PORT (pid $(cat "$NATS_PIDFILE"))"
}

# stop_pidfile PIDFILE NAME LABEL
stop_pidfile() {
  local pid i
  pid=$(cat "$1" 2>/dev/null || true)
  if ! pid_is "$pid" "$2"; then
    log "$3 not running (no live $2 in ${1#"$ROOT"/})"
    rm -f "$1"
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 60; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.25
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "$3 (pid $pid) ignored SIGTERM for 15 s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$1"
  log "$3 stopped (pid $pid)"
}

# ---------------------------------------------------------------------------
# PostgreSQL
# ---------------------------------------------------------------------------

# Newest /usr/lib/postgresql/<ver>/bin, or the version an existing .data/pg was made with.
find_pgbin() {
  local d ver
  PGBIN=
  if [[ -s $PGDATA_DIR/PG_VERSION ]]; then
    ver=$(<"$PGDATA_DIR/PG_VERSION")
    if [[ -x /usr/lib/postgresql/$ver/bin/pg_ctl ]]; then
      PGBIN=/usr/lib/postgresql/$ver/bin
      return 0
    fi
  fi
  while IFS= read -r d; do
    [[ -x $d/initdb && -x $d/pg_ctl ]] && PGBIN=$d
  done < <(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V)
  if [[ -z $PGBIN ]] && command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    PGBIN=$(dirname "$(readlink -f "$(command -v pg_ctl)")")
  fi
  [[ -n $PGBIN ]]
}

# Run a command as the postgres system user (needs root).
run_as_postgres() {
  if command -v runuser >/dev/null 2>&1; then
    (cd / && runuser -u postgres -- "$@")
  else
    (cd / && su postgres -s /bin/sh -c "$(printf '%q ' "$@")")
  fi
}

# Run a PostgreSQL server tool as a non-root user (initdb and postgres refuse root).
as_pg() {
  if [[ $EUID -ne 0 ]]; then
    (cd / && "$@")
  else
    run_as_postgres "$@"
  fi
}

# As root: the postgres user must exist and be able to reach .data/.
prepare_pg_user() {
  [[ $EUID -eq 0 ]] || return 0
  if ! id postgres >/dev/null 2>&1; then
    log "creating system user postgres"
    useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin postgres
  fi
  # Walk from / down to .data so that only the directories that block the way get o+x.
  local d='' part
  local -a parts
  IFS=/ read -ra parts <<<"${DATA#/}"
  for part in "${parts[@]}"; do
    d+="/$part"
    [[ -d $d ]] || break
    if ! run_as_postgres test -x "$d" 2>/dev/null; then
      log "making $d traversable (o+x) for the postgres user"
      chmod o+x "$d"
    fi
  done
}

up_postgres() {
  if pg_answers; then
    if ours_pg; then
      log "postgres $DB_HOST:$DB_PORT already up, started by services.sh"
    else
      log "postgres $DB_HOST:$DB_PORT already up"
    fi
    return 0
  fi
  if tcp_open "$DB_HOST" "$DB_PORT"; then
    # Something listens: maybe a PostgreSQL that is still starting up. Give it 10 s.
    local w
    for ((w = 0; w < 40; w++)); do
      if pg_answers; then
        log "postgres $DB_HOST:$DB_PORT up"
        return 0
      fi
      sleep 0.25
    done
    die "$DB_HOST:$DB_PORT accepts connections but is not a PostgreSQL ready for connections"
  fi
  is_local_host "$DB_HOST" || die "PostgreSQL at $DB_HOST:$DB_PORT does not answer and is not a loopback address, so it cannot be started here"

  if ! find_pgbin; then
    apt_install postgresql
    # The Debian package may have started its own cluster; if that is the one wanted, use it.
    if pg_answers; then
      log "postgres $DB_HOST:$DB_PORT answers after installing the package"
      return 0
    fi
    find_pgbin || die "initdb/pg_ctl not found after installing postgresql"
  fi
  prepare_pg_user

  if as_pg "$PGBIN/pg_ctl" -D "$PGDATA_DIR" status >/dev/null 2>&1; then
    die "the PostgreSQL in .data/pg already runs on another port; run 'infra/services.sh down' first"
  fi

  if [[ ! -s $PGDATA_DIR/PG_VERSION ]]; then
    log "postgres initialising a cluster in .data/pg ($("$PGBIN/initdb" --version))"
    rm -rf "$PGDATA_DIR"
    mkdir -p "$PGDATA_DIR"
    chmod 700 "$PGDATA_DIR"
    [[ $EUID -ne 0 ]] || chown postgres: "$PGDATA_DIR"
    if ! (close_extra_fds && as_pg "$PGBIN/initdb" -D "$PGDATA_DIR" -A trust -U postgres -E UTF8 --no-locale) \
      >"$DATA/pg-initdb.log" 2>&1; then
      tail -n 15 "$DATA/pg-initdb.log" >&2
      die "initdb failed (log: .data/pg-initdb.log)"
    fi
  fi

  touch "$PG_LOG"
  [[ $EUID -ne 0 ]] || chown postgres: "$PG_LOG"
  log "postgres starting $PGBIN/postgres on $DB_HOST:$DB_PORT (data .data/pg, log .data/pg.log)"
  if ! (close_extra_fds && as_pg "$PGBIN/pg_ctl" -D "$PGDATA_DIR" -l "$PG_LOG" \
    -o "-h $DB_HOST -p $DB_PORT -k /tmp" -w -t 30 start) >/dev/null 2>&1; then
    tail -n 15 "$PG_LOG" >&2 || true
    die "PostgreSQL did not start on $DB_HOST:$DB_PORT (log: .data/pg.log)"
  fi
  mark_started postgres
  local i
  for ((i = 0; i < 60; i++)); do
    pg_answers && break
    sleep 0.25
  done
  pg_answers || die "PostgreSQL started but does not answer on $DB_HOST:$DB_PORT (log: .data/pg.log)"
  log "postgres up on $DB_HOST:$DB_PORT"
}

stop_postgres() {
  if ! find_pgbin; then
    log "postgres cannot find pg_ctl to stop .data/pg"
    return 1
  fi
  if ! as_pg "$PGBIN/pg_ctl" -D "$PGDATA_DIR" status >/dev/null 2>&1; then
    log "postgres not running (.data/pg)"
    return 0
  fi
  (close_extra_fds && as_pg "$PGBIN/pg_ctl" -D "$PGDATA_DIR" -m fast -w -t 60 stop) >/dev/null 2>&1 ||
    die "pg_ctl stop failed for .data/pg (log: .data/pg.log)"
  log "postgres stopped (.data/pg)"
}

psql_bin() {
  if command -v psql >/dev/null 2>&1; then
    command -v psql
  elif [[ -n ${PGBIN:-} && -x $PGBIN/psql ]]; then
    printf '%s\n' "$PGBIN/psql"
  elif find_pgbin && [[ -x $PGBIN/psql ]]; then
    printf '%s\n' "$PGBIN/psql"
  fi
}

ensure_database() {
  local psql exists lit ident
  psql=$(psql_bin || true)
  if [[ -z $psql ]]; then
    log "psql not found; not checking database '$DB_NAME' (the application creates it)"
    return 0
  fi
  local env_args=(PGCONNECT_TIMEOUT=5)
  [[ -z $DB_PASS ]] || env_args+=("PGPASSWORD=$DB_PASS")
  run_psql() {
    env "${env_args[@]}" "$psql" -X -q -v ON_ERROR_STOP=1 -h "$DB_HOST" -p "$DB_PORT" -U "$DB_USER" \
      -d postgres -tA "$@"
  }
  lit=${DB_NAME//\'/\'\'}
  ident=${DB_NAME//\"/\"\"}
  if ! exists=$(run_psql -c "select 1 from pg_database where datname = '$lit'" 2>&1); then
    log "warning: could not query databases as '$DB_USER' on $DB_HOST:$DB_PORT: ${exists//$'\n'/ }"
    return 0
  fi
  if [[ $exists == 1 ]]; then
    log "database '$DB_NAME' exists"
    return 0
  fi
  local out
  if out=$(run_psql -c "create database \"$ident\"" 2>&1); then
    log "database '$DB_NAME' created"
  else
    log "warning: could not create database '$DB_NAME': ${out//$'\n'/ }"
  fi
}

# ---------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------

cmd_up() {
  parse_nats_url
  parse_db_url
  take_lock
  up_nats
  up_postgres
  ensure_database
  ensure_chromium
}

cmd_down() {
  take_lock
  local any=0
  if was_started nats; then
    any=1
    stop_pidfile "$NATS_PIDFILE" nats-server "nats    "
    unmark_started nats
  fi
  if was_started postgres; then
    any=1
    stop_postgres
    unmark_started postgres
  fi
  [[ $any -eq 1 ]] || log "nothing to stop: services.sh started no service (running ones are left alone)"
}

cmd_status() {
  parse_nats_url
  parse_db_url
  local ok=0 info
  by() { if "ours_$1"; then echo "started by services.sh"; else echo "not started by services.sh"; fi; }
  if info=$(nats_info "$NATS_HOST" "$NATS_PORT"); then
    log "nats     $NATS_HOST:$NATS_PORT up ($(describe_js "$info")), $(by nats)"
  else
    log "nats     $NATS_HOST:$NATS_PORT DOWN, $(by nats)"
    ok=1
  fi
  if pg_answers; then
    log "postgres $DB_HOST:$DB_PORT up, $(by pg)"
  else
    log "postgres $DB_HOST:$DB_PORT DOWN, $(by pg)"
    ok=1
  fi
  return "$ok"
}

# ---------------------------------------------------------------------------
# 3-node NATS cluster on loopback (chaos tests)
#   node i: client 1422(1+i), cluster 1622(1+i), monitoring 1822(1+i), cluster name gep
# nats-server 2.9 (Debian) has no jetstream.sync_interval, so it is not set here;
# see infra/nats/cluster/*.conf for the production settings.
# ---------------------------------------------------------------------------

cluster_conf() { # cluster_conf I
  local i=$1
  cat <<EOF
# Generated by infra/services.sh cluster-up; rewritten on every cluster-up.
server_name: n$i
listen: 127.0.0.1:$((14221 + i))
http: 127.0.0.1:$((18221 + i))
pid_file: "$DATA/nats-cluster-n$i.pid"
log_file: "$CLUSTER_DIR/n$i.log"

jetstream {
  store_dir: "$CLUSTER_DIR/n$i"
}

cluster {
  name: gep
  listen: 127.0.0.1:$((16221 + i))
  routes: [
    nats-route://127.0.0.1:16222
    nats-route://127.0.0.1:16223
    nats-route://127.0.0.1:16224
  ]
}
EOF
}

cluster_node_pid() { cat "$DATA/nats-cluster-n$1.pid" 2>/dev/null || true; }

# The node answers and sees a JetStream meta leader in a cluster of 3.
cluster_node_ready() {
  local jsz
  jsz=$(http_get 127.0.0.1 $((18221 + $1)) /jsz) || return 1
  jsz=${jsz//[[:space:]]/}
  [[ $jsz == *'"meta_cluster":{'* && $jsz =~ \"leader\":\"[^\"]+\" && $jsz == *'"cluster_size":3'* ]]
}

cmd_cluster_up() {
  take_lock
  mkdir -p "$CLUSTER_DIR"
  local i pid started_any=0
  for i in 1 2 3; do
    pid=$(cluster_node_pid "$i")
    if pid_is "$pid" nats-server; then continue; fi
    if tcp_open 127.0.0.1 $((14221 + i)) || tcp_open 127.0.0.1 $((16221 + i)); then
      die "port $((14221 + i)) or $((16221 + i)) is taken by something that is not services.sh's node n$i"
    fi
    [[ -n ${NATS_BIN:-} ]] || nats_bin
    mkdir -p "$CLUSTER_DIR/n$i"
    cluster_conf "$i" >"$CLUSTER_DIR/n$i.conf"
    rm -f "$DATA/nats-cluster-n$i.pid"
    log "cluster  starting n$i on 127.0.0.1:$((14221 + i)) (log .data/nats-cluster/n$i.log)"
    spawn_detached "$CLUSTER_DIR/n$i.log" "$NATS_BIN" -c "$CLUSTER_DIR/n$i.conf"
    started_any=1
  done
  [[ $started_any -eq 1 ]] || log "cluster  all three nodes already running"

  local t ready
  for ((t = 0; t < 120; t++)); do
    ready=0
    for i in 1 2 3; do cluster_node_ready "$i" && ready=$((ready + 1)); done
    [[ $ready -eq 3 ]] && break
    sleep 0.25
  done
  if [[ $ready -ne 3 ]]; then
    for i in 1 2 3; do tail -n 5 "$CLUSTER_DIR/n$i.log" >&2 2>/dev/null || true; done
    die "the cluster did not elect a JetStream meta leader within 30 s (logs in .data/nats-cluster/)"
  fi
  local leader
  leader=$(http_get 127.0.0.1 18222 /jsz | tr -d '[:space:]' | grep -o '"meta_cluster":{[^}]*' | grep -o '"leader":"[^"]*"' | cut -d'"' -f4 || true)
  log "cluster  up: 3 nodes, JetStream meta leader ${leader:-?}"
  printf '%s\n' "$CLUSTER_URLS"
}

cmd_cluster_down() {
  take_lock
  local i
  for i in 1 2 3; do
    stop_pidfile "$DATA/nats-cluster-n$i.pid" nats-server "cluster  n$i"
  done
}

cmd_cluster_status() {
  local i ok=0
  for i in 1 2 3; do
    if cluster_node_ready "$i"; then
      log "cluster  n$i 127.0.0.1:$((14221 + i)) up"
    elif nats_info 127.0.0.1 $((14221 + i)) >/dev/null; then
      log "cluster  n$i 127.0.0.1:$((14221 + i)) answers, no JetStream meta leader"
      ok=1
    else
      log "cluster  n$i 127.0.0.1:$((14221 + i)) DOWN"
      ok=1
    fi
  done
  return "$ok"
}

case ${1:-} in
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  pg-stop)
    # Stops the local PostgreSQL this script started (fault tests); `up` starts it again.
    parse_db_url
    take_lock
    if was_started postgres; then stop_postgres; else die "pg-stop: services.sh did not start PostgreSQL here"; fi
    ;;
  cluster-up) cmd_cluster_up ;;
  cluster-down) cmd_cluster_down ;;
  cluster-status) cmd_cluster_status ;;
  -h | --help | help) usage ;;
  *) usage ;;
esac
