#!/usr/bin/env bash
# Makes, on a machine with no image registry, local stand-ins for the base
# images docker/Dockerfile and docker/compose*.yaml name, tagged with exactly
# those names, so that the Dockerfile and the compose files stay what a user
# runs. Each stand-in is built from Debian's own packages (debootstrap and
# apt, through the mirror this machine's apt uses); an image already present
# is kept, so a machine pays for debootstrap once.
#
#   docker/stand-ins.sh            all of them
#   docker/stand-ins.sh debian rust   only those (debian, rust, postgres, nats, haproxy)
#
# What each stand-in is (docs/self-hosting.md, "Where the image was rehearsed"):
#   debian:12.15-slim     debootstrap --variant=minbase bookworm, apt's caches
#                         emptied: the same release, a little larger
#   rust:1.95.0-bookworm  that root + build-essential pkg-config ca-certificates
#                         git, and this machine's Rust 1.95 toolchain in /usr/local
#   postgres:16           Debian's PostgreSQL (15 in bookworm), an entrypoint
#                         honouring POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DB
#   nats:2.10             Debian's nats-server (2.9 in bookworm); arguments as
#                         the official image (-c FILE -sd DIR ...)
#   haproxy:2.8           Debian's HAProxy (2.6 in bookworm), reading
#                         /usr/local/etc/haproxy/haproxy.cfg as the official image
#
# The machine's extra certificate authorities (the .crt files of
# /usr/local/share/ca-certificates: package registries may be reached through
# an intercepting proxy) go into each image's /usr/local/share/ca-certificates,
# so cargo and apt inside a build trust what the machine trusts.
#
# Also installs and configures Podman where it is missing (Debian's packages,
# runc as the runtime, no default ulimits: see ensure_podman).
set -euo pipefail
cd "$(dirname "$0")/.."

# The names the Dockerfile's build arguments default to (its pinned bases).
dockerfile_base() { sed -n "s/^ARG $1=//p" docker/Dockerfile; }
DEBIAN_IMAGE=docker.io/library/$(dockerfile_base DEBIAN_IMAGE)
RUST_IMAGE=docker.io/library/$(dockerfile_base RUST_IMAGE)
RUST_VERSION=$(echo "$RUST_IMAGE" | sed 's/.*:\([0-9.]*\)-.*/\1/')
POSTGRES_IMAGE=docker.io/library/postgres:16
NATS_IMAGE=docker.io/library/nats:2.10
HAPROXY_IMAGE=docker.io/library/haproxy:2.8

log() { echo "== stand-ins: $*"; }
sudo_() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# Podman from Debian, with the settings this kind of machine needs: runc
# (crun refuses hybrid cgroups) and no default ulimits (a root without
# CAP_SYS_RESOURCE may not raise RLIMIT_NPROC, and every container start
# failed on it). podman-compose reads the compose files.
ensure_podman() {
  local missing=()
  command -v podman >/dev/null || missing+=(podman)
  [ -x /usr/sbin/runc ] || missing+=(runc)
  command -v debootstrap >/dev/null || missing+=(debootstrap)
  command -v podman-compose >/dev/null || missing+=(podman-compose)
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing ${missing[*]}"
    sudo_ apt-get update -qq
    DEBIAN_FRONTEND=noninteractive sudo_ apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
  local conf=/etc/containers/containers.conf
  if ! grep -qs '^default_ulimits *= *\[\]' "$conf" || ! grep -qs '^runtime *= *"runc"' "$conf"; then
    if [ -s "$conf" ]; then
      echo "stand-ins: $conf exists but lacks default_ulimits = [] or runtime = \"runc\"; add them" >&2
      exit 1
    fi
    log "writing $conf (runc, no default ulimits)"
    sudo_ mkdir -p /etc/containers
    printf '%s\n' \
      '# Written by docker/stand-ins.sh: a root without CAP_SYS_RESOURCE may not' \
      '# set RLIMIT_NPROC, and crun refuses hybrid cgroups.' \
      '[containers]' 'default_ulimits = []' '' '[engine]' 'runtime = "runc"' \
      | sudo_ tee "$conf" >/dev/null
  fi
}

# The Debian mirror this machine's apt uses (deb822 or one-line sources).
debian_mirror() {
  local uri
  uri="$(grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | grep -v security | head -n1 || true)"
  [ -n "$uri" ] || uri="$(grep -hE '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
    | awk '{print $2}' | grep -E 'debian/?$' | head -n1 || true)"
  echo "${uri:-http://deb.debian.org/debian}"
}

exists() { podman image exists "$1"; }

add_machine_cas() { # ROOT
  local root="$1"
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/" 2>/dev/null || true
}

make_debian() {
  if exists "$DEBIAN_IMAGE"; then log "$DEBIAN_IMAGE present"; return; fi
  local mirror root
  mirror="$(debian_mirror)"
  root="$(mktemp -d)"
  log "debootstrap --variant=minbase bookworm from $mirror (about 2 minutes)"
  sudo_ debootstrap --variant=minbase bookworm "$root" "$mirror" >/dev/null
  # The sources a real bookworm image has: the release, its updates, security.
  rm -f "$root/etc/apt/sources.list"
  cat > "$root/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${mirror%/debian*}/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  add_machine_cas "$root"
  # As slim as debootstrap allows: no downloaded packages, lists or docs.
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* \
    "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/*
  tar -C "$root" -c . | podman import --change 'CMD ["bash"]' - "$DEBIAN_IMAGE" >/dev/null
  rm -rf "$root"
  log "made $DEBIAN_IMAGE"
}

