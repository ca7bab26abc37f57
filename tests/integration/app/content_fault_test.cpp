// Issue 25: a model-based fault test of articles and comments against the real binaries (the
// sibling of fault_test.cpp, which covers likes and views, and shares its harness).
//
// One redis-server (AOF, appendfsync always), SQLite or PostgreSQL, and TWO `plauditd serve`
// instances on them; every request goes to either instance at random. Users: the bootstrap
// admin, two authors and three plain users. Four client threads each own the articles they
// create (thread 0: author 1's articles, 1: author 2's articles and posts, 2: a user's posts,
// 3: the admin's, the only pinned ones) and issue every write on them and on their comments
// themselves, one after the other: so the model of an article is written by one thread only,
// and what a thread reads back about its own articles is certain. The one exception is on
// purpose: a thread sometimes sends two PATCHes of disjoint fields of one article at once, to
// the two instances, and once both are answered expects both changes (SQL serializes them;
// the cache must end with both). Threads also read other threads' articles, lists and threads
// unchecked, so that cache fills race the writes.
//
// The REFERENCE MODEL holds what acknowledged (2xx) answers said. A write with no answer or a
// 5xx is UNCERTAIN: an idempotent one (PATCH, DELETE) is sent again, as a client would, until
// it gets a definite answer, which then decides it; a create is never repeated (that could
// create two) and stays pending. Uncertain state is resolved at the next CHECKPOINT: clients
// paused, SQL is read, must be one of the outcomes the model allows (and internally exact:
// comment_count and reply_count equal the live rows), and becomes the model. Then, on BOTH
// instances, as an anonymous client and as the author: every article (draft → 404 for the
// anonymous, deleted → 404 for all, fields and commentCount as committed), the published lists
// (all, ?kind=article, ?kind=post: exactly the published ones, pinned first, newest first,
// also paged by offset and by cursor), each article's comment pages (new and old, inline
// replies: exactly the live comments, deleted ones with live replies as placeholders, counts
// exact), each comment's GET (deleted or unlisted → 404) and each thread's replies page.
// During the run each thread checks what it reads about its own articles when the model is
// certain of them.
//
// A fifth client, the HELD client, writes on page threads (never listed, so the four threads'
// lists are untouched) comments that the honeypot holds (`"website"` filled), and as the admin
// approves some and marks others spam, while four readers report approved ones (the third
// report since a moderator's last decision holds one again), and its poster signs out now and
// then: at any time, on either instance, an anonymous reader must never get a comment it knows
// to be pending or spam, from a page's list or by its id (DESIGN invariant 9, under every
// fault); at a checkpoint, each page lists exactly its approved comments and counts them, as
// SQL says, and each comment's report count is what the acknowledged reports made it; and a
// session signed out (204) answers 401 on both instances right after.
//
// Faults (seeded): FLUSHALL, Redis SIGKILL + restart from its AOF, Redis restarted from an
// OLDER snapshot (taken earlier under traffic), `plauditd rebuild-cache` under traffic, SIGKILL
// + restart of one instance, concurrent `plauditd flush` runs, the database server (PostgreSQL,
// MariaDB) stopped under traffic for up to 2 s and started again. FLUSHALL and the rollback run
// with the clients paused, between a checkpoint before and (always for the rollback, every
// other time for FLUSHALL) one right after, still paused, so a stale cache shows without any
// race. A finding about an object that had an unanswered write is filed apart ("after an
// unanswered write"): the server may have died between its SQL commit and its Redis step.
// Such an object's reads during the run are not checked until the check of its writer's cache
// mark has had time to repair it (kMarkRepairMs: a mark is repaired once a second old), and a
// checkpoint waits for that too.
// After a Redis fault, comment counts and threads get one repair window (a few flush passes:
// an acknowledged comment write whose Redis step failed is repaired by the flusher) before
// they are checked again. A reused id (a Redis sequence restored behind a deleted article) is
// a finding of its own, and the deleted object it named is no longer checked.
//
// Replay and isolate with the environment:
//   PLAUDIT_CONTENT_SEED=<n>      the fault schedule and the clients' choices (printed)
//   PLAUDIT_CONTENT_SECONDS=<s>   length of the fault phase per database (default 25)
//   PLAUDIT_CONTENT_FAULTS=a,b    enabled kinds (default all): flushall, redis-kill,
//                                 redis-rollback, rebuild-cache, server-kill, extra-flush,
//                                 sql-restart (as in fault_test.cpp);
//                                 `none`: traffic and checkpoints only
//   PLAUDIT_CONTENT_PAIRS=0       no concurrent PATCH pairs (isolates the faults from that race)
//   PLAUDIT_CONTENT_KEEP_LOGS=1   keep the servers' logs also when the test passes
//   PLAUDIT_FAULT_PLAUDITD=<path> the binary to run (as for fault_test.cpp)
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "fault_harness.hpp"

namespace plaudit::testing {
namespace {

// ---------------------------------------------------------------------------------------
// Settings

// The kinds PLAUDIT_CONTENT_FAULTS may name.
constexpr std::array kFaults = {FaultKind::kFlushAll,      FaultKind::kRedisKill,
                                FaultKind::kRedisRollback, FaultKind::kRebuildCache,
                                FaultKind::kServerKill,    FaultKind::kExtraFlush,
                                FaultKind::kSqlRestart};

constexpr int kThreads = 4;
constexpr int kHeldThread = kThreads;  // the held client's index among the clients
constexpr int kInstances = 2;
constexpr int kMaxArticlesPerThread = 7;    // live or pending; keeps every list on one page
constexpr int kMaxCommentsPerArticle = 36;  // rows, deleted included
constexpr int kMaxRepliesPerTop = 12;       // below the 20 inline replies a page can show
constexpr int kDefaultSeconds = 25;
constexpr int kFlushMs = 500;  // plauditd serve's --flush-interval-ms
// A dead writer's cache mark is repaired by the first check after it is a second old.
constexpr int kMarkRepairMs = 1000 + 4 * kFlushMs + 500;

struct Settings : FaultSettings {
  bool pairs = true;  // concurrent PATCH pairs on
};

Settings ReadSettings() {
  Settings s{
      ReadFaultSettings("PLAUDIT_CONTENT", "PLAUDIT_CONTENT_FAULTS", kDefaultSeconds, kFaults)};
  if (const char* v = std::getenv("PLAUDIT_CONTENT_PAIRS"); v && std::string(v) == "0") {
    s.pairs = false;
  }
  return s;
}

// ---------------------------------------------------------------------------------------
// The model

// Users by index: the admin, two authors, three plain users.
constexpr int kAdmin = 0;
constexpr int kUserCount = 6;
const char* const kUserNames[kUserCount] = {"admin",  "cauthor1", "cauthor2",
                                            "cuser1", "cuser2",   "cuser3"};
// The author of each thread's articles.
constexpr int kThreadAuthor[kThreads] = {1, 2, 3, kAdmin};

struct Cm {
  int64_t id = 0;
  int64_t parent = 0;    // 0: top level, else the top-level comment's id
  int author = -1;       // user index
  int64_t reply_to = 0;  // user id it answers, 0: none
  std::string body;
  bool deleted = false;
  // An unanswered edit or delete, not resolved yet: what it may have done.
  bool uncertain = false;
  std::set<std::string> maybe_bodies;
  bool maybe_deleted = false;
  bool had_unanswered = false;
};

struct PendingCm {  // an unanswered create
  std::string body;
  int64_t parent = 0;
  int author = -1;
};

struct Art {
  int64_t id = 0;
  uint64_t seq = 0;  // creation order across threads: of two with one id, the later is current
  int owner = 0;
  int author = -1;
  std::string kind;
  bool exists = true;
  std::string title, content, status;
  bool pinned = false, allow = true;
  int64_t published_ms = 0;  // from SQL at checkpoints; 0: not known (nor needed) yet
  // Unanswered article writes not resolved yet: what they may have set.
  bool uncertain = false;
  std::set<std::string> maybe_title, maybe_content, maybe_status;
  std::set<int> maybe_pinned, maybe_allow;
  bool maybe_deleted = false;
  bool had_unanswered = false;  // ever: findings about it are filed apart
  // Until then its reads are not checked: a writer that died between its SQL commit and its
  // Redis step leaves the cache to the check of its mark, which repairs a mark once it is a
  // second old (a retry that finds the write done, a 404 on a DELETE, does not touch Redis).
  int64_t repair_until_ms = 0;
  std::string last_write;    // the last acknowledged write of the article itself, for findings
  std::vector<Cm> comments;  // by id
  std::vector<PendingCm> pending;
  std::vector<int64_t> gone;  // comments that went with the article's delete

  // Whether user `viewer` (an index, -1 anonymous) may read it: published, or theirs, or the
  // viewer is the admin.
  bool VisibleTo(int viewer) const {
    return exists && (status == "published" || viewer == author || viewer == kAdmin);
  }
  bool CommentsCertain() const {
    if (!pending.empty()) {
      return false;
    }
    for (const auto& c : comments) {
      if (c.uncertain) {
        return false;
      }
    }
    return true;
  }
  bool AnyUnanswered() const {
    if (had_unanswered) {
      return true;
    }
    for (const auto& c : comments) {
      if (c.had_unanswered) {
        return true;
      }
    }
    return false;
  }
  int64_t LiveReplies(int64_t top) const {
    int64_t n = 0;
    for (const auto& c : comments) {
      n += c.parent == top && !c.deleted;
    }
    return n;
  }
  int64_t LiveComments() const {
    int64_t n = 0;
    for (const auto& c : comments) {
      n += !c.deleted;
    }
    return n;
  }
  bool Listed(const Cm& c) const { return !c.deleted || (c.parent == 0 && LiveReplies(c.id) > 0); }
  const Cm* Find(int64_t id) const {
    for (const auto& c : comments) {
      if (c.id == id) {
        return &c;
      }
    }
    return nullptr;
  }
  Cm* Find(int64_t id) {
    for (auto& c : comments) {
      if (c.id == id) {
        return &c;
      }
    }
    return nullptr;
  }
};

// Whether a comment may still be posted on `a` (its rows, deleted ones included, and posts
// not answered stay under kMaxCommentsPerArticle).
bool RoomForComments(const Art& a) {
  return a.comments.size() + a.pending.size() < kMaxCommentsPerArticle;
}

struct PendingArt {  // an unanswered create
  int author = -1;
  std::string kind, title, content, status;
  bool pinned = false, allow = true;
};

// A page thread of the held client and what it knows of the comments on it.
enum class Held { kPending, kApproved, kSpam, kUnsure };  // kUnsure: a moderation unanswered
// Reports of one comment: who ever reported it (a reader counts once, whatever a moderator
// decides after), and how many since a moderator's last decision (the server's threshold).
struct HeldReports {
  std::set<int> by;
  int64_t count = 0;
  bool unsure = false;  // a report unanswered: SQL says at the next checkpoint
};
struct HeldPage {
  std::string url;
  int64_t article = 0;  // 0 until its first comment is answered
  std::map<int64_t, Held> comments;
  std::map<int64_t, HeldReports> reports;
  int posts = 0;  // sent, answered or not
  bool Full() const { return posts >= 30; }
};

struct ThreadStats {
  uint64_t acked = 0, unanswered = 0, resolved_by_retry = 0, refused = 0, reads = 0,
           checked_reads = 0, not_sent = 0, relogins = 0, pair_patches = 0;
};

struct ThreadModel {
  std::vector<Art> arts;
  std::vector<PendingArt> pending;
  std::vector<User> users;  // this thread's sessions of every user
  int next_n = 0;
  ThreadStats stats;
};

// ---------------------------------------------------------------------------------------
// Small JSON helpers: each returns a printable value, or "<missing>".

std::string Field(const json::value& v, const char* key) {
  if (!v.is_object()) {
    return "<not an object>";
  }
  const auto* f = v.as_object().if_contains(key);
  if (!f) {
    return "<missing>";
  }
  if (f->is_string()) {
    return std::string(f->as_string());
  }
  if (f->is_bool()) {
    return f->as_bool() ? "true" : "false";
  }
  if (f->is_null()) {
    return "null";
  }
  if (f->is_int64()) {
    return std::to_string(f->as_int64());
  }
  if (f->is_uint64()) {
    return std::to_string(f->as_uint64());
  }
  return json::serialize(*f);
}

std::string SubId(const json::value& v, const char* key) {
  if (!v.is_object()) {
    return "<not an object>";
  }
  const auto* f = v.as_object().if_contains(key);
  if (!f) {
    return "<missing>";
  }
  if (f->is_null()) {
    return "null";
  }
  if (!f->is_object()) {
    return "<not an object>";
  }
  return Field(*f, "id");
}

const json::array* Items(const json::value& v) {
  if (!v.is_object()) {
    return nullptr;
  }
  const auto* f = v.as_object().if_contains("items");
  return f && f->is_array() ? &f->as_array() : nullptr;
}

std::string IdsText(const std::vector<int64_t>& ids) {
  std::string out = "[";
  for (size_t i = 0; i < ids.size(); ++i) {
    out += (i ? "," : "") + std::to_string(ids[i]);
  }
  return out + "]";
}

std::string Bool(bool b) { return b ? "true" : "false"; }

// ---------------------------------------------------------------------------------------
// The test.

class ContentFaultTest : public FaultFixture {
 protected:
  ContentFaultTest() : FaultFixture("plaudit-content") {}

  void SetUp() override {
    settings_ = ReadSettings();
    if (GetParam() == "sqlite") {
      std::erase(settings_.faults, FaultKind::kSqlRestart);  // no server to restart
    }
  }

  void TearDown() override {
    if (settings_.keep_logs || HasFailure()) {
      KeepLogs("plaudit-content-" + std::to_string(settings_.seed) + "-" + GetParam());
    }
    for (auto& s : servers_) {
      if (s) {
        s->Signal(SIGKILL);
      }
    }
  }

  // --- setup -----------------------------------------------------------------------------
  void Prepare();
  void StartInstance(int i);

