#!/usr/bin/env bash
# Test infrastructure without Docker: Kafka 3.9 (KRaft, one combined broker+controller node) from
# Maven Central jars, and ClickHouse from Debian's package, each on loopback ports of its own with
# its data under .cache/. deploy/docker-compose mirrors this for users with Docker.
#
#   bash scripts/infra.sh up       install what is missing, start what is stopped, wait until ready
#   bash scripts/infra.sh down     stop both (only the processes this script started)
#   bash scripts/infra.sh status   report; exit 0 only when both answer
#
# Idempotent and safe to run concurrently (one flock): `up` on a running setup only verifies.
set -euo pipefail
# Without job control a background child is no process-group leader, so `setsid` below execs in
# place instead of forking, and $! is the server's own pid.
set +m

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="$ROOT/.cache"
START_TIMEOUT_S="${TRACECHECK_INFRA_TIMEOUT_S:-120}"

KAFKA_DIR="$CACHE/kafka"
KAFKA_LIBS="$KAFKA_DIR/libs"
KAFKA_DATA="$KAFKA_DIR/data"
KAFKA_PID="$KAFKA_DIR/kafka.pid"
KAFKA_LOG="$KAFKA_DIR/server.log"
KAFKA_PROPS="$KAFKA_DIR/server.properties"
KAFKA_PORT=19092
KAFKA_CONTROLLER_PORT=19093
KAFKA_BROKERS="127.0.0.1:$KAFKA_PORT"
# base64url of the 16 bytes "tracecheck-local": a fixed id, so the data dir stays valid across runs.
KAFKA_CLUSTER_ID="dHJhY2VjaGVjay1sb2NhbA"
KAFKA_HEAP_OPTS="${TRACECHECK_KAFKA_HEAP_OPTS:--Xms256m -Xmx1g}"

CH_DIR="$CACHE/clickhouse"
CH_PID="$CH_DIR/clickhouse.pid"
CH_CONFIG="$CH_DIR/config.xml"
CH_HTTP_PORT=18123
CH_TCP_PORT=19000
CH_URL="http://127.0.0.1:$CH_HTTP_PORT"

log() { printf 'infra: %s\n' "$*" >&2; }
die() { printf 'infra: ERROR: %s\n' "$*" >&2; exit 1; }
now_ms() { date +%s%3N; }
elapsed() { local ms=$(( $(now_ms) - $1 )); printf '%d.%01d s' $((ms / 1000)) $(((ms % 1000) / 100)); }

port_listening() {
  if command -v ss >/dev/null 2>&1; then
    [ -n "$(ss -Hltn "sport = :$1" 2>/dev/null)" ]
  else
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
  fi
}

port_holder() {
  if command -v ss >/dev/null 2>&1; then ss -Hltnp "sport = :$1" 2>/dev/null | head -n 3; fi
}

# Alive and really ours: the pid file can outlive a reboot, and pids get reused.
pid_running() {
  local pidfile="$1" marker="$2" pid
  [ -f "$pidfile" ] || return 1
  pid="$(cat "$pidfile" 2>/dev/null)"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$marker"
}

require_free_ports() {
  local name="$1"; shift
  local port
  for port in "$@"; do
    if port_listening "$port"; then
      die "$name cannot start: port $port is already taken by a process this script did not start:
$(port_holder "$port")
Stop it, or free the port, and run 'bash scripts/infra.sh up' again."
    fi
  done
}

stop_pid() {
  local name="$1" pidfile="$2" marker="$3" pid i
  if ! pid_running "$pidfile" "$marker"; then
    rm -f "$pidfile"
    log "$name: not running"
    return 0
  fi
  pid="$(cat "$pidfile")"
  kill -TERM "$pid"
  for i in $(seq 1 300); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "$name: pid $pid ignored SIGTERM for 30 s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile"
  log "$name: stopped (pid $pid)"
}

# ---------------------------------------------------------------- Kafka

kafka_libs_stamp() { sha256sum "$ROOT/scripts/kafka/pom.xml" | cut -d' ' -f1; }

