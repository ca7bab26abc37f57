#include "redis/sessions.hpp"

#include <sodium.h>
#include <spdlog/spdlog.h>

#include "common/time.hpp"
#include "redis/keys.hpp"
#include "redis/script.hpp"

namespace plaudit::redis {
namespace {

Status CheckReply(const Result<Reply>& r) {
  PL_CHECK(r);
  if (r->is_error()) {
    return Fail(ErrorCode::kInternal, "redis: " + r->str);
  }
  return {};
}

}  // namespace

SessionStore::SessionStore(Client& client, std::chrono::milliseconds ttl, int max_sessions,
                           SessionCacheOptions cache)
    : client_(client), ttl_(ttl), max_sessions_(max_sessions), cache_max_age_(cache.max_age) {
  if (cache.max_age.count() > 0) {
    cache_.emplace(cache.capacity);
  }
  if (sodium_init() < 0) {
    throw std::runtime_error("libsodium failed to initialise");
  }
}

std::string SessionStore::NewToken() {
  unsigned char raw[32];
  randombytes_buf(raw, sizeof(raw));
  char out[sodium_base64_ENCODED_LEN(32, sodium_base64_VARIANT_URLSAFE_NO_PADDING)];
  sodium_bin2base64(out, sizeof(out), raw, sizeof(raw), sodium_base64_VARIANT_URLSAFE_NO_PADDING);
  return out;
}

std::string SessionStore::HashToken(std::string_view token) {
  unsigned char digest[32];
  crypto_generichash(digest, sizeof(digest), reinterpret_cast<const unsigned char*>(token.data()),
                     token.size(), nullptr, 0);
  char hex[65];
  sodium_bin2hex(hex, sizeof(hex), digest, sizeof(digest));
  return hex;
}

Awaitable<Status> SessionStore::Create(std::string_view token, const SessionData& d) {
  std::string hash = HashToken(token);
  std::string key = keys::Session(hash);
  std::vector<std::vector<std::string>> cmds{
      {"HSET", key, "uid", std::to_string(d.user_id), "ref", std::to_string(NextSlideMs())},
      {"PEXPIRE", key, std::to_string(ttl_.count())}};
  PL_CO_TRY(auto written, co_await client_.Pipeline(std::move(cmds)));
  for (const auto& r : written) {
    if (r.is_error()) {
      co_return Fail(ErrorCode::kInternal, "redis: " + r.str);
    }
  }
  std::vector<std::string> index_keys{keys::UserSessions(d.user_id)};
  std::vector<std::string> args{hash, std::to_string(NowMs()), std::to_string(max_sessions_),
                                std::to_string(ttl_.count())};
  auto evicted = co_await client_.Eval(GetScript("session_index_add.lua"), std::move(index_keys),
                                       std::move(args));
  if (auto st = CheckReply(evicted); !st) {
    co_return st;
  }
  if (!evicted->elements.empty()) {
    // One DEL per session: each sits in a cluster slot of its own.
    std::vector<std::vector<std::string>> cmds;
    const char* publish = client_.ShardedPubSub() ? "SPUBLISH" : "PUBLISH";
    for (const auto& e : evicted->elements) {
      cmds.push_back({"DEL", keys::Session(e.str)});
      if (cache_) {
        cache_->EraseToken(e.str);
      }
      cmds.push_back({publish, kInvalidationChannel, SessionCache::TokenMessage(e.str)});
    }
    auto r = co_await client_.Pipeline(std::move(cmds));
    if (auto st = AllOk(r); !st) {
      co_return st;
    }
  }
  co_return Status{};
}

// One plain HMGET per lookup (a script call costs Redis several times more). The hash's
// `ref` field says when the expiry should next slide: once the session has aged by 1/30 of
// its TTL (a day for the default 30 days), session_touch.lua slides it and moves `ref`, and
// the user's session index slides with it. A session from before `ref` existed slides on its
// first lookup. With the cache usable, a hit costs no Redis command, and a miss adds PTTL to
// the same round trip so the entry cannot outlive the key; nor does it outlive `ref`, so a
// session in use is read, and slid, when its slide is due (else, cached longer than the TTL,
// a busy session would expire under its users).
const SessionData* SessionStore::FindCached(std::string_view token) {
  if (!CacheUsable()) {
    return nullptr;
  }
  const SessionData* hit = cache_->Find(token, SessionCache::Clock::now());
  if (hit) {
    ++cache_hits_;
  }
  return hit;
}

Awaitable<Result<std::optional<SessionData>>> SessionStore::Get(std::string_view token_view) {
  const bool use_cache = CacheUsable();
  if (use_cache) {
    if (const SessionData* hit = FindCached(token_view)) {
      co_return std::optional<SessionData>(*hit);
    }
  }
  std::string token(token_view);  // the view may not outlive the first suspension
  std::string hash = HashToken(token);
  const uint64_t epoch = cache_ ? cache_->epoch() : 0;
  std::string key = keys::Session(hash);
  std::vector<std::vector<std::string>> cmds{{"HMGET", key, "uid", "ref"}};
  if (use_cache) {
    cmds.push_back({"PTTL", key});
  }
  auto replies = co_await client_.Pipeline(std::move(cmds));
  PL_CO_CHECK(AllOk(replies));
  Reply& r = replies->front();
  if (r.elements.size() != 2) {
    co_return std::optional<SessionData>{};
  }
  auto uid = r.elements[0].AsInt();
  if (!uid) {
    co_return std::optional<SessionData>{};
  }
  int64_t pttl_ms = use_cache ? replies->back().AsInt().value_or(-2) : -2;
  auto ref = r.elements[1].AsInt();
  int64_t next_slide_ms = ref.value_or(0);
  if (!ref || NowMs() >= *ref) {
    next_slide_ms = NextSlideMs();
    std::vector<std::string> k{key};
    std::vector<std::string> args{std::to_string(ttl_.count()), std::to_string(next_slide_ms)};
    auto touched =
        co_await client_.Eval(GetScript("session_touch.lua"), std::move(k), std::move(args));
    PL_CO_CHECK(touched);
    if (touched->is_error()) {
      co_return Fail(ErrorCode::kInternal, "redis: " + touched->str);
    }
    if (touched->AsInt() != 1) {
      co_return std::optional<SessionData>{};  // expired meanwhile
    }
    // The index lives as long as its longest-lived session (GT: never shortened). A separate
    // command: the index and the session hash are in different cluster slots.
    std::vector<std::string> slide{"PEXPIRE", keys::UserSessions(*uid),
                                   std::to_string(ttl_.count()), "GT"};
    auto slid = co_await client_.Command(std::move(slide));
    PL_CO_CHECK(CheckReply(slid));
    pttl_ms = ttl_.count();
  }
  SessionData d;
  d.user_id = *uid;
  // -1 (no expiry) cannot happen to a session; -2 (gone meanwhile): not stored.
  if (use_cache && pttl_ms > 0 && CacheUsable()) {
    const int64_t until_slide_ms = next_slide_ms - NowMs();
    auto now = SessionCache::Clock::now();
    auto life = std::min({cache_max_age_, std::chrono::milliseconds(pttl_ms),
                          std::chrono::milliseconds(until_slide_ms)});
    cache_->Put(token, hash, d, now + life, epoch, now);
  }
  co_return std::optional<SessionData>(d);
}

bool SessionStore::CacheUsable() const { return cache_ && cache_live_ && client_.connected(); }

void SessionStore::SetCacheLive(bool subscribed) {
  cache_live_ = subscribed;
  if (cache_) {
    cache_->Clear();
  }
}

void SessionStore::OnInvalidation(std::string_view message) {
  if (cache_) {
    cache_->Apply(message);
  }
}

int64_t SessionStore::NextSlideMs() const {
  return NowMs() + std::max<int64_t>(1, ttl_.count() / 30);
}

Awaitable<Status> SessionStore::Delete(std::string_view token, int64_t user_id) {
  std::string hash = HashToken(token);
  // Gone from this process's cache before Redis is even asked; the others hear it published.
  if (cache_) {
    cache_->EraseToken(hash);
  }
  std::vector<std::vector<std::string>> cmds{{"DEL", keys::Session(hash)},
                                             {"ZREM", keys::UserSessions(user_id), hash}};
  PL_CO_CHECK(co_await client_.Pipeline(std::move(cmds)));
  co_return co_await Publish(SessionCache::TokenMessage(hash));
}

Awaitable<Status> SessionStore::PublishUserChange(int64_t user_id) {
  if (cache_) {
    cache_->EraseUser(user_id);
  }
  co_return co_await Publish(SessionCache::UserMessage(user_id));
}

Awaitable<Status> SessionStore::Publish(std::string message) {
  unsigned char raw[12];
  randombytes_buf(raw, sizeof(raw));
  char nonce[2 * sizeof(raw) + 1];
  sodium_bin2hex(nonce, sizeof(nonce), raw, sizeof(raw));
  const std::string ack_key = keys::InvalidationAck(nonce);
  message.append("#").append(nonce);
  // SPUBLISH on a cluster: its count is every subscriber (Client::ShardedPubSub).
  std::vector<std::string> publish{client_.ShardedPubSub() ? "SPUBLISH" : "PUBLISH",
                                   kInvalidationChannel, std::move(message)};
  auto published = co_await client_.Command(std::move(publish));
  if (auto st = CheckReply(published); !st) {
    co_return st;
  }
  const int64_t receivers = published->AsInt().value_or(0);
  // Usually every receiver has acknowledged by the first or second read (a subscriber applies
  // a message as soon as its loop reads it).
  net::steady_timer pause(co_await net::this_coro::executor);
  const auto deadline = std::chrono::steady_clock::now() + kAckTimeout;
  while (receivers > 0) {
    std::vector<std::string> get{"GET", ack_key};
    auto acked = co_await client_.Command(std::move(get));
    if (auto st = CheckReply(acked); !st) {
      co_return st;
    }
    if (acked->AsInt().value_or(0) >= receivers) {
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      spdlog::warn("invalidation: {} of {} plauditd processes acknowledged within {} ms",
                   acked->AsInt().value_or(0), receivers, kAckTimeout.count());
      break;
    }
    pause.expires_after(std::chrono::milliseconds(1));
    boost::system::error_code ec;
    co_await pause.async_wait(net::redirect_error(net::use_awaitable, ec));
  }
  co_return Status{};
}

Awaitable<void> SessionStore::Acknowledge(std::string message) {
  const auto inv = SessionCache::Parse(message);
  if (inv.ack.empty()) {
    co_return;
  }
  const std::string key = keys::InvalidationAck(inv.ack);
  std::vector<std::vector<std::string>> cmds{
      {"INCR", key}, {"PEXPIRE", key, std::to_string(kAckTimeout.count() * 10)}};
  auto r = co_await client_.Pipeline(std::move(cmds));
  if (auto st = AllOk(r); !st) {
    spdlog::warn("invalidation acknowledgement failed: {}", st.error().message);
  }
}

Awaitable<Status> SessionStore::DeleteUser(int64_t user_id) {
  const std::string index = keys::UserSessions(user_id);
  std::vector<std::string> range{"ZRANGE", index, "0", "-1"};
  auto members = co_await client_.Command(std::move(range));
  if (auto st = CheckReply(members); !st) {
    co_return st;
  }
  // One DEL per key: the sessions and the index sit in different cluster slots.
  std::vector<std::vector<std::string>> cmds;
  for (const auto& m : members->elements) {
    cmds.push_back({"DEL", keys::Session(m.str)});
  }
  cmds.push_back({"DEL", index});
  auto deleted = co_await client_.Pipeline(std::move(cmds));
  if (auto st = AllOk(deleted); !st) {
    co_return st;
  }
  // Sessions the index lost track of are refused anyway: the account is gone in SQL.
  co_return co_await PublishUserChange(user_id);
}

}  // namespace plaudit::redis
