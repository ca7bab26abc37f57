// --redis-wait-replicas (issue 29): a like is answered 200 only once a replica of its primary
// acknowledged it (WAIT on the connection that ran the script), else 503; WAITs are shared by
// the likes that arrive while one is in flight; and with it, a primary killed under likes
// loses none that were answered 200. Each test starts its own servers (a primary and a replica,
// or a 3+3 Redis Cluster), so they skip themselves when the suite runs on the shared cluster.
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "app/app.hpp"
#include "app_fixture.hpp"
#include "config/config.hpp"
#include "redis/client/cluster_slots.hpp"
#include "redis/keys.hpp"
#include "redis/like_store.hpp"
#include "support/redis_cluster.hpp"

namespace plaudit::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

#define PL_OWN_SERVERS()                                                                   \
  do {                                                                                     \
    if (TestRedis::ClusterMode()) GTEST_SKIP() << "starts its own primaries and replicas"; \
  } while (0)

std::vector<std::string> SignUp(HttpClient& http, int n) {
  std::vector<std::string> tokens;
  for (int i = 0; i < n; ++i) {
    const std::string body =
        R"({"username":"user)" + std::to_string(i) + R"(","password":"password123"})";
    EXPECT_EQ(http.Post("/api/v1/users", body).status, 201);
    auto login = http.Post("/api/v1/sessions", body);
    EXPECT_EQ(login.status, 201) << login.body;
    tokens.emplace_back(login.Json().at("token").as_string());
  }
  return tokens;
}

int64_t PostArticle(HttpClient& http, const std::string& token) {
  auto a = http.Post("/api/v1/articles",
                     R"({"title":"t","content":"<p>c</p>","status":"published"})", Bearer(token));
  EXPECT_EQ(a.status, 201) << a.body;
  return a.Json().at("id").as_int64();
}

// calls= of cmdstat_wait in INFO commandstats (0 before the first WAIT).
int64_t WaitCalls(const RedisServer& server) {
  const std::string info = server.Cli("INFO commandstats");
  const size_t at = info.find("cmdstat_wait:calls=");
  if (at == std::string::npos) {
    return 0;
  }
  return std::stoll(info.substr(at + std::string("cmdstat_wait:calls=").size()));
}

config::Config WaitConfig(const std::string& redis_url, int replicas) {
  config::Config c;
  c.password_hash = config::PasswordCost::kMinimal;
  c.rate_limits = false;
  c.redis = ParseRedisUrl(redis_url).value();
  c.flush_interval_ms = 3'600'000;  // nothing reaches SQL: a lost like stays lost
  c.redis_wait_replicas = replicas;
  c.redis_wait_timeout_ms = 200;
  return c;
}

// A like (or unlike) while the replica is up: answered 200 once the replica acknowledged it.
// On a loaded box (CI, two cores, tests in parallel) an acknowledgement can miss the wait's
// timeout and be answered 503; a like is idempotent, so it is sent again, for up to 10 s.
HttpResponse UntilAcknowledged(HttpClient& http, bool put, const std::string& path,
                               const std::string& token) {
  const auto end = Clock::now() + 10s;
  for (;;) {
    auto r = put ? http.Put(path, "", Bearer(token)) : http.Delete(path, Bearer(token));
    if (r.status != 503 || Clock::now() > end) {
      return r;
    }
    std::this_thread::sleep_for(50ms);
  }
}

// Whether `replica` has its link to its primary up (within 10 s).
bool LinkUp(RedisServer& replica) {
  return WaitFor(
      [&] {
        return replica.Cli("INFO replication").find("master_link_status:up") != std::string::npos;
      },
      10s);
}

TEST(ReplicaWaitTest, ALikeIsAnswered503WhileTheReplicaDoesNotAcknowledgeIt) {
  PL_OWN_SERVERS();
  RedisServer primary;
  RedisServer replica({"--replicaof", "127.0.0.1", std::to_string(primary.port())});
  ASSERT_TRUE(LinkUp(replica));
  AppUnderTest app(primary, WaitConfig(primary.tcp_url(), 1));
  auto http = app.Client();
  const auto tokens = SignUp(http, 2);
  const int64_t article = PostArticle(http, tokens[0]);
  auto comment = http.Post("/api/v1/articles/" + std::to_string(article) + "/comments",
                           R"({"body":"c"})", Bearer(tokens[0]));
  ASSERT_EQ(comment.status, 201) << comment.body;
  const std::string article_like = "/api/v1/articles/" + std::to_string(article) + "/like";
  const std::string comment_like =
      "/api/v1/comments/" + std::to_string(comment.Json().at("id").as_int64()) + "/like";
  ASSERT_EQ(UntilAcknowledged(http, true, article_like, tokens[0]).status, 200);

  // A stopped replica acknowledges nothing: each like waits out the 200 ms and is refused.
  ASSERT_EQ(::kill(replica.pid(), SIGSTOP), 0);
  for (const auto& [path, put] : std::vector<std::pair<std::string, bool>>{
           {article_like, true}, {comment_like, true}, {article_like, false}}) {
    const auto start = Clock::now();
    auto r = put ? http.Put(path, "", Bearer(tokens[1])) : http.Delete(path, Bearer(tokens[0]));
    EXPECT_EQ(r.status, 503) << path << ": " << r.body;
    EXPECT_EQ(r.ErrorCode(), "unavailable");
    EXPECT_GE(Clock::now() - start, 190ms) << path;
  }
  ASSERT_EQ(::kill(replica.pid(), SIGCONT), 0);

  // The refused likes were in the primary: retried, they are answered as soon as the replica
  // has them (a PUT/DELETE is idempotent).
  auto again = UntilAcknowledged(http, true, article_like, tokens[1]);
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(again.Json().at("likeCount").as_int64(), 1);  // user0's like went with the DELETE
  EXPECT_EQ(UntilAcknowledged(http, true, comment_like, tokens[1]).status, 200);
  EXPECT_EQ(UntilAcknowledged(http, false, article_like, tokens[0]).status, 200);
  auto seen = http.Get(article_like, Bearer(tokens[1]));
  EXPECT_EQ(seen.Json().at("likeCount").as_int64(), 1);
  EXPECT_TRUE(seen.Json().at("liked").as_bool());
}