  // --- client side -----------------------------------------------------------------------
  struct Sent {
    Reply reply;
    bool unanswered = false;  // some attempt got no answer or a 5xx
  };
  // Sends a write as `user` to a random instance; kNotSent and 401 (nothing happened) are sent
  // again; an unanswered attempt too when `idempotent`, until a definite answer (or ~8 s).
  Sent SendWrite(int t, std::mt19937_64& rng, std::array<Conn, kInstances>& conns, int user,
                 beast::http::verb method, const std::string& target, const std::string& body,
                 bool idempotent);
  Reply SendRead(int t, std::mt19937_64& rng, std::array<Conn, kInstances>& conns, int user,
                 const std::string& target, int* instance = nullptr);
  void ClientThread(int t);
  void OneOp(int t, std::mt19937_64& rng, std::array<Conn, kInstances>& conns);
  void CreateArticle(int t, std::mt19937_64& rng, std::array<Conn, kInstances>& conns);
  void PatchArticle(int t, std::mt19937_64& rng, std::array<Conn, kInstances>& conns, Art& a);
  void PairPatch(int t, std::mt19937_64& rng, std::array<Conn, kInstances>& conns, Art& a);
  void DeleteArticle(int t, std::mt19937_64& rng, std::array<Conn, kInstances>& conns, Art& a);
  void CreateComment(int t, std::mt19937_64& rng, std::array<Conn, kInstances>& conns, Art& a);
  void EditComment(int t, std::mt19937_64& rng, std::array<Conn, kInstances>& conns, Art& a);
  void DeleteComment(int t, std::mt19937_64& rng, std::array<Conn, kInstances>& conns, Art& a);
  void ReadOwn(int t, std::mt19937_64& rng, std::array<Conn, kInstances>& conns, const Art& a);
  void ReadOwnList(int t, std::mt19937_64& rng, std::array<Conn, kInstances>& conns);
  void ReadNoise(int t, std::mt19937_64& rng, std::array<Conn, kInstances>& conns);
  // The held client (see the top of the file).
  void HeldOp(std::mt19937_64& rng, std::array<Conn, kInstances>& conns);
  void PostHeld(std::mt19937_64& rng, std::array<Conn, kInstances>& conns);
  void ModerateHeld(std::mt19937_64& rng, std::array<Conn, kInstances>& conns);
  void ReadHeld(std::mt19937_64& rng, std::array<Conn, kInstances>& conns);
  void SignOutHeld(std::mt19937_64& rng, std::array<Conn, kInstances>& conns);
  void ReportHeld(std::mt19937_64& rng, std::array<Conn, kInstances>& conns);
  void RecycleHeld(std::mt19937_64& rng, std::array<Conn, kInstances>& conns);
  // A read of a page's list, as an anonymous reader: no comment known to be held in it.
  void CheckNothingHeldListed(const HeldPage& page, const Reply& r, const std::string& where);
  void ReconcileHeld(const std::string& label);
  void CheckHeld(int instance, const std::string& label);
  // Applies an acknowledged PATCH body's fields to the model.
  static void ApplyPatch(Art& a, const json::object& patch);
  static void NoteUncertainPatch(Art& a, const json::object& patch);

  // --- checks ----------------------------------------------------------------------------
  // Checks one article read (GET) against the model; `viewer` -1 anonymous, else user index.
  void CheckArticleRead(const Art& a, int viewer, const Reply& r, const std::string& where,
                        const std::string& stage, bool check_comments);
  void CheckCommentsPage(const Art& a, int viewer, const std::string& sort, const Reply& r,
                         const std::string& where, const std::string& stage);
  // Files a `what` finding unless `r`, a read of `a` (or of its comments), has the status the
  // model calls for: 404 where `viewer` may not see it, else 200. True when it is a 200 whose
  // body is to be checked. A wrong status on a hidden article quotes `quoted_field` of the
  // body, if any.
  bool CheckReadStatus(const Art& a, int viewer, const Reply& r, const std::string& what,
                       const std::string& where, const std::string& stage,
                       const char* quoted_field = nullptr);
  std::string DiffComment(const Art& a, const Cm& c, const json::value& v) const;
  std::vector<const Art*> AllArts() const;
  std::vector<int64_t> ExpectedList(const std::string& kind) const;

  bool Pause(const std::string& why);
  void Resume() { gate_.Resume(); }
  // With the clients paused: SQL resolves the model, then the API on both instances must match.
  void Checkpoint(const std::string& why);
  void Reconcile(const std::string& label);
  void CheckApi(int instance, const std::string& label);
  std::vector<int64_t> PagedIds(Conn& c, const std::string& base, int size, bool by_cursor,
                                std::string& error);
  void FaultPhase();
  void StopClients();

  void Add(const std::string& kind, const std::string& text, bool after_unanswered = false) {
    findings_.Add(after_unanswered ? kind + " (after an unanswered write)" : kind,
                  text + " " + Context());
  }
  std::string Context() const {
    const int64_t now = log_->Now();
    return "[" + FaultLog::Stamp(now) + "; last faults: " + log_->Before(now, 3) + "]";
  }
  std::string ArtText(const Art& a) const {
    return a.kind + " " + std::to_string(a.id) + " of thread " + std::to_string(a.owner) +
           " (model: " + (a.exists ? a.status : std::string("deleted")) +
           (a.exists
                ? ", title '" + a.title + "', pinned " + Bool(a.pinned) + ", allowComments " +
                      Bool(a.allow) + ", " + std::to_string(a.LiveComments()) + " live comments"
                : std::string()) +
           (a.last_write.empty() ? "" : "; last article write: " + a.last_write) + ")";
  }
  static std::string Viewer(int viewer) {
    return viewer < 0 ? std::string("anonymous") : std::string(kUserNames[viewer]);
  }

  Settings settings_;
  std::array<int, kInstances> ports_{};
  std::array<std::unique_ptr<Process>, kInstances> servers_;
  int serve_runs_ = 0;
  int checkpoints_ = 0;
  std::array<int64_t, kUserCount> user_ids_{};
  std::vector<ThreadModel> model_ = std::vector<ThreadModel>(kThreads + 1);  // + the held client
  std::vector<HeldPage> held_pages_;  // written by the held client, read by checkpoints
  uint64_t held_sign_outs_ = 0;       // answered 204, then tried on both instances
  uint64_t held_reports_ = 0;         // answered 204
  uint64_t held_by_reports_ = 0;      // of those, the ones that held their comment
  size_t held_recycled_ = 0;          // the next page RecycleHeld empties (after a rotate: 0)
  std::map<std::string, int> fault_counts_;
  Gate gate_;
  std::vector<std::thread> clients_;
  std::atomic<bool> stop_clients_{false};
  std::atomic<uint64_t> acked_ops_{0};
  // Until then (ms since the start) a write that Redis missed may still be waiting for its
  // repair. A comment write whose Redis step fails is acknowledged all the same (it is
  // committed), its article's comment cache invalidated, and when even that fails (Redis
  // down), the flusher retries the invalidation each pass (docs/architecture.md, "Comments").
  // An article write (a delete, a PATCH) whose step fails is answered as committed too, and
  // its cache is written from SQL's row by the next flush pass; until then a read may answer
  // the older state (docs/architecture.md, "A write whose Redis step fails"; seed 75082035 on
  // PostgreSQL: a delete answered 204 while Redis was SIGKILLed was listed by both instances
  // 0.1 s later, before the pass). Articles, comment counts and threads are not checked during
  // the run before then, and a checkpoint waits for it.
  std::atomic<int64_t> caches_settle_ms_{0};
  void RedisFaultEnded() { caches_settle_ms_.store(log_->Now() + 4 * kFlushMs + 500); }
  bool CachesSettled() const { return log_->Now() >= caches_settle_ms_.load(); }
  // A write of `a` (or of one of its comments) that went unanswered: see Art::repair_until_ms.
  void NoteUnanswered(Art& a, const Sent& s) {
    if (!s.unanswered && s.reply.kind == Reply::kAnswered) {
      return;
    }
    a.repair_until_ms = log_->Now() + kMarkRepairMs;
    int64_t seen = repairs_settle_ms_.load();
    while (seen < a.repair_until_ms &&
           !repairs_settle_ms_.compare_exchange_weak(seen, a.repair_until_ms)) {
    }
  }
  bool Repaired(const Art& a) const { return log_->Now() >= a.repair_until_ms; }
  std::atomic<int64_t> repairs_settle_ms_{0};  // the latest Art::repair_until_ms of all
  Findings findings_;
  std::unique_ptr<FaultLog> log_;

  // Ids handed out, to tell a reused id (a Redis sequence restored behind a deleted article or
  // comment: hard deletes leave no row that MAX(id) could see) from the object it once named.
  mutable std::mutex ids_m_;
  std::map<int64_t, uint64_t> article_seq_;  // id -> seq of its newest article
  std::set<int64_t> comment_ids_, comment_reused_;
  std::atomic<uint64_t> next_seq_{0};
  // Records a new article id; returns its seq. A reused id is a finding of its own.
  uint64_t NoteArticleId(int64_t id) {
    const uint64_t seq = ++next_seq_;
    std::lock_guard lock(ids_m_);
    if (article_seq_.count(id)) {
      findings_.Add("id reused", "article id " + std::to_string(id) +
                                     " was handed out again (its first article was deleted) " +
                                     Context());
    }
    article_seq_[id] = seq;
    return seq;
  }
  void NoteCommentId(int64_t id) {
    std::lock_guard lock(ids_m_);
    if (!comment_ids_.insert(id).second) {
      comment_reused_.insert(id);
      findings_.Add("id reused", "comment id " + std::to_string(id) +
                                     " was handed out again (its first comment's article was "
                                     "deleted) " +
                                     Context());
    }
  }
  // A deleted article whose id now names a newer one: nothing about it is checked any more.
  bool Superseded(const Art& a) const {
    std::lock_guard lock(ids_m_);
    auto it = article_seq_.find(a.id);
    return it != article_seq_.end() && it->second != a.seq;
  }
  bool CommentReused(int64_t id) {
    std::lock_guard lock(ids_m_);
    return comment_reused_.count(id) > 0;
  }
};

void ContentFaultTest::StartInstance(int i) {
  servers_[i] = StartServe(
      ports_[i], "plauditd-" + std::to_string(i) + "-" + std::to_string(++serve_runs_) + ".log",
      kFlushMs);
}

void ContentFaultTest::Prepare() {
  StartBackends(std::find(settings_.faults.begin(), settings_.faults.end(),
                          FaultKind::kSqlRestart) != settings_.faults.end());
  if (HasFatalFailure()) {
    return;
  }
  for (int i = 0; i < kInstances; ++i) {
    ports_[i] = FreeTcpPort();
    StartInstance(i);
    ASSERT_TRUE(Ready(ports_[i], 30s)) << "instance " << i << " not ready";
  }
  // Users: registered, then roles given by the admin.
  Conn c(ports_[0]);
  User admin{"admin", "admin-password", 0, ""};
  ASSERT_TRUE(Login(c, admin));
  {
    Reply me = Reliable(c, beast::http::verb::get, "/api/v1/users/me", &admin);
    ASSERT_EQ(me.status, 200) << me.body;
    user_ids_[kAdmin] = ParseJson(me.body)->at("id").as_int64();
  }
  for (int u = 1; u < kUserCount; ++u) {
    const std::string name = kUserNames[u];
    json::object body{{"username", name}, {"password", "password-" + name}};
    Reply r = Reliable(c, beast::http::verb::post, "/api/v1/users", nullptr, json::serialize(body));
    ASSERT_EQ(r.status, 201) << r.body;
    user_ids_[u] = ParseJson(r.body)->at("id").as_int64();
    if (u <= 2) {
      json::object role{{"role", "author"}};
      Reply rr =
          Reliable(c, beast::http::verb::patch, "/api/v1/users/" + std::to_string(user_ids_[u]),
                   &admin, json::serialize(role));
      ASSERT_EQ(rr.status, 200) << rr.body;
    }
  }
  for (auto& tm : model_) {
    for (int u = 0; u < kUserCount; ++u) {
      const std::string name = kUserNames[u];
      tm.users.push_back(
          User{name, u == kAdmin ? "admin-password" : "password-" + name, user_ids_[u], ""});
    }
  }
}

// ---------------------------------------------------------------------------------------
// Client side

ContentFaultTest::Sent ContentFaultTest::SendWrite(int t, std::mt19937_64& rng,
                                                   std::array<Conn, kInstances>& conns, int user,
                                                   beast::http::verb method,
                                                   const std::string& target,
                                                   const std::string& body, bool idempotent) {
  ThreadModel& tm = model_[t];
  User& u = tm.users[user];
  Sent out;
  const auto deadline = Clock::now() + 8s;
  for (int attempt = 0; attempt < 200; ++attempt) {
    if (u.token.empty()) {
      ++tm.stats.relogins;
      Conn& lc = conns[rng() % kInstances];
      if (!Login(lc, u)) {
        std::this_thread::sleep_for(20ms);
        if (Clock::now() > deadline) {
          break;
        }
        continue;
      }
    }
    const int i = static_cast<int>(rng() % kInstances);
    const auto sent = Clock::now();
    out.reply = conns[i].Send(method, target, u.token, body);
    if (Clock::now() - sent > 5s) {
      log_->Add(
          "slow answer: " + std::string(beast::http::to_string(method)) + " " + target +
          " on instance " + std::to_string(i) + " took " +
          std::to_string(
              std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - sent).count()) +
          " ms (" +
          (out.reply.kind == Reply::kAnswered ? "HTTP " + std::to_string(out.reply.status)
                                              : "no answer: " + out.reply.error) +
          ")");
    }
    const Reply& r = out.reply;
    if (r.kind == Reply::kNotSent) {
      ++tm.stats.not_sent;
      std::this_thread::sleep_for(20ms);
    } else if (r.kind == Reply::kAnswered && r.status == 401) {
      u.token.clear();  // the session is gone (FLUSHALL, rollback): nothing happened
    } else if (r.uncertain()) {
      out.unanswered = true;
      ++tm.stats.unanswered;
      if (!idempotent) {
        return out;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20 + rng() % 60));
    } else {
      if (out.unanswered) {
        ++tm.stats.resolved_by_retry;
      }
      if (r.ok()) {
        ++tm.stats.acked;
        ++acked_ops_;
      } else {
        ++tm.stats.refused;
      }
      return out;
    }
    if (Clock::now() > deadline) {
      break;
    }
  }
  if (out.reply.kind != Reply::kAnswered || out.reply.status == 401) {
    // Never answered at all: treat as unanswered (it may have reached a server once).
    out.unanswered = out.unanswered || out.reply.kind == Reply::kLost;
  }
  return out;
}

