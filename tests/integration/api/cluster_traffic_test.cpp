// Issue 29: plauditd scaled out on Redis Cluster, under traffic. Two instances share one
// cluster (started here) and one PostgreSQL database; requests alternate between them, as a
// round-robin load balancer sends them. A like storm runs threads that each own a disjoint set
// of (user, target) pairs, so the last acknowledged answer of a pair is its truth (the model);
// afterwards both instances' counts and every user's like state, and SQL after a flush, are
// held to it. The storm runs on a quiet cluster, and while the primary of a target's slot is
// SIGKILLed; on Sentinel, through a SENTINEL FAILOVER.
//
// The storm's seed is printed; PLAUDIT_STORM_SEED=<n> replays its choices (thread timing
// aside). These tests start clusters of their own: api_tests_cluster (PLAUDIT_TEST_REDIS=
// cluster) skips them, and its --gtest_filter=*/Postgres leaves them out anyway.
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "app/app.hpp"
#include "app_fixture.hpp"
#include "config/config.hpp"
#include "redis/client/cluster_slots.hpp"
#include "redis/keys.hpp"
#include "support/postgres_server.hpp"
#include "support/process.hpp"
#include "support/redis_cluster.hpp"
#include "support/redis_sentinel.hpp"

namespace plaudit::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

uint32_t StormSeed() {
  const char* env = std::getenv("PLAUDIT_STORM_SEED");
  const uint32_t seed = env != nullptr ? static_cast<uint32_t>(std::stoul(env)) : 29u;
  std::cout << "[ storm    ] seed " << seed << " (PLAUDIT_STORM_SEED replays it)\n";
  return seed;
}

std::string Join(const std::vector<std::string>& items, size_t at_most = 20) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < at_most; ++i) {
    out += items[i] + "\n";
  }
  if (items.size() > at_most) {
    out += "... " + std::to_string(items.size() - at_most) + " more\n";
  }
  return out;
}

// One like target: an article or a comment (in `article`, whose like shard holds its keys).
struct Target {
  char type;
  int64_t id;
  int64_t article;
  std::string path;  // its like resource

  int Slot() const {
    return redis::cluster::KeySlot(redis::keys::LikeTag(redis::keys::LikeShard(article)));
  }
  std::string Name() const { return type + std::to_string(id); }
};

// The users and targets a storm acts on. Pair p is (user p / targets, target p % targets).
struct World {
  std::vector<int64_t> user_ids;
  std::vector<std::string> tokens;
  std::vector<Target> targets;

  int users() const { return static_cast<int>(tokens.size()); }
  int pairs() const { return users() * static_cast<int>(targets.size()); }
  int Pair(int user, int target) const { return user * static_cast<int>(targets.size()) + target; }
  std::string PairName(int pair) const {
    return "user " + std::to_string(user_ids[pair / targets.size()]) + " on " +
           targets[pair % targets.size()].Name();
  }
};

// The last acknowledged state of each pair, and when that acknowledgement arrived.
struct Model {
  std::vector<char> liked;
  std::vector<Clock::time_point> acked;
  std::vector<char> unknown;  // its last request was not answered 200
};

struct Answer {
  Clock::time_point sent;
  Clock::time_point answered;
  int status;  // -1: no HTTP answer
};

// The 503s of a storm around an outage: how many, how many outside [from, until] (and when
// the first such was answered, in s after `from`), and how many 200s were sent after `ok_from`.
struct Outage {
  int unavailable = 0;
  int outside = 0;
  double first_outside = 0;
  int ok_after = 0;
};
Outage CountOutage(const std::vector<Answer>& answers, Clock::time_point from,
                   Clock::time_point until, Clock::time_point ok_from) {
  Outage o;
  for (const Answer& a : answers) {
    if (a.status == 503) {
      ++o.unavailable;
      if ((a.answered < from || a.answered > until) && o.outside++ == 0) {
        o.first_outside = Seconds(a.answered - from);
      }
    }
    if (a.status == 200 && a.sent > ok_from) {
      ++o.ok_after;
    }
  }
  return o;
}

// Likes and unlikes of random pairs, each thread sequential on pairs of its own, alternating
// between `ports`.
class Storm {
 public:
  struct Options {
    int threads = 16;
    int ops_per_thread = 0;          // 0: until Stop()
    bool retry_unavailable = false;  // a 503 is sent again (20 ms apart) until answered 200
  };

  Storm(const World& world, std::vector<uint16_t> ports, Options options, uint32_t seed)
      : world_(world),
        ports_(std::move(ports)),
        options_(options),
        seed_(seed),
        answers_(options.threads) {
    model_.liked.assign(world.pairs(), 0);
    model_.acked.assign(world.pairs(), Clock::time_point{});
    model_.unknown.assign(world.pairs(), 0);
  }
  ~Storm() { Stop(); }

