#!/usr/bin/env bash
# Every translation is finished: no entry of i18n/*.ts is unfinished or obsolete, and every
# string the sources mark for translation (qsTr/tr in app/ and ui/) has its translation
# (lupdate run on the sources into a copy of each .ts adds nothing unfinished).
# usage: check_translations.sh SOURCE_DIR LUPDATE
set -euo pipefail
src=$1 lupdate=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for ts in "$src"/i18n/*.ts; do
  name=$(basename "$ts")
  n=$(grep -c "<message" "$ts" || true)
  bad=$(grep -cE 'type="(unfinished|vanished|obsolete)"' "$ts" || true)
  [ "$bad" -eq 0 ] || { echo "FAIL: $name: $bad unfinished or obsolete entries"; grep -B3 -E 'type="(unfinished|vanished|obsolete)"' "$ts" | grep "<source>" | head -20; status=1; }
  cp "$ts" "$work/$name"
  (cd "$src" && "$lupdate" -silent -no-obsolete app ui -ts "$work/$name")
  new=$(grep -c 'type="unfinished"' "$work/$name" || true)
  [ "$new" -eq 0 ] || { echo "FAIL: $name: $new strings in the sources have no translation (run: make translations, then translate):"; grep -A1 "<source>" "$work/$name" | grep -B1 'type="unfinished"' | grep "<source>" | head -20; status=1; }
  echo "$name: $n strings, all translated"
done
exit $status