Reply ContentFaultTest::SendRead(int t, std::mt19937_64& rng, std::array<Conn, kInstances>& conns,
                                 int user, const std::string& target, int* instance) {
  ThreadModel& tm = model_[t];
  Reply r;
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (user >= 0 && tm.users[user].token.empty()) {
      ++tm.stats.relogins;
      if (!Login(conns[rng() % kInstances], tm.users[user])) {
        continue;
      }
    }
    const int i = static_cast<int>(rng() % kInstances);
    if (instance) {
      *instance = i;
    }
    const auto sent = Clock::now();
    r = conns[i].Send(beast::http::verb::get, target, user >= 0 ? tm.users[user].token : "");
    if (Clock::now() - sent > 5s) {
      log_->Add(
          "slow answer: GET " + target + " on instance " + std::to_string(i) + " took " +
          std::to_string(
              std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - sent).count()) +
          " ms (" +
          (r.kind == Reply::kAnswered ? "HTTP " + std::to_string(r.status)
                                      : "no answer: " + r.error) +
          ")");
    }
    if (r.kind == Reply::kAnswered && r.status == 401 && user >= 0) {
      tm.users[user].token.clear();
      continue;
    }
    if (r.kind == Reply::kNotSent) {
      continue;
    }
    ++tm.stats.reads;
    return r;
  }
  return r;
}

void ContentFaultTest::ClientThread(int t) {
  std::mt19937_64 rng(settings_.seed * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(t) + 1);
  std::array<Conn, kInstances> conns{Conn(ports_[0]), Conn(ports_[1])};
  try {
    while (!stop_clients_.load()) {
      gate_.Checkpoint();
      if (stop_clients_.load()) {
        break;
      }
      if (t == kHeldThread) {
        HeldOp(rng, conns);
      } else {
        OneOp(t, rng, conns);
      }
    }
  } catch (const std::exception& e) {
    findings_.Add("harness", "client thread " + std::to_string(t) + " threw: " + e.what());
  }
  gate_.Leave();
}

void ContentFaultTest::OneOp(int t, std::mt19937_64& rng, std::array<Conn, kInstances>& conns) {
  ThreadModel& tm = model_[t];
  std::vector<Art*> live;
  for (auto& a : tm.arts) {
    if (a.exists || a.uncertain) {
      live.push_back(&a);
    }
  }
  const int op = static_cast<int>(rng() % 100);
  const bool room = live.size() + tm.pending.size() < kMaxArticlesPerThread;
  if (live.empty() || (op < 8 && room)) {
    if (room) {
      CreateArticle(t, rng, conns);
    } else {
      std::this_thread::sleep_for(10ms);
    }
    return;
  }
  Art& a = *live[rng() % live.size()];
  if (op < 26) {
    PatchArticle(t, rng, conns, a);
  } else if (op < 30) {
    if (settings_.pairs) {
      PairPatch(t, rng, conns, a);
    } else {
      PatchArticle(t, rng, conns, a);
    }
  } else if (op < 32) {
    DeleteArticle(t, rng, conns, a);
  } else if (op < 60) {
    CreateComment(t, rng, conns, a);
  } else if (op < 67) {
    EditComment(t, rng, conns, a);
  } else if (op < 75) {
    DeleteComment(t, rng, conns, a);
  } else if (op < 86) {
    ReadOwn(t, rng, conns, a);
  } else if (op < 90) {
    ReadOwnList(t, rng, conns);
  } else {
    ReadNoise(t, rng, conns);
  }
}

void ContentFaultTest::CreateArticle(int t, std::mt19937_64& rng,
                                     std::array<Conn, kInstances>& conns) {
  ThreadModel& tm = model_[t];
  const int author = kThreadAuthor[t];
  PendingArt p;
  p.author = author;
  p.kind = t == 0 ? "article" : t == 2 ? "post" : (rng() % 2 ? "article" : "post");
  const std::string tag = "T" + std::to_string(t) + "-" + std::to_string(++tm.next_n);
  p.title = tag + " title v0";
  p.content = "<p>content of " + tag + " v0</p>";
  p.status = rng() % 100 < 65 ? "published" : "draft";
  p.pinned = author == kAdmin && rng() % 100 < 35;
  p.allow = rng() % 100 < 85;
  json::object body{{"title", p.title},
                    {"content", p.content},
                    {"kind", p.kind},
                    {"status", p.status},
                    {"allowComments", p.allow}};
  if (p.pinned) {
    body["pinned"] = true;
  }
  Sent s = SendWrite(t, rng, conns, author, beast::http::verb::post, "/api/v1/articles",
                     json::serialize(body), /*idempotent=*/false);
  if (s.unanswered || s.reply.kind != Reply::kAnswered) {
    tm.pending.push_back(p);
    return;
  }
  if (s.reply.status != 201) {
    Add("unexpected status", "thread " + std::to_string(t) + " create " + p.kind + " '" + p.title +
                                 "': HTTP " + std::to_string(s.reply.status) + " " +
                                 s.reply.body.substr(0, 200));
    return;
  }
  auto v = ParseJson(s.reply.body);
  Art a;
  a.owner = t;
  a.author = author;
  a.kind = p.kind;
  a.title = p.title;
  a.content = p.content;
  a.status = p.status;
  a.pinned = p.pinned;
  a.allow = p.allow;
  try {
    a.id = v->at("id").as_int64();
  } catch (...) {
    Add("bad body", "create answered " + s.reply.body.substr(0, 200));
    return;
  }
  if (Field(*v, "content") != p.content) {
    Add("harness", "the sanitiser changed the test's content: sent '" + p.content +
                       "', answered '" + Field(*v, "content") + "'");
  }
  a.last_write = "create at " + FaultLog::Stamp(log_->Now());
  a.seq = NoteArticleId(a.id);
  tm.arts.push_back(std::move(a));
  if (rng() % 100 < 40) {
    ReadOwn(t, rng, conns, tm.arts.back());
  }
}

void ContentFaultTest::ApplyPatch(Art& a, const json::object& patch) {
  if (const auto* f = patch.if_contains("title")) {
    a.title = std::string(f->as_string());
  }
  if (const auto* f = patch.if_contains("content")) {
    a.content = std::string(f->as_string());
  }
  if (const auto* f = patch.if_contains("status")) {
    a.status = std::string(f->as_string());
  }
  if (const auto* f = patch.if_contains("pinned")) {
    a.pinned = f->as_bool();
  }
  if (const auto* f = patch.if_contains("allowComments")) {
    a.allow = f->as_bool();
  }
}

void ContentFaultTest::NoteUncertainPatch(Art& a, const json::object& patch) {
  a.uncertain = true;
  a.had_unanswered = true;
  if (const auto* f = patch.if_contains("title")) {
    a.maybe_title.insert(std::string(f->as_string()));
  }
  if (const auto* f = patch.if_contains("content")) {
    a.maybe_content.insert(std::string(f->as_string()));
  }
  if (const auto* f = patch.if_contains("status")) {
    a.maybe_status.insert(std::string(f->as_string()));
  }
  if (const auto* f = patch.if_contains("pinned")) {
    a.maybe_pinned.insert(f->as_bool());
  }
  if (const auto* f = patch.if_contains("allowComments")) {
    a.maybe_allow.insert(f->as_bool());
  }
}

// A PATCH of one or two fields; sent again after no answer (idempotent), so its answer decides.
void ContentFaultTest::PatchArticle(int t, std::mt19937_64& rng,
                                    std::array<Conn, kInstances>& conns, Art& a) {
  ThreadModel& tm = model_[t];
  json::object patch;
  const int what = static_cast<int>(rng() % 100);
  if (what < 30) {
    const std::string v = " v" + std::to_string(++tm.next_n);
    patch["title"] = "T" + std::to_string(t) + "-" + std::to_string(a.id) + " title" + v;
    if (rng() % 2) {
      patch["content"] = "<p>content of " + std::to_string(a.id) + v + "</p>";
    }
  } else if (what < 65) {
    patch["status"] = a.status == "published" ? "draft" : "published";
  } else if (what < 80 && a.author == kAdmin) {
    patch["pinned"] = !a.pinned;
  } else {
    patch["allowComments"] = !a.allow;
  }
  const std::string target = "/api/v1/articles/" + std::to_string(a.id);
  Sent s =
      SendWrite(t, rng, conns, a.author, beast::http::verb::patch, target, json::serialize(patch),
                /*idempotent=*/true);
  NoteUnanswered(a, s);
  if (s.reply.kind != Reply::kAnswered || s.reply.uncertain() || s.reply.status == 401) {
    NoteUncertainPatch(a, patch);
    return;
  }
  if (s.reply.status == 404 && a.maybe_deleted) {
    // An unanswered DELETE before it took effect after all (the checkpoint checks it in SQL).
    a.exists = false;
    a.uncertain = false;
    a.maybe_deleted = false;
    a.comments.clear();
    a.pending.clear();
    return;
  }
  if (s.reply.status != 200) {
    Add("unexpected status",
        ArtText(a) + ": PATCH " + json::serialize(patch) + " answered HTTP " +
            std::to_string(s.reply.status) + " " + s.reply.body.substr(0, 200),
        a.AnyUnanswered());
    return;
  }
  ApplyPatch(a, patch);
  a.last_write = "PATCH " + json::serialize(patch) + " at " + FaultLog::Stamp(log_->Now());
  auto v = ParseJson(s.reply.body);
  if (!a.uncertain && v) {
    // The answer is the row as this PATCH committed it: the whole article must match.
    std::string diff;
    if (Field(*v, "title") != a.title) {
      diff += " title '" + Field(*v, "title") + "'";
    }
    if (Field(*v, "status") != a.status) {
      diff += " status " + Field(*v, "status");
    }
    if (Field(*v, "pinned") != Bool(a.pinned)) {
      diff += " pinned " + Field(*v, "pinned");
    }
    if (Field(*v, "allowComments") != Bool(a.allow)) {
      diff += " allowComments " + Field(*v, "allowComments");
    }
    if (Field(*v, "content") != a.content) {
      diff += " content '" + Field(*v, "content") + "'";
    }
    if (!diff.empty()) {
      Add("write answer", ArtText(a) + ": PATCH " + json::serialize(patch) + " answered" + diff,
          a.AnyUnanswered());
    }
  }
  if (a.uncertain && v) {
    // The answer is SQL's row after this PATCH: it settles every earlier unanswered PATCH.
    a.title = Field(*v, "title");
    a.content = Field(*v, "content");
    a.status = Field(*v, "status");
    a.pinned = Field(*v, "pinned") == "true";
    a.allow = Field(*v, "allowComments") == "true";
    a.uncertain = false;
    a.maybe_deleted = false;
    a.maybe_title.clear(), a.maybe_content.clear(), a.maybe_status.clear();
    a.maybe_pinned.clear(), a.maybe_allow.clear();
  }
  if (rng() % 100 < 50) {
    ReadOwn(t, rng, conns, a);
  }
}

// Two PATCHes of disjoint fields of one article at once, one to each instance: SQL serializes
// them, and once both are answered the article must show both changes everywhere.
void ContentFaultTest::PairPatch(int t, std::mt19937_64& rng, std::array<Conn, kInstances>& conns,
                                 Art& a) {
  ThreadModel& tm = model_[t];
  if (!a.exists || a.uncertain) {
    return PatchArticle(t, rng, conns, a);
  }
  ++tm.stats.pair_patches;
  json::object p1, p2;
  const std::string v = " v" + std::to_string(++tm.next_n);
  p1["title"] = "T" + std::to_string(t) + "-" + std::to_string(a.id) + " title" + v;
  if (rng() % 2) {
    p2["status"] = a.status == "published" ? "draft" : "published";
  } else {
    p2["allowComments"] = !a.allow;
  }
  User& u = tm.users[a.author];
  if (u.token.empty() && !Login(conns[0], u)) {
    return;
  }
  const std::string target = "/api/v1/articles/" + std::to_string(a.id);
  const int first = static_cast<int>(rng() % kInstances);
  Reply r1, r2;
  const std::string b1 = json::serialize(p1), b2 = json::serialize(p2);
  const std::string token = u.token;
  std::thread other(
      [&] { r2 = conns[1 - first].Send(beast::http::verb::patch, target, token, b2); });
  r1 = conns[first].Send(beast::http::verb::patch, target, token, b1);
  other.join();
  // A part that got no definite answer is sent again on its own (idempotent).
  auto settle = [&](Reply& r, const json::object& p) -> bool {
    if (r.ok()) {
      ++tm.stats.acked;
      ++acked_ops_;
      return true;
    }
    if (r.kind == Reply::kAnswered && !r.uncertain() && r.status != 401) {
      Add("unexpected status",
          ArtText(a) + ": concurrent PATCH " + json::serialize(p) + " answered HTTP " +
              std::to_string(r.status) + " " + r.body.substr(0, 200),
          a.AnyUnanswered());
      return false;
    }
    Sent s =
        SendWrite(t, rng, conns, a.author, beast::http::verb::patch, target, json::serialize(p),
                  /*idempotent=*/true);
    NoteUnanswered(a, s);
    if (s.reply.ok()) {
      if (r.uncertain()) {
        a.had_unanswered = true;
      }
      return true;
    }
    NoteUncertainPatch(a, p);
    return false;
  };
  const bool ok1 = settle(r1, p1);
  const bool ok2 = settle(r2, p2);
  if (ok1) {
    ApplyPatch(a, p1);
  }
  if (ok2) {
    ApplyPatch(a, p2);
  }
  a.last_write =
      "concurrent PATCH pair " + b1 + " || " + b2 + " at " + FaultLog::Stamp(log_->Now());
  if (ok1 && ok2 && !a.uncertain) {
    ReadOwn(t, rng, conns, a);
  }
}

void ContentFaultTest::DeleteArticle(int t, std::mt19937_64& rng,
                                     std::array<Conn, kInstances>& conns, Art& a) {
  const std::string target = "/api/v1/articles/" + std::to_string(a.id);
  Sent s = SendWrite(t, rng, conns, a.author, beast::http::verb::delete_, target, "", true);
  NoteUnanswered(a, s);
  if (s.reply.kind != Reply::kAnswered || s.reply.uncertain() || s.reply.status == 401) {
    a.uncertain = true;
    a.had_unanswered = true;
    a.maybe_deleted = true;
    return;
  }
  const bool settled =
      s.reply.status == 204 || (s.reply.status == 404 && (s.unanswered || a.maybe_deleted));
  if (!settled) {
    Add("unexpected status",
        ArtText(a) + ": DELETE answered HTTP " + std::to_string(s.reply.status) + " " +
            s.reply.body.substr(0, 200),
        a.AnyUnanswered());
    return;
  }
  if (s.unanswered) {
    a.had_unanswered = true;
  }
  a.exists = false;
  a.uncertain = false;
  a.maybe_deleted = false;
  for (const auto& c : a.comments) {
    a.gone.push_back(c.id);
  }
  a.comments.clear();  // they go with it, in the same transaction
  a.pending.clear();
  if (rng() % 100 < 50) {
    ReadOwn(t, rng, conns, a);
  }
}