  void Start() {
    for (int t = 0; t < options_.threads; ++t) {
      threads_.emplace_back([this, t] { Run(t); });
    }
  }
  // Until every thread is done (after ops_per_thread, or now when 0).
  void Stop() {
    stop_ = true;
    for (auto& t : threads_) {
      t.join();
    }
    threads_.clear();
  }

  int64_t ops() const { return ops_.load(); }
  const Model& model() const { return model_; }
  std::vector<std::string> errors() const {
    std::lock_guard lock(mutex_);
    return errors_;
  }
  std::vector<Answer> answers() const {
    std::vector<Answer> all;
    for (const auto& a : answers_) {
      all.insert(all.end(), a.begin(), a.end());
    }
    return all;
  }

 private:
  void Run(int t) {
    std::mt19937 rng(seed_ * 1000 + static_cast<uint32_t>(t));
    HttpClient http("127.0.0.1", ports_);
    std::vector<int> own;
    for (int p = t; p < world_.pairs(); p += options_.threads) {
      own.push_back(p);
    }
    const size_t targets = world_.targets.size();
    for (int i = 0; options_.ops_per_thread > 0 ? i < options_.ops_per_thread : !stop_.load();
         ++i) {
      const int pair = own[rng() % own.size()];
      const bool like = (rng() & 1) != 0;
      const std::string& path = world_.targets[pair % targets].path;
      const auto bearer = Bearer(world_.tokens[pair / targets]);
      const auto give_up = Clock::now() + 30s;
      for (;;) {
        Answer a{Clock::now(), {}, -1};
        std::string error;
        try {
          HttpResponse r = like ? http.Put(path, "", bearer) : http.Delete(path, bearer);
          a.status = r.status;
          if (r.status == 200 && r.Json().at("liked").as_bool() != like) {
            error = "answered " + r.body;
          } else if (r.status != 200 && r.status != 503) {
            error = "status " + std::to_string(r.status) + " " + r.body;
          }
        } catch (const std::exception& e) {
          error = e.what();
        }
        a.answered = Clock::now();
        answers_[t].push_back(a);
        ++ops_;
        if (!error.empty()) {
          std::lock_guard lock(mutex_);
          errors_.push_back((like ? "like by " : "unlike by ") + world_.PairName(pair) + ": " +
                            error);
        }
        if (a.status == 200) {
          model_.liked[pair] = like ? 1 : 0;
          model_.acked[pair] = a.answered;
          model_.unknown[pair] = 0;
          break;
        }
        model_.unknown[pair] = 1;
        if (a.status != 503 || !options_.retry_unavailable || Clock::now() > give_up) {
          break;
        }
        std::this_thread::sleep_for(20ms);
      }
    }
  }

  const World& world_;
  std::vector<uint16_t> ports_;
  Options options_;
  uint32_t seed_;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> ops_{0};
  Model model_;  // each thread writes only the pairs it owns
  std::vector<std::vector<Answer>> answers_;
  mutable std::mutex mutex_;
  std::vector<std::string> errors_;
  std::vector<std::thread> threads_;
};

// What one instance (or SQL) says: each target's count and each pair's state.
struct Observed {
  std::vector<int64_t> counts;
  std::vector<char> liked;  // empty: not read
  std::vector<std::string> errors;
};

// GET each target's like resource; with `per_user`, GET /api/v1/likes as each user.
Observed Observe(uint16_t port, const World& w, bool per_user = true) {
  Observed o;
  HttpClient http("127.0.0.1", port);
  for (const Target& t : w.targets) {
    auto r = http.Get(t.path);
    if (r.status != 200) {
      o.errors.push_back("GET " + t.path + ": " + std::to_string(r.status) + " " + r.body);
      o.counts.push_back(-1);
      continue;
    }
    o.counts.push_back(r.Json().at("likeCount").as_int64());
  }
  if (!per_user) {
    return o;
  }
  std::string articles, comments;
  for (const Target& t : w.targets) {
    std::string& list = t.type == 'a' ? articles : comments;
    list += (list.empty() ? "" : ",") + std::to_string(t.id);
  }
  const std::string query = "/api/v1/likes?article=" + articles + "&comment=" + comments;
  o.liked.assign(w.pairs(), 0);
  for (int u = 0; u < w.users(); ++u) {
    auto r = http.Get(query, Bearer(w.tokens[u]));
    if (r.status != 200) {
      o.errors.push_back("GET /api/v1/likes as user " + std::to_string(w.user_ids[u]) + ": " +
                         std::to_string(r.status) + " " + r.body);
      continue;
    }
    const auto json = r.Json();
    for (size_t t = 0; t < w.targets.size(); ++t) {
      const Target& target = w.targets[t];
      const auto& entry =
          json.at(target.type == 'a' ? "article" : "comment").at(std::to_string(target.id));
      o.liked[w.Pair(u, static_cast<int>(t))] = entry.at("liked").as_bool() ? 1 : 0;
    }
  }
  return o;
}

