#!/usr/bin/env bash
# The packages as a user gets them: CPack builds the .deb files and the .tar.gz from this
# build; their metadata is validated (appstreamcli, desktop-file-validate, lintian: no
# errors); the .deb files are unpacked into a temporary root and run from there: kvchat-cli
# finds the installed demo model by its install prefix, and the window starts under Xvfb.
# usage: check_package.sh BUILD_DIR VERSION
set -euo pipefail
build=$1 version=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

echo "== cpack"
cpack --config "$build/CPackConfig.cmake" -B "$work/out" >"$work/cpack.log" 2>&1 || { cat "$work/cpack.log"; fail "cpack"; }
main_deb="$work/out/kvchat_${version}_amd64.deb"
[ -f "$main_deb" ] || { ls "$work/out"; fail "no kvchat_${version}_amd64.deb"; }
[ -f "$work/out/kvchat_${version}_amd64.tar.gz" ] || fail "no kvchat_${version}_amd64.tar.gz"
debs=("$work"/out/*.deb)
for deb in "${debs[@]}"; do
  echo "-- $(basename "$deb"): $(du -h "$deb" | cut -f1)"
  dpkg-deb -f "$deb" Package Version Depends Recommends Suggests | sed 's/^/   /'
done
depends=$(dpkg-deb -f "$main_deb" Depends)
for lib in libc6 libqt6core6 libstdc++6; do
  case $depends in *"$lib"*) ;; *) fail "Depends lacks $lib (dpkg-shlibdeps did not run?): $depends" ;; esac
done
case $depends in *cuda*|*cublas*) fail "the kvchat package depends on CUDA: $depends" ;; esac

echo "== unpack"
root="$work/root"
for deb in "${debs[@]}"; do dpkg-deb -x "$deb" "$root"; done
for f in usr/bin/kvchat usr/bin/kvchat-cli usr/share/kvchat/models/kjv-demo-f16.gguf \
         usr/share/applications/io.github.kvchat.kvchat.desktop \
         usr/share/metainfo/io.github.kvchat.kvchat.metainfo.xml \
         usr/share/icons/hicolor/scalable/apps/io.github.kvchat.kvchat.svg \
         usr/share/icons/hicolor/48x48/apps/io.github.kvchat.kvchat.png \
         usr/share/icons/hicolor/256x256/apps/io.github.kvchat.kvchat.png \
         usr/share/man/man1/kvchat.1.gz usr/share/man/man1/kvchat-cli.1.gz \
         usr/share/doc/kvchat/copyright usr/share/doc/kvchat/changelog.gz; do
  [ -e "$root/$f" ] || fail "/$f is not in the package"
done

echo "== metadata"
appstreamcli validate --no-net --pedantic "$root/usr/share/metainfo/io.github.kvchat.kvchat.metainfo.xml" || fail "appstreamcli"
desktop-file-validate "$root/usr/share/applications/io.github.kvchat.kvchat.desktop" || fail "desktop-file-validate"
grep -q "<release version=\"$version\"" "$root/usr/share/metainfo/io.github.kvchat.kvchat.metainfo.xml" || fail "metainfo release is not $version"
zcat "$root/usr/share/man/man1/kvchat-cli.1.gz" | grep -q "kvchat $version" || fail "man page version is not $version"
[ "$("$root/usr/bin/kvchat-cli" --version)" = "kvchat-cli $version" ] || fail "kvchat-cli --version"

echo "== lintian"
# --fail-on error: errors fail the test; warnings are printed for the record.
lintian --fail-on error --tag-display-limit 0 "${debs[@]}" 2>&1 | tee "$work/lintian.txt" || fail "lintian reports errors"

echo "== run from the unpacked root"
out=$("$root/usr/bin/kvchat-cli" generate --prompt "In the beginning" -n 8 --temp 0 2>"$work/gen.err") \
  || { cat "$work/gen.err"; fail "kvchat-cli generate from the package"; }
grep -q "using the demo model $root/usr/share/kvchat/models/kjv-demo-f16.gguf" "$work/gen.err" \
  || { cat "$work/gen.err"; fail "kvchat-cli did not find the demo model by its install prefix"; }
echo "   kvchat-cli: $out"
# The CUDA plugin from kvchat-cuda loads into the installed kvchat-cli (forced by path, as
# there may be no NVIDIA driver here): "no CUDA device" without a GPU, never a load error.
plugin="$root/usr/lib/kvchat/plugins/libkvchat-cuda.so"
if ls "$work"/out/kvchat-cuda_*.deb >/dev/null 2>&1; then
  [ -f "$plugin" ] || fail "kvchat-cuda has no $plugin"
  cuda_err=$(KVCHAT_CUDA_PLUGIN="$plugin" "$root/usr/bin/kvchat-cli" generate --prompt x -n 2 --backend cuda 2>&1 >/dev/null || true)
  case $cuda_err in
    *"did not load"*|*"undefined symbol"*) fail "the packaged CUDA plugin does not load: $cuda_err" ;;
  esac
  echo "   kvchat-cli --backend cuda: ${cuda_err##*$'\n'}"
fi
# The window: loads the installed demo model, generates, reports its event-loop stalls, quits.
if command -v xvfb-run >/dev/null; then
  stalls=$(xvfb-run -a "$root/usr/bin/kvchat" --data-dir "$work/data" --benchmark-ui-stalls 8 2>"$work/app.err") \
    || { cat "$work/app.err"; fail "the installed kvchat did not start under Xvfb"; }
  echo "$stalls" | grep -q "\"model\": \"$root/usr/share/kvchat/models/kjv-demo-f16.gguf\"" \
    || { echo "$stalls"; cat "$work/app.err"; fail "the installed kvchat did not load the installed demo model"; }
  echo "   kvchat window: $stalls"
else
  echo "   (no xvfb-run: the window check is skipped)"
fi
echo "PASS"
