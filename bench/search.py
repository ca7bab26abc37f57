#!/usr/bin/env python3
"""Issue 48's search figures (API.md "Search"): query latency on 100,000 articles, on SQLite and
on PostgreSQL, and how long the index takes to build them.

  python3 bench/search.py [--bin build/plauditd] [--articles 100000] [--queries 100]
                          [--backends sqlite,postgresql] [--json FILE]

For each backend a fresh plauditd (embedded Redis; SQLite in its data dir, or a private
PostgreSQL started with initdb as the bench's flush step starts one). --articles articles are
written straight into its `articles` table (generated, seeded: titles of 4–8 words, texts of
~150 words, a third of them Chinese runs of 2–6 characters, words drawn by a Zipf law from a
4,000-word English vocabulary and 600 common Han characters), then the index is reset
(plaudit_meta) so that plauditd's indexer rebuilds it: the time until a search finds the
last article is the build time. Then --queries queries of each shape, one after the other on
one keep-alive connection, timed at the client: a common word, a rare word, two words, a
Chinese pair (two characters), a Chinese run of four; p50/p99 per shape and overall; and, as
the reference on the same server and connection, the published list's first page. PostgreSQL
is ANALYZEd after the build, as autovacuum would after a bulk load.

Prints the JSON (and writes it to --json).
"""
import glob
import http.client
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from moderation import Server, bench_args, emit  # noqa: E402

HAN = ("的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过"
       "子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体"
       "制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内"
       "数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提"
       "直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计"
       "别她手角期根论运农指几九区强放决西被干做必战先回则任取据处队南给色光门即保治北造百规热领七海"
       "口东导器压志世金增争济阶油思术极交受联什认六共权收证改清美再采转更单风切打白教速花带安场身车"
       "例真务具万每目至达走积示议声报斗完类八离华名确才科张信马节话米整空元况今集温传土许步群广石记"
       "需段研界拉林律叫且究观越织装影算低持音众书布复容儿须际商非验连断深难近矿千周委素技备半办青省"
       "列习响约支般史感劳便团往酸历市克何除消构府称太准精值号率族维划选标写存候毛亲快效斯院查江型眼"
       "王按格养易置派层片始却专状育厂京识适属圆包火住调满县局照参红细引听该铁价严龙飞")


def words(rng, n):
    """A 4,000-word vocabulary of pronounceable made-up words, the same for every seed."""
    vr = random.Random(48)
    cons, vow = "bcdfghjklmnprstvwz", "aeiou"
    out = set()
    while len(out) < n:
        k = vr.randint(2, 4)
        out.add("".join(vr.choice(cons) + vr.choice(vow) for _ in range(k)))
    return sorted(out)


VOCAB = words(None, 4000)