std::vector<int64_t> ModelCounts(const World& w, const std::vector<char>& liked) {
  std::vector<int64_t> counts(w.targets.size(), 0);
  for (int p = 0; p < w.pairs(); ++p) {
    counts[p % w.targets.size()] += liked[p];
  }
  return counts;
}

// Where `o` differs from `liked` (a model's or another observation's), one line each.
std::vector<std::string> Differences(const World& w, const std::vector<char>& liked,
                                     const Observed& o) {
  std::vector<std::string> out = o.errors;
  const auto counts = ModelCounts(w, liked);
  for (size_t t = 0; t < w.targets.size(); ++t) {
    if (o.counts[t] != counts[t]) {
      out.push_back(w.targets[t].Name() + ": count " + std::to_string(o.counts[t]) + ", expected " +
                    std::to_string(counts[t]));
    }
  }
  for (int p = 0; p < w.pairs() && !o.liked.empty(); ++p) {
    if (o.liked[p] != liked[p]) {
      out.push_back(w.PairName(p) + ": liked " + std::to_string(o.liked[p]) + ", expected " +
                    std::to_string(liked[p]));
    }
  }
  return out;
}

// The pairs where `o` differs from `liked`.
std::vector<int> DifferingPairs(const World& w, const std::vector<char>& liked, const Observed& o) {
  std::vector<int> out;
  for (int p = 0; p < w.pairs(); ++p) {
    if (o.liked[p] != liked[p]) {
      out.push_back(p);
    }
  }
  return out;
}

// The node replicating primary `i` (master_port in its INFO replication).
size_t ReplicaOf(RedisCluster& cluster, size_t i) {
  const std::string wanted = "master_port:" + std::to_string(cluster.node(i).port());
  for (size_t n = 0; n < cluster.size(); ++n) {
    if (n != i && cluster.node(n).Cli("INFO replication").find(wanted) != std::string::npos) {
      return n;
    }
  }
  throw std::runtime_error("primary " + std::to_string(i) + " has no replica");
}

// Whether primary `i` has a replica and every replica has acknowledged all it was sent.
bool ReplicasCaughtUp(RedisCluster& cluster, size_t i) {
  std::string offset;
  std::vector<std::string> acked;
  for (const std::string& line : Lines(cluster.node(i).Cli("INFO replication"))) {
    if (line.starts_with("master_repl_offset:")) {
      offset = line.substr(19);
    }
    const size_t at = line.find(",offset=");
    if (line.starts_with("slave") && at != std::string::npos) {
      acked.push_back(line.substr(at + 8, line.find(',', at + 1) - at - 8));
    }
  }
  if (offset.empty() || acked.empty()) {
    return false;
  }
  return std::all_of(acked.begin(), acked.end(), [&](const std::string& o) { return o == offset; });
}

// A shell command's stdout and stderr.
std::string Sh(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (p == nullptr) {
    throw std::runtime_error("popen failed");
  }
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) {
    out.append(buf, n);
  }
  ::pclose(p);
  return out;
}

// The slots node `i` serves now, ascending (CLUSTER NODES; slots being moved are skipped).
std::vector<int> SlotsOf(RedisCluster& cluster, size_t i) {
  std::vector<int> slots;
  for (const std::string& line : Lines(cluster.Cli("CLUSTER NODES"))) {
    std::istringstream in(line);
    std::string id, addr, flags, primary, ping, pong, epoch, link;
    in >> id >> addr >> flags >> primary >> ping >> pong >> epoch >> link;
    if (id != cluster.NodeId(i)) {
      continue;
    }
    for (std::string range; in >> range;) {
      if (range.front() == '[') {
        continue;
      }
      const size_t dash = range.find('-');
      const int first = std::stoi(range.substr(0, dash));
      const int last = dash == std::string::npos ? first : std::stoi(range.substr(dash + 1));
      for (int s = first; s <= last; ++s) {
        slots.push_back(s);
      }
    }
  }
  return slots;
}

class TrafficTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (TestRedis::ClusterMode()) {
      GTEST_SKIP() << "starts Redis Clusters of its own";
    }
    started_ = Clock::now();
  }
  void TearDown() override {
    if (!IsSkipped()) {
      std::cout << "[ wall     ] " << Seconds(Clock::now() - started_) << " s\n";
    }
  }

  // A cluster of the test's own, stopped after the instances (which flush at exit).
  RedisCluster& StartCluster(int primaries, int replicas) {
    cluster_ = std::make_unique<RedisCluster>(primaries, replicas);
    return *cluster_;
  }
  RedisSentinel& StartSentinels() {
    sentinels_ = std::make_unique<RedisSentinel>("plaudit");
    return *sentinels_;
  }

  // `n` plauditd on `redis_url`, sharing a fresh PostgreSQL database.
  void StartInstances(const std::string& redis_url, int n = 2) {
    auto& pg = PostgresServer::Shared();
    db_ = pg.CreateDatabase();
    config::Config c;
    c.password_hash = config::PasswordCost::kMinimal;
    c.rate_limits = false;
    c.redis = ParseRedisUrl(redis_url).value();
    c.database = ParseDatabaseUrl(pg.url(db_)).value();
    for (int i = 0; i < n; ++i) {
      apps_.push_back(std::make_unique<AppUnderTest>(c));
    }
  }

  std::vector<uint16_t> Ports() const {
    std::vector<uint16_t> ports;
    for (const auto& a : apps_) {
      ports.push_back(a->port());
    }
    return ports;
  }
  HttpClient Both() const { return HttpClient("127.0.0.1", Ports()); }

  // `users` users signed in, the given articles (ids 1.. are handed out in order, so every id
  // up to the largest is made) and a comment on each: the targets are those articles and
  // comments.
  World Seed(int users, const std::vector<int64_t>& articles) {
    World w;
    HttpClient http = Both();
    for (int u = 0; u < users; ++u) {
      const std::string body =
          R"({"username":"user)" + std::to_string(u) + R"(","password":"password123"})";
      auto made = http.Post("/api/v1/users", body);
      EXPECT_EQ(made.status, 201) << made.body;
      auto login = http.Post("/api/v1/sessions", body);
      EXPECT_EQ(login.status, 201) << login.body;
      if (made.status != 201 || login.status != 201) {
        return w;
      }
      w.user_ids.push_back(made.Json().at("id").as_int64());
      w.tokens.emplace_back(login.Json().at("token").as_string());
    }
    const int64_t last = *std::max_element(articles.begin(), articles.end());
    for (int64_t id = 1; id <= last; ++id) {
      auto a = http.Post(
          "/api/v1/articles",
          R"({"title":"t)" + std::to_string(id) + R"(","content":"<p>c</p>","status":"published"})",
          Bearer(w.tokens[0]));
      EXPECT_EQ(a.status, 201) << a.body;
      EXPECT_EQ(a.status == 201 ? a.Json().at("id").as_int64() : 0, id);
    }
    for (int64_t id : articles) {
      w.targets.push_back({'a', id, id, "/api/v1/articles/" + std::to_string(id) + "/like"});
    }
    for (int64_t id : articles) {
      auto c = http.Post("/api/v1/articles/" + std::to_string(id) + "/comments",
                         R"({"body":"on )" + std::to_string(id) + R"("})", Bearer(w.tokens[0]));
      EXPECT_EQ(c.status, 201) << c.body;
      const int64_t cid = c.status == 201 ? c.Json().at("id").as_int64() : 0;
      w.targets.push_back({'c', cid, id, "/api/v1/comments/" + std::to_string(cid) + "/like"});
    }
    return w;
  }

  template <class T>
  T OnLoop(size_t i, Awaitable<T> op) {
    return net::co_spawn(apps_.at(i)->app().io(), std::move(op), net::use_future).get();
  }

  // Instance i's shutdown-grade flush: everything acknowledged before it is in SQL after it.
  void FlushAll(size_t i) {
    auto flushed = OnLoop(i, apps_.at(i)->app().flusher().FlushAll());
    ASSERT_TRUE(flushed) << flushed.error().message;
  }

  // Every instance shows the model's states and counts, and so does SQL after instance
  // `flusher` flushed.
  void ExpectModelEverywhere(const World& w, const Model& model, size_t flusher) {
    for (size_t i = 0; i < apps_.size(); ++i) {
      const auto diff = Differences(w, model.liked, Observe(apps_[i]->port(), w));
      EXPECT_TRUE(diff.empty()) << "instance " << i << " differs from the model:\n" << Join(diff);
    }
    FlushAll(flusher);
    const auto sql = Differences(w, model.liked, ReadSql(w));
    EXPECT_TRUE(sql.empty()) << "SQL differs from the model after a flush:\n" << Join(sql);
  }

  // SQL's view: each target's stored like_count and each pair's valid row.
  Observed ReadSql(const World& w) {
    auto& pg = PostgresServer::Shared();
    Observed o;
    std::map<std::pair<char, int64_t>, size_t> target_of;
    for (size_t t = 0; t < w.targets.size(); ++t) {
      target_of[{w.targets[t].type, w.targets[t].id}] = t;
    }
    std::map<int64_t, int> user_of;
    for (int u = 0; u < w.users(); ++u) {
      user_of[w.user_ids[u]] = u;
    }
    o.counts.assign(w.targets.size(), -1);
    for (const std::string& line :
         Lines(pg.Psql(db_,
                       "SELECT 'a', id, like_count FROM articles UNION ALL "
                       "SELECT 'c', id, like_count FROM comments"))) {
      char type;
      int64_t id, count;
      if (std::sscanf(line.c_str(), "%c|%ld|%ld", &type, &id, &count) != 3) {
        o.errors.push_back("SQL: " + line);
        continue;
      }
      auto t = target_of.find({type, id});
      if (t != target_of.end()) {
        o.counts[t->second] = count;
      }
    }
    o.liked.assign(w.pairs(), 0);
    for (const std::string& line :
         Lines(pg.Psql(db_, "SELECT target_type, target_id, user_id FROM likes WHERE valid = 1"))) {
      char type;
      int64_t id, user;
      if (std::sscanf(line.c_str(), "%c|%ld|%ld", &type, &id, &user) != 3) {
        o.errors.push_back("SQL: " + line);
        continue;
      }
      auto t = target_of.find({type, id});
      auto u = user_of.find(user);
      if (t == target_of.end() || u == user_of.end()) {
        o.errors.push_back("SQL: a like nobody made: " + line);
        continue;
      }
      o.liked[w.Pair(u->second, static_cast<int>(t->second))] = 1;
    }
    return o;
  }

  Clock::time_point started_;
  std::unique_ptr<RedisCluster> cluster_;
  std::unique_ptr<RedisSentinel> sentinels_;
  std::string db_;
  std::vector<std::unique_ptr<AppUnderTest>> apps_;
};