TEST(ReplicaWaitTest, ConcurrentLikesShareTheirWaits) {
  PL_OWN_SERVERS();
  RedisServer primary;
  RedisServer replica({"--replicaof", "127.0.0.1", std::to_string(primary.port())});
  ASSERT_TRUE(LinkUp(replica));
  config::Config c = WaitConfig(primary.tcp_url(), 1);
  c.redis_wait_timeout_ms = 500;  // a loaded box must not turn a slow ack into a 503 here
  AppUnderTest app(primary, c);
  auto http = app.Client();
  constexpr int kThreads = 8;
  constexpr int kLikesEach = 40;
  const auto tokens = SignUp(http, kThreads);
  std::vector<int64_t> articles;
  for (int i = 0; i < 4; ++i) {
    articles.push_back(PostArticle(http, tokens[0]));
  }

  const int64_t waits_before = WaitCalls(primary);
  std::atomic<int> ok{0};
  std::atomic<int> other{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto client = app.Client();
      for (int i = 0; i < kLikesEach; ++i) {
        const std::string path =
            "/api/v1/articles/" + std::to_string(articles[i % articles.size()]) + "/like";
        auto r = (i / articles.size()) % 2 == 0 ? client.Put(path, "", Bearer(tokens[t]))
                                                : client.Delete(path, Bearer(tokens[t]));
        (r.status == 200 ? ok : other)++;
      }
    });
  }
  for (auto& th : threads) {
    th.join();
  }
  const int64_t waits = WaitCalls(primary) - waits_before;
  EXPECT_EQ(other.load(), 0);
  EXPECT_EQ(ok.load(), kThreads * kLikesEach);
  EXPECT_GT(waits, 0);
  // One WAIT per like would be as many as likes; shared, far fewer.
  EXPECT_LT(waits, ok.load() * 3 / 4) << waits << " WAITs for " << ok.load() << " likes";
  std::cout << "[ likes ] " << ok.load() << " likes, " << waits << " WAITs\n";
}