void ContentFaultTest::CreateComment(int t, std::mt19937_64& rng,
                                     std::array<Conn, kInstances>& conns, Art& a) {
  ThreadModel& tm = model_[t];
  if (!RoomForComments(a)) {
    return EditComment(t, rng, conns, a);
  }
  if (!a.uncertain && !(a.exists && a.status == "published" && a.allow) && rng() % 100 < 85) {
    return PatchArticle(t, rng, conns, a);  // mostly refused (403/404): rather change it
  }
  const int author = static_cast<int>(rng() % kUserCount);
  // Top level, a reply to a top-level comment, or a reply to a reply (live ones only).
  std::vector<const Cm*> tops, replies;
  for (const auto& c : a.comments) {
    if (c.deleted || c.uncertain) {
      continue;
    }
    if (c.parent == 0 && a.LiveReplies(c.id) < kMaxRepliesPerTop) {
      tops.push_back(&c);
    }
    // A reply to a reply lands under its top-level comment: only while that one is live.
    const Cm* top = c.parent ? a.Find(c.parent) : nullptr;
    if (top && !top->deleted && !top->uncertain && a.LiveReplies(c.parent) < kMaxRepliesPerTop) {
      replies.push_back(&c);
    }
  }
  const int kind = static_cast<int>(rng() % 100);
  const Cm* parent = nullptr;
  if (kind >= 45 && kind < 80 && !tops.empty()) {
    parent = tops[rng() % tops.size()];
  }
  if (kind >= 80 && !replies.empty()) {
    parent = replies[rng() % replies.size()];
  }
  PendingCm p;
  p.author = author;
  p.body =
      "C" + std::to_string(t) + "-" + std::to_string(++tm.next_n) + " by " + kUserNames[author];
  p.parent = parent ? (parent->parent ? parent->parent : parent->id) : 0;
  const int64_t answers = parent && parent->parent ? user_ids_[parent->author] : 0;
  const int64_t parent_id = parent ? parent->id : 0;
  json::object body{{"body", p.body}};
  if (parent) {
    body["parentId"] = parent_id;
  }
  // Whether the model is sure it must be accepted, or refused (403/404), or neither.
  const bool visible = a.VisibleTo(author);
  const bool open = a.exists && a.status == "published" && a.allow;
  const bool certain = !a.uncertain;
  Sent s = SendWrite(t, rng, conns, author, beast::http::verb::post,
                     "/api/v1/articles/" + std::to_string(a.id) + "/comments",
                     json::serialize(body), /*idempotent=*/false);
  NoteUnanswered(a, s);
  if (s.unanswered || s.reply.kind != Reply::kAnswered || s.reply.status == 401) {
    if (a.exists || a.uncertain) {
      a.pending.push_back(p);
      a.had_unanswered = true;
    }
    return;
  }
  const int st = s.reply.status;
  if (st == 201) {
    if (certain && !open) {
      Add("write accepted",
          ArtText(a) + ": a comment by " + kUserNames[author] +
              " was accepted (201), the article is not open to comments",
          a.AnyUnanswered());
    }
    auto v = ParseJson(s.reply.body);
    Cm c;
    try {
      c.id = v->at("id").as_int64();
    } catch (...) {
      Add("bad body", "comment create answered " + s.reply.body.substr(0, 200));
      return;
    }
    NoteCommentId(c.id);
    c.parent = p.parent;
    c.author = author;
    c.reply_to = answers;
    c.body = p.body;
    const std::string d = DiffComment(a, c, *v);
    if (!d.empty()) {
      Add("write answer", ArtText(a) + ": comment create answered " + d, a.AnyUnanswered());
    }
    if (a.exists || a.uncertain) {
      a.comments.push_back(std::move(c));
      std::sort(a.comments.begin(), a.comments.end(),
                [](const Cm& x, const Cm& y) { return x.id < y.id; });
    }
  } else if (st == 403 || st == 404) {
    const bool expected = !open && (st == 404 ? !visible : visible);
    if (certain && !expected) {
      Add("unexpected status",
          ArtText(a) + ": comment by " + kUserNames[author] +
              (parent ? " on " + std::to_string(parent_id) : "") + " answered HTTP " +
              std::to_string(st) + " " + s.reply.body.substr(0, 200),
          a.AnyUnanswered());
    }
  } else {
    Add("unexpected status",
        ArtText(a) + ": comment create answered HTTP " + std::to_string(st) + " " +
            s.reply.body.substr(0, 200),
        a.AnyUnanswered());
  }
  if (rng() % 100 < 30) {
    ReadOwn(t, rng, conns, a);
  }
}

void ContentFaultTest::EditComment(int t, std::mt19937_64& rng, std::array<Conn, kInstances>& conns,
                                   Art& a) {
  ThreadModel& tm = model_[t];
  std::vector<Cm*> live;
  for (auto& c : a.comments) {
    if (!c.deleted) {
      live.push_back(&c);
    }
  }
  if (live.empty()) {
    // CreateComment edits instead when the article is full: without room (every row deleted,
    // or posts unanswered), a read, or the two would call each other until the stack ran out
    // (what ended a 60-minute soak's content test, 4 minutes in).
    return RoomForComments(a) ? CreateComment(t, rng, conns, a) : ReadOwn(t, rng, conns, a);
  }
  Cm& c = *live[rng() % live.size()];
  const int actor = rng() % 100 < 15 ? kAdmin : c.author;
  const std::string text =
      "C" + std::to_string(t) + "-" + std::to_string(c.id) + " edit " + std::to_string(++tm.next_n);
  json::object body{{"body", text}};
  Sent s = SendWrite(t, rng, conns, actor, beast::http::verb::patch,
                     "/api/v1/comments/" + std::to_string(c.id), json::serialize(body), true);
  NoteUnanswered(a, s);
  const bool visible = a.VisibleTo(actor);
  if (s.reply.kind != Reply::kAnswered || s.reply.uncertain() || s.reply.status == 401) {
    c.uncertain = true;
    c.had_unanswered = true;
    c.maybe_bodies.insert(text);
    return;
  }
  const int st = s.reply.status;
  if (st == 200) {
    if (!a.uncertain && !c.uncertain && !visible) {
      Add("write accepted",
          ArtText(a) + ": edit of comment " + std::to_string(c.id) + " by " + kUserNames[actor] +
              " accepted on an article it may not see",
          a.AnyUnanswered());
    }
    c.body = text;
    if (c.uncertain && !c.maybe_deleted) {
      c.uncertain = false;
      c.maybe_bodies.clear();
    }
    auto v = ParseJson(s.reply.body);
    if (v && !c.uncertain && a.CommentsCertain()) {
      const std::string d = DiffComment(a, c, *v);
      if (!d.empty()) {
        Add("write answer", ArtText(a) + ": comment edit answered " + d, a.AnyUnanswered());
      }
    }
  } else if (st == 404 && !visible) {
    // Expected: the article is a draft the editor may not see.
  } else if (!(a.uncertain || c.uncertain)) {
    Add("unexpected status",
        ArtText(a) + ": edit of comment " + std::to_string(c.id) + " by " + kUserNames[actor] +
            " answered HTTP " + std::to_string(st) + " " + s.reply.body.substr(0, 200),
        a.AnyUnanswered());
  }
}

void ContentFaultTest::DeleteComment(int t, std::mt19937_64& rng,
                                     std::array<Conn, kInstances>& conns, Art& a) {
  std::vector<Cm*> live;
  for (auto& c : a.comments) {
    if (!c.deleted) {
      live.push_back(&c);
    }
  }
  if (live.empty()) {
    return CreateComment(t, rng, conns, a);
  }
  Cm& c = *live[rng() % live.size()];
  const int actor = rng() % 100 < 20 ? kAdmin : c.author;
  const bool visible = a.VisibleTo(actor);
  Sent s = SendWrite(t, rng, conns, actor, beast::http::verb::delete_,
                     "/api/v1/comments/" + std::to_string(c.id), "", true);
  NoteUnanswered(a, s);
  if (s.reply.kind != Reply::kAnswered || s.reply.uncertain() || s.reply.status == 401) {
    c.uncertain = true;
    c.had_unanswered = true;
    c.maybe_deleted = true;
    return;
  }
  const int st = s.reply.status;
  if (st == 204 || (st == 404 && visible && (s.unanswered || c.maybe_deleted))) {
    if (!a.uncertain && !c.uncertain && !visible) {
      Add("write accepted",
          ArtText(a) + ": delete of comment " + std::to_string(c.id) + " by " + kUserNames[actor] +
              " accepted on an article it may not see",
          a.AnyUnanswered());
    }
    if (s.unanswered) {
      c.had_unanswered = true;
    }
    c.deleted = true;
    c.body.clear();
    c.uncertain = false;
    c.maybe_deleted = false;
    c.maybe_bodies.clear();
  } else if (st == 404 && !visible) {
    // Expected: the article is a draft the deleter may not see.
  } else if (!(a.uncertain || c.uncertain)) {
    Add("unexpected status",
        ArtText(a) + ": delete of comment " + std::to_string(c.id) + " by " + kUserNames[actor] +
            " answered HTTP " + std::to_string(st) + " " + s.reply.body.substr(0, 200),
        a.AnyUnanswered());
  }
  if (rng() % 100 < 40) {
    ReadOwn(t, rng, conns, a);
  }
}

// Reads of the thread's own article, checked when the model is certain of it.
void ContentFaultTest::ReadOwn(int t, std::mt19937_64& rng, std::array<Conn, kInstances>& conns,
                               const Art& a) {
  ThreadModel& tm = model_[t];
  const std::string path = "/api/v1/articles/" + std::to_string(a.id);
  for (int viewer : {-1, a.author}) {
    int inst = 0;
    Reply r = SendRead(t, rng, conns, viewer, path, &inst);
    if (r.kind != Reply::kAnswered || r.status >= 500 || r.status == 401) {
      continue;
    }
    if (a.uncertain || !Repaired(a) || !CachesSettled()) {
      continue;
    }
    ++tm.stats.checked_reads;
    CheckArticleRead(a, viewer, r, "GET " + path + " via instance " + std::to_string(inst),
                     "read during the run", a.CommentsCertain());
  }
  if (a.uncertain || !Repaired(a) || !a.CommentsCertain() || !CachesSettled()) {
    return;
  }
  const int viewer = rng() % 2 ? -1 : a.author;
  const std::string sort = rng() % 2 ? "new" : "old";
  const std::string cpath = path + "/comments?sort=" + sort + "&size=100&replies=20";
  int inst = 0;
  Reply r = SendRead(t, rng, conns, viewer, cpath, &inst);
  if (r.kind != Reply::kAnswered || r.status >= 500 || r.status == 401) {
    return;
  }
  ++tm.stats.checked_reads;
  CheckCommentsPage(a, viewer, sort, r, "GET " + cpath + " via instance " + std::to_string(inst),
                    "read during the run");
}

// The published list as an anonymous reader: the thread's own certain articles are in it
// exactly when published (other threads' may change meanwhile: not checked here).
void ContentFaultTest::ReadOwnList(int t, std::mt19937_64& rng,
                                   std::array<Conn, kInstances>& conns) {
  ThreadModel& tm = model_[t];
  const int k = static_cast<int>(rng() % 3);
  const std::string path = std::string("/api/v1/articles?size=100") + (k == 1   ? "&kind=article"
                                                                       : k == 2 ? "&kind=post"
                                                                                : "");
  int inst = 0;
  Reply r = SendRead(t, rng, conns, -1, path, &inst);
  if (r.kind != Reply::kAnswered || r.status != 200) {
    return;
  }
  auto v = ParseJson(r.body);
  const json::array* items = v ? Items(*v) : nullptr;
  if (!items) {
    Add("bad body", path + ": " + r.body.substr(0, 200));
    return;
  }
  if (!CachesSettled()) {
    return;  // an article write answered while Redis was down may not be listed yet
  }
  ++tm.stats.checked_reads;
  std::map<int64_t, int> seen;
  std::map<int64_t, std::string> status_of;
  for (const auto& item : *items) {
    const int64_t id = std::atoll(Field(item, "id").c_str());
    ++seen[id];
    status_of[id] = Field(item, "status");
  }
  for (const auto& a : tm.arts) {
    if (a.uncertain || !Repaired(a) || (!a.exists && Superseded(a))) {
      continue;
    }
    const bool want =
        a.exists && a.status == "published" && (k == 0 || a.kind == (k == 1 ? "article" : "post"));
    const int n = seen.count(a.id) ? seen[a.id] : 0;
    if (n != (want ? 1 : 0) || (n && status_of[a.id] != "published")) {
      Add("read during the run: list",
          "GET " + path + " via instance " + std::to_string(inst) + ": " + ArtText(a) + " listed " +
              std::to_string(n) + " time(s)" +
              (n ? " with status " + status_of[a.id] : std::string()) + ", expected " +
              (want ? "once" : "never"),
          a.AnyUnanswered());
    }
  }
}

// Unchecked reads of anything (other threads' articles and threads, lists): they make cache
// fills race the owners' writes.
void ContentFaultTest::ReadNoise(int t, std::mt19937_64& rng, std::array<Conn, kInstances>& conns) {
  // Other threads' models change under us: pick an id at random below the newest this thread
  // knows (ids are one sequence for all).
  int64_t top = 0;
  for (const auto& a : model_[t].arts) {
    top = std::max(top, a.id);
  }
  const int64_t id = top > 0 ? 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(top + 3)) : 1;
  const int what = static_cast<int>(rng() % 4);
  std::string path;
  if (what == 0) {
    path = "/api/v1/articles/" + std::to_string(id);
  } else if (what == 1) {
    path = "/api/v1/articles/" + std::to_string(id) +
           "/comments?sort=" + (rng() % 2 ? "new" : "old") + "&replies=5";
  } else if (what == 2) {
    path = "/api/v1/articles?size=" + std::to_string(5 + rng() % 20);
  } else {
    path = "/api/v1/articles?kind=" + std::string(rng() % 2 ? "post" : "article");
  }
  (void)SendRead(t, rng, conns, rng() % 3 == 0 ? kAdmin : -1, path);
}