// Invariant 1 across instances: 16 threads like and unlike 500 (user, target) pairs, every
// request on the other instance than the one before; then both instances answer the model's
// counts and states, and after a flush so does SQL, and so do both once Redis is emptied.
TEST_F(TrafficTest, LikeStormOverTwoInstancesEndsExactlyAsAcknowledged) {
  RedisCluster& cluster = StartCluster(3, 0);
  StartInstances(cluster.url());
  const World w = Seed(50, {1, 2, 3, 4, 5});
  ASSERT_EQ(w.targets.size(), 10u);
  std::set<size_t> owners;
  for (const Target& t : w.targets) {
    owners.insert(cluster.OwnerOf(t.Slot()));
  }
  ASSERT_EQ(owners.size(), 3u) << "the targets' slots should be on every primary";

  Storm storm(w, Ports(), {.threads = 16, .ops_per_thread = 60}, StormSeed());
  storm.Start();
  storm.Stop();
  EXPECT_TRUE(storm.errors().empty()) << Join(storm.errors());
  const auto answers = storm.answers();
  EXPECT_EQ(answers.size(), 16u * 60u);
  for (const Answer& a : answers) {
    ASSERT_EQ(a.status, 200);
  }

  const Model& model = storm.model();
  ExpectModelEverywhere(w, model, 0);
  // Redis emptied: the counts come back from SQL on either instance (sessions went with it).
  cluster.FlushAll();
  for (size_t i = 0; i < apps_.size(); ++i) {
    const auto diff = Differences(w, model.liked, Observe(apps_[i]->port(), w, false));
    EXPECT_TRUE(diff.empty()) << "instance " << i << " after FLUSHALL:\n" << Join(diff);
  }
}

