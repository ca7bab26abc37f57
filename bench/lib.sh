# Shared by the bench scripts (sourced, from the repository root).

# wait_port_line FILE REGEX [SECONDS, default 15] → prints the port once the log names it
# (its last digits); on timeout prints the log to stderr and fails.
wait_port_line() {
  local port tries=$(( ${3:-15} * 20 ))
  for _ in $(seq 1 "$tries"); do
    if port=$(grep -oE "$2" "$1" 2>/dev/null | grep -oE '[0-9]+$' | head -1) && [ -n "$port" ]; then
      echo "$port"; return 0
    fi
    sleep 0.05
  done
  echo "no port in $1" >&2; cat "$1" >&2; return 1
}
