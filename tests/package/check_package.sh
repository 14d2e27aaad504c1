#!/usr/bin/env bash
# The packages as a user gets them: CPack builds the .deb files and the .tar.gz from this
# build; their metadata is validated (appstreamcli, desktop-file-validate, lintian: no
# errors); the .deb files are unpacked into a temporary root and run from there: kvchat-cli
# finds the installed demo model by its install prefix, and the window starts under Xvfb.
# Desktop integration: the GGUF MIME type (application/x-gguf) is valid and the desktop entry
# opens it; the installed window is single-instance; an upgrade from the first package's
# database schema (version 2) keeps the conversations and the recent models.
# usage: check_package.sh BUILD_DIR VERSION
set -euo pipefail
build=$1 version=$2
here=$(cd "$(dirname "$0")" && pwd)
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
         usr/share/mime/packages/io.github.kvchat.kvchat.xml \
         usr/share/metainfo/io.github.kvchat.kvchat.metainfo.xml \
         usr/share/icons/hicolor/scalable/apps/io.github.kvchat.kvchat.svg \
         usr/share/icons/hicolor/48x48/apps/io.github.kvchat.kvchat.png \
         usr/share/icons/hicolor/256x256/apps/io.github.kvchat.kvchat.png \
         usr/share/man/man1/kvchat.1.gz usr/share/man/man1/kvchat-cli.1.gz \
         usr/share/doc/kvchat/copyright usr/share/doc/kvchat/changelog.gz; do
  [ -e "$root/$f" ] || fail "/$f is not in the package"
done
# The CUDA host emulation (tests/cuda_host) is test equipment: in no package.
emulation=$(find "$root" -name 'libkvchat-cuda-host*' | head -1)
[ -z "$emulation" ] || fail "the CUDA host emulation is packaged: $emulation"

echo "== metadata"
appstreamcli validate --no-net --pedantic "$root/usr/share/metainfo/io.github.kvchat.kvchat.metainfo.xml" || fail "appstreamcli"
desktop=$root/usr/share/applications/io.github.kvchat.kvchat.desktop
desktop-file-validate "$desktop" || fail "desktop-file-validate"
grep -qx "MimeType=application/x-gguf;" "$desktop" || fail "the desktop entry does not declare application/x-gguf"
grep -qx "Exec=kvchat %f" "$desktop" || fail "the desktop entry's Exec is not 'kvchat %f'"
# The MIME type: well-formed, and what update-mime-database makes of it: the type with its
# comment, the *.gguf glob and the "GGUF" magic; a GGUF file is recognised by name and by
# content where gio is installed.
mime_xml=$root/usr/share/mime/packages/io.github.kvchat.kvchat.xml
xmllint --noout "$mime_xml" || fail "the MIME XML is not well-formed"
mime=$work/share/mime
mkdir -p "$mime/packages"
cp "$mime_xml" "$mime/packages/"
update-mime-database "$mime" 2>/dev/null || fail "update-mime-database"
grep -q "<comment>GGUF model</comment>" "$mime/application/x-gguf.xml" || fail "no application/x-gguf with its comment"
grep -qx "50:application/x-gguf:\*.gguf" "$mime/globs2" || fail "no *.gguf glob: $(grep gguf "$mime/globs2")"
grep -aq "application/x-gguf" "$mime/magic" || fail "no GGUF magic"
if command -v gio >/dev/null; then
  cp "$root/usr/share/kvchat/models/kjv-demo-f16.gguf" "$work/no-extension"
  for f in "$root/usr/share/kvchat/models/kjv-demo-f16.gguf" "$work/no-extension"; do
    type=$(XDG_DATA_DIRS=$work/share XDG_DATA_HOME=$work/none gio info -a standard::content-type "$f" \
           | sed -n 's/.*content-type: //p')
    [ "$type" = application/x-gguf ] || fail "gio says $(basename "$f") is $type"
  done
  rm "$work/no-extension"
fi
echo "   application/x-gguf: valid, *.gguf and the GGUF magic"
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
  # One window per data directory: a second launch hands its model to the running one.
  if command -v jq >/dev/null; then
    mkdir -p "$work/single"
    cp "$root/usr/share/kvchat/models/kjv-demo-f16.gguf" "$work/single/another.gguf"
    xvfb-run -a "$here/check_single_instance.sh" "$root/usr/bin/kvchat" "$work/single/data" \
      "$work/single/another.gguf" 2>"$work/single.err" || { cat "$work/single.err"; fail "single instance"; }
  else
    echo "   (no jq: the single-instance check is skipped)"
  fi
  # The upgrade: a database as the first package (schema version 2) left it, with a
  # conversation and the recent models; the installed kvchat migrates it and both stay.
  old=$work/old-data
  mkdir -p "$old"
  db=$old/kvchat.sqlite
  demo=$root/usr/share/kvchat/models/kjv-demo-f16.gguf
  sqlite3 "$db" <"$here/schema_v2.sql"
  sqlite3 "$db" "INSERT INTO conversations (title, created_at, updated_at) VALUES ('Before the upgrade', 1700000000000, 1700000000000);
    INSERT INTO messages (conversation_id, position, role, content, created_at)
      VALUES (1, 0, 'user', 'In the beginning', 1700000000000), (1, 1, 'assistant', 'was the Word', 1700000000001);
    INSERT INTO settings (key, value_json) VALUES ('recent_models', '[[\"$demo\",\"/old/place/story.gguf\"]]');"
  xvfb-run -a "$root/usr/bin/kvchat" --data-dir "$old" --benchmark-ui-stalls 4 >"$work/upgrade.out" 2>"$work/upgrade.err" \
    || { cat "$work/upgrade.err"; fail "the installed kvchat did not start on a version 2 database"; }
  q() { sqlite3 "$db" "$1"; }
  [ "$(q 'PRAGMA user_version')" -gt 2 ] || fail "the database was not migrated: version $(q 'PRAGMA user_version')"
  [ "$(q 'SELECT title FROM conversations WHERE id = 1')" = "Before the upgrade" ] || fail "the conversation is gone"
  [ "$(q "SELECT group_concat(content, '|') FROM (SELECT content FROM messages WHERE conversation_id = 1 ORDER BY position)")" = "In the beginning|was the Word" ] \
    || fail "the conversation's messages changed: $(q 'SELECT * FROM messages WHERE conversation_id = 1')"
  recent=$(q "SELECT value_json FROM settings WHERE key = 'recent_models'")
  case $recent in *"$demo"*/old/place/story.gguf*) ;; *) fail "the recent models changed: $recent" ;; esac
  echo "   upgrade from schema 2 to $(q 'PRAGMA user_version'): the conversation and the recent models kept"
else
  echo "   (no xvfb-run: the window check is skipped)"
fi
echo "PASS"