// ---------------------------------------------------------------------------------------
// Checks

// ---------------------------------------------------------------------------------------
// The held client: comments the honeypot holds, on page threads, approved or marked spam by
// the admin. Its poster is cuser3; every read it checks is anonymous.

constexpr int kHeldPoster = 5;  // cuser3

std::string HeldName(Held h) {
  switch (h) {
    case Held::kPending:
      return "pending";
    case Held::kApproved:
      return "approved";
    case Held::kSpam:
      return "spam";
    case Held::kUnsure:
      break;
  }
  return "unsure";
}

// At most this many pages; when all are full, the client deletes one page's comments (as the
// admin, by moderation) and writes on it again, so a soak of hours keeps a bounded dataset in
// the caches, as the four threads do.
constexpr size_t kHeldPages = 6;

void ContentFaultTest::HeldOp(std::mt19937_64& rng, std::array<Conn, kInstances>& conns) {
  const int op = static_cast<int>(rng() % 100);
  if (held_pages_.empty() ||
      (op < 30 && held_pages_.back().Full() && held_pages_.size() < kHeldPages)) {
    HeldPage page;
    page.url = "https://blog.example/held/" + std::to_string(held_pages_.size() + 1);
    held_pages_.push_back(std::move(page));
  }
  if (op < 30 && held_pages_.back().Full()) {
    RecycleHeld(rng, conns);
  } else if (op < 30) {
    PostHeld(rng, conns);
  } else if (op < 50) {
    ModerateHeld(rng, conns);
  } else if (op < 60) {
    ReportHeld(rng, conns);
  } else if (op < 95) {
    ReadHeld(rng, conns);
  } else {
    SignOutHeld(rng, conns);
  }
}

// The poster signs out (its next write signs in again). A sign-out answered 204 ends the
// session on every instance at once: the other's session cache heard it before the answer.
void ContentFaultTest::SignOutHeld(std::mt19937_64& rng, std::array<Conn, kInstances>& conns) {
  User& u = model_[kHeldThread].users[kHeldPoster];
  if (u.token.empty()) {
    return;
  }
  const std::string token = u.token;
  u.token.clear();
  const int i = static_cast<int>(rng() % kInstances);
  const Reply out =
      conns[i].Send(beast::http::verb::delete_, "/api/v1/sessions/current", token, "");
  if (out.kind != Reply::kAnswered || out.status == 401 || out.status >= 500) {
    return;  // unanswered, or the session was already gone (a FLUSHALL)
  }
  if (out.status != 204) {
    Add("signed out", "DELETE /api/v1/sessions/current answered HTTP " +
                          std::to_string(out.status) + " " + out.body);
    return;
  }
  ++held_sign_outs_;
  for (int j = 0; j < kInstances; ++j) {
    const Reply me = conns[j].Send(beast::http::verb::get, "/api/v1/users/me", token, "");
    if (me.kind == Reply::kAnswered && me.status == 200) {
      Add("signed out", "a session signed out on instance " + std::to_string(i) +
                            " (204) still answered 200 on instance " + std::to_string(j));
    }
  }
}

// Deletes every comment of the next page in turn, and makes it the page written on.
void ContentFaultTest::RecycleHeld(std::mt19937_64& rng, std::array<Conn, kInstances>& conns) {
  HeldPage& page = held_pages_[held_recycled_++ % held_pages_.size()];
  json::array ids;
  for (const auto& [id, h] : page.comments) {
    ids.push_back(id);
  }
  if (!ids.empty()) {
    const json::object body{{"ids", ids}, {"action", "delete"}};
    Sent s = SendWrite(kHeldThread, rng, conns, kAdmin, beast::http::verb::post,
                       "/api/v1/moderation/comments", json::serialize(body), true);
    const auto v = s.reply.ok() ? ParseJson(s.reply.body) : std::nullopt;
    for (const auto& id : ids) {
      const std::string result =
          v && v->is_object() && v->as_object().contains("results")
              ? Field(v->at("results"), std::to_string(id.as_int64()).c_str())
              : "<no answer>";
      if (result == "ok") {
        page.comments.erase(id.as_int64());
        page.reports.erase(id.as_int64());
      } else {
        page.comments[id.as_int64()] = Held::kUnsure;  // SQL says (a deleted one is dropped)
      }
    }
    if (!page.comments.empty()) {
      return;  // still full: tried again on its next turn
    }
  }
  page.posts = 0;
  std::rotate(held_pages_.begin(),
              held_pages_.begin() + static_cast<long>(&page - &held_pages_[0]) + 1,
              held_pages_.end());  // the emptied page is now the last, the one written on
  held_recycled_ = 0;
}

void ContentFaultTest::PostHeld(std::mt19937_64& rng, std::array<Conn, kInstances>& conns) {
  HeldPage& page = held_pages_.back();
  ++page.posts;
  const json::object body{
      {"body", "held " + std::to_string(page.posts) + " on " + page.url},
      {"title", "Held " + page.url},
      {"website", "https://spam.example"}};  // the honeypot: held whatever else is true
  Sent s = SendWrite(kHeldThread, rng, conns, kHeldPoster, beast::http::verb::post,
                     "/api/v1/pages/comments?url=" + page.url, json::serialize(body), false);
  if (!s.reply.ok()) {
    if (s.reply.kind == Reply::kAnswered && s.reply.status < 500 && !s.unanswered) {
      Add("held client", "POST of a held comment on " + page.url + " refused: HTTP " +
                             std::to_string(s.reply.status) + " " + s.reply.body);
    }
    return;  // unanswered: if it committed, the next checkpoint finds it in SQL
  }
  const auto v = ParseJson(s.reply.body);
  if (!v || !v->is_object() || !v->as_object().contains("id")) {
    Add("held client", "a held comment's 201 without an id: " + s.reply.body);
    return;
  }
  const int64_t id = v->at("id").as_int64();
  page.article = v->at("articleId").as_int64();
  const std::string status = Field(*v, "status");
  if (status != "pending") {
    Add("held client", "comment " + std::to_string(id) +
                           " with the honeypot filled answered "
                           "status " +
                           status + ", not pending");
  }
  page.comments[id] = status == "approved" ? Held::kApproved : Held::kPending;
}

void ContentFaultTest::ModerateHeld(std::mt19937_64& rng, std::array<Conn, kInstances>& conns) {
  std::vector<std::pair<HeldPage*, int64_t>> pending;
  for (auto& page : held_pages_) {
    for (const auto& [id, h] : page.comments) {
      if (h == Held::kPending) {
        pending.emplace_back(&page, id);
      }
    }
  }
  if (pending.empty()) {
    ReadHeld(rng, conns);
    return;
  }
  auto [page, id] = pending[rng() % pending.size()];
  const bool approve = rng() % 5 < 3;
  const json::object body{{"ids", json::array{id}}, {"action", approve ? "approve" : "spam"}};
  Sent s = SendWrite(kHeldThread, rng, conns, kAdmin, beast::http::verb::post,
                     "/api/v1/moderation/comments", json::serialize(body), true);
  Held& h = page->comments[id];
  if (!s.reply.ok()) {
    h = Held::kUnsure;  // SQL says at the next checkpoint
    page->reports[id].unsure = true;
    return;
  }
  const auto v = ParseJson(s.reply.body);
  const std::string result = v && v->is_object() && v->as_object().contains("results")
                                 ? Field(v->at("results"), std::to_string(id).c_str())
                                 : "<no results>";
  if (result == "ok") {
    h = approve ? Held::kApproved : Held::kSpam;
    page->reports[id].count = 0;  // a moderator's decision zeroes the count
  } else {
    page->reports[id].unsure = true;
    h = Held::kUnsure;
    if (!s.unanswered) {
      Add("held client", std::string(approve ? "approving" : "marking spam") + " comment " +
                             std::to_string(id) + " answered " + result);
    }
  }
}

// The readers who may report a held-client comment: neither its poster nor the admin.
constexpr std::array<int, 4> kHeldReporters{1, 2, 3, 4};
constexpr int64_t kReportThreshold = 3;  // the instances' --report-threshold (fault_harness.cpp)

// A reader reports an approved comment it has not reported before. The report that makes the
// count since a moderator's last decision reach the threshold holds the comment: from its 204
// on, no anonymous read may get it, and the checkpoint wants it off its page's list.
void ContentFaultTest::ReportHeld(std::mt19937_64& rng, std::array<Conn, kInstances>& conns) {
  std::vector<std::pair<HeldPage*, int64_t>> approved, reported;
  for (auto& page : held_pages_) {
    for (const auto& [id, h] : page.comments) {
      const size_t by = page.reports[id].by.size();
      if (h == Held::kApproved && by < kHeldReporters.size()) {
        (by > 0 ? reported : approved).emplace_back(&page, id);
      }
    }
  }
  // Half the time one reported before, so that reports reach the threshold in a short run.
  const auto& pool =
      !reported.empty() && (approved.empty() || rng() % 2 == 0) ? reported : approved;
  if (pool.empty()) {
    ReadHeld(rng, conns);
    return;
  }
  auto [page, id] = pool[rng() % pool.size()];
  HeldReports& reports = page->reports[id];
  std::vector<int> fresh;
  for (int r : kHeldReporters) {
    if (!reports.by.count(r)) {
      fresh.push_back(r);
    }
  }
  const int reader = fresh[rng() % fresh.size()];
  const json::object body{{"reason", "soak report by " + std::string(kUserNames[reader])}};
  // Idempotent: a reader's second report changes nothing.
  Sent s =
      SendWrite(kHeldThread, rng, conns, reader, beast::http::verb::post,
                "/api/v1/comments/" + std::to_string(id) + "/reports", json::serialize(body), true);
  reports.by.insert(reader);
  Held& h = page->comments[id];
  if (s.reply.kind == Reply::kAnswered && s.reply.status == 204 && !s.unanswered) {
    ++held_reports_;
    if (reports.unsure) {
      h = Held::kUnsure;  // an earlier report's fate is SQL's to say
    } else if (++reports.count >= kReportThreshold) {
      h = Held::kPending;
      ++held_by_reports_;
    }
    return;
  }
  // Unanswered, then retried: the first attempt may have committed and held the comment, with
  // its instance killed before the cache heard of it (its mark is repaired within a second),
  // and the retry, reading that cache, found the comment approved and its row there (204, no
  // change): the comment is held in SQL, maybe not yet in the cache. SQL says at the checkpoint.
  h = Held::kUnsure;
  reports.unsure = true;
  if (s.reply.kind == Reply::kAnswered && s.reply.status < 500 && s.reply.status != 204 &&
      !s.unanswered) {
    Add("held client", "a report of approved comment " + std::to_string(id) + " by " +
                           kUserNames[reader] + " answered HTTP " + std::to_string(s.reply.status) +
                           " " + s.reply.body);
  }
}

void ContentFaultTest::CheckNothingHeldListed(const HeldPage& page, const Reply& r,
                                              const std::string& where) {
  const auto v = ParseJson(r.body);
  const json::array* items = v ? Items(*v) : nullptr;
  if (items == nullptr) {
    Add("nothing held is served", where + ": the list of " + page.url + " is no list: " + r.body);
    return;
  }
  for (const auto& item : *items) {
    const std::string id_text = Field(item, "id");
    const auto it = page.comments.find(std::atoll(id_text.c_str()));
    if (it != page.comments.end() && (it->second == Held::kPending || it->second == Held::kSpam)) {
      Add("nothing held is served", where + ": comment " + id_text + " (" + HeldName(it->second) +
                                        ") is in the list of " + page.url +
                                        " as an anonymous reader reads it");
    }
  }
}

void ContentFaultTest::ReadHeld(std::mt19937_64& rng, std::array<Conn, kInstances>& conns) {
  const HeldPage& page = held_pages_[rng() % held_pages_.size()];
  int i = 0;
  const Reply list =
      SendRead(kHeldThread, rng, conns, -1, "/api/v1/pages/comments?size=50&url=" + page.url, &i);
  if (list.kind == Reply::kAnswered && list.status == 200) {
    CheckNothingHeldListed(page, list, "run, instance " + std::to_string(i));
  }
  std::vector<int64_t> held;
  for (const auto& [id, h] : page.comments) {
    if (h == Held::kPending || h == Held::kSpam) {
      held.push_back(id);
    }
  }
  if (held.empty()) {
    return;
  }
  const int64_t id = held[rng() % held.size()];
  const Reply one =
      SendRead(kHeldThread, rng, conns, -1, "/api/v1/comments/" + std::to_string(id), &i);
  if (one.kind == Reply::kAnswered && one.status == 200) {
    Add("nothing held is served", "run, instance " + std::to_string(i) + ": GET comment " +
                                      std::to_string(id) + " (" + HeldName(page.comments.at(id)) +
                                      ") answered 200 to an anonymous reader: " + one.body);
  }
}

// SQL decides what the held client could not: a moderation without an answer, and a post
// that was never answered (any comment on its pages is its own).
void ContentFaultTest::ReconcileHeld(const std::string& label) {
  for (auto& page : held_pages_) {
    try {
      std::set<int64_t> live;
      const std::string of_page =
          "JOIN articles a ON a.id = c.article_id WHERE a.kind = 'page' AND c.deleted = 0 AND "
          "a.title = 'Held " +
          page.url + "'";
      std::map<int64_t, std::set<int>> reporters;
      for (const auto& row : Sql("SELECT r.comment_id, u.username FROM comment_reports r JOIN "
                                 "users u ON u.id = r.user_id JOIN comments c ON c.id = "
                                 "r.comment_id " +
                                 of_page)) {
        const auto name = std::find(std::begin(kUserNames), std::end(kUserNames), row.at(1));
        reporters[std::stoll(row.at(0))].insert(
            static_cast<int>(name - std::begin(kUserNames)));  // kUserCount: not a known user
      }
      for (const auto& row :
           Sql("SELECT c.id, c.status, a.id, c.reports FROM comments c " + of_page)) {
        const int64_t id = std::stoll(row.at(0));
        live.insert(id);
        page.article = std::stoll(row.at(2));
        HeldReports& reports = page.reports[id];
        const int64_t count = std::stoll(row.at(3));
        if (!reports.unsure && (reports.count != count || reports.by != reporters[id])) {
          Add("held client",
              label + ": comment " + std::to_string(id) + " has " + std::to_string(count) +
                  " reports since its last decision, by " + std::to_string(reporters[id].size()) +
                  " readers in SQL; its acknowledged reports and moderations "
                  "make them " +
                  std::to_string(reports.count) + ", by " + std::to_string(reports.by.size()));
        }
        reports = HeldReports{reporters[id], count, false};
        const Held in_sql = row.at(1) == "approved" ? Held::kApproved
                            : row.at(1) == "spam"   ? Held::kSpam
                                                    : Held::kPending;
        auto [it, added] = page.comments.emplace(id, in_sql);
        if (!added && it->second != in_sql) {
          if (it->second != Held::kUnsure) {
            Add("held client", label + ": comment " + std::to_string(id) + " is " + row.at(1) +
                                   " in SQL, " + HeldName(it->second) +
                                   " by its acknowledged moderation");
          }
          it->second = in_sql;
        }
      }
      for (auto it = page.comments.begin(); it != page.comments.end();) {
        if (live.count(it->first)) {
          ++it;
          continue;
        }
        if (it->second != Held::kUnsure) {  // only an unanswered delete may have taken it
          Add("held client", label + ": comment " + std::to_string(it->first) + " (" +
                                 HeldName(it->second) + ", acknowledged) is not in SQL");
        }
        page.reports.erase(it->first);
        it = page.comments.erase(it);
      }
    } catch (const std::exception& e) {
      findings_.Add("harness", std::string("reading the held pages from SQL failed: ") + e.what());
      return;
    }
  }
}