// Invariant 5's point: the hash tags spread the data. After a workload on both instances,
// like sets and counts, comment hashes and thread indexes, and sessions each have keys on
// every primary, and every tagged key sits on the primary of its tag's slot.
TEST_F(TrafficTest, KeysOfEveryFamilyAreSpreadOverEveryPrimary) {
  RedisCluster& cluster = StartCluster(3, 0);
  StartInstances(cluster.url());
  const World w = Seed(30, {1, 2, 3, 4, 5});
  HttpClient http = Both();
  for (int p = 0; p < w.pairs(); ++p) {
    const Target& t = w.targets[p % w.targets.size()];
    ASSERT_EQ(http.Put(t.path, "", Bearer(w.tokens[p / w.targets.size()])).status, 200);
  }
  for (const Target& t : w.targets) {
    if (t.type != 'a') {
      continue;
    }
    auto page = http.Get("/api/v1/articles/" + std::to_string(t.id) + "/comments?sort=hot");
    ASSERT_EQ(page.status, 200) << page.body;
  }

  namespace keys = redis::keys;
  const std::map<std::string, std::vector<std::string_view>> families{
      {"likes", {keys::kLikeSetPrefix, keys::kLikeCountPrefix}},
      {"comments",
       {keys::kCommentPrefix, keys::kCommentMetaPrefix, keys::kCommentsByTimePrefix,
        keys::kCommentsByLikesPrefix}},
      {"sessions", {keys::kSessionPrefix}},
      {"user sessions", {keys::kUserSessionsPrefix}},
  };
  const auto primaries = cluster.Primaries();
  ASSERT_EQ(primaries.size(), 3u);
  for (size_t node : primaries) {
    std::map<std::string, int> found;
    for (const std::string& key : Lines(cluster.node(node).Cli("--scan --pattern 'pl:*'"))) {
      for (const auto& [family, prefixes] : families) {
        for (std::string_view prefix : prefixes) {
          found[family] += key.starts_with(prefix);
        }
      }
      if (key.find('{') != std::string::npos) {
        EXPECT_EQ(cluster.OwnerOf(redis::cluster::KeySlot(key)), node) << key;
      }
    }
    for (const auto& [family, prefixes] : families) {
      EXPECT_GT(found[family], 0) << "no " << family << " key on primary " << node;
    }
    std::cout << "[ keys     ] primary " << node << ": " << found["likes"] << " like, "
              << found["comments"] << " comment, " << found["sessions"] << " session, "
              << found["user sessions"] << " user-session keys\n";
  }
}

// Slots move while the storm runs, with the real tool (redis-cli --cluster reshard, which moves
// a node's lowest slots first): six moves in several directions, each taking at least one
// target's slot. MOVED, ASK and TRYAGAIN are the cluster client's to handle: every request is
// answered 200, and the counts and states are exact afterwards, in Redis and in SQL.
TEST_F(TrafficTest, ReshardingUnderALikeStormFailsNoRequestAndLosesNoLike) {
  RedisCluster& cluster = StartCluster(3, 0);
  StartInstances(cluster.url());
  // Articles whose shards' slots lie near the bottom of a primary's range (33 and 297 of
  // 0-5460, 5485 and 5490 of 5461-10922, 11019 of 10923-16383), so that a few slots moved
  // take theirs along.
  const World w = Seed(20, {25, 41, 49, 79, 88});
  std::set<int> target_slots;
  for (const Target& t : w.targets) {
    target_slots.insert(t.Slot());
  }

  Storm storm(w, Ports(), {.threads = 8}, StormSeed());
  storm.Start();
  ASSERT_TRUE(WaitFor([&] { return storm.ops() >= 100; }, 20s));
  int targets_moved = 0;
  for (int step = 0; step < 6; ++step) {
    size_t from = 0;
    size_t count = 0;
    for (size_t k = 0; k < 3 && count == 0; ++k) {
      const size_t node = (step + k) % 3;
      const auto slots = SlotsOf(cluster, node);
      for (size_t i = 0; i < slots.size() && i < 150; ++i) {
        if (target_slots.count(slots[i]) > 0) {
          from = node;
          count = i + 1;
          break;
        }
      }
    }
    ASSERT_GT(count, 0u) << "no target slot among a primary's lowest 150";
    const size_t to = (from + 1 + step % 2) % 3;
    const auto moving = SlotsOf(cluster, from);
    const std::string out =
        Sh("redis-cli --cluster reshard 127.0.0.1:" + std::to_string(cluster.node(to).port()) +
           " --cluster-from " + cluster.NodeId(from) + " --cluster-to " + cluster.NodeId(to) +
           " --cluster-slots " + std::to_string(count) + " --cluster-yes");
    if (out.find("[ERR]") != std::string::npos || out.find("failed") != std::string::npos) {
      // Which keys are on both nodes (MIGRATE refuses to overwrite one: BUSYKEY).
      std::string both;
      for (size_t i = 0; i < count; ++i) {
        const std::string get = "CLUSTER GETKEYSINSLOT " + std::to_string(moving[i]) + " 1000";
        const auto at_to = Lines(cluster.node(to).Cli(get));
        for (const std::string& key : Lines(cluster.node(from).Cli(get))) {
          if (std::find(at_to.begin(), at_to.end(), key) == at_to.end()) {
            continue;
          }
          const std::string type = cluster.node(from).Cli("TYPE " + ShellQuote(key));
          both += key + " (" + type + ")";
          if (type == "string") {
            both += ": " + cluster.node(from).Cli("GET " + ShellQuote(key)) + " at the source, " +
                    cluster.node(to).Cli("GET " + ShellQuote(key)) + " at the target";
          }
          both += "\n";
        }
      }
      FAIL() << "redis-cli --cluster reshard failed; keys on both nodes:\n"
             << both << out.substr(out.size() > 1500 ? out.size() - 1500 : 0);
    }
    ASSERT_TRUE(cluster.WaitHealthy()) << out;
    const auto now_at_to = SlotsOf(cluster, to);
    for (size_t i = 0; i < count; ++i) {
      ASSERT_TRUE(std::binary_search(now_at_to.begin(), now_at_to.end(), moving[i]))
          << "slot " << moving[i] << " did not move from " << from << " to " << to << ":\n"
          << out;
      targets_moved += static_cast<int>(target_slots.count(moving[i]));
    }
    std::cout << "[ reshard  ] " << count << " slots " << from << " -> " << to << " at op "
              << storm.ops() << "\n";
  }
  const int64_t after_moves = storm.ops();
  ASSERT_TRUE(WaitFor([&] { return storm.ops() >= after_moves + 100; }, 20s));
  storm.Stop();
  EXPECT_GE(targets_moved, 6);

  EXPECT_TRUE(storm.errors().empty()) << Join(storm.errors());
  std::map<int, int> statuses;
  for (const Answer& a : storm.answers()) {
    ++statuses[a.status];
  }
  EXPECT_EQ(statuses.size(), 1u) << "every request should be answered 200; 503s: " << statuses[503];
  std::cout << "[ storm    ] " << statuses[200] << " likes and unlikes answered 200\n";
  const Model& model = storm.model();
  ExpectModelEverywhere(w, model, 1);
}

