#!/usr/bin/env bash
# Installs the plugin, the tuner and the documents into a prefix:
#   scripts/install.sh --prefix DIR    DIR/lib/libnvregalloc.so,
#                                      DIR/bin/nvregalloc-tune (it finds the
#                                      plugin in ../lib by itself),
#                                      DIR/share/doc/nvregalloc/
#   scripts/install.sh --archive       the same as a release archive:
#                                      dist/nvregalloc-VERSION-x86_64-linux-llvm22.tar.gz
#                                      and its .sha256
# Builds first (release) if needed; LLVM 22 and Rust come from setup.sh.
set -euo pipefail
here="$(dirname "${BASH_SOURCE[0]}")"
source "$here/env.sh"
cd "$NVREGALLOC_ROOT"
usage() { echo "usage: scripts/install.sh --prefix DIR | --archive" >&2; exit 2; }
prefix="" archive=""
case "${1:-}" in
  --prefix) [ $# = 2 ] || usage; prefix="$2" ;;
  --archive) [ $# = 1 ] || usage; archive=1 ;;
  *) usage ;;
esac

cargo build --release --quiet $CARGO_BUILD_SET
version="$(target/release/nvregalloc-tune --version | sed -n '1s/^nvregalloc-tune \([^ ]*\).*/\1/p')"
name="nvregalloc-$version-$(uname -m)-linux-llvm22"
if [ -n "$archive" ]; then
  staging="$(mktemp -d)"
  trap 'rm -rf "$staging"' EXIT
  prefix="$staging/$name"
fi

install -D -m 755 target/release/libnvregalloc.so "$prefix/lib/libnvregalloc.so"
install -D -m 755 target/release/nvregalloc-tune "$prefix/bin/nvregalloc-tune"
doc="$prefix/share/doc/nvregalloc"
install -D -m 644 -t "$doc" README.md CHANGELOG.md LICENSE
install -D -m 644 -t "$doc/docs" docs/*.md
echo "installed nvregalloc $version into $prefix"

if [ -n "$archive" ]; then
  mkdir -p dist
  tar -C "$staging" -czf "dist/$name.tar.gz" "$name"
  (cd dist && sha256sum "$name.tar.gz" > "$name.tar.gz.sha256")
  echo "dist/$name.tar.gz"
fi
