// bench_flush: write-behind throughput of the likes table, the SQL half of a flush pass.
//
//   bench_flush [--changes N] [--batch B] [--articles-per-batch A] [DATABASE_URL]
//
// Without DATABASE_URL: a fresh SQLite database in a temporary directory (removed at exit),
// opened the way plauditd opens it (WAL, synchronous=FULL). With a postgresql:// or mysql:// /
// mariadb:// URL: that database, which should be empty (the migrations run first).
//
// It inserts N like changes (default 200,000) through sql::LikeTable::Apply in batches of B
// (default 10,000), each batch like one flusher claim: changes of A (default 100) articles,
// B / A users each; the articles' counts follow the rows (triggers, migration 007). Only the
// Apply calls are timed.
// Prints one summary line, ending in `changes_per_s=<n>` for bench/run.sh.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "common/net.hpp"
#include "common/time.hpp"
#include "sql/likes.hpp"
#include "sql/store.hpp"

namespace {

using namespace plaudit;
namespace fs = std::filesystem;

// Runs one awaitable to completion on ioc. Store::Run keeps the executor busy until the
// pool thread has posted its result back, so run() returns only when the call is done.
template <class T>
T RunSync(net::io_context& ioc, Awaitable<T> aw) {
  auto fut = net::co_spawn(ioc, std::move(aw), net::use_future);
  ioc.restart();
  ioc.run();
  return fut.get();
}

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "bench_flush: %s\n", what.c_str());
  std::exit(1);
}

int64_t ParseCount(const char* flag, const char* v) {
  char* end = nullptr;
  long long n = std::strtoll(v, &end, 10);
  if (end == v || *end != '\0' || n <= 0) {
    Die(std::string(flag) + " needs a positive integer");
  }
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  spdlog::set_level(spdlog::level::warn);  // no migration chatter
  int64_t total = 200'000;
  int64_t batch = 10'000;
  int64_t per_batch_articles = 100;
  std::string url;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if ((a == "--changes" || a == "--batch" || a == "--articles-per-batch") && i + 1 < argc) {
      int64_t n = ParseCount(argv[i], argv[i + 1]);
      ++i;
      if (a == "--changes") {
        total = n;
      } else if (a == "--batch") {
        batch = n;
      } else {
        per_batch_articles = n;
      }
    } else if (a == "-h" || a == "--help") {
      std::printf(
          "usage: bench_flush [--changes N] [--batch B] [--articles-per-batch A] "
          "[sqlite:///path | postgresql://... | mariadb://...]\n");
      return 0;
    } else if (url.empty() && a.rfind("-", 0) != 0) {
      url = a;
    } else {
      Die("unknown argument " + a);
    }
  }
  if (per_batch_articles > batch) {
    per_batch_articles = batch;
  }

  std::string temp_dir;
  if (url.empty()) {
    std::string tmpl = (fs::temp_directory_path() / "plaudit-flush-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) {
      Die("mkdtemp failed");
    }
    temp_dir = tmpl;
    url = "sqlite://" + temp_dir + "/flush.db";
  }
  const std::string kind = url.rfind("postgres", 0) == 0 ? "postgresql"
                           : url.rfind("mysql", 0) == 0 || url.rfind("mariadb", 0) == 0 ? "mysql"
                                                                                        : "sqlite";

  int rc = 0;
  {
    auto parsed = ParseDatabaseUrl(url);
    if (!parsed) {
      Die("database URL: " + parsed.error().message);
    }
    sql::StoreOptions options;
    options.url = std::move(*parsed);
    auto opened = sql::Store::Open(options);
    if (!opened) {
      Die("open " + kind + ": " + opened.error().message);
    }
    std::unique_ptr<sql::Store> store = std::move(*opened);
    if (auto m = store->Migrate(); !m) {
      Die("migrate: " + m.error().message);
    }

    // Targets exist, so every count update finds its row (as in production). The author is
    // 9001: migration 017 takes id 1 for the page author (@pages).
    const int64_t batches = (total + batch - 1) / batch;
    const int64_t article_count = per_batch_articles * std::min<int64_t>(batches, 10);
    std::function<Result<int64_t>(sql::Connection&)> setup =
        [article_count](sql::Connection& c) -> Result<int64_t> {
      const int64_t now = NowMs();
      auto st = c.Transaction([&](sql::Connection& tx) -> Status {
        auto u = tx.Query(
            "INSERT INTO users (id, username, username_key, display_name, password_hash, role, "
            "created_at, updated_at) VALUES (9001, 'bench', 'bench', 'bench', 'x', 'author', $1, "
            "$1)",
            {now});
        if (!u) {
          return tl::unexpected(u.error());
        }
        for (int64_t id = 1; id <= article_count; ++id) {
          auto a = tx.Query(
              "INSERT INTO articles (id, kind, author_id, title, summary, content, status, "
              "created_at, updated_at, published_at) VALUES ($1, 'article', 9001, 't', 's', 'c', "
              "'published', $2, $2, $2)",
              {id, now});
          if (!a) {
            return tl::unexpected(a.error());
          }
        }
        return {};
      });
      if (!st) {
        return tl::unexpected(st.error());
      }
      return article_count;
    };

    net::io_context ioc;
    auto made = RunSync(ioc, store->Run<int64_t>(std::move(setup)));
    if (!made) {
      Die("setup: " + made.error().message);
    }

    sql::LikeTable table(*store);
    std::chrono::steady_clock::duration spent{};
    int64_t done = 0, written = 0, seq = 1'000'000;
    for (int64_t b = 0; done < total; ++b) {
      const int64_t n = std::min(batch, total - done);
      const int64_t users_per_article = (n + per_batch_articles - 1) / per_batch_articles;
      const int64_t first_article = (b % 10) * per_batch_articles + 1;
      std::vector<sql::LikeChange> changes;
      changes.reserve(n);
      for (int64_t i = 0; i < n; ++i) {
        sql::LikeChange ch;
        ch.type = 'a';
        ch.target_id = first_article + i % per_batch_articles;
        // A new (article, user) pair on every change: the common case of a flush.
        ch.user_id = b * users_per_article + i / per_batch_articles + 1;
        ch.valid = i % 10 != 0;  // some unlikes too
        ch.seq = ++seq;
        changes.push_back(ch);
      }
      auto started = std::chrono::steady_clock::now();
      auto applied = RunSync(ioc, table.Apply(std::move(changes)));
      spent += std::chrono::steady_clock::now() - started;
      if (!applied) {
        Die("Apply: " + applied.error().message);
      }
      written += *applied;
      done += n;
    }
    const double secs = std::chrono::duration<double>(spent).count();
    const double rate = secs > 0 ? done / secs : 0;
    std::printf(
        "%s: %lld changes (%lld rows written) in %lld batches of %lld (%lld articles each): "
        "%.3f s in Apply, changes_per_s=%.0f\n",
        kind.c_str(), static_cast<long long>(done), static_cast<long long>(written),
        static_cast<long long>((done + batch - 1) / batch), static_cast<long long>(batch),
        static_cast<long long>(per_batch_articles), secs, rate);
    if (written != done) {
      std::fprintf(stderr, "bench_flush: expected %lld rows written, got %lld\n",
                   static_cast<long long>(done), static_cast<long long>(written));
      rc = 1;
    }
    store->Close();
  }
  if (!temp_dir.empty()) {
    std::error_code ec;
    fs::remove_all(temp_dir, ec);
  }
  return rc;
}