// The primary of a target's slot is SIGKILLed while the storm runs on a 3+3 cluster. Requests
// are answered 200 or 503 only, 503 only from the kill until shortly after the replica is seen
// promoted; then they succeed again in the same processes. Replication is asynchronous, so a
// like the dead primary acknowledged just before dying may be lost: the test counts them and
// holds each to have been acknowledged within a second of the kill. Whatever Redis holds after
// the failover, each count equals its likers there, both instances agree, and a flush brings
// SQL to it.
TEST_F(TrafficTest, APrimaryKilledUnderTheStormIsReplacedWithOnly503sMeanwhile) {
  RedisCluster& cluster = StartCluster(3, 1);
  StartInstances(cluster.url());
  const World w = Seed(20, {1, 2, 3, 4, 5});
  const size_t victim = cluster.OwnerOf(w.targets[2].Slot());
  const size_t replica = ReplicaOf(cluster, victim);
  // The seeded users, articles and sessions reach the replicas before the storm.
  for (size_t p : cluster.Primaries()) {
    ASSERT_TRUE(WaitFor([&] { return ReplicasCaughtUp(cluster, p); }, 10s)) << "primary " << p;
  }

  Storm storm(w, Ports(), {.threads = 8, .retry_unavailable = true}, StormSeed());
  storm.Start();
  ASSERT_TRUE(WaitFor([&] { return storm.ops() >= 300; }, 20s));
  ASSERT_EQ(::kill(cluster.node(victim).pid(), SIGKILL), 0);
  const auto killed = Clock::now();
  cluster.node(victim).Stop();  // reaps it
  ASSERT_TRUE(WaitFor(
      [&] {
        return cluster.node(replica).Cli("ROLE").starts_with("master") &&
               cluster.node(replica).Cli("CLUSTER INFO").find("cluster_state:ok") !=
                   std::string::npos;
      },
      30s));
  const auto promoted = Clock::now();
  const int64_t ops_at_promotion = storm.ops();
  ASSERT_TRUE(WaitFor(
      [&] { return Clock::now() > promoted + 3s && storm.ops() >= ops_at_promotion + 300; }, 30s));
  storm.Stop();
  std::cout << "[ failover ] replica seen promoted " << Seconds(promoted - killed)
            << " s after the kill\n";

  EXPECT_TRUE(storm.errors().empty()) << Join(storm.errors());
  const auto [unavailable, outside, first_outside, ok_after] =
      CountOutage(storm.answers(), killed, promoted + 2s, promoted + 2s);
  EXPECT_EQ(outside, 0) << "503s outside the kill .. promotion + 2 s window, the first "
                        << first_outside << " s after the kill (promotion at "
                        << Seconds(promoted - killed) << " s)";
  EXPECT_GT(ok_after, 100);
  std::cout << "[ failover ] " << unavailable << " answers 503, " << ok_after
            << " answered 200 from 2 s after the promotion\n";
  const Model& model = storm.model();
  for (int p = 0; p < w.pairs(); ++p) {
    EXPECT_FALSE(model.unknown[p]) << w.PairName(p);
  }

  // What the instances show right after the failover, then after a flush pass (its check of
  // Redis against SQL may bring back likes the promoted replica never received).
  std::vector<Observed> seen;
  for (size_t i = 0; i < apps_.size(); ++i) {
    seen.push_back(Observe(apps_[i]->port(), w));
  }
  FlushAll(0);
  for (size_t i = 0; i < apps_.size(); ++i) {
    seen.push_back(Observe(apps_[i]->port(), w));
  }
  for (size_t k = 0; k < seen.size(); ++k) {
    const Observed& o = seen[k];
    ASSERT_TRUE(o.errors.empty()) << Join(o.errors);
    // Invariant 1 holds on whatever Redis holds: each count is its likers.
    EXPECT_EQ(o.counts, ModelCounts(w, o.liked)) << "observation " << k;
    const auto lost = DifferingPairs(w, model.liked, o);
    for (int p : lost) {
      EXPECT_GE(model.acked[p], killed - 1s)
          << w.PairName(p) << ": acknowledged " << Seconds(killed - model.acked[p])
          << " s before the kill, and lost";
    }
    std::cout << "[ failover ] " << (k < apps_.size() ? "before" : "after")
              << " the flush, instance " << k % apps_.size() << ": " << lost.size()
              << " acknowledged changes lost\n";
  }
  // Both instances agree after the flush, and SQL holds what they show.
  EXPECT_TRUE(Differences(w, seen[2].liked, seen[3]).empty())
      << Join(Differences(w, seen[2].liked, seen[3]));
  const auto sql = Differences(w, seen[2].liked, ReadSql(w));
  EXPECT_TRUE(sql.empty()) << "SQL differs from Redis after a flush:\n" << Join(sql);
}