kafka_install() {
  local stamp; stamp="$(kafka_libs_stamp)"
  if [ -f "$KAFKA_LIBS/.complete" ] && [ "$(cat "$KAFKA_LIBS/.complete")" = "$stamp" ]; then
    return 0
  fi
  command -v java >/dev/null 2>&1 || die "Kafka needs Java 17+ ('java' not found)"
  command -v mvn >/dev/null 2>&1 || die "Kafka's jars are fetched with Maven ('mvn' not found)"
  local t0; t0="$(now_ms)"
  log "kafka: fetching jars from Maven Central into $KAFKA_LIBS"
  rm -rf "$KAFKA_LIBS.tmp"
  mvn -q -B -Dstyle.color=never -f "$ROOT/scripts/kafka/pom.xml" dependency:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$KAFKA_LIBS.tmp" >&2 \
    || die "kafka: Maven could not fetch the jars (see output above)"
  rm -rf "$KAFKA_LIBS"
  mv "$KAFKA_LIBS.tmp" "$KAFKA_LIBS"
  echo "$stamp" >"$KAFKA_LIBS/.complete"
  log "kafka: jars installed in $(elapsed "$t0")"
}

kafka_write_config() {
  mkdir -p "$KAFKA_DATA"
  cat >"$KAFKA_PROPS" <<PROPS
# Written by scripts/infra.sh on every 'up'; edit the script, not this file.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$KAFKA_DATA
num.partitions=3
auto.create.topics.enable=true
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
# Few offsets partitions: the first consumer group of a fresh broker waits for all of them.
offsets.topic.num.partitions=3
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=3
group.initial.rebalance.delay.ms=0
num.network.threads=2
num.io.threads=4
log.retention.hours=24
log.segment.bytes=67108864
PROPS
  cat >"$KAFKA_DIR/log4j.properties" <<'LOG4J'
log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.request.logger=WARN
log4j.logger.state.change.logger=WARN
log4j.logger.kafka.log.LogCleaner=WARN
log4j.logger.org.apache.kafka.storage.internals.log=WARN
log4j.logger.kafka.coordinator.group=WARN
log4j.logger.org.apache.kafka.coordinator.group=WARN
LOG4J
}

kafka_java() {
  java $KAFKA_HEAP_OPTS -Djava.awt.headless=true \
    -Dlog4j.configuration="file:$KAFKA_DIR/log4j.properties" \
    -cp "$KAFKA_LIBS/*" "$@"
}

kafka_format() {
  [ -f "$KAFKA_DATA/meta.properties" ] && return 0
  log "kafka: formatting storage (cluster id $KAFKA_CLUSTER_ID)"
  kafka_java kafka.tools.StorageTool format --ignore-formatted \
    -t "$KAFKA_CLUSTER_ID" -c "$KAFKA_PROPS" >>"$KAFKA_LOG" 2>&1 \
    || die "kafka: formatting $KAFKA_DATA failed; see $KAFKA_LOG"
}

# One bounded metadata round trip; exit 0 when a broker and an elected controller answer. Inline
# rather than a .mjs file so it stays outside the TypeScript project that eslint checks.
KAFKA_PING_JS='
import { Kafka, logLevel } from "kafkajs";
const kafka = new Kafka({ clientId: "tracecheck-infra-ping", brokers: process.argv[1].split(","),
  connectionTimeout: 1000, requestTimeout: 2000, retry: { retries: 0 }, logLevel: logLevel.NOTHING });
const admin = kafka.admin();
let ok = false;
try {
  await admin.connect();
  const cluster = await admin.describeCluster();
  ok = cluster.brokers.length > 0 && typeof cluster.controller === "number" && cluster.controller >= 0;
} catch { ok = false; }
await admin.disconnect().catch(() => undefined);
process.exit(ok ? 0 : 1);
'

