-- POST /api/v1/sessions with the seeded author's correct password (bench/run.sh).
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"username":"bench","password":"bench-password"}'