// A 3+3 cluster; threads like and unlike one article as their own users while the primary of
// its slot is killed (SIGKILL). Every answer is 200 or 503, and after the replica's promotion
// every user's state and the count hold what the last 200 said (a 503 leaves the user's state
// unknown: the like may or may not have survived). Returns how many users whose last answer
// was 200 read otherwise afterwards.
// Replication to a replica on this box takes microseconds, so a kill alone would rarely find a
// like the replica lacks. The lag comes first: the primary drops its replica's link (CLIENT
// KILL TYPE replica; the replica reconnects within its 1 s replication cron), likes go on for
// a moment without it, and then the primary is killed, as a primary that dies during a network
// blip would be.
int AcknowledgedLikesLostInAFailover(int wait_replicas) {
  RedisCluster cluster(3, 1);
  RedisServer unused;  // AppUnderTest's default Redis; the config names the cluster
  AppUnderTest app(unused, WaitConfig(cluster.url(), wait_replicas));
  auto http = app.Client();
  constexpr int kThreads = 4;
  constexpr int kUsersEach = 6;
  const auto tokens = SignUp(http, kThreads * kUsersEach);
  const int64_t article = PostArticle(http, tokens[0]);
  const std::string like = "/api/v1/articles/" + std::to_string(article) + "/like";
  const int slot = redis::cluster::KeySlot(
      redis::keys::LikeTag(redis::TargetShard(model::Target::Article(article))));
  const size_t victim = cluster.OwnerOf(slot);

  struct State {
    bool certain = true;  // the last answer was 200 (or nothing was sent: not liked)
    bool liked = false;
  };
  std::vector<State> model(tokens.size());
  std::mutex mu;
  std::set<int> statuses;
  std::string failure;
  std::atomic<int> acked{0};
  std::atomic<int> answered{0};
  std::atomic<bool> promoted{false};
  std::atomic<int> acked_after{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto client = app.Client();
      for (int i = 0; !stop; ++i) {
        const size_t u = static_cast<size_t>(t * kUsersEach + i % kUsersEach);
        const bool want = !model[u].certain || !model[u].liked;
        HttpResponse r;
        try {
          r = want ? client.Put(like, "", Bearer(tokens[u]))
                   : client.Delete(like, Bearer(tokens[u]));
        } catch (const std::exception& e) {
          r.status = 0;  // no answer: as uncertain as a 503, and reported below
          std::lock_guard lock(mu);
          failure = e.what();
        }
        {
          std::lock_guard lock(mu);
          statuses.insert(r.status);
        }
        ++answered;
        if (r.status == 200 && r.Json().at("liked").as_bool() == want) {
          model[u] = State{true, want};
          ++acked;
          if (promoted) {
            ++acked_after;
          }
        } else {
          model[u].certain = false;
        }
      }
    });
  }
  EXPECT_TRUE(WaitFor([&] { return acked >= 100; }, 20s));
  EXPECT_EQ(cluster.node(victim).Cli("CLIENT KILL TYPE replica"), "1");
  const int before_blip = answered;
  const int acked_before_blip = acked;
  EXPECT_TRUE(WaitFor([&] { return answered >= before_blip + 2 * kThreads; }, 5s));
  const int acked_in_blip = acked - acked_before_blip;
  EXPECT_EQ(::kill(cluster.node(victim).pid(), SIGKILL), 0);
  cluster.node(victim).Stop();  // reaps it
  const auto killed = Clock::now();
  bool ok = WaitFor([&] { return cluster.OwnerOf(slot) != victim; }, 5s);
  if (!ok) {
    // Seen without WAIT, when the kill follows the link's drop within milliseconds: the
    // replica did not start its election in 20 s. Then an operator's CLUSTER FAILOVER
    // TAKEOVER on it promotes it (what it then holds is the same).
    const std::string port = std::to_string(cluster.node(victim).port());
    for (size_t i = 0; i < cluster.size(); ++i) {
      if (i == victim) {
        continue;
      }
      const std::string role = cluster.node(i).Cli("ROLE");
      if (role.rfind("slave", 0) == 0 && role.find("\n" + port + "\n") != std::string::npos) {
        std::cout << "[ failover ] no election after 5 s: CLUSTER FAILOVER TAKEOVER on node " << i
                  << ": " << cluster.node(i).Cli("CLUSTER FAILOVER TAKEOVER") << "\n";
      }
    }
    ok = WaitFor([&] { return cluster.OwnerOf(slot) != victim; }, 10s);
  }
  EXPECT_TRUE(ok) << "the replica was not promoted";
  std::cout << "[ failover ] promoted after "
            << std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - killed).count()
            << " ms; " << acked.load() << " likes answered 200 so far, " << acked_in_blip
            << " of them while the replica's link was down\n";
  promoted = true;
  // The promoted replica has no replica of its own: with WAIT its likes are refused until the
  // old primary comes back (as its replica, from the cluster's newer config).
  cluster.node(victim).Start();
  EXPECT_TRUE(WaitFor([&] { return acked_after >= 50; }, 20s)) << "likes did not resume";
  stop = true;
  for (auto& th : threads) {
    th.join();
  }
  for (int s : statuses) {
    EXPECT_TRUE(s == 200 || s == 503) << "status " << s << " " << failure;
  }

  int lost = 0;
  int liked = 0;
  std::set<int64_t> counts;
  for (size_t u = 0; u < tokens.size(); ++u) {
    auto r = http.Get("/api/v1/likes?article=" + std::to_string(article), Bearer(tokens[u]));
    EXPECT_EQ(r.status, 200) << r.body;
    if (r.status != 200) {
      continue;
    }
    const auto json = r.Json();
    const auto& state = json.at("article").at(std::to_string(article));
    const bool now = state.at("liked").as_bool();
    counts.insert(state.at("likeCount").as_int64());
    liked += now ? 1 : 0;
    if (model[u].certain && model[u].liked != now) {
      ++lost;
    }
  }
  EXPECT_EQ(counts.size(), 1u);
  if (counts.size() == 1) {
    EXPECT_EQ(*counts.begin(), liked) << "the count is not its likers'";
  }
  std::cout << "[ failover ] wait_replicas=" << wait_replicas << ": " << acked.load()
            << " likes answered 200, " << lost << " acknowledged like states lost\n";
  return lost;
}

TEST(ReplicaWaitTest, APrimaryKilledUnderLikesLosesNoneAnswered200WhenOneReplicaMustHaveThem) {
  PL_OWN_SERVERS();
  EXPECT_EQ(AcknowledgedLikesLostInAFailover(1), 0);
}

// The same without WAIT, for the report in docs/architecture.md (not run by make test: what it
// loses depends on the timing of the kill; run with --gtest_also_run_disabled_tests).
TEST(ReplicaWaitTest, DISABLED_APrimaryKilledUnderLikesWithoutWaitReport) {
  PL_OWN_SERVERS();
  const int lost = AcknowledgedLikesLostInAFailover(0);
  RecordProperty("lost", lost);
}

}  // namespace
}  // namespace plaudit::testing