kafka_ready() {
  if command -v node >/dev/null 2>&1 && [ -d "$ROOT/node_modules/kafkajs" ]; then
    (cd "$ROOT" && node --input-type=module -e "$KAFKA_PING_JS" "$KAFKA_BROKERS")
  else
    # Before `npm ci` there is no kafkajs: settle for the broker's own start-up line.
    port_listening "$KAFKA_PORT" && grep -q 'Kafka Server started' "$KAFKA_LOG" 2>/dev/null
  fi
}

kafka_running() { pid_running "$KAFKA_PID" "$KAFKA_PROPS"; }

kafka_up() {
  local t0; t0="$(now_ms)"
  mkdir -p "$KAFKA_DIR"
  if kafka_running; then
    kafka_ready || wait_ready kafka kafka_ready kafka_running "$KAFKA_LOG" "$t0"
    log "kafka: already running (pid $(cat "$KAFKA_PID")), verified in $(elapsed "$t0")"
    return 0
  fi
  rm -f "$KAFKA_PID"
  require_free_ports kafka "$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT"
  kafka_install
  kafka_write_config
  kafka_format
  local t1; t1="$(now_ms)"
  : >>"$KAFKA_LOG"
  printf '\n==== infra.sh: starting Kafka at %s ====\n' "$(date -Is)" >>"$KAFKA_LOG"
  # setsid + nohup: the broker outlives this script and the terminal or CI step that ran it.
  (cd "$KAFKA_DIR" || exit 1
    setsid nohup java $KAFKA_HEAP_OPTS -XX:+UseG1GC -XX:MaxGCPauseMillis=20 \
    -Djava.awt.headless=true -Dlog4j.configuration="file:$KAFKA_DIR/log4j.properties" \
    -cp "$KAFKA_LIBS/*" kafka.Kafka "$KAFKA_PROPS" >>"$KAFKA_LOG" 2>&1 </dev/null 9>&- &
    echo $! >"$KAFKA_PID")
  wait_ready kafka kafka_ready kafka_running "$KAFKA_LOG" "$t1"
  log "kafka: started (pid $(cat "$KAFKA_PID")) in $(elapsed "$t1"); up total $(elapsed "$t0")"
}

# ---------------------------------------------------------------- ClickHouse

ch_install() {
  command -v clickhouse-server >/dev/null 2>&1 && return 0
  [ "$(id -u)" = 0 ] || die "clickhouse-server is not installed; run as root or: apt-get install clickhouse-server clickhouse-client"
  local t0; t0="$(now_ms)"
  log "clickhouse: installing Debian's clickhouse-server and clickhouse-client"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 || die "clickhouse: apt-get update failed"
  apt-get install -y -q --no-install-recommends clickhouse-server clickhouse-client >&2 \
    || die "clickhouse: apt-get install failed"
  command -v clickhouse-server >/dev/null 2>&1 || die "clickhouse: installed, but clickhouse-server is not on PATH"
  log "clickhouse: installed in $(elapsed "$t0")"
}

ch_write_config() {
  mkdir -p "$CH_DIR/data" "$CH_DIR/tmp" "$CH_DIR/log" "$CH_DIR/user_files" "$CH_DIR/format_schemas"
  sed -e "s#@CH_DIR@#$CH_DIR#g" -e "s#@HTTP_PORT@#$CH_HTTP_PORT#g" -e "s#@TCP_PORT@#$CH_TCP_PORT#g" \
    "$ROOT/scripts/clickhouse/config.xml" >"$CH_CONFIG"
  cp "$ROOT/scripts/clickhouse/users.xml" "$CH_DIR/users.xml"
}

ch_ready() { [ "$(curl -fsS --max-time 2 "$CH_URL/ping" 2>/dev/null)" = "Ok." ]; }
ch_running() { pid_running "$CH_PID" "$CH_CONFIG"; }