// The storm on one instance through a SENTINEL FAILOVER: answers are 200 or 503 only, likes
// succeed again afterwards in the same process, and every like acknowledged before the
// failover began or after it ended is there. Those acknowledged in between may be lost
// (the old primary accepts writes until it is demoted): the test counts them.
TEST_F(TrafficTest, ASentinelFailoverUnderTheStormLosesNothingAcknowledgedOutsideIt) {
  RedisSentinel& sentinels = StartSentinels();
  StartInstances(sentinels.url(), 1);
  const World w = Seed(20, {1, 2, 3, 4, 5});
  auto offset = [&](size_t i) {
    for (const std::string& line : Lines(sentinels.server(i).Cli("INFO replication"))) {
      if (line.starts_with("master_repl_offset:")) {
        return line;
      }
    }
    return "?" + std::to_string(i);
  };
  ASSERT_TRUE(WaitFor([&] { return offset(0) == offset(1); }, 10s));

  Storm storm(w, Ports(), {.threads = 8, .retry_unavailable = true}, StormSeed());
  storm.Start();
  ASSERT_TRUE(WaitFor([&] { return storm.ops() >= 300; }, 20s));
  const size_t promoted = sentinels.Replica();
  const auto began = Clock::now();
  sentinels.StartFailover();
  ASSERT_TRUE(sentinels.WaitSettled(promoted, 30s));
  const auto ended = Clock::now();
  const int64_t ops_at_end = storm.ops();
  ASSERT_TRUE(
      WaitFor([&] { return Clock::now() > ended + 1s && storm.ops() >= ops_at_end + 300; }, 30s));
  storm.Stop();
  std::cout << "[ failover ] settled " << Seconds(ended - began) << " s after SENTINEL FAILOVER\n";

  EXPECT_TRUE(storm.errors().empty()) << Join(storm.errors());
  const auto [unavailable, outside, first_outside, ok_after] =
      CountOutage(storm.answers(), began, ended + 2s, ended);
  EXPECT_EQ(outside, 0) << "503s outside the failover .. settled + 2 s window, the first "
                        << first_outside << " s after it began (settled at "
                        << Seconds(ended - began) << " s)";
  EXPECT_GT(ok_after, 100);
  const Model& model = storm.model();
  for (int p = 0; p < w.pairs(); ++p) {
    EXPECT_FALSE(model.unknown[p]) << w.PairName(p);
  }

  FlushAll(0);
  const Observed seen = Observe(apps_[0]->port(), w);
  ASSERT_TRUE(seen.errors.empty()) << Join(seen.errors);
  EXPECT_EQ(seen.counts, ModelCounts(w, seen.liked));
  int in_between = 0;
  for (int p : DifferingPairs(w, model.liked, seen)) {
    const bool during = model.acked[p] >= began && model.acked[p] <= ended;
    in_between += during;
    EXPECT_TRUE(during) << w.PairName(p) << ": acknowledged " << Seconds(model.acked[p] - began)
                        << " s after the failover began (settled at " << Seconds(ended - began)
                        << " s), and lost";
  }
  std::cout << "[ failover ] " << unavailable << " answers 503; " << in_between
            << " changes acknowledged during the failover lost\n";
  const auto sql = Differences(w, seen.liked, ReadSql(w));
  EXPECT_TRUE(sql.empty()) << "SQL differs from Redis after a flush:\n" << Join(sql);
}

}  // namespace
}  // namespace plaudit::testing