// With the clients paused and the caches settled: each page lists exactly its approved
// comments and counts them; each held one is 404 by its id.
void ContentFaultTest::CheckHeld(int instance, const std::string& label) {
  Conn c(ports_[instance]);
  const std::string where = "checkpoint " + label + ", instance " + std::to_string(instance);
  // The newest pages, and one older one: the check stays short however long the soak.
  std::vector<const HeldPage*> pages;
  for (size_t p = held_pages_.size() > 3 ? held_pages_.size() - 3 : 0; p < held_pages_.size();
       ++p) {
    pages.push_back(&held_pages_[p]);
  }
  if (held_pages_.size() > 3) {
    pages.push_back(&held_pages_[static_cast<size_t>(checkpoints_) % (held_pages_.size() - 3)]);
  }
  for (const HeldPage* page : pages) {
    if (page->article == 0) {
      continue;
    }
    std::vector<int64_t> approved;
    for (const auto& [id, h] : page->comments) {
      if (h == Held::kApproved) {
        approved.push_back(id);
      }
    }
    const Reply list =
        Reliable(c, beast::http::verb::get,
                 "/api/v1/pages/comments?size=50&sort=old&url=" + page->url, nullptr);
    if (list.status != 200) {
      Add("held client",
          where + ": the list of " + page->url + " answered HTTP " + std::to_string(list.status));
      continue;
    }
    CheckNothingHeldListed(*page, list, where);
    std::vector<int64_t> listed;
    if (const auto v = ParseJson(list.body); v && Items(*v)) {
      for (const auto& item : *Items(*v)) {
        listed.push_back(std::atoll(Field(item, "id").c_str()));
      }
    }
    if (listed != approved) {
      Add("held client", where + ": " + page->url + " lists " + IdsText(listed) +
                             ", its approved comments are " + IdsText(approved));
    }
    const Reply counts =
        Reliable(c, beast::http::verb::get, "/api/v1/pages?url=" + page->url, nullptr);
    const auto cv = ParseJson(counts.body);
    if (counts.status != 200 || !cv ||
        Field(*cv, "commentCount") != std::to_string(approved.size())) {
      Add("held client", where + ": " + page->url + " counts " + counts.body + ", " +
                             std::to_string(approved.size()) + " approved");
    }
    for (const auto& [id, h] : page->comments) {
      if (h != Held::kPending && h != Held::kSpam) {
        continue;
      }
      const Reply one =
          Reliable(c, beast::http::verb::get, "/api/v1/comments/" + std::to_string(id), nullptr);
      if (one.status != 404) {
        Add("nothing held is served", where + ": GET comment " + std::to_string(id) + " (" +
                                          HeldName(h) + ") answered HTTP " +
                                          std::to_string(one.status) + " to an anonymous reader");
      }
    }
  }
}

std::string ContentFaultTest::DiffComment(const Art& a, const Cm& c, const json::value& v) const {
  std::string d;
  auto expect = [&](const char* what, const std::string& got, const std::string& want) {
    if (got != want) {
      d += std::string(" ") + what + " " + got + " (model " + want + ")";
    }
  };
  expect("id", Field(v, "id"), std::to_string(c.id));
  expect("articleId", Field(v, "articleId"), std::to_string(a.id));
  expect("parentId", Field(v, "parentId"), c.parent ? std::to_string(c.parent) : "null");
  expect("author", SubId(v, "author"), std::to_string(user_ids_[c.author]));
  expect("replyTo", SubId(v, "replyTo"), c.reply_to ? std::to_string(c.reply_to) : "null");
  expect("deleted", Field(v, "deleted"), Bool(c.deleted));
  expect("body", Field(v, "body"), c.deleted ? "" : c.body);
  expect("replyCount", Field(v, "replyCount"),
         std::to_string(c.parent == 0 ? a.LiveReplies(c.id) : 0));
  return d.empty() ? "" : "comment " + std::to_string(c.id) + ":" + d;
}

bool ContentFaultTest::CheckReadStatus(const Art& a, int viewer, const Reply& r,
                                       const std::string& what, const std::string& where,
                                       const std::string& stage, const char* quoted_field) {
  const std::string who = " as " + Viewer(viewer);
  if (!a.VisibleTo(viewer)) {
    if (r.status != 404) {
      const std::string quoted =
          quoted_field ? std::string(" (") + quoted_field + " '" +
                             Field(ParseJson(r.body).value_or(nullptr), quoted_field) + "')"
                       : std::string();
      Add(stage + ": " + what,
          where + who + ": HTTP " + std::to_string(r.status) + quoted + ", expected 404 for " +
              ArtText(a),
          a.AnyUnanswered());
    }
    return false;
  }
  if (r.status != 200) {
    Add(stage + ": " + what,
        where + who + ": HTTP " + std::to_string(r.status) + " " + r.body.substr(0, 150) +
            ", expected 200 for " + ArtText(a),
        a.AnyUnanswered());
    return false;
  }
  return true;
}

void ContentFaultTest::CheckArticleRead(const Art& a, int viewer, const Reply& r,
                                        const std::string& where, const std::string& stage,
                                        bool check_comments) {
  if (!CheckReadStatus(a, viewer, r, "article GET", where, stage, "status")) {
    return;
  }
  auto v = ParseJson(r.body).value_or(nullptr);
  std::string d;
  auto expect = [&](const char* what, const std::string& got, const std::string& want) {
    if (got != want) {
      d += std::string(" ") + what + " '" + got + "' (model '" + want + "')";
    }
  };
  expect("kind", Field(v, "kind"), a.kind);
  expect("title", Field(v, "title"), a.title);
  expect("content", Field(v, "content"), a.content);
  expect("status", Field(v, "status"), a.status);
  expect("pinned", Field(v, "pinned"), Bool(a.pinned));
  expect("allowComments", Field(v, "allowComments"), Bool(a.allow));
  expect("author", SubId(v, "author"), std::to_string(user_ids_[a.author]));
  if (check_comments) {
    expect("commentCount", Field(v, "commentCount"), std::to_string(a.LiveComments()));
  }
  if (!d.empty()) {
    Add(stage + ": article GET", where + " as " + Viewer(viewer) + ":" + d + " for " + ArtText(a),
        a.AnyUnanswered());
  }
}

void ContentFaultTest::CheckCommentsPage(const Art& a, int viewer, const std::string& sort,
                                         const Reply& r, const std::string& where,
                                         const std::string& stage) {
  if (!CheckReadStatus(a, viewer, r, "comments page", where, stage)) {
    return;
  }
  auto v = ParseJson(r.body).value_or(nullptr);
  const json::array* items = Items(v);
  if (!items) {
    Add("bad body", where + ": " + r.body.substr(0, 200));
    return;
  }
  std::vector<int64_t> want, got;
  for (const auto& c : a.comments) {
    if (c.parent == 0 && a.Listed(c)) {
      want.push_back(c.id);
    }
  }
  if (sort == "new") {
    std::reverse(want.begin(), want.end());
  }
  for (const auto& item : *items) {
    got.push_back(std::atoll(Field(item, "id").c_str()));
  }
  std::string d;
  if (got != want) {
    d += " top-level ids " + IdsText(got) + " (model " + IdsText(want) + ")";
  }
  if (Field(v, "total") != std::to_string(want.size())) {
    d += " total " + Field(v, "total") + " (model " + std::to_string(want.size()) + ")";
  }
  for (const auto& item : *items) {
    const Cm* c = a.Find(std::atoll(Field(item, "id").c_str()));
    if (!c) {
      continue;
    }
    if (auto cd = DiffComment(a, *c, item); !cd.empty()) {
      d += " " + cd;
    }
    std::vector<int64_t> rw, rg;
    for (const auto& x : a.comments) {
      if (x.parent == c->id && !x.deleted) {
        rw.push_back(x.id);
      }
    }
    if (rw.size() > 20) {
      rw.resize(20);
    }
    const json::value* reps = item.as_object().if_contains("replies");
    if (reps && reps->is_array()) {
      for (const auto& rep : reps->as_array()) {
        rg.push_back(std::atoll(Field(rep, "id").c_str()));
        if (const Cm* rc = a.Find(rg.back())) {
          if (auto cd = DiffComment(a, *rc, rep); !cd.empty()) {
            d += " reply " + cd;
          }
        }
      }
    }
    if (rg != rw) {
      d += " replies of " + std::to_string(c->id) + " " + IdsText(rg) + " (model " + IdsText(rw) +
           ")";
    }
  }
  if (!d.empty()) {
    Add(stage + ": comments page", where + " as " + Viewer(viewer) + ":" + d + " for " + ArtText(a),
        a.AnyUnanswered());
  }
}

std::vector<const Art*> ContentFaultTest::AllArts() const {
  std::vector<const Art*> out;
  for (const auto& tm : model_) {
    for (const auto& a : tm.arts) {
      if (!Superseded(a)) {
        out.push_back(&a);
      }
    }
  }
  return out;
}

// The published list as the model has it: pinned first, newest publishedAt first, then id.
std::vector<int64_t> ContentFaultTest::ExpectedList(const std::string& kind) const {
  std::vector<const Art*> list;
  for (const Art* a : AllArts()) {
    if (a->exists && a->status == "published" && (kind.empty() || a->kind == kind)) {
      list.push_back(a);
    }
  }
  std::sort(list.begin(), list.end(), [](const Art* x, const Art* y) {
    if (x->pinned != y->pinned) {
      return x->pinned;
    }
    if (x->published_ms != y->published_ms) {
      return x->published_ms > y->published_ms;
    }
    return x->id > y->id;
  });
  std::vector<int64_t> ids;
  for (const Art* a : list) {
    ids.push_back(a->id);
  }
  return ids;
}

bool ContentFaultTest::Pause(const std::string& why) {
  const auto t = Clock::now();
  if (gate_.Pause(30s)) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t);
    if (ms > 3s) {
      log_->Add("clients took " + std::to_string(ms.count()) + " ms to pause");
    }
    return true;
  }
  findings_.Add("fault step", "clients did not pause within 30 s (" + why + ") " + Context());
  gate_.Resume();
  return false;
}

