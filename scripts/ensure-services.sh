#!/usr/bin/env bash
# Makes sure PostgreSQL and Redis listen where DATABASE_URL and REDIS_URL point (defaults
# 127.0.0.1:5432 and 127.0.0.1:6379). In order: already listening → nothing to do; installed
# but stopped → start it; `--install` (CI, a fresh machine, root) → apt-get install it;
# Docker available → `docker compose up -d postgres redis`. Redis is set to noeviction (BullMQ).
# Sourced by scripts/dev.sh and .ci/run; also runnable on its own.
set -uo pipefail

ensure_services() {
  local install=0
  [ "${1:-}" = "--install" ] && install=1

  local db_url="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/social_publishing}"
  local redis_url="${REDIS_URL:-redis://127.0.0.1:6379}"
  local pg_hostport redis_hostport
  pg_hostport=$(sed -E 's#^[a-z]+://([^@/]*@)?([^/?]+).*#\2#' <<<"$db_url")
  redis_hostport=$(sed -E 's#^[a-z]+://([^@/]*@)?([^/?]+).*#\2#' <<<"$redis_url")
  local pg_host="${pg_hostport%%:*}" pg_port="${pg_hostport##*:}"
  local redis_host="${redis_hostport%%:*}" redis_port="${redis_hostport##*:}"
  [ "$pg_port" = "$pg_hostport" ] && pg_port=5432
  [ "$redis_port" = "$redis_hostport" ] && redis_port=6379

  listening() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }
  wait_for() { for _ in $(seq 1 30); do listening "$1" "$2" && return 0; sleep 1; done; return 1; }
  local apt_updated=0
  apt_install() {
    [ "$install" = 1 ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ] || return 1
    export DEBIAN_FRONTEND=noninteractive
    if [ $apt_updated = 0 ]; then apt-get update -qq >/dev/null 2>&1 || true; apt_updated=1; fi
    apt-get install -y -qq "$@" >/dev/null 2>&1 || { echo "apt-get install $* failed" >&2; return 1; }
  }
  compose_up() {
    command -v docker >/dev/null && docker info >/dev/null 2>&1 || return 1
    echo "Starting $1 with docker compose…"
    docker compose up -d "$1" >/dev/null
  }
  local_host() { [ "$1" = 127.0.0.1 ] || [ "$1" = localhost ]; }

  if ! listening "$pg_host" "$pg_port"; then
    if local_host "$pg_host"; then
      command -v pg_ctlcluster >/dev/null || apt_install postgresql || true
      local v
      v=$(ls /etc/postgresql 2>/dev/null | sort -V | tail -1)
      if [ -n "$v" ] && command -v pg_ctlcluster >/dev/null; then
        echo "Starting PostgreSQL $v…"
        local hba="/etc/postgresql/$v/main/pg_hba.conf"
        # Local development and CI only: trust connections from this machine (the default URL has no password).
        if [ -w "$hba" ] && ! grep -q "^host all all 127.0.0.1/32 trust" "$hba"; then sed -i '1i host all all 127.0.0.1/32 trust\nlocal all all trust' "$hba"; fi
        pg_ctlcluster --skip-systemctl-redirect "$v" main start >/dev/null 2>&1 || pg_ctlcluster "$v" main start >/dev/null 2>&1 || true
      else
        compose_up postgres || true
      fi
    fi
    wait_for "$pg_host" "$pg_port" || { echo "PostgreSQL is not reachable at $pg_host:$pg_port. Install and start it (or run 'docker compose up -d postgres'), or set DATABASE_URL." >&2; return 1; }
  fi

  if ! listening "$redis_host" "$redis_port"; then
    if local_host "$redis_host"; then
      command -v redis-server >/dev/null || apt_install redis-server || true
      if command -v redis-server >/dev/null; then
        echo "Starting Redis…"
        local dir="${TMPDIR:-/tmp}/sps-redis"
        mkdir -p "$dir"
        redis-server --daemonize yes --bind 127.0.0.1 --port "$redis_port" --save "" --appendonly no --dir "$dir" --logfile "$dir/redis.log" --maxmemory-policy noeviction >/dev/null
      else
        compose_up redis || true
      fi
    fi
    wait_for "$redis_host" "$redis_port" || { echo "Redis is not reachable at $redis_host:$redis_port. Install and start it (or run 'docker compose up -d redis'), or set REDIS_URL." >&2; return 1; }
  fi
  # BullMQ must not lose keys to eviction.
  command -v redis-cli >/dev/null && redis-cli -u "$redis_url" config set maxmemory-policy noeviction >/dev/null 2>&1 || true
  return 0
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  ensure_services "$@"
fi