ch_up() {
  local t0; t0="$(now_ms)"
  mkdir -p "$CH_DIR"
  if ch_running; then
    ch_ready || wait_ready clickhouse ch_ready ch_running "$CH_DIR/log/clickhouse-server.err.log" "$t0"
    log "clickhouse: already running (pid $(cat "$CH_PID")), verified in $(elapsed "$t0")"
    return 0
  fi
  rm -f "$CH_PID"
  require_free_ports clickhouse "$CH_HTTP_PORT" "$CH_TCP_PORT"
  ch_install
  ch_write_config
  local t1; t1="$(now_ms)"
  (cd "$CH_DIR" || exit 1
    setsid nohup clickhouse-server --config-file="$CH_CONFIG" \
      >>"$CH_DIR/log/stdout.log" 2>&1 </dev/null 9>&- &
    echo $! >"$CH_PID")
  wait_ready clickhouse ch_ready ch_running "$CH_DIR/log/clickhouse-server.err.log" "$t1"
  log "clickhouse: started (pid $(cat "$CH_PID")) in $(elapsed "$t1"); up total $(elapsed "$t0")"
}

# ---------------------------------------------------------------- common

# Polls until ready, the deadline, or the process dying (then shows its log instead of waiting).
wait_ready() {
  local name="$1" ready="$2" running="$3" logfile="$4" t0="$5"
  local deadline=$(( $(now_ms) + START_TIMEOUT_S * 1000 ))
  while ! "$ready"; do
    if ! "$running"; then
      log "$name: the process exited during start-up; last lines of $logfile:"
      tail -n 40 "$logfile" >&2 2>/dev/null || true
      die "$name did not start"
    fi
    if [ "$(now_ms)" -ge "$deadline" ]; then
      log "$name: last lines of $logfile:"
      tail -n 40 "$logfile" >&2 2>/dev/null || true
      die "$name did not answer within ${START_TIMEOUT_S} s (still running; 'bash scripts/infra.sh down' stops it)"
    fi
    sleep 0.5
  done
}

print_endpoints() {
  cat <<INFO
Kafka:      $KAFKA_BROKERS   (TRACECHECK_TEST_KAFKA_BROKERS=$KAFKA_BROKERS, log $KAFKA_LOG)
ClickHouse: $CH_URL   (TRACECHECK_TEST_CLICKHOUSE_URL=$CH_URL, native 127.0.0.1:$CH_TCP_PORT, user default, no password)
INFO
}

with_lock() {
  mkdir -p "$CACHE"
  exec 9>"$CACHE/infra.lock"
  if ! flock -w "$((START_TIMEOUT_S * 3))" 9; then die "another infra.sh holds $CACHE/infra.lock"; fi
  "$@"
}

cmd_up() {
  kafka_up
  ch_up
  print_endpoints
}

cmd_down() {
  stop_pid kafka "$KAFKA_PID" "$KAFKA_PROPS"
  stop_pid clickhouse "$CH_PID" "$CH_CONFIG"
}

cmd_status() {
  local rc=0
  if kafka_running; then
    if kafka_ready; then log "kafka: running (pid $(cat "$KAFKA_PID")) and answering on $KAFKA_BROKERS"
    else log "kafka: running (pid $(cat "$KAFKA_PID")) but not answering on $KAFKA_BROKERS"; rc=3; fi
  else
    log "kafka: not running"; rc=3
    if port_listening "$KAFKA_PORT"; then log "kafka: port $KAFKA_PORT is taken by another process"; fi
  fi
  if ch_running; then
    if ch_ready; then log "clickhouse: running (pid $(cat "$CH_PID")) and answering on $CH_URL"
    else log "clickhouse: running (pid $(cat "$CH_PID")) but not answering on $CH_URL"; rc=3; fi
  else
    log "clickhouse: not running"; rc=3
    if port_listening "$CH_HTTP_PORT"; then log "clickhouse: port $CH_HTTP_PORT is taken by another process"; fi
  fi
  [ "$rc" = 0 ] && print_endpoints
  return "$rc"
}

case "${1:-}" in
  up) with_lock cmd_up ;;
  down) with_lock cmd_down ;;
  status) cmd_status ;;
  *) echo "usage: bash scripts/infra.sh up|down|status" >&2; exit 2 ;;
esac