// SQL decides what unanswered writes did (it must be one of their outcomes), and becomes the
// model; SQL's own counts must be exact.
void ContentFaultTest::Reconcile(const std::string& label) {
  struct SqlArt {
    std::string kind, title, content, status;
    int64_t author = 0, published = 0, comment_count = 0;
    bool pinned = false, allow = true;
  };
  struct SqlCm {
    int64_t id = 0, article = 0, parent = 0, author = 0, reply_to = 0, reply_count = 0;
    std::string body;
    bool deleted = false;
  };
  std::map<int64_t, SqlArt> arts;
  std::map<int64_t, std::vector<SqlCm>> comments;
  try {
    // Page threads are the held client's (ReconcileHeld).
    for (const auto& row : Sql("SELECT id, kind, author_id, title, content, status, pinned, "
                               "allow_comments, COALESCE(published_at, 0), comment_count "
                               "FROM articles WHERE kind <> 'page' ORDER BY id")) {
      SqlArt s;
      s.kind = row.at(1);
      s.author = std::stoll(row.at(2));
      s.title = row.at(3);
      s.content = row.at(4);
      s.status = row.at(5);
      s.pinned = row.at(6) == "1";
      s.allow = row.at(7) == "1";
      s.published = std::stoll(row.at(8));
      s.comment_count = std::stoll(row.at(9));
      arts[std::stoll(row.at(0))] = s;
    }
    for (const auto& row : Sql("SELECT id, article_id, COALESCE(parent_id, 0), author_id, "
                               "COALESCE(reply_to_user_id, 0), body, deleted, reply_count "
                               "FROM comments WHERE article_id IN (SELECT id FROM articles "
                               "WHERE kind <> 'page') ORDER BY id")) {
      SqlCm c;
      c.id = std::stoll(row.at(0));
      c.article = std::stoll(row.at(1));
      c.parent = std::stoll(row.at(2));
      c.author = std::stoll(row.at(3));
      c.reply_to = std::stoll(row.at(4));
      c.body = row.at(5);
      c.deleted = row.at(6) == "1";
      c.reply_count = std::stoll(row.at(7));
      comments[c.article].push_back(c);
    }
  } catch (const std::exception& e) {
    findings_.Add("harness", std::string("reading SQL failed: ") + e.what());
    return;
  }
  auto user_index = [&](int64_t id) {
    for (int u = 0; u < kUserCount; ++u) {
      if (user_ids_[u] == id) {
        return u;
      }
    }
    return -1;
  };
  const std::string stage = "checkpoint: SQL vs model";
  std::set<int64_t> known;
  for (int t = 0; t < kThreads; ++t) {
    ThreadModel& tm = model_[t];
    for (auto& a : tm.arts) {
      if (!Superseded(a)) {
        known.insert(a.id);
      }
    }
    // Unknown articles in SQL: an unanswered create of this thread (matched by its title).
    for (auto& [id, s] : arts) {
      if (known.count(id)) {
        continue;
      }
      auto p = std::find_if(tm.pending.begin(), tm.pending.end(),
                            [&](const PendingArt& x) { return x.title == s.title; });
      if (p == tm.pending.end()) {
        continue;
      }
      Art a;
      a.id = id;
      a.owner = t;
      a.author = p->author;
      a.kind = p->kind;
      a.title = p->title;
      a.content = p->content;
      a.status = p->status;
      a.pinned = p->pinned;
      a.allow = p->allow;
      a.had_unanswered = true;
      a.last_write = "unanswered create";
      a.seq = NoteArticleId(id);
      tm.pending.erase(p);
      tm.arts.push_back(std::move(a));
      known.insert(id);
    }
    tm.pending.clear();  // the rest never committed
  }
  for (auto& [id, s] : arts) {
    if (!known.count(id)) {
      Add(stage,
          "article " + std::to_string(id) + " '" + s.title + "' in SQL is unknown to the model",
          false);
    }
  }
  for (int t = 0; t < kThreads; ++t) {
    for (auto& a : model_[t].arts) {
      if (Superseded(a)) {
        continue;
      }
      auto it = arts.find(a.id);
      const bool was_uncertain = a.uncertain;
      if (it == arts.end()) {
        if (a.exists && !a.maybe_deleted) {
          Add(stage, ArtText(a) + " is missing from SQL", a.AnyUnanswered());
        }
        a.exists = false;
        for (const auto& c : a.comments) {
          a.gone.push_back(c.id);
        }
        a.comments.clear();
        a.pending.clear();
      } else {
        const SqlArt& s = it->second;
        std::string d;
        if (!a.exists) {
          d += " exists (model: deleted)";
        }
        auto allowed = [&](const auto& value, const auto& certain, const auto& maybe) {
          return value == certain || (was_uncertain && maybe.count(value));
        };
        if (!allowed(s.title, a.title, a.maybe_title)) {
          d += " title '" + s.title + "'";
        }
        if (!allowed(s.content, a.content, a.maybe_content)) {
          d += " content '" + s.content + "'";
        }
        if (!allowed(s.status, a.status, a.maybe_status)) {
          d += " status " + s.status;
        }
        if (!allowed(static_cast<int>(s.pinned), static_cast<int>(a.pinned), a.maybe_pinned)) {
          d += " pinned " + Bool(s.pinned);
        }
        if (!allowed(static_cast<int>(s.allow), static_cast<int>(a.allow), a.maybe_allow)) {
          d += " allow_comments " + Bool(s.allow);
        }
        if (s.kind != a.kind) {
          d += " kind " + s.kind;
        }
        if (s.author != user_ids_[a.author]) {
          d += " author " + std::to_string(s.author);
        }
        if (!d.empty()) {
          Add(stage, ArtText(a) + ": SQL has" + d, a.AnyUnanswered());
        }
        a.exists = true;
        a.title = s.title;
        a.content = s.content;
        a.status = s.status;
        a.pinned = s.pinned;
        a.allow = s.allow;
        a.published_ms = s.published;
      }
      a.uncertain = false;
      a.maybe_deleted = false;
      a.maybe_title.clear(), a.maybe_content.clear(), a.maybe_status.clear();
      a.maybe_pinned.clear(), a.maybe_allow.clear();
      if (!a.exists) {
        continue;
      }

      // Comments: each model comment as SQL has it; unknown ones from unanswered creates.
      auto& rows = comments[a.id];
      std::vector<Cm> next;
      for (const SqlCm& row : rows) {
        Cm* m = a.Find(row.id);
        Cm c;
        if (m) {
          c = *m;
          std::string d;
          if (row.deleted && !c.deleted && !c.maybe_deleted) {
            d += " deleted";
          }
          if (!row.deleted && c.deleted) {
            d += " live (model: deleted)";
          }
          if (!row.deleted && row.body != c.body && !c.maybe_bodies.count(row.body)) {
            d += " body '" + row.body + "'";
          }
          if (row.parent != c.parent) {
            d += " parent " + std::to_string(row.parent);
          }
          if (!d.empty()) {
            Add(stage, ArtText(a) + ": comment " + std::to_string(row.id) + " in SQL:" + d,
                a.AnyUnanswered());
          }
        } else {
          auto p = std::find_if(a.pending.begin(), a.pending.end(),
                                [&](const PendingCm& x) { return x.body == row.body; });
          if (p == a.pending.end()) {
            Add(stage,
                ArtText(a) + ": comment " + std::to_string(row.id) + " '" + row.body +
                    "' in SQL is unknown to the model",
                a.AnyUnanswered());
          }
          if (p != a.pending.end()) {
            a.pending.erase(p);
          }
          c.id = row.id;
          NoteCommentId(c.id);
          c.had_unanswered = true;
        }
        c.parent = row.parent;
        c.author = user_index(row.author);
        c.reply_to = row.reply_to;
        c.body = row.deleted ? "" : row.body;
        c.deleted = row.deleted;
        c.uncertain = false;
        c.maybe_deleted = false;
        c.maybe_bodies.clear();
        next.push_back(std::move(c));
      }
      for (const auto& c : a.comments) {
        if (std::none_of(rows.begin(), rows.end(), [&](const SqlCm& r) { return r.id == c.id; })) {
          Add(stage,
              ArtText(a) + ": acknowledged comment " + std::to_string(c.id) +
                  " is missing from SQL",
              a.AnyUnanswered());
        }
      }
      a.comments = std::move(next);
      a.pending.clear();
      // SQL's counts against its rows.
      const SqlArt& s = it->second;
      if (s.comment_count != a.LiveComments()) {
        Add("checkpoint: SQL counts",
            ArtText(a) + ": comment_count " + std::to_string(s.comment_count) + ", live rows " +
                std::to_string(a.LiveComments()),
            false);
      }
      for (const SqlCm& row : rows) {
        if (row.parent == 0 && row.reply_count != a.LiveReplies(row.id)) {
          Add("checkpoint: SQL counts",
              ArtText(a) + ": comment " + std::to_string(row.id) + " reply_count " +
                  std::to_string(row.reply_count) + ", live replies " +
                  std::to_string(a.LiveReplies(row.id)),
              false);
        }
      }
    }
  }
  for (auto& [article, rows] : comments) {
    if (!rows.empty() && !arts.count(article)) {
      Add(stage,
          std::to_string(rows.size()) + " comment row(s) of deleted article " +
              std::to_string(article) + " left in SQL",
          false);
    }
  }
  (void)label;
}

// Every read of the API on one instance against the (reconciled, exact) model.
void ContentFaultTest::CheckApi(int instance, const std::string& label) {
  Conn c(ports_[instance]);
  std::array<User, kUserCount> users;
  for (int u = 0; u < kUserCount; ++u) {
    users[u] = model_[0].users[u], users[u].token.clear();
  }
  const std::string stage = "checkpoint";
  const std::string via = " via instance " + std::to_string(instance) + " (" + label + ")";
  auto get = [&](const std::string& path, int viewer) {
    return Reliable(c, beast::http::verb::get, path, viewer < 0 ? nullptr : &users[viewer]);
  };
  for (const Art* a : AllArts()) {
    const std::string path = "/api/v1/articles/" + std::to_string(a->id);
    for (int viewer : {-1, a->author}) {
      Reply r = get(path, viewer);
      CheckArticleRead(*a, viewer, r, "GET " + path + via, stage, true);
      for (const char* sort : {"new", "old"}) {
        const std::string cpath = path + "/comments?sort=" + sort + "&size=100&replies=20";
        Reply cr = get(cpath, viewer);
        CheckCommentsPage(*a, viewer, sort, cr, "GET " + cpath + via, stage);
      }
    }
    for (int64_t id : a->gone) {
      if (CommentReused(id)) {
        continue;
      }
      const std::string cp = "/api/v1/comments/" + std::to_string(id);
      Reply r = get(cp, a->author);
      if (r.status != 404) {
        Add(stage + ": comment GET",
            "GET " + cp + via + " as the author: HTTP " + std::to_string(r.status) + " " +
                r.body.substr(0, 150) + ", expected 404 (its article was deleted) on " +
                ArtText(*a),
            a->AnyUnanswered());
      }
    }
    for (const Cm& cm : a->comments) {
      for (int viewer : {-1, a->author}) {
        const std::string cp = "/api/v1/comments/" + std::to_string(cm.id);
        Reply r = get(cp, viewer);
        const bool want = a->VisibleTo(viewer) && a->Listed(cm);
        if (viewer >= 0 && !want) {
          continue;  // only the anonymous 404s are asked for below
        }
        if (!want) {
          if (r.status != 404) {
            Add(stage + ": comment GET",
                "GET " + cp + via + " as anonymous: HTTP " + std::to_string(r.status) + " " +
                    r.body.substr(0, 150) + ", expected 404 (" +
                    (cm.deleted ? "deleted" : "article not public") + ") on " + ArtText(*a),
                a->AnyUnanswered());
          }
        } else if (r.status != 200) {
          Add(stage + ": comment GET",
              "GET " + cp + via + ": HTTP " + std::to_string(r.status) + ", expected 200 on " +
                  ArtText(*a),
              a->AnyUnanswered());
        } else if (auto d = DiffComment(*a, cm, ParseJson(r.body).value_or(nullptr)); !d.empty()) {
          Add(stage + ": comment GET", "GET " + cp + via + ": " + d + " on " + ArtText(*a),
              a->AnyUnanswered());
        }
        if (want && cm.parent == 0 && viewer < 0) {
          Reply rr = get(cp + "/replies?sort=old&size=100", -1);
          std::vector<int64_t> rw, rg;
          for (const auto& x : a->comments) {
            if (x.parent == cm.id && !x.deleted) {
              rw.push_back(x.id);
            }
          }
          auto v = ParseJson(rr.body).value_or(nullptr);
          if (const json::array* items = rr.status == 200 ? Items(v) : nullptr) {
            for (const auto& item : *items) {
              rg.push_back(std::atoll(Field(item, "id").c_str()));
            }
          }
          if (rr.status != 200 || rg != rw) {
            Add(stage + ": replies page",
                "GET " + cp + "/replies" + via + ": HTTP " + std::to_string(rr.status) + " ids " +
                    IdsText(rg) + " (model " + IdsText(rw) + ") on " + ArtText(*a),
                a->AnyUnanswered());
          }
        }
      }
    }
  }
  // The published lists: exactly the published articles, in order, with their fields.
  std::map<int64_t, const Art*> by_id;
  for (const Art* a : AllArts()) {
    by_id[a->id] = a;
  }
  for (const std::string kind : {"", "article", "post"}) {
    const std::string path = "/api/v1/articles?size=100" + (kind.empty() ? "" : "&kind=" + kind);
    Reply r = get(path, -1);
    auto v = ParseJson(r.body).value_or(nullptr);
    const json::array* items = r.status == 200 ? Items(v) : nullptr;
    if (!items) {
      Add(stage + ": list",
          "GET " + path + via + ": HTTP " + std::to_string(r.status) + " " + r.body.substr(0, 150));
      continue;
    }
    std::vector<int64_t> got;
    std::string d;
    bool unanswered = false;
    for (const auto& item : *items) {
      const int64_t id = std::atoll(Field(item, "id").c_str());
      got.push_back(id);
      auto it = by_id.find(id);
      if (it == by_id.end()) {
        d += " unknown id " + std::to_string(id);
        continue;
      }
      const Art& a = *it->second;
      unanswered = unanswered || a.AnyUnanswered();
      if (!a.exists) {
        d += " deleted " + std::to_string(id) + " listed;";
      }
      if (Field(item, "status") != "published" || a.status != "published") {
        d += " " + std::to_string(id) + " listed with status " + Field(item, "status") +
             " (model " + (a.exists ? a.status : "deleted") + ");";
      }
      if (Field(item, "title") != a.title) {
        d += " " + std::to_string(id) + " title '" + Field(item, "title") + "' (model '" + a.title +
             "');";
      }
      if (Field(item, "pinned") != Bool(a.pinned)) {
        d += " " + std::to_string(id) + " pinned " + Field(item, "pinned") + ";";
      }
      if (Field(item, "commentCount") != std::to_string(a.LiveComments())) {
        d += " " + std::to_string(id) + " commentCount " + Field(item, "commentCount") +
             " (model " + std::to_string(a.LiveComments()) + ");";
      }
    }
    const std::vector<int64_t> want = ExpectedList(kind);
    if (got != want) {
      d += " ids " + IdsText(got) + " (model " + IdsText(want) + ")";
      for (int64_t id : want) {
        if (std::find(got.begin(), got.end(), id) == got.end()) {
          unanswered = unanswered || by_id[id]->AnyUnanswered();
        }
      }
    }
    if (Field(v, "total") != std::to_string(want.size())) {
      d += " total " + Field(v, "total") + " (model " + std::to_string(want.size()) + ")";
    }
    if (!d.empty()) {
      Add(stage + ": list", "GET " + path + via + ":" + d, unanswered);
    }
  }
  // Paging: offset pages and cursor pages of 4 add up to the whole list.
  const std::vector<int64_t> want = ExpectedList("");
  for (bool by_cursor : {false, true}) {
    std::string error;
    auto ids = PagedIds(c, "/api/v1/articles?", 4, by_cursor, error);
    if (!error.empty() || ids != want) {
      Add(stage + ": list paging", std::string(by_cursor ? "cursor" : "offset") + " pages of 4" +
                                       via + ": " + IdsText(ids) + " (model " + IdsText(want) +
                                       ") " + error);
    }
  }
  // Comment pages of 3 (newest first) of the article with the most top-level comments.
  const Art* most = nullptr;
  size_t most_n = 0;
  for (const Art* a : AllArts()) {
    if (!a->exists || a->status != "published") {
      continue;
    }
    size_t n = 0;
    for (const auto& cm : a->comments) {
      n += cm.parent == 0 && a->Listed(cm);
    }
    if (n > most_n) {
      most = a, most_n = n;
    }
  }
  if (most) {
    std::vector<int64_t> cw;
    for (const auto& cm : most->comments) {
      if (cm.parent == 0 && most->Listed(cm)) {
        cw.push_back(cm.id);
      }
    }
    std::reverse(cw.begin(), cw.end());
    for (bool by_cursor : {false, true}) {
      std::string error;
      auto ids = PagedIds(c, "/api/v1/articles/" + std::to_string(most->id) + "/comments?sort=new&",
                          3, by_cursor, error);
      if (!error.empty() || ids != cw) {
        Add(stage + ": comment paging",
            std::string(by_cursor ? "cursor" : "offset") + " pages of 3" + via + ": " +
                IdsText(ids) + " (model " + IdsText(cw) + ") " + error + " on " + ArtText(*most),
            most->AnyUnanswered());
      }
    }
  }
}

