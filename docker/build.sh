#!/usr/bin/env bash
# The release build, exactly as the Docker image does it (CI runs it too,
# on the host, so its steps are checked on every run without building the
# image).
#
#   docker/build.sh deps     build every dependency from the manifests alone
#                            (in the image this is its own cached layer; any
#                            crate source not yet copied in gets a stub)
#   docker/build.sh stubs    only make those stubs (CI checks with them that
#                            the manifests alone make a workspace)
#   docker/build.sh release  build the server and the tools, and put the
#                            binaries in target/dist/ (under
#                            CARGO_TARGET_DIR if set), without their debug
#                            info (the profile's own copies keep it)
#
# BUILD_PROFILE (default release) picks Cargo's profile. CI sets it to dev:
# the steps and the stubs are what it checks, and the test build before it
# has already compiled them, where a release build from nothing took ten
# minutes of a 30-minute budget.
set -euo pipefail
cd "$(dirname "$0")/.."

stage="${1:-release}"
packages=(-p euchre-server -p euchre-tools)
profile="${BUILD_PROFILE:-release}"
# Cargo puts the dev profile's output in target/debug (or under
# CARGO_TARGET_DIR, which CI sets to build beside its tests).
target="${CARGO_TARGET_DIR:-target}"
out="$target/$([ "$profile" = dev ] && echo debug || echo "$profile")"

# Gives every crate of a manifests-only checkout (the image's first layer)
# the source files its manifest needs: a library, and each target the
# manifest declares (benches, tests, examples, binaries), where missing.
# A no-op on a full checkout.
stub_sources() {
  for manifest in crates/*/Cargo.toml; do
    dir="$(dirname "$manifest")"
    [ -e "$dir/src/lib.rs" ] || [ -e "$dir/src/main.rs" ] || stub "$dir/src/lib.rs" ''
    [ -e "$dir/src/main.rs" ] || [ "$dir" != crates/server ] || stub "$dir/src/main.rs"
    declared_targets "$manifest" | while read -r path; do
      [ -e "$dir/$path" ] || stub "$dir/$path"
    done
  done
}

# The path of each [[bench]], [[test]], [[example]] and [[bin]] in a
# manifest: its `path`, or where Cargo looks for one of that name.
declared_targets() {
  awk '
    function flush() {
      if (kind == "bench") where = "benches/" name ".rs"
      else if (kind == "test") where = "tests/" name ".rs"
      else if (kind == "example") where = "examples/" name ".rs"
      else where = "src/bin/" name ".rs"
      if (kind != "") print (path != "" ? path : where)
      kind = name = path = ""
    }
    /^\[\[(bench|test|example|bin)\]\]/ { flush(); kind = $0; gsub(/[][]/, "", kind); next }
    /^\[/ { flush(); next }
    kind != "" && /^name *=/ { name = $0; sub(/^[^"]*"/, "", name); sub(/".*/, "", name) }
    kind != "" && /^path *=/ { path = $0; sub(/^[^"]*"/, "", path); sub(/".*/, "", path) }
    END { flush() }
  ' "$1"
}

stub() {
  mkdir -p "$(dirname "$1")"
  echo "${2-fn main() {\}}" > "$1"
  echo "stub: $1"
}

case "$stage" in
  stubs)
    stub_sources
    ;;
  deps)
    stub_sources
    cargo build --profile "$profile" --locked "${packages[@]}"
    ;;
  release)
    cargo build --profile "$profile" --locked "${packages[@]}"
    mkdir -p "$target/dist"
    cp "$out/euchre-server" "$out/euchre-verify" "$target/dist/"
    # The image's size: the debug info is most of each binary. The symbols
    # stay, so a panic's backtrace still names its functions.
    strip --strip-debug "$target/dist/euchre-server" "$target/dist/euchre-verify"
    echo "built: $(ls "$target/dist" | tr '\n' ' ')"
    ;;
  *)
    echo "usage: docker/build.sh deps|stubs|release" >&2
    exit 2
    ;;
esac