def zipf_pick(rng, items, s=1.1):
    # Inverse-CDF over precomputed weights (cached on the list object).
    key = (id(items), s)
    cdf = zipf_pick.cache.get(key)
    if cdf is None:
        total, cdf = 0.0, []
        for i in range(len(items)):
            total += 1.0 / (i + 1) ** s
            cdf.append(total)
        cdf = [c / total for c in cdf]
        zipf_pick.cache[key] = cdf
    x = rng.random()
    lo, hi = 0, len(cdf) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if cdf[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return items[lo]


zipf_pick.cache = {}


def text_of(rng, n):
    parts = []
    while len(parts) < n:
        if rng.random() < 0.33:
            parts.append("".join(zipf_pick(rng, HAN, 0.9) for _ in range(rng.randint(2, 6))))
        else:
            parts.append(zipf_pick(rng, VOCAB))
    return " ".join(parts)


def articles(n, author, seed=48):
    rng = random.Random(seed)
    now = int(time.time() * 1000)
    for i in range(n):
        title = text_of(rng, rng.randint(4, 8))
        body = text_of(rng, 150)
        yield (100000 + i, "article", author, title, body[:64], f"<p>{body}</p>", "published",
               now - i, now - i, now - i)


COLUMNS = ("id, kind, author_id, title, summary, content, status, created_at, updated_at, "
           "published_at")


def fill_sqlite(path, n, author):
    db = sqlite3.connect(path, timeout=60)
    db.executemany(f"INSERT INTO articles ({COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?)",
                   articles(n, author))
    db.execute("DELETE FROM plaudit_meta WHERE key IN ('search_through', 'search_rebuild')")
    db.commit()
    db.close()


def psql(pg, sql, stdin=None):
    return subprocess.run([pg["bin"] + "/psql", "-X", "-q", "-At", "-h", pg["sock"], "-p", "5432",
                           "-U", "postgres", "-d", "bench", "-c", sql], input=stdin,
                          capture_output=True, text=True, check=True).stdout


def fill_postgres(pg, n, author):
    def esc(v):
        return str(v).replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
    rows = "".join("\t".join(esc(v) for v in row) + "\n" for row in articles(n, author))
    psql(pg, f"COPY articles ({COLUMNS}) FROM STDIN", rows)
    psql(pg, "DELETE FROM plaudit_meta WHERE key IN ('search_through', 'search_rebuild')")


def start_postgres(work):
    pg_bin = sorted(glob.glob("/usr/lib/postgresql/*/bin"))[-1]
    # Its own directory the postgres user can reach (mkdtemp's is root's, mode 0700).
    root = tempfile.mkdtemp(prefix="plaudit-searchbench-pg-")
    os.chmod(root, 0o755)
    os.makedirs(os.path.join(root, "sock"))
    as_pg = []
    if os.geteuid() == 0:
        subprocess.run(["chown", "-R", "postgres:postgres", root], check=True)
        as_pg = ["runuser", "-u", "postgres", "--"]
    subprocess.run(as_pg + [pg_bin + "/initdb", "-D", root + "/data", "-U", "postgres", "-A",
                            "trust", "-E", "UTF8", "--locale=C", "--no-sync"],
                   capture_output=True, check=True)
    log = open(os.path.join(work, "postgres.log"), "w")
    proc = subprocess.Popen(as_pg + [pg_bin + "/postgres", "-D", root + "/data", "-k",
                                     root + "/sock", "-p", "5432", "-c", "listen_addresses="],
                            stdout=log, stderr=subprocess.STDOUT)
    for _ in range(200):
        if os.path.exists(os.path.join(root, "sock", ".s.PGSQL.5432")):
            break
        time.sleep(0.05)
    pg = {"bin": pg_bin, "sock": root + "/sock", "proc": proc, "root": root}
    for _ in range(100):
        r = subprocess.run([pg_bin + "/psql", "-X", "-q", "-h", pg["sock"], "-p", "5432", "-U",
                            "postgres", "-d", "postgres", "-c", "CREATE DATABASE bench"],
                           capture_output=True)
        if r.returncode == 0:
            break
        time.sleep(0.1)
    pg["version"] = subprocess.run([pg_bin + "/postgres", "--version"], capture_output=True,
                                   text=True).stdout.split()[2]
    return pg


STATE = ("SELECT (SELECT COUNT(*) FROM plaudit_meta WHERE key = 'search_through' "
         "AND value <> '-1'), "
         "(SELECT COUNT(*) FROM plaudit_meta WHERE key = 'search_rebuild')")


def sqlite_rebuilt(path):
    db = sqlite3.connect(path, timeout=60)
    through, rebuild = db.execute(STATE).fetchone()
    db.close()
    return through == 1 and rebuild == 0


def pg_rebuilt(pg):
    return psql(pg, STATE).strip() == "1|0"


def search(conn, q, size=10):
    t = time.perf_counter()
    conn.request("GET", "/api/v1/search?" + urllib.parse.urlencode({"q": q, "size": size}))
    r = conn.getresponse()
    body = r.read()
    ms = (time.perf_counter() - t) * 1000
    if r.status != 200:
        raise SystemExit(f"search {q!r}: {r.status} {body[:200]!r}")
    return ms, json.loads(body)


def pct(values, p):
    s = sorted(values)
    return round(s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))], 2)