std::vector<int64_t> ContentFaultTest::PagedIds(Conn& c, const std::string& base, int size,
                                                bool by_cursor, std::string& error) {
  std::vector<int64_t> ids;
  std::string cursor;
  for (int page = 1; page <= 60; ++page) {
    std::string path = base + "size=" + std::to_string(size);
    if (by_cursor) {
      if (page > 1) {
        path += "&cursor=" + cursor;
      }
    } else {
      path += "&page=" + std::to_string(page);
    }
    Reply r = Reliable(c, beast::http::verb::get, path, nullptr);
    auto v = ParseJson(r.body).value_or(nullptr);
    const json::array* items = r.status == 200 ? Items(v) : nullptr;
    if (!items) {
      error = path + ": HTTP " + std::to_string(r.status) + " " + r.body.substr(0, 100);
      return ids;
    }
    for (const auto& item : *items) {
      ids.push_back(std::atoll(Field(item, "id").c_str()));
    }
    if (by_cursor) {
      const std::string next = Field(v, "nextCursor");
      if (next == "null" || next == "<missing>") {
        return ids;
      }
      cursor = next;
    } else if (static_cast<int>(items->size()) < size) {
      return ids;
    }
  }
  error = "more than 60 pages";
  return ids;
}

void ContentFaultTest::Checkpoint(const std::string& why) {
  ++checkpoints_;
  const std::string label = "checkpoint " + why;
  const size_t before = findings_.Count();
  const auto started = Clock::now();
  WaitFor([&] { return CachesSettled() && log_->Now() >= repairs_settle_ms_.load(); }, 10s);
  Reconcile(label);
  ReconcileHeld(label);
  for (int i = 0; i < kInstances; ++i) {
    if (!servers_[i] || !servers_[i]->Running() || !Ready(ports_[i], 30s)) {
      findings_.Add("fault step", "instance " + std::to_string(i) + " not ready at " + label);
      continue;
    }
    CheckApi(i, why);
    CheckHeld(i, why);
  }
  const size_t n = findings_.Count() - before;
  log_->Add(
      label + (n == 0 ? ": ok" : ": " + std::to_string(n) + " finding(s)") + " (" +
      std::to_string(
          std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count()) +
      " ms)");
}

void ContentFaultTest::FaultPhase() {
  std::mt19937_64 rng(settings_.seed);
  const auto deadline = Clock::now() + std::chrono::seconds(settings_.seconds);
  const bool rollback_on = std::find(settings_.faults.begin(), settings_.faults.end(),
                                     FaultKind::kRedisRollback) != settings_.faults.end();
  const fs::path snapshot = dir_.path() / "snapshot.rdb";
  bool have_snapshot = false;
  auto note = [&](const std::string& kind, const std::string& what) {
    log_->Add(what);
    ++fault_counts_[kind];
  };
  auto problem = [&](const std::string& what) {
    findings_.Add("fault step", what + " " + Context());
    log_->Add("PROBLEM: " + what);
  };
  auto ms_since = [](Clock::time_point t) {
    return std::to_string(
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count());
  };
  while (Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300 + rng() % 1000));
    const bool check_after = rng() % 2 == 0;
    if (settings_.faults.empty()) {
      if (check_after && Pause("traffic only")) {
        Checkpoint("(no faults)");
        Resume();
      }
      continue;
    }
    if (rollback_on && (!have_snapshot || rng() % 100 < 15)) {
      auto t = Clock::now();
      if (redis_->Snapshot(snapshot)) {
        have_snapshot = true;
        note("snapshot", "snapshot of Redis taken under traffic (SAVE, " + ms_since(t) + " ms)");
      } else {
        problem("SAVE for a snapshot failed");
      }
      continue;
    }
    const FaultKind kind = settings_.faults[rng() % settings_.faults.size()];
    const auto t = Clock::now();
    bool checked = false;
    switch (kind) {
      case FaultKind::kFlushAll: {
        if (!Pause("FLUSHALL")) {
          break;
        }
        Checkpoint("before FLUSHALL");
        const std::string r = redis_->Cli("FLUSHALL");
        if (r != "OK") {
          problem("FLUSHALL answered " + r);
        }
        note(FaultName(kind), "FLUSHALL (clients paused)");
        if (rng() % 2) {
          Checkpoint("right after FLUSHALL, clients still paused");
        }
        Resume();
        checked = true;
        break;
      }
      case FaultKind::kRedisKill: {
        redis_->Kill();
        if (!redis_->Start()) {
          problem("redis-server did not restart from its AOF");
        }
        RedisFaultEnded();
        note(FaultName(kind),
             "redis SIGKILL + restart from AOF under traffic (" + ms_since(t) + " ms)");
        break;
      }
      case FaultKind::kRedisRollback: {
        if (!Pause("rollback")) {
          break;
        }
        Checkpoint("before the Redis rollback");
        const std::string err = redis_->RestoreSnapshot(snapshot);
        if (!err.empty()) {
          problem("rollback: " + err);
        }
        RedisFaultEnded();
        note(FaultName(kind),
             "redis restarted from the older snapshot (clients paused, " + ms_since(t) + " ms)");
        Checkpoint("right after the Redis rollback, clients still paused");
        Resume();
        checked = true;
        break;
      }
      case FaultKind::kRebuildCache: {
        auto run = RunTool("rebuild-cache", "under traffic", 60s);
        if (!run.error.empty()) {
          problem(run.error);
        }
        note(FaultName(kind), "plauditd rebuild-cache under traffic (" + ms_since(t) + " ms)");
        break;
      }
      case FaultKind::kServerKill: {
        const int i = static_cast<int>(rng() % kInstances);
        servers_[i]->Signal(SIGKILL);
        servers_[i]->Wait(10s);
        StartInstance(i);
        if (!Ready(ports_[i], 30s)) {
          problem("instance " + std::to_string(i) + " not ready 30 s after restart");
        }
        note(FaultName(kind), "instance " + std::to_string(i) +
                                  " SIGKILL under traffic + restart (" + ms_since(t) + " ms)");
        break;
      }
      case FaultKind::kExtraFlush: {
        const int n = 1 + static_cast<int>(rng() % 3);
        const auto until = Clock::now() + std::chrono::milliseconds(400 + rng() % 1500);
        std::vector<std::thread> runs;
        std::vector<std::string> errs(n);
        std::atomic<int> total{0};
        for (int k = 0; k < n; ++k) {
          runs.emplace_back([&, k] {
            for (int j = 0; j < 30 && Clock::now() < until; ++j) {
              ++total;
              auto run = RunTool("flush", "concurrent, under traffic");
              if (!run.error.empty() && errs[k].empty()) {
                errs[k] = run.error;
              }
            }
          });
        }
        for (auto& r : runs) {
          r.join();
        }
        for (const auto& e : errs) {
          if (!e.empty()) {
            problem(e);
          }
        }
        note(FaultName(kind), std::to_string(total.load()) + " plauditd flush runs by " +
                                  std::to_string(n) + " runner(s) under traffic (" + ms_since(t) +
                                  " ms)");
        break;
      }
      case FaultKind::kSqlRestart: {
        const FaultStep step = RestartSql(rng);
        if (!step.error.empty()) {
          problem(step.error);
        }
        note(FaultName(kind), step.note);
        break;
      }
      case FaultKind::kSecondInstance:  // not one of kFaults
        break;
    }
    if (check_after && !checked && Pause(std::string("after ") + FaultName(kind))) {
      Checkpoint(std::string("after ") + FaultName(kind));
      Resume();
    }
  }
}

void ContentFaultTest::StopClients() {
  stop_clients_.store(true);
  gate_.Resume();
  for (auto& c : clients_) {
    if (c.joinable()) {
      c.join();
    }
  }
  clients_.clear();
}

TEST_P(ContentFaultTest, AcknowledgedArticlesAndCommentsReadBackUnderFaults) {
  ASSERT_TRUE(settings_.error.empty()) << settings_.error;
  const auto started = Clock::now();
  log_ = std::make_unique<FaultLog>(started);
  std::printf("[content] %s: seed %llu, %d s of faults, kinds %s\n", GetParam().c_str(),
              static_cast<unsigned long long>(settings_.seed), settings_.seconds,
              settings_.faults_text.c_str());
  std::fflush(stdout);
  Prepare();
  if (HasFatalFailure()) {
    return;
  }
  log_->Add("setup done: 2 instances, " + std::to_string(kUserCount) + " users");

  for (int t = 0; t <= kHeldThread; ++t) {
    gate_.Join();
  }
  for (int t = 0; t <= kHeldThread; ++t) {
    clients_.emplace_back([this, t] { ClientThread(t); });
  }
  FaultPhase();
  StopClients();
  log_->Add("clients stopped");

  // Both instances up, Redis up; then the final checks: as it is, and reloaded from SQL alone.
  if (!redis_->running() || redis_->Cli("PING") != "PONG") {
    findings_.Add("harness", "Redis was down at the end; restarting it");
    redis_->Kill();
    ASSERT_TRUE(redis_->Start());
  }
  for (int i = 0; i < kInstances; ++i) {
    if (!servers_[i]->Running() || !Ready(ports_[i], 30s)) {
      findings_.Add("fault step", "instance " + std::to_string(i) + " not ready at the end");
      servers_[i]->Signal(SIGKILL);
      servers_[i]->Wait(10s);
      StartInstance(i);
      ASSERT_TRUE(Ready(ports_[i], 30s));
    }
  }
  Checkpoint("final");
  const std::string r = redis_->Cli("FLUSHALL");
  if (r != "OK") {
    findings_.Add("harness", "final FLUSHALL answered " + r);
  }
  log_->Add("final: FLUSHALL");
  Checkpoint("final, after FLUSHALL (reloaded from SQL)");

  ThreadStats total;
  size_t articles = 0, comments = 0;
  for (const auto& tm : model_) {
    total.acked += tm.stats.acked;
    total.unanswered += tm.stats.unanswered;
    total.resolved_by_retry += tm.stats.resolved_by_retry;
    total.refused += tm.stats.refused;
    total.reads += tm.stats.reads;
    total.checked_reads += tm.stats.checked_reads;
    total.not_sent += tm.stats.not_sent;
    total.relogins += tm.stats.relogins;
    total.pair_patches += tm.stats.pair_patches;
    articles += tm.arts.size();
    for (const auto& a : tm.arts) {
      comments += a.comments.size();
    }
  }
  std::string kinds;
  for (const auto& [k, n] : fault_counts_) {
    kinds += k + "=" + std::to_string(n) + " ";
  }
  const auto secs = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started);
  // The held client's part, so a run shows it was there (and fails when it did nothing).
  size_t held_counts[4] = {0, 0, 0, 0};
  for (const auto& page : held_pages_) {
    for (const auto& [id, h] : page.comments) {
      ++held_counts[static_cast<int>(h)];
    }
  }
  if (held_counts[static_cast<int>(Held::kApproved)] == 0 ||
      held_counts[static_cast<int>(Held::kSpam)] == 0) {
    findings_.Add("harness", "the held client approved or marked spam no comment");
  }
  if (held_reports_ == 0) {
    findings_.Add("harness", "the held client's readers reported no comment");
  }
  std::printf(
      "[content] held client: %zu pages, %zu comments (%zu pending, %zu approved, %zu spam, "
      "%zu unsure), %llu reads, %llu reports (%llu held their comment), %llu sign-outs tried "
      "on both instances\n",
      held_pages_.size(), held_counts[0] + held_counts[1] + held_counts[2] + held_counts[3],
      held_counts[0], held_counts[1], held_counts[2], held_counts[3],
      (unsigned long long)model_[kHeldThread].stats.reads, (unsigned long long)held_reports_,
      (unsigned long long)held_by_reports_, (unsigned long long)held_sign_outs_);
  std::printf(
      "[content] %s: seed %llu, %.1f s; faults: %s(%d checkpoints)\n"
      "[content]   %zu articles, %zu comments; acked writes %llu (%llu concurrent pairs), "
      "refused %llu, unanswered attempts %llu (%llu settled by a retry), reads %llu (%llu "
      "checked), not sent %llu, logins %llu\n[content]   findings: %s\n",
      GetParam().c_str(), static_cast<unsigned long long>(settings_.seed), secs.count() / 1000.0,
      kinds.c_str(), checkpoints_, articles, comments, (unsigned long long)total.acked,
      (unsigned long long)total.pair_patches, (unsigned long long)total.refused,
      (unsigned long long)total.unanswered, (unsigned long long)total.resolved_by_retry,
      (unsigned long long)total.reads, (unsigned long long)total.checked_reads,
      (unsigned long long)total.not_sent, (unsigned long long)total.relogins,
      findings_.empty() ? "none" : findings_.Summary().c_str());
  const std::string logged = LoggedProblems(dir_.path());
  if (!logged.empty()) {
    std::printf("[content]   logged by plauditd:\n%s", logged.c_str());
  }
  if (findings_.empty()) {
    std::printf("[content]   fault sequence:\n%s", log_->All().c_str());
  }
  std::fflush(stdout);

  if (findings_.empty()) {
    return;
  }
  std::ostringstream report;
  report << "Content fault test on " << GetParam()
         << " failed.\n  Replay: PLAUDIT_CONTENT_SEED=" << settings_.seed
         << " PLAUDIT_CONTENT_SECONDS=" << settings_.seconds
         << " PLAUDIT_CONTENT_FAULTS=" << settings_.faults_text
         << " build/tests/app_tests --gtest_filter='*ContentFaultTest*/" << GetParam()
         << "'\n  (the fault schedule follows from the seed; thread timing does not)\n"
         << "Findings (the first of each kind):\n"
         << findings_.Text(4) << "Fault sequence (t = since the test started):\n"
         << log_->All() << "Warnings and errors logged by plauditd:\n"
         << (logged.empty() ? "    none\n" : logged);
  // Also beside the kept logs (findings.log): a CI log cut short keeps the logs' directory.
  std::ofstream(dir_.path() / "findings.log") << report.str();
  ADD_FAILURE() << report.str();
}

INSTANTIATE_TEST_SUITE_P(Databases, ContentFaultTest,
                         ::testing::Values("sqlite", "postgresql", "mariadb"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace plaudit::testing