# Runs SCRIPT in a container of BASE and commits it as IMAGE with CHANGES.
derive() { # BASE IMAGE SCRIPT [--change ...]
  local base="$1" image="$2" script="$3" name="stand-in-$$"
  shift 3
  podman rm -f "$name" >/dev/null 2>&1 || true
  podman run --name "$name" "$base" bash -euc "$script"
  podman commit --format docker "$@" "$name" "$image" >/dev/null
  podman rm "$name" >/dev/null
}

apt_install() { # PACKAGES...
  echo "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $* >/dev/null \
    && apt-get clean && rm -rf /var/lib/apt/lists/*"
}

make_rust() {
  if exists "$RUST_IMAGE"; then log "$RUST_IMAGE present"; return; fi
  local sysroot name="stand-in-rust-$$"
  sysroot="$(rustup run "$RUST_VERSION" rustc --print sysroot 2>/dev/null || rustc --print sysroot)"
  "$sysroot/bin/rustc" --version | grep -q "^rustc $RUST_VERSION " \
    || { echo "stand-ins: no Rust $RUST_VERSION on this machine ($sysroot)" >&2; exit 1; }
  log "$RUST_IMAGE: build packages, and Rust from $sysroot"
  podman rm -f "$name" >/dev/null 2>&1 || true
  podman run --name "$name" "$DEBIAN_IMAGE" bash -euc \
    "$(apt_install build-essential pkg-config ca-certificates git) && mkdir -p /usr/local/cargo/bin"
  # The toolchain as rustup lays it out (bin, lib), without its docs.
  tar -C "$sysroot" -c --exclude=share/doc bin lib libexec share 2>/dev/null \
    | podman cp - "$name:/usr/local/"
  podman commit --format docker \
    --change 'ENV CARGO_HOME=/usr/local/cargo' \
    --change 'ENV PATH=/usr/local/cargo/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change "ENV RUST_VERSION=$RUST_VERSION" \
    "$name" "$RUST_IMAGE" >/dev/null
  podman rm "$name" >/dev/null
  podman run --rm "$RUST_IMAGE" cargo --version
  log "made $RUST_IMAGE"
}

make_postgres() {
  if exists "$POSTGRES_IMAGE"; then log "$POSTGRES_IMAGE present"; return; fi
  log "$POSTGRES_IMAGE: Debian's PostgreSQL"
  derive "$DEBIAN_IMAGE" "$POSTGRES_IMAGE" "$(apt_install postgresql) && rm -rf /var/lib/postgresql/15
    mkdir -p /var/lib/postgresql/data /var/run/postgresql && chown postgres:postgres /var/lib/postgresql/data /var/run/postgresql
    cat > /usr/local/bin/docker-entrypoint.sh <<'EOF'
$(cat docker/stand-in/postgres-entrypoint.sh)
EOF
    chmod +x /usr/local/bin/docker-entrypoint.sh" \
    --change 'ENV PGDATA=/var/lib/postgresql/data' \
    --change 'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]' \
    --change 'CMD ["postgres"]' --change 'STOPSIGNAL SIGINT' --change 'EXPOSE 5432'
  log "made $POSTGRES_IMAGE"
}

make_nats() {
  if exists "$NATS_IMAGE"; then log "$NATS_IMAGE present"; return; fi
  log "$NATS_IMAGE: Debian's nats-server"
  derive "$DEBIAN_IMAGE" "$NATS_IMAGE" "$(apt_install nats-server) && mkdir -p /data" \
    --change 'ENTRYPOINT ["/usr/sbin/nats-server"]' --change 'CMD ["-js"]' --change 'EXPOSE 4222'
  log "made $NATS_IMAGE"
}

make_haproxy() {
  if exists "$HAPROXY_IMAGE"; then log "$HAPROXY_IMAGE present"; return; fi
  log "$HAPROXY_IMAGE: Debian's HAProxy"
  derive "$DEBIAN_IMAGE" "$HAPROXY_IMAGE" "$(apt_install haproxy) && mkdir -p /usr/local/etc/haproxy" \
    --change 'USER haproxy' --change 'STOPSIGNAL SIGUSR1' \
    --change 'ENTRYPOINT ["/usr/sbin/haproxy", "-W", "-db"]' \
    --change 'CMD ["-f", "/usr/local/etc/haproxy/haproxy.cfg"]'
  log "made $HAPROXY_IMAGE"
}

ensure_podman
wanted=("$@")
[ ${#wanted[@]} -gt 0 ] || wanted=(debian rust postgres nats haproxy)
for image in "${wanted[@]}"; do
  case "$image" in
    debian) make_debian ;;
    rust) make_debian; make_rust ;;
    postgres | nats | haproxy) make_debian; "make_$image" ;;
    *) echo "usage: docker/stand-ins.sh [debian|rust|postgres|nats|haproxy]..." >&2; exit 2 ;;
  esac
done