def measure(s, n, queries, rebuilt, analyze=None):
    conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=60)
    rng = random.Random(48)
    # The build: until the indexer's rebuild mark is gone and its cursor is back.
    start = time.monotonic()
    while not rebuilt() and time.monotonic() - start < 3600:
        time.sleep(0.5)
    build_s = round(time.monotonic() - start, 1)
    if analyze:
        analyze()  # as autovacuum would after a bulk load: the planner's row counts
    # Queries drawn from the indexed texts themselves, so that the Chinese ones match.
    han_runs = [r[5][3:-4] for _, r in zip(range(2000), articles(n, 1))]
    shapes = {
        "common word": lambda: VOCAB[rng.randint(0, 9)],
        "rare word": lambda: VOCAB[rng.randint(2000, 3999)],
        "two words": lambda: VOCAB[rng.randint(0, 200)] + " " + VOCAB[rng.randint(0, 200)],
        "Chinese pair": lambda: pick_han(rng, han_runs, 2),
        "Chinese run of 4": lambda: pick_han(rng, han_runs, 4),
    }
    out = {"build_s": build_s, "shapes": {}}
    every = []
    for name, make in shapes.items():
        times, totals = [], []
        for _ in range(queries):
            ms, page = search(conn, make())
            times.append(ms)
            totals.append(page["total"])
        every += times
        out["shapes"][name] = {"p50_ms": pct(times, 50), "p99_ms": pct(times, 99),
                               "median_matches": sorted(totals)[len(totals) // 2]}
    out["p50_ms"], out["p99_ms"] = pct(every, 50), pct(every, 99)
    # The reference, same server and connection: the first page of the published list.
    ref = []
    for _ in range(queries):
        t = time.perf_counter()
        conn.request("GET", "/api/v1/articles?size=10")
        r = conn.getresponse()
        r.read()
        ref.append((time.perf_counter() - t) * 1000)
    out["list_p50_ms"], out["list_p99_ms"] = pct(ref, 50), pct(ref, 99)
    return out


def pick_han(rng, texts, k):
    while True:
        t = rng.choice(texts)
        runs = [w for w in t.split() if len(w) >= k and all(c in HAN for c in w)]
        if runs:
            w = rng.choice(runs)
            i = rng.randint(0, len(w) - k)
            return w[i:i + k]


def main():
    ap = bench_args()
    ap.add_argument("--articles", type=int, default=100000)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--backends", default="sqlite,postgresql")
    args = ap.parse_args()
    result = {"articles": args.articles, "queries_per_shape": args.queries, "backends": {}}
    for backend in args.backends.split(","):
        work = tempfile.mkdtemp(prefix="plaudit-searchbench-")
        pg = None
        s = None
        try:
            extra = []
            if backend == "postgresql":
                pg = start_postgres(work)
                extra = ["--database", f"postgresql://postgres@/bench?host={pg['sock']}&port=5432"]
            s = Server(args.bin, "off", extra)
            admin = int(s.call("GET", "/users/me", token=s.login("benchadmin", "benchpassword"))["id"])
            start = time.monotonic()
            if pg:
                fill_postgres(pg, args.articles, admin)
            else:
                fill_sqlite(os.path.join(s.dir, "data", "plaudit.db"), args.articles, admin)
            load_s = round(time.monotonic() - start, 1)
            row = measure(s, args.articles, args.queries,
                          (lambda: pg_rebuilt(pg)) if pg else
                          (lambda: sqlite_rebuilt(os.path.join(s.dir, "data", "plaudit.db"))),
                          (lambda: psql(pg, "ANALYZE")) if pg else None)
            row["load_s"] = load_s
            if pg:
                row["version"] = pg["version"]
            result["backends"][backend] = row
        finally:
            if s:
                s.stop()
            if pg:
                pg["proc"].terminate()
                pg["proc"].wait(timeout=60)
                shutil.rmtree(pg["root"], ignore_errors=True)
            shutil.rmtree(work, ignore_errors=True)
    emit(result, args.json)


if __name__ == "__main__":
    main()
