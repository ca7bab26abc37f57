# bench/run.sh's step 7: the widget's weight and first render (bench/widget.mjs, its own
# plauditd and Debian's Chromium) → WEB_JSON (null when node or chromium is missing, or it failed).
# shellcheck shell=bash disable=SC2034
# (SC2034: a step sets figures that bench/run.sh's later steps read.)

run_web() {
  WEB_JSON=null
  if ! command -v node >/dev/null || [ ! -x /usr/bin/chromium ] || [ ! -d web/node_modules ]; then
    echo "widget step skipped: node, /usr/bin/chromium or web/node_modules missing (make build; scripts/install-deps.sh)" >&2
    return 0
  fi
  if PLAUDITD="$BUILD/plauditd" BENCH_JSON="$WORK/web.json" node bench/widget.mjs >&2 && [ -s "$WORK/web.json" ]; then
    WEB_JSON=$(cat "$WORK/web.json")
  else
    echo "widget step failed (see above)" >&2
  fi
}
